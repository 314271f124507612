package receipt

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/fault"
)

func eur(t *testing.T, s string) einvoice.Decimal {
	t.Helper()
	d, err := einvoice.ParseDecimal(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// readDATEV decodes a batch as DATEV's import would: Windows-1252, semicolons, quotes.
func readDATEV(t *testing.T, b []byte) [][]string {
	t.Helper()
	text, err := charmap.Windows1252.NewDecoder().Bytes(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(b, []byte("\r\n")) || bytes.Contains(bytes.ReplaceAll(b, []byte("\r\n"), nil), []byte("\n")) {
		t.Error("lines must end in CRLF")
	}
	r := csv.NewReader(bytes.NewReader(text))
	r.Comma, r.FieldsPerRecord = ';', -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestDATEV(t *testing.T) {
	rows := []Data{
		{Date: "2026-03-02", Issuer: "ALDI SÜD", Reference: "Bon 8746/1", Net: eur(t, "20.36"), VAT: eur(t, "3.87"), Gross: eur(t, "24.23"), PaymentMethod: "CASH", SKR03Account: "4980", SKR04Account: "6850"},
		{Date: "2026-03-05", Issuer: "Buchhandlung", Net: eur(t, "18.69"), VAT: eur(t, "1.31"), Gross: eur(t, "20.00"), PaymentMethod: "DEBIT_CARD", Type: "CASH_RECEIPT"},
		{Date: "2026-03-07", Issuer: "Markt", Net: eur(t, "10.00"), VAT: eur(t, "1.30"), Gross: eur(t, "11.30"), Currency: "EUR"},
		{Date: "2026-03-09", Issuer: "Rückgabe", Net: eur(t, "-8.40"), VAT: eur(t, "-1.60"), Gross: eur(t, "-10.00"), SKR03Account: "4980", SKR04Account: "6850"},
		{Date: "2026-03-10", Issuer: "Porto", Gross: eur(t, "0.95"), SKR03Account: "4910", SKR04Account: "6800"},
	}
	created := time.Date(2026, 3, 11, 9, 30, 0, 0, time.UTC)
	for _, chart := range []string{"SKR03", "skr04"} {
		b, err := DATEV(rows, DATEVOptions{Chart: chart, Consultant: 29098, Client: 55003, Created: created})
		if err != nil {
			t.Fatal(err)
		}
		recs := readDATEV(t, b)
		if len(recs) != 2+len(rows) {
			t.Fatalf("%s: %d lines", chart, len(recs))
		}
		h := recs[0]
		if len(h) != 31 || h[0] != "EXTF" || h[1] != "700" || h[2] != "21" || h[3] != "Buchungsstapel" || h[4] != "13" ||
			h[5] != "20260311093000000" || h[10] != "29098" || h[11] != "55003" || h[12] != "20260101" || h[13] != "4" ||
			h[14] != "20260302" || h[15] != "20260310" || h[21] != "EUR" {
			t.Errorf("%s header: %q", chart, h)
		}
		if want := map[string]string{"SKR03": "03", "skr04": "04"}[chart]; h[26] != want {
			t.Errorf("%s: Sachkontenrahmen %q", chart, h[26])
		}
		if len(recs[1]) != 125 || recs[1][0] != "Umsatz (ohne Soll/Haben-Kz)" || recs[1][8] != "BU-Schlüssel" || recs[1][124] != "Abw. Skontokonto" {
			t.Errorf("field names: %d %q", len(recs[1]), recs[1][:10])
		}
		type booking struct{ amount, side, account, contra, key, date, ref, text string }
		cash, bank := "1000", "1200"
		acc := func(s03, s04 string) string { return s03 }
		if chart == "skr04" {
			cash, bank = "1600", "1800"
			acc = func(s03, s04 string) string { return s04 }
		}
		want := []booking{
			{"24,23", "S", acc("4980", "6850"), cash, "9", "0203", "Bon8746/1", "ALDI SÜD"},
			// No account given: the suggestion for a receipt of that type and issuer.
			{"20,00", "S", acc("4980", "6850"), bank, "8", "0503", "", "Buchhandlung"},
			// 13 % is no German rate: no key, and the text says to split it.
			{"11,30", "S", acc("4980", "6850"), cash, "", "0703", "", "USt aufteilen: Markt"},
			{"10,00", "H", acc("4980", "6850"), cash, "9", "0903", "", "Rückgabe"},
			{"0,95", "S", acc("4910", "6800"), cash, "", "1003", "", "Porto"},
		}
		for i, w := range want {
			r := recs[2+i]
			got := booking{r[0], r[1], r[6], r[7], r[8], r[9], r[10], r[13]}
			if len(r) != 125 || got != w {
				t.Errorf("%s booking %d: %d fields, %+v, want %+v", chart, i+1, len(r), got, w)
			}
		}
		if recs[2][114] != "02032026" {
			t.Errorf("Leistungsdatum %q", recs[2][114])
		}
	}

	// A contra account given for all, e.g. a credit card clearing account.
	b, err := DATEV(rows[:1], DATEVOptions{ContraAccount: "1360"})
	if err != nil {
		t.Fatal(err)
	}
	if r := readDATEV(t, b)[2]; r[7] != "1360" {
		t.Errorf("contra %q", r[7])
	}
}

func TestDATEVRefuses(t *testing.T) {
	ok := Data{Date: "2026-03-02", Gross: eur(t, "5.00")}
	for _, c := range []struct {
		rows []Data
		o    DATEVOptions
		want string
	}{
		{nil, DATEVOptions{}, "no receipts"},
		{[]Data{ok, {Gross: eur(t, "1.00")}}, DATEVOptions{}, "receipt 2 has no date"},
		{[]Data{{Date: "2026-03-02"}}, DATEVOptions{}, "receipt 1 has no gross amount"},
		{[]Data{{Date: "2026-03-02", Gross: eur(t, "5.00"), Currency: "CHF"}}, DATEVOptions{}, "CHF"},
		{[]Data{ok, {Date: "2027-01-02", Gross: eur(t, "5.00")}}, DATEVOptions{}, "one batch per fiscal year"},
		{[]Data{ok}, DATEVOptions{FiscalYearStart: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)}, "beyond the fiscal year"},
		{[]Data{ok}, DATEVOptions{Chart: "SKR49"}, "SKR03 or SKR04"},
		{[]Data{ok}, DATEVOptions{Consultant: 12}, "1001 to 9999999"},
		{[]Data{ok}, DATEVOptions{Client: 100000}, "1 to 99999"},
		{[]Data{ok}, DATEVOptions{ContraAccount: "12"}, "four digits"},
	} {
		_, err := DATEV(c.rows, c.o)
		if err == nil || fault.CodeOf(err) != fault.InvalidInput || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v", c.want, err)
		}
	}
	// A fiscal year from July holds receipts of two calendar years.
	if _, err := DATEV([]Data{{Date: "2026-12-30", Gross: eur(t, "1.00")}, {Date: "2027-02-01", Gross: eur(t, "1.00")}},
		DATEVOptions{FiscalYearStart: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Error(err)
	}
}
