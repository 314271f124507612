package receipt

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/text/encoding/charmap"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/lazyre"
)

// DATEVOptions are the batch's header values and the chart its accounts come from.
type DATEVOptions struct {
	Chart           string    // SKR03 (default) or SKR04
	Consultant      int       // Beraternummer, 1001 to 9999999; default 1001
	Client          int       // Mandantennummer, 1 to 99999; default 1
	FiscalYearStart time.Time // Wirtschaftsjahr-Beginn; default 1 January of the receipts' year
	ContraAccount   string    // Gegenkonto for every receipt; default Kasse or Bank by payment method
	Created         time.Time // Erzeugt am; default now
}

// datevColumns are the 125 fields of a Buchungsstapel record in format version 13, in
// DATEV's order; the second line of the file names them.
var datevColumns = []string{
	"Umsatz (ohne Soll/Haben-Kz)", "Soll/Haben-Kennzeichen", "WKZ Umsatz", "Kurs", "Basis-Umsatz",
	"WKZ Basis-Umsatz", "Konto", "Gegenkonto (ohne BU-Schlüssel)", "BU-Schlüssel", "Belegdatum", "Belegfeld 1",
	"Belegfeld 2", "Skonto", "Buchungstext", "Postensperre", "Diverse Adressnummer", "Geschäftspartnerbank",
	"Sachverhalt", "Zinssperre", "Beleglink", "Beleginfo - Art 1", "Beleginfo - Inhalt 1", "Beleginfo - Art 2",
	"Beleginfo - Inhalt 2", "Beleginfo - Art 3", "Beleginfo - Inhalt 3", "Beleginfo - Art 4",
	"Beleginfo - Inhalt 4", "Beleginfo - Art 5", "Beleginfo - Inhalt 5", "Beleginfo - Art 6",
	"Beleginfo - Inhalt 6", "Beleginfo - Art 7", "Beleginfo - Inhalt 7", "Beleginfo - Art 8",
	"Beleginfo - Inhalt 8", "KOST1 - Kostenstelle", "KOST2 - Kostenstelle", "Kost-Menge", "EU-Land u. UStID",
	"EU-Steuersatz", "Abw. Versteuerungsart", "Sachverhalt L+L", "Funktionsergänzung L+L",
	"BU 49 Hauptfunktionstyp", "BU 49 Hauptfunktionsnummer", "BU 49 Funktionsergänzung",
	"Zusatzinformation - Art 1", "Zusatzinformation - Inhalt 1", "Zusatzinformation - Art 2",
	"Zusatzinformation - Inhalt 2", "Zusatzinformation - Art 3", "Zusatzinformation - Inhalt 3",
	"Zusatzinformation - Art 4", "Zusatzinformation - Inhalt 4", "Zusatzinformation - Art 5",
	"Zusatzinformation - Inhalt 5", "Zusatzinformation - Art 6", "Zusatzinformation - Inhalt 6",
	"Zusatzinformation - Art 7", "Zusatzinformation - Inhalt 7", "Zusatzinformation - Art 8",
	"Zusatzinformation - Inhalt 8", "Zusatzinformation - Art 9", "Zusatzinformation - Inhalt 9",
	"Zusatzinformation - Art 10", "Zusatzinformation - Inhalt 10", "Zusatzinformation - Art 11",
	"Zusatzinformation - Inhalt 11", "Zusatzinformation - Art 12", "Zusatzinformation - Inhalt 12",
	"Zusatzinformation - Art 13", "Zusatzinformation - Inhalt 13", "Zusatzinformation - Art 14",
	"Zusatzinformation - Inhalt 14", "Zusatzinformation - Art 15", "Zusatzinformation - Inhalt 15",
	"Zusatzinformation - Art 16", "Zusatzinformation - Inhalt 16", "Zusatzinformation - Art 17",
	"Zusatzinformation - Inhalt 17", "Zusatzinformation - Art 18", "Zusatzinformation - Inhalt 18",
	"Zusatzinformation - Art 19", "Zusatzinformation - Inhalt 19", "Zusatzinformation - Art 20",
	"Zusatzinformation - Inhalt 20", "Stück", "Gewicht", "Zahlweise", "Forderungsart", "Veranlagungsjahr",
	"Zugeordnete Fälligkeit", "Skontotyp", "Auftragsnummer", "Buchungstyp", "USt-Schlüssel (Anzahlungen)",
	"EU-Land (Anzahlungen)", "Sachverhalt L+L (Anzahlungen)", "EU-Steuersatz (Anzahlungen)",
	"Erlöskonto (Anzahlungen)", "Herkunft-Kz", "Leerfeld", "KOST-Datum", "SEPA-Mandatsreferenz", "Skontosperre",
	"Gesellschaftername", "Beteiligtennummer", "Identifikationsnummer", "Zeichnernummer", "Postensperre bis",
	"Bezeichnung SoBil-Sachverhalt", "Kennzeichen SoBil-Buchung", "Festschreibung", "Leistungsdatum",
	"Datum Zuord. Steuerperiode", "Fälligkeit", "Generalumkehr", "Steuersatz", "Land", "Abrechnungsreferenz",
	"BVV-Position (Betriebsvermögensvergleich)", "EU-Mitgliedstaat u. UStID (Ursprung)",
	"EU-Steuersatz (Ursprung)", "Abw. Skontokonto",
}

