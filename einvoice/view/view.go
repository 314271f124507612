package view

import (
	"bytes"
	"embed"
	"encoding/base64"
	"github.com/papierkram/papierkram/internal/lazyre"
	"html/template"
	"net/url"
	"strings"
	"sync"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/fault"
)

// Options steer HTML.
type Options struct {
	// Language is "de" (the default when ""), "en" or "fr".
	Language string
	// Report is the validation verdict shown as a banner and a section at the end; nil
	// shows neither.
	Report *rules.Report
	// Print shapes the page for the PDF: attachments are listed but not embedded as
	// download links, since a printed data: URI helps nobody and bloats the file.
	Print bool
	// Syntax ("CII" or "UBL") and Profile are shown in a small source line; either may be "".
	Syntax  string
	Profile string
}

//go:embed page.html
var files embed.FS

var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page.html").Option("missingkey=error").ParseFS(files, "page.html"))
})

// labelsBy holds each language's labels as the map the template reads.
var labelsBy = sync.OnceValue(func() [3]map[string]string {
	var out [3]map[string]string
	for i := range out {
		out[i] = make(map[string]string, len(labels))
		for k, v := range labels {
			out[i][k] = v[i]
		}
	}
	return out
})

// Languages are the languages HTML writes, the default first.
func Languages() []string { return append([]string(nil), languages...) }

// Supported reports whether HTML writes language ("" is the default, German).
func Supported(language string) bool { _, ok := langIndex(language); return ok }

// PageWord is the word before a page number in language, for a printed footer.
func PageWord(language string) string { li, _ := langIndex(language); return labels["page"][li] }

// Title is the page's title, the document's kind and number: "Rechnung 471102",
// "Gutschrift 12", "Invoice 471102", "Facture 471102". An unknown language is German.
func Title(inv *einvoice.Invoice, language string) string {
	li, _ := langIndex(language)
	if inv == nil {
		return labels["invoice"][li]
	}
	word := labels["invoice"][li]
	if inv.IsCreditNote() {
		word = labels["creditNote"][li]
	}
	if n := collapse(inv.Number); n != "" {
		return word + " " + n
	}
	return word
}

// HTML renders the invoice as one self-contained page: inline CSS, no script, no external
// resource, so it shows the same in a browser, a mail client and Chromium's PDF printer.
func HTML(inv *einvoice.Invoice, o Options) ([]byte, error) {
	li, ok := langIndex(o.Language)
	if !ok {
		return nil, fault.New(fault.InvalidInput, "unknown language %q; one of de, en, fr", o.Language).With("language", o.Language)
	}
	if inv == nil {
		return nil, fault.New(fault.InvalidInput, "no invoice to show")
	}
	f := format{lang: li, labels: labelsBy()[li]}
	p := build(inv, o, f)
	var b bytes.Buffer
	b.Grow(32 << 10)
	if err := page().Execute(&b, p); err != nil {
		// The template is ours and the data plain strings: a failure is a bug.
		return nil, fault.Wrap(fault.Internal, err, "rendering the invoice view")
	}
	return b.Bytes(), nil
}

// The page's data: every value already formatted, so the template only places text.
type (
	pageData struct {
		Lang, Title string
		L           map[string]string
		Print, Test bool
		Source      string
		Banner      *banner
		Header      []fact
		Preceding   [][3]string
		Parties     []block
		Delivery    []fact
		Lines       []lineRow
		AC          []acRow
		VAT         []vatRow
		Totals      []fact
		Prepaid     [][3]string
		Payment     []fact
		Transfers   [][3]string
		Card        []fact
		DirectDebit []fact
		Notes       []noteRow
		Documents   []docRow
		Failed      []failRow
	}
	// fact is a label with one or more lines of value.
	fact struct {
		Label string
		Lines []string
	}
	block struct {
		Heading string
		Facts   []fact
	}
	lineRow struct {
		Depth       int
		Charge      bool // an allowance or charge row under its line
		Pos         string
		Name        string
		Description string
		Details     []string
		Qty         string
		Price       []string
		VAT         []string
		Net         string
	}
	acRow struct {
		Kind, Reason, Base, Percentage, VAT, Amount string
	}
	vatRow struct {
		Category, Rate, Taxable, Tax, Exemption string
	}
	noteRow struct {
		Subject, Text, ContentCode string
	}
	docRow struct {
		ID, Description, TypeCode string
		URI                       string
		Link                      string // URI when it is http or https
		FileName, FileInfo        string
		Download                  template.URL
	}
	banner struct {
		Valid            bool
		Errors, Warnings int
	}
	failRow struct {
		ID, Severity, Message, Location string
	}
)

