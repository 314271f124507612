package receipt

import (
	"encoding/base64"
	"net/http"
	"strings"
)

// ReportTemplate is the built-in expense report (Spesenbeleg), in the template language of
// package tmpl; a stored template given instead receives the same data (see ReportData).
const ReportTemplate = `<!doctype html>
<html lang="de"><head><meta charset="utf-8"><title>{{title}}</title>
<style>
@page { size: A4; margin: 18mm 16mm; }
body { font-family: "Liberation Sans", Arial, sans-serif; font-size: 10pt; color: #1d2733; }
h1 { font-size: 20pt; margin: 0 0 2mm; color: #17324d; }
.sub { color: #5b6b7b; margin-bottom: 8mm; }
table { border-collapse: collapse; width: 100%; margin-bottom: 6mm; }
th, td { text-align: left; padding: 1.6mm 2mm; border-bottom: 0.3pt solid #c9d3dd; vertical-align: top; }
th { width: 38%; color: #5b6b7b; font-weight: normal; }
td.num, th.num { text-align: right; }
h2 { font-size: 12pt; margin: 6mm 0 2mm; color: #17324d; }
.grid th { width: auto; background: #eef2f6; color: #1d2733; font-weight: bold; }
.total td { font-weight: bold; border-top: 0.8pt solid #17324d; }
.receipt { page-break-before: always; text-align: center; }
.receipt img { max-width: 100%; max-height: 225mm; border: 0.3pt solid #c9d3dd; }
.sign { margin-top: 14mm; display: flex; gap: 20mm; }
.sign div { flex: 1; border-top: 0.5pt solid #1d2733; padding-top: 1mm; color: #5b6b7b; }
</style></head><body>
<h1>{{title}}</h1>
<div class="sub">{{issuer}}{#date} · {{date date}}{/date}{#time} · {{time}} Uhr{/time}</div>
<table>
<tr><th>Aussteller</th><td>{{issuer}}{#issuerAddress}<br>{{issuerAddress}}{/issuerAddress}{#issuerVatId}<br>USt-IdNr. {{issuerVatId}}{/issuerVatId}</td></tr>
<tr><th>Belegart</th><td>{{typeName}}</td></tr>
<tr><th>Belegnummer</th><td>{{reference}}</td></tr>
<tr><th>Zahlungsart</th><td>{{paymentName}}</td></tr>
<tr><th>Kategorie</th><td>{{category}}</td></tr>
<tr><th>Konto SKR03 / SKR04</th><td>{{skr03}} / {{skr04}}</td></tr>
</table>
<h2>Beträge</h2>
<table class="grid">
<tr><th>Steuersatz</th><th class="num">Netto</th><th class="num">USt</th><th class="num">Brutto</th></tr>
{#vat}<tr><td>{{rate}} %</td><td class="num">{{money net}}</td><td class="num">{{money vat}}</td><td class="num">{{money gross}}</td></tr>{/vat}
<tr class="total"><td>Summe</td><td class="num">{#net}{{money net}}{/net}</td><td class="num">{#vatAmount}{{money vatAmount}}{/vatAmount}</td><td class="num">{#gross}{{money gross}}{/gross}</td></tr>
</table>
{#hasItems}<h2>Positionen</h2>
<table class="grid"><tr><th>Bezeichnung</th><th class="num">Menge</th><th class="num">Betrag</th></tr>
{#items}<tr><td>{{description}}</td><td class="num">{{quantity}}</td><td class="num">{{money total}}</td></tr>{/items}
</table>{/hasItems}
{#accountNote}<p>{{accountNote}}</p>{/accountNote}
<div class="sign"><div>Datum, Unterschrift Einreichende/r</div><div>Geprüft, freigegeben</div></div>
{#image}<div class="receipt"><h2>Originalbeleg</h2>{{image image}}</div>{/image}
</body></html>`

var typeNames = map[string]string{
	CashReceipt: "Kassenbon", Restaurant: "Bewirtungsbeleg", Parking: "Parkschein", Train: "Bahnfahrkarte",
	Flight: "Flugticket", Bus: "Busfahrkarte", Taxi: "Taxiquittung", Hotel: "Hotelrechnung", Fuel: "Tankbeleg", Invoice: "Rechnung",
}

var paymentNames = map[string]string{
	Cash: "Bar", DebitCard: "Debitkarte (girocard)", CreditCard: "Kreditkarte", Mobile: "Mobile Zahlung", Transfer: "Überweisung",
}

// ReportData is what the expense report template receives: the extraction's fields under
// flat names, and the receipt image as a data: URL.
func ReportData(r *Result, title string) map[string]any {
	d := r.Data
	m := map[string]any{
		"title": title, "issuer": d.Issuer, "issuerAddress": r.Issuer.Address, "issuerVatId": r.Issuer.VATID,
		"date": string(d.Date), "time": d.Time, "type": d.Type, "typeName": typeNames[d.Type],
		"reference": d.Reference, "currency": d.Currency, "paymentMethod": d.PaymentMethod, "paymentName": paymentNames[d.PaymentMethod],
		"category": d.ExpenseCategory, "skr03": d.SKR03Account, "skr04": d.SKR04Account, "accountNote": r.Accounts.Note,
		"hasItems": len(r.Items) > 0,
	}
	if m["currency"] == "" {
		m["currency"] = "EUR"
	}
	for k, v := range map[string]string{"net": d.Net.String(), "vatAmount": d.VAT.String(), "gross": d.Gross.String()} {
		if v != "" {
			m[k] = v
		}
	}
	var vat []any
	for _, l := range r.VAT {
		vat = append(vat, map[string]any{"rate": strings.ReplaceAll(l.Rate.String(), ".", ","), "net": l.Net.String(), "vat": l.VAT.String(), "gross": l.Gross.String(), "currency": m["currency"]})
	}
	m["vat"] = vat
	var items []any
	for _, it := range r.Items {
		items = append(items, map[string]any{"description": it.Description, "quantity": it.Quantity.String(), "total": it.Total.String(), "currency": m["currency"]})
	}
	m["items"] = items
	if len(r.Image) > 0 {
		img := compactPNG(r.Image)
		m["image"] = "data:" + http.DetectContentType(img) + ";base64," + base64.StdEncoding.EncodeToString(img)
	}
	return m
}