// Indexes of the fields we fill.
const (
	colAmount     = 0   // Umsatz (ohne Soll/Haben-Kz)
	colDebitCred  = 1   // Soll/Haben-Kennzeichen
	colCurrency   = 2   // WKZ Umsatz
	colAccount    = 6   // Konto
	colContra     = 7   // Gegenkonto (ohne BU-Schlüssel)
	colTaxKey     = 8   // BU-Schlüssel
	colDate       = 9   // Belegdatum
	colReference  = 10  // Belegfeld 1
	colText       = 13  // Buchungstext
	colFixed      = 113 // Festschreibung
	colSupplyDate = 114 // Leistungsdatum
)

// Contra accounts of the standard charts: where a receipt was paid from.
var contraAccounts = map[string]struct{ cash, bank string }{
	"SKR03": {"1000", "1200"}, // Kasse, Bank
	"SKR04": {"1600", "1800"},
}

// BU keys of the standard charts for input tax (Vorsteuer) on a domestic purchase.
var inputTaxKeys = []struct {
	rate decimal.Decimal
	key  string
}{{decimal.NewFromInt(19), "9"}, {decimal.NewFromInt(7), "8"}}

var fourDigits = lazyre.New(`^[0-9]{4}$`)

// referenceChars are those Belegfeld 1 may not hold.
var referenceChars = lazyre.New(`[^A-Za-z0-9$&%*+\-/]`)