func build(inv *einvoice.Invoice, o Options, f format) *pageData {
	L := f.labels
	p := &pageData{Lang: languages[f.lang], Title: Title(inv, languages[f.lang]), L: L, Print: o.Print, Test: inv.Test}
	var src []string
	if s := strings.TrimSpace(o.Syntax); s != "" {
		src = append(src, s)
	}
	if s := strings.TrimSpace(o.Profile); s != "" {
		src = append(src, L["profile"]+" "+s)
	}
	p.Source = strings.Join(src, " · ")

	cur := inv.Currency
	add := func(fs *[]fact, label string, lines ...string) {
		var keep []string
		for _, l := range lines {
			if strings.TrimSpace(l) != "" {
				keep = append(keep, l)
			}
		}
		if len(keep) > 0 {
			*fs = append(*fs, fact{Label: label, Lines: keep})
		}
	}

	h := &p.Header
	add(h, L["docType"], f.coded("type", inv.TypeCode))
	add(h, L["docName"], inv.DocumentName)
	add(h, L["number"], inv.Number)
	add(h, L["issueDate"], f.date(inv.IssueDate))
	add(h, L["dueDate"], f.date(inv.DueDate))
	add(h, L["invoicingPeriod"], f.period(inv.InvoicingPeriod))
	add(h, L["taxPointDate"], f.date(inv.TaxPointDate))
	add(h, L["taxPointDateCode"], f.coded("taxpoint", inv.TaxPointDateCode))
	add(h, L["currency"], inv.Currency)
	add(h, L["taxCurrency"], inv.TaxCurrency)
	add(h, L["buyerReference"], inv.BuyerReference)
	add(h, L["projectReference"], inv.ProjectReference)
	add(h, L["projectName"], inv.ProjectName)
	add(h, L["contract"], inv.ContractReference)
	add(h, L["purchaseOrder"], inv.PurchaseOrderReference)
	add(h, L["salesOrder"], inv.SalesOrderReference)
	add(h, L["receivingAdvice"], inv.ReceivingAdviceReference)
	add(h, L["despatchAdvice"], inv.DespatchAdviceReference)
	add(h, L["tender"], inv.TenderReference)
	add(h, L["objectId"], f.id(inv.ObjectIdentifier))
	add(h, L["buyerAccounting"], inv.BuyerAccountingReference)
	add(h, L["businessProcess"], inv.BusinessProcess)
	add(h, L["specification"], inv.Specification)
	for _, pi := range inv.PrecedingInvoices {
		p.Preceding = append(p.Preceding, [3]string{pi.Number, f.date(pi.IssueDate), f.coded("type", pi.TypeCode)})
	}

	for _, x := range []struct {
		key string
		pt  *einvoice.Party
	}{{"seller", &inv.Seller}, {"buyer", &inv.Buyer}, {"payee", &inv.Payee}, {"taxRep", &inv.TaxRepresentative}} {
		if x.key != "seller" && x.key != "buyer" && x.pt.IsZero() && x.pt.TaxNumberScheme == "" {
			continue
		}
		p.Parties = append(p.Parties, block{Heading: L[x.key], Facts: party(x.pt, f, add)})
	}

	d := &p.Delivery
	add(d, L["deliverTo"], inv.Delivery.PartyName)
	add(d, L["locationId"], f.id(inv.Delivery.LocationID))
	add(d, L["deliveryDate"], f.date(inv.Delivery.Date))
	add(d, L["address"], address(inv.Delivery.Address)...)

	for i := range inv.Lines {
		p.Lines = lines(p.Lines, &inv.Lines[i], 0, f, cur)
	}

	for _, x := range []struct {
		key string
		acs []einvoice.AllowanceCharge
	}{{"allowance", inv.Allowances}, {"charge", inv.AllCharges()}} { // logistics fees (EXTENDED) among the charges
		for _, ac := range x.acs {
			p.AC = append(p.AC, acRow{
				Kind:       L[x.key],
				Reason:     reason(ac, f),
				Base:       f.money(ac.BaseAmount, cur),
				Percentage: f.pct(ac.Percentage),
				VAT:        join(" ", f.coded("vat", ac.VATCategory), f.pct(ac.VATRate)),
				Amount:     f.money(ac.Amount, cur),
			})
		}
	}
	for _, v := range inv.VATBreakdown {
		p.VAT = append(p.VAT, vatRow{
			Category:  f.coded("vat", v.Category),
			Rate:      f.pct(v.Rate),
			Taxable:   f.money(v.TaxableAmount, cur),
			Tax:       f.money(v.TaxAmount, cur),
			Exemption: join(" ", v.ExemptionReason, bracket(v.ExemptionReasonCode)),
		})
	}

	t, tt := &p.Totals, inv.Totals
	add(t, L["lineTotal"], f.money(tt.LineTotal, cur))
	add(t, L["allowanceTotal"], f.money(tt.AllowanceTotal, cur))
	add(t, L["chargeTotal"], f.money(tt.ChargeTotal, cur))
	add(t, L["netTotal"], f.money(tt.NetTotal, cur))
	add(t, L["vatTotal"], f.money(tt.VATTotal, cur))
	add(t, L["vatTotalAccounting"], f.money(tt.VATTotalAccounting, inv.TaxCurrency))
	add(t, L["grossTotal"], f.money(tt.GrossTotal, cur))
	add(t, L["paid"], f.money(tt.PaidAmount, cur))
	add(t, L["rounding"], f.money(tt.RoundingAmount, cur))
	add(t, L["amountDue"], f.money(tt.AmountDue, cur))
	for _, pp := range inv.PrepaidPayments {
		p.Prepaid = append(p.Prepaid, [3]string{pp.ID, pp.Description, f.money(pp.Amount, cur)})
	}

	pay, pm := &p.Payment, inv.Payment
	add(pay, L["means"], f.coded("means", pm.MeansCode))
	add(pay, L["meansText"], pm.MeansText)
	add(pay, L["remittance"], pm.RemittanceInformation)
	add(pay, L["terms"], inv.PaymentTerms)
	for _, ct := range pm.CreditTransfers {
		acct := ct.AccountID
		if !ct.Proprietary {
			acct = iban(acct)
		}
		p.Transfers = append(p.Transfers, [3]string{acct, ct.AccountName, ct.ServiceProvider})
	}
	add(&p.Card, L["cardNumber"], pm.Card.Number)
	add(&p.Card, L["cardHolder"], pm.Card.HolderName)
	add(&p.Card, L["network"], pm.Card.Network)
	add(&p.DirectDebit, L["mandate"], pm.DirectDebit.MandateID)
	add(&p.DirectDebit, L["creditorId"], pm.DirectDebit.CreditorID)
	add(&p.DirectDebit, L["debitedAccount"], iban(pm.DirectDebit.DebitedAccountID))

	for _, n := range inv.Notes {
		p.Notes = append(p.Notes, noteRow{Subject: f.coded("note", n.SubjectCode), Text: n.Text, ContentCode: n.ContentCode})
	}
	for _, sd := range inv.Documents {
		r := docRow{ID: sd.ID, Description: sd.Description, TypeCode: f.coded("type", sd.TypeCode), URI: sd.URI}
		if isWebLink(sd.URI) {
			r.Link = strings.TrimSpace(sd.URI)
		}
		if a := sd.Attachment; !a.IsZero() {
			r.FileName = a.Filename
			r.FileInfo = join(", ", a.ContentType, f.size(len(a.File)))
			if !o.Print && len(a.File) > 0 {
				r.Download = template.URL("data:" + safeMIME(a.ContentType) + ";base64," + base64.StdEncoding.EncodeToString(a.File))
				if r.FileName == "" {
					r.FileName = sd.ID
				}
			}
		}
		p.Documents = append(p.Documents, r)
	}

	if r := o.Report; r != nil {
		p.Banner = &banner{Valid: r.Valid, Errors: r.Summary.Errors, Warnings: r.Summary.Warnings}
		for _, x := range r.Results {
			if x.Passed {
				continue
			}
			sev := string(x.Severity)
			if w, ok := L[sev]; ok && sev != "" {
				sev = w
			}
			loc := x.Location
			if x.Line > 0 {
				loc = join(" ", loc, "("+L["line"]+" "+itoa(x.Line)+")")
			}
			p.Failed = append(p.Failed, failRow{ID: x.ID, Severity: sev, Message: x.Message, Location: loc})
		}
	}
	return p
}

