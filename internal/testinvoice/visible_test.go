package testinvoice

import (
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
)

func TestValuesAndMissing(t *testing.T) {
	inv := &einvoice.Invoice{
		Number: " A  1 ", Test: true, IssueDate: "2026-11-03",
		Totals:    einvoice.Totals{LineTotal: einvoice.MustDecimal("-1234567.50")},
		Seller:    einvoice.Party{Identifiers: []einvoice.Identifier{{ID: "x", Scheme: "0088"}}},
		Payment:   einvoice.Payment{CreditTransfers: []einvoice.CreditTransfer{{AccountID: "DE02120300000000202051", Proprietary: true}}},
		Documents: []einvoice.SupportingDocument{{ID: "d", Attachment: einvoice.Attachment{File: []byte("%PDF"), Filename: "a.pdf"}}},
	}
	var got []string
	for _, v := range Values(inv) {
		got = append(got, v.Path+"="+v.Kind+":"+v.Raw)
	}
	want := []string{
		"Number=string: A  1 ", "IssueDate=date:2026-11-03", "Seller.Identifiers[0].ID=string:x",
		"Seller.Identifiers[0].Scheme=string:0088", "Payment.CreditTransfers[0].AccountID=account:DE02120300000000202051",
		"Totals.LineTotal=decimal:-1234567.50", "Documents[0].ID=string:d", "Documents[0].Attachment.Filename=string:a.pdf",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("values:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for lang, s := range map[string][2]string{
		"de": {"-1.234.567,50", "03.11.2026"}, "en": {"-1,234,567.50", "3 Nov 2026"}, "fr": {"-1 234 567,50", "03/11/2026"},
	} {
		page := "<html><head><title>A 1</title><style>x0088</style></head><body><p>A\n1</p><td>" + s[0] + "</td>" + s[1] +
			"<b>x</b> (0088) DE02 1203 0000 0000 2020 <i>51</i> a.pdf d</body></html>"
		if m, err := Missing(inv, []byte(page), lang); err != nil || len(m) != 0 {
			t.Errorf("%s: missing %q, %v", lang, m, err)
		}
		// Without the body, everything is missing: head, title and style are not visible.
		m, _ := Missing(inv, []byte(strings.Split(page, "<body>")[0]), lang)
		if len(m) != len(want) {
			t.Errorf("%s: %d missing from an empty body, want %d: %q", lang, len(m), len(want), m)
		}
	}
	if Expect(Value{Kind: "date", Raw: "2026-13-01"}, "de") != "2026-13-01" {
		t.Error("an invalid date is not expected as written")
	}
}