// DATEV writes the receipts as a DATEV Buchungsstapel (EXTF format 700, category 21, version
// 13): the header record, the field names, one booking per receipt, semicolons, a decimal comma,
// CRLF, Windows-1252. A receipt is booked as gross on its expense account of the chart against
// Kasse (cash, or no payment method) or Bank, with BU key 9 when its VAT is 19 % of the net and
// 8 when it is 7 %. A receipt whose VAT is neither (several rates, or no net) is booked
// without a key and says so in its text, to be split by hand; DATEV would otherwise book the
// wrong input tax. Receipts need a date and a gross amount in euros, and must fall into one
// fiscal year.
func DATEV(rows []Data, o DATEVOptions) ([]byte, error) {
	if err := checkExport(rows); err != nil {
		return nil, err
	}
	if err := o.defaults(); err != nil {
		return nil, err
	}
	var from, to time.Time
	for i, d := range rows {
		if d.Date == "" || d.Date.Time().IsZero() {
			return nil, fault.New(fault.InvalidInput, "receipt %d has no date; DATEV books by date", i+1)
		}
		if d.Gross.IsZero() || d.Gross.Value().IsZero() {
			return nil, fault.New(fault.InvalidInput, "receipt %d has no gross amount", i+1)
		}
		if d.Currency != "" && d.Currency != "EUR" {
			return nil, fault.New(fault.InvalidInput, "receipt %d is in %s; a DATEV batch needs the amount in EUR", i+1, d.Currency)
		}
		t := d.Date.Time()
		if from.IsZero() || t.Before(from) {
			from = t
		}
		if t.After(to) {
			to = t
		}
	}
	if o.FiscalYearStart.IsZero() {
		o.FiscalYearStart = time.Date(from.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if end := o.FiscalYearStart.AddDate(1, 0, 0); from.Before(o.FiscalYearStart) || !to.Before(end) {
		return nil, fault.New(fault.InvalidInput, "the receipts run from %s to %s, beyond the fiscal year %s to %s: export one batch per fiscal year",
			from.Format(time.DateOnly), to.Format(time.DateOnly), o.FiscalYearStart.Format(time.DateOnly), end.AddDate(0, 0, -1).Format(time.DateOnly))
	}

	var b strings.Builder
	header := []string{`"EXTF"`, "700", "21", `"Buchungsstapel"`, "13", o.Created.UTC().Format("20060102150405") + "000",
		"", `"PK"`, `"Papierkram"`, `""`, strconv.Itoa(o.Consultant), strconv.Itoa(o.Client),
		o.FiscalYearStart.Format("20060102"), "4", from.Format("20060102"), to.Format("20060102"),
		`"Belege"`, `""`, "1", "0", "0", `"EUR"`, "", `""`, "", "", `"` + strings.TrimPrefix(o.Chart, "SKR") + `"`, "", "", `""`, `""`}
	b.WriteString(strings.Join(header, ";") + "\r\n")
	b.WriteString(strings.Join(datevColumns, ";") + "\r\n")
	for _, d := range rows {
		rec := make([]string, len(datevColumns))
		amount, side := d.Gross.Value(), "S"
		if amount.IsNegative() { // a refund: the expense account is credited
			amount, side = amount.Neg(), "H"
		}
		account := d.SKR03Account
		if o.Chart == "SKR04" {
			account = d.SKR04Account
		}
		if account == "" {
			a := Suggest(d.Type, strings.ToLower(d.Issuer))
			account = a.SKR03
			if o.Chart == "SKR04" {
				account = a.SKR04
			}
		}
		text := d.Issuer
		key, ok := taxKey(d)
		if !ok {
			text = "USt aufteilen: " + text
		}
		t := d.Date.Time()
		rec[colAmount] = strings.Replace(amount.StringFixed(2), ".", ",", 1)
		rec[colDebitCred] = quote(side)
		rec[colCurrency] = quote("EUR")
		rec[colAccount] = account
		rec[colContra] = o.contra(d.PaymentMethod)
		rec[colTaxKey] = quote(key)
		rec[colDate] = t.Format("0201")
		rec[colReference] = quote(limit(referenceChars.ReplaceAllString(d.Reference, ""), 36))
		rec[colText] = quote(limit(text, 60))
		rec[colFixed] = "0"
		rec[colSupplyDate] = t.Format("02012006")
		b.WriteString(strings.Join(rec, ";") + "\r\n")
	}
	// Windows-1252 is what DATEV reads; a character it lacks becomes "?" rather than failing
	// the whole batch over one issuer's name.
	var out bytes.Buffer
	for _, r := range b.String() {
		if e, ok := charmap.Windows1252.EncodeRune(r); ok {
			out.WriteByte(e)
		} else {
			out.WriteByte('?')
		}
	}
	return out.Bytes(), nil
}

func (o *DATEVOptions) defaults() error {
	switch strings.ToUpper(o.Chart) {
	case "", "SKR03":
		o.Chart = "SKR03"
	case "SKR04":
		o.Chart = "SKR04"
	default:
		return fault.New(fault.InvalidInput, "chart %q: use SKR03 or SKR04", o.Chart)
	}
	if o.Consultant == 0 {
		o.Consultant = 1001
	}
	if o.Consultant < 1001 || o.Consultant > 9999999 {
		return fault.New(fault.InvalidInput, "consultant number %d: DATEV takes 1001 to 9999999", o.Consultant)
	}
	if o.Client == 0 {
		o.Client = 1
	}
	if o.Client < 1 || o.Client > 99999 {
		return fault.New(fault.InvalidInput, "client number %d: DATEV takes 1 to 99999", o.Client)
	}
	if o.ContraAccount != "" && !fourDigits.MatchString(o.ContraAccount) {
		return fault.New(fault.InvalidInput, "contra account %q: four digits, as the batch's account length", o.ContraAccount)
	}
	if o.Created.IsZero() {
		o.Created = time.Now()
	}
	return nil
}

func (o *DATEVOptions) contra(payment string) string {
	if o.ContraAccount != "" {
		return o.ContraAccount
	}
	c := contraAccounts[o.Chart]
	if payment == "" || payment == "CASH" {
		return c.cash
	}
	return c.bank
}

// taxKey finds the BU key from the receipt's VAT share of its net amount (or of its gross,
// when the net is missing). A receipt without VAT gets no key and is fine as it is; one whose
// share matches no single rate is reported as not ok.
func taxKey(d Data) (string, bool) {
	vat := d.VAT.Value()
	if d.VAT.IsZero() || vat.IsZero() {
		return "", true
	}
	net := d.Net.Value()
	if d.Net.IsZero() || net.IsZero() {
		net = d.Gross.Value().Sub(vat)
	}
	if net.IsZero() {
		return "", false
	}
	for _, k := range inputTaxKeys {
		// Rounding on the receipt: within one cent per line for the usual few lines.
		want := net.Mul(k.rate).Div(decimal.NewFromInt(100))
		if want.Sub(vat).Abs().LessThanOrEqual(decimal.New(2, -2)) {
			return k.key, true
		}
	}
	return "", false
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func limit(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