func party(pt *einvoice.Party, f format, add func(*[]fact, string, ...string)) []fact {
	L := f.labels
	var fs []fact
	add(&fs, L["name"], pt.Name)
	add(&fs, L["tradingName"], pt.TradingName)
	add(&fs, L["address"], address(pt.Address)...)
	add(&fs, L["vatId"], pt.VATID)
	tax := pt.TaxNumber
	if pt.TaxNumberScheme != "" {
		tax = join(" ", tax, "("+L["scheme"]+" "+pt.TaxNumberScheme+")")
	}
	add(&fs, L["taxNumber"], tax)
	add(&fs, L["legalReg"], f.id(pt.LegalRegistration))
	var ids []string
	for _, id := range pt.Identifiers {
		ids = append(ids, f.id(id))
	}
	add(&fs, L["identifier"], ids...)
	add(&fs, L["electronicAddress"], f.id(pt.ElectronicAddress))
	add(&fs, L["contact"], pt.Contact.Name)
	add(&fs, L["department"], pt.Contact.Department)
	add(&fs, L["phone"], pt.Contact.Phone)
	add(&fs, L["email"], pt.Contact.Email)
	add(&fs, L["legalInfo"], pt.LegalInfo)
	add(&fs, L["description"], pt.Description)
	return fs
}

// address is a postal address in the German order: street lines, post code and city,
// region, country code.
func address(a einvoice.Address) []string {
	return []string{a.Line1, a.Line2, a.Line3, join(" ", a.PostCode, a.City), a.Subdivision, a.Country}
}

// lines appends a line, its allowances and charges, and its sub-lines (depth first).
func lines(out []lineRow, l *einvoice.Line, depth int, f format, cur string) []lineRow {
	L := f.labels
	it := l.Item
	var det []string
	detail := func(label, v string) {
		if strings.TrimSpace(v) != "" {
			det = append(det, label+L["colon"]+v)
		}
	}
	detail(L["sellerId"], it.SellerID)
	detail(L["buyerId"], it.BuyerID)
	detail(L["standardId"], f.id(it.StandardID))
	for _, c := range it.Classifications {
		v := c.ID
		if c.Scheme != "" || c.Version != "" {
			v = join(" ", v, "("+join(" ", L["scheme"]+" "+c.Scheme, join(" ", labelIf(L["version"], c.Version), c.Version))+")")
		}
		detail(L["classification"], v)
	}
	detail(L["origin"], it.OriginCountry)
	for _, a := range it.Attributes {
		if strings.TrimSpace(a.Value) == "" {
			det = append(det, a.Name)
		} else {
			detail(a.Name, a.Value)
		}
	}
	detail(L["note"], l.Note)
	detail(L["objectId"], f.id(l.ObjectIdentifier))
	detail(L["orderLine"], l.OrderLineReference)
	detail(L["accountingRef"], l.AccountingReference)
	detail(L["period"], f.period(l.Period))
	detail(L["status"], l.StatusReasonCode)

	pr := l.Price
	var price []string
	if s := f.money(pr.Net, cur); s != "" {
		price = append(price, s)
	}
	if s := f.money(pr.Gross, cur); s != "" {
		price = append(price, L["grossPrice"]+" "+s)
	}
	if s := f.money(pr.Discount, cur); s != "" {
		price = append(price, L["priceDiscount"]+" "+s)
	}
	if s := join(" ", f.num(pr.BaseQuantity), unit(f, pr.BaseQuantityUnit)); s != "" {
		price = append(price, L["per"]+" "+s)
	}
	if s := join(" ", f.num(pr.GrossBaseQuantity), unit(f, pr.GrossBaseQuantityUnit)); s != "" {
		price = append(price, L["grossPrice"]+" "+L["per"]+" "+s)
	}
	var vat []string
	for _, s := range []string{f.coded("vat", l.VATCategory), f.pct(l.VATRate), l.VATExemptionReason} {
		if s != "" {
			vat = append(vat, s)
		}
	}
	out = append(out, lineRow{
		Depth: depth, Pos: l.ID, Name: it.Name, Description: it.Description, Details: det,
		Qty: join(" ", f.num(l.Quantity), unit(f, l.Unit)), Price: price, VAT: vat, Net: f.money(l.NetAmount, cur),
	})
	for _, x := range []struct {
		key string
		acs []einvoice.AllowanceCharge
	}{{"allowance", l.Allowances}, {"charge", l.Charges}} {
		for _, ac := range x.acs {
			var d []string
			if s := f.pct(ac.Percentage); s != "" {
				d = append(d, join(" ", s, labelIf(L["of"], f.num(ac.BaseAmount)), f.money(ac.BaseAmount, cur)))
			} else if s := f.money(ac.BaseAmount, cur); s != "" {
				d = append(d, L["baseAmount"]+" "+s)
			}
			if s := join(" ", f.coded("vat", ac.VATCategory), f.pct(ac.VATRate)); s != "" {
				d = append(d, L["vat"]+" "+s)
			}
			out = append(out, lineRow{Depth: depth, Charge: true, Name: join(L["colon"], L[x.key], reason(ac, f)), Details: d, Net: f.money(ac.Amount, cur)})
		}
	}
	for i := range l.SubLines {
		out = lines(out, &l.SubLines[i], depth+1, f, cur)
	}
	return out
}

func unit(f format, code string) string {
	if code == "" {
		return ""
	}
	if w, ok := words["unit"][strings.TrimSpace(code)]; ok {
		return w[f.lang] + " (" + code + ")"
	}
	return code
}

func reason(ac einvoice.AllowanceCharge, f format) string {
	if ac.ReasonCode == "" {
		return ac.Reason
	}
	return join(" ", ac.Reason, "("+f.labels["code"]+" "+ac.ReasonCode+")")
}

// join joins the non-blank parts.
func join(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}

func labelIf(label, v string) string {
	if strings.TrimSpace(v) == "" {
		return ""
	}
	return label
}

func bracket(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return "(" + s + ")"
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// isWebLink admits only absolute http and https URLs as links; anything else (javascript:,
// data:, file:, relative paths) is shown as text.
func isWebLink(s string) bool {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Host == "" {
		return false
	}
	return u.Scheme == "http" || u.Scheme == "https"
}

var mimeRE = lazyre.New(`^[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]{0,63}/[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]{0,63}$`)

// safeMIME is the attachment's type for its data: URI: a well-formed type that a browser
// will not run as a document (HTML, SVG, XML or script), else application/octet-stream.
// The download attribute already asks for saving, this is the second lock.
func safeMIME(m string) string {
	m = strings.ToLower(strings.TrimSpace(m))
	if !mimeRE.MatchString(m) || strings.Contains(m, "html") || strings.Contains(m, "xml") ||
		strings.Contains(m, "svg") || strings.Contains(m, "script") {
		return "application/octet-stream"
	}
	return m
}
