package rules

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice/internal/corpus"
)

// fxCase is a corpus invoice changed in one place, the fatal rules that must fail on it
// and those that must not: each case is a disagreement the differential harness
// (bench/einvoicediff) found between our rules and the official Factur-X 1.08 Schematron.
type fxCase struct {
	name, file string
	old, new   string // the change: old must occur exactly once
	fail, pass []string
}

func checkFX(t *testing.T, cases []fxCase) {
	t.Helper()
	checkFXWith(t, "", cases)
}

// checkFXWith is checkFX under a rule set asked for ("" chooses by the document).
func checkFXWith(t *testing.T, ruleSet string, cases []fxCase) {
	t.Helper()
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join(corpus.Dir(t), filepath.FromSlash(c.file)))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), c.old); n != 1 {
			t.Fatalf("%s: %q occurs %d times in %s", c.name, c.old, n, c.file)
		}
		r, err := ValidateWith(context.Background(), []byte(strings.Replace(string(data), c.old, c.new, 1)), Options{RuleSet: ruleSet})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		fatal := map[string]bool{}
		for _, f := range r.Failed() {
			if f.Severity == Fatal {
				fatal[f.ID] = true
			}
		}
		for _, id := range c.fail {
			if !fatal[id] {
				t.Errorf("%s: %s did not fail (fatal: %v)", c.name, id, fatal)
			}
		}
		for _, id := range c.pass {
			if fatal[id] {
				t.Errorf("%s: %s failed", c.name, id)
			}
		}
	}
}

const (
	fxBasic    = "zugferd/2.3-examples/2. BASIC/BASIC_Einfach/factur-x.xml"
	fxForeign  = "zugferd/2.3-examples/4. EXTENDED/EXTENDED_Fremdwaehrung/factur-x.xml"
	fxIntraEU  = "zugferd/2.3-examples/4. EXTENDED/EXTENDED_InnergemeinschLieferungMehrereBestellungen/factur-x.xml"
	cenExample = "en16931/examples-cii/CII_example2.xml"
)

// TestFacturXCodeLists: a Factur-X profile checks codes by its own lists (the profile's
// codedb, FX-SCH-A-… ids), not by CEN's BR-CL rules, and an empty code passes its list
// (string-length($v) = 0 or …). Its BR-47 and BR-48 do not ask for the VAT type code,
// which the tax type code list checks.
func TestFacturXCodeLists(t *testing.T) {
	checkFX(t, []fxCase{
		{"invoice type code", fxBasic, "<ram:TypeCode>380</ram:TypeCode>", "<ram:TypeCode>999</ram:TypeCode>",
			[]string{"FX-SCH-A-000023"}, []string{"BR-CL-01"}},
		{"tax type code", fxBasic, "<ram:TypeCode>VAT</ram:TypeCode>\n        <ram:BasisAmount>", "<ram:TypeCode>VAX</ram:TypeCode>\n        <ram:BasisAmount>",
			[]string{"FX-SCH-A-000023"}, []string{"BR-47", "BR-48"}},
		{"empty buyer country", fxBasic, "<ram:CountryID>DE</ram:CountryID>\n        </ram:PostalTradeAddress>\n      </ram:BuyerTradeParty>",
			"<ram:CountryID></ram:CountryID>\n        </ram:PostalTradeAddress>\n      </ram:BuyerTradeParty>",
			[]string{"BR-11"}, []string{"FX-SCH-A-000036", "BR-CL-14"}},
		{"currency outside the list", fxBasic, "<ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>", "<ram:InvoiceCurrencyCode>XXY</ram:InvoiceCurrencyCode>",
			[]string{"FX-SCH-A-000040"}, []string{"BR-CL-04"}},
	})
}

// TestFacturXStructure: the profile's occurrence rules (FX-SCH-A-… ids): a price needs its
// amount, a document level allowance its reason or code, as the profile's data model has
// them, beside the EN 16931 rule that says so in other words.
func TestFacturXStructure(t *testing.T) {
	checkFX(t, []fxCase{
		{"allowance without amount", fxForeign, "<ram:ActualAmount>21.25</ram:ActualAmount>", "",
			[]string{"FX-SCH-A-000184", "BR-31"}, nil},
		{"seller without name", fxBasic, "<ram:Name>Lieferant GmbH</ram:Name>", "",
			[]string{"FX-SCH-A-000030", "BR-06"}, nil},
	})
}

// TestFacturXVariants: rules the Factur-X Schematron tests otherwise than CEN's CII binding.
// In a profile judged by the Factur-X Schematron alone, the tax representative's country
// (BR-20) and a credit transfer's account (BR-50) need only be there, as elements; the
// EN16931 profile, judged by CEN's rules as well, also fails BR-65 for a product
// classification without a class code, and CII-SR-465 (a seller contact that is both a
// person and a department) as an error, where CEN warns.
func TestFacturXVariants(t *testing.T) {
	checkFX(t, []fxCase{
		{"empty tax representative country", fxForeign, "<ram:CountryID>DE</ram:CountryID>\n\t\t\t\t</ram:PostalTradeAddress>\n\t\t\t\t<ram:SpecifiedTaxRegistration>\n\t\t\t\t\t<ram:ID schemeID=\"VA\">DE1334567",
			"<ram:CountryID></ram:CountryID>\n\t\t\t\t</ram:PostalTradeAddress>\n\t\t\t\t<ram:SpecifiedTaxRegistration>\n\t\t\t\t\t<ram:ID schemeID=\"VA\">DE1334567",
			nil, []string{"BR-20", "FX-SCH-A-000036"}},
		{"empty IBAN", fxForeign, "<ram:IBANID>DE77 3707 0060 0321 9870 00</ram:IBANID>", "<ram:IBANID></ram:IBANID>",
			nil, []string{"BR-50"}},
		{"classification without code", cenExample, "<ram:ClassCode listID=\"STI\">65434568</ram:ClassCode>", "",
			[]string{"BR-65"}, nil},
		{"seller contact person and department", cenExample, "<ram:PersonName>Antonio Salesmacher</ram:PersonName>",
			"<ram:PersonName>Antonio Salesmacher</ram:PersonName><ram:DepartmentName>Sales</ram:DepartmentName>",
			[]string{"CII-SR-465"}, nil},
	})
}

// TestFacturXExtendedTotals: the EXTENDED totals rules as they run. BR-FXEXT-CO-15 binds
// the VAT total in the invoice currency in a for expression, so an invoice without one
// fails even where the totals with and without VAT are equal (its text's "else" branch
// never passes). BR-FXEXT-CO-11 sums the allowances as xs:double: a sum a cent off the
// total is a little more than a cent off (21.26 is 21.2600000000000015…), beyond the
// tolerance of a cent for one allowance; one of exactly a cent is within it.
func TestFacturXExtendedTotals(t *testing.T) {
	checkFX(t, []fxCase{
		{"no VAT total, totals equal", fxIntraEU, "<ram:TaxTotalAmount currencyID=\"EUR\">0.00</ram:TaxTotalAmount>", "",
			[]string{"BR-FXEXT-CO-15"}, nil},
		{"VAT total of 0", fxIntraEU, "<ram:TaxTotalAmount currencyID=\"EUR\">0.00</ram:TaxTotalAmount>", "<ram:TaxTotalAmount currencyID=\"EUR\">0.00</ram:TaxTotalAmount>",
			nil, []string{"BR-FXEXT-CO-15"}},
		{"allowance a cent off its total", fxForeign, "<ram:ActualAmount>21.25</ram:ActualAmount>", "<ram:ActualAmount>21.26</ram:ActualAmount>",
			[]string{"BR-FXEXT-CO-11"}, nil},
		// 21.25 is a double exactly: a total a cent below it is a cent off, within tolerance.
		{"allowance total a cent off", fxForeign, "<ram:AllowanceTotalAmount>21.25</ram:AllowanceTotalAmount>", "<ram:AllowanceTotalAmount>21.24</ram:AllowanceTotalAmount>",
			nil, []string{"BR-FXEXT-CO-11"}},
	})
}

// TestFacturXSchema: a Factur-X profile's own schema judges its documents (FX-XSD): a
// duplicated element or an amount that is no number is not an e-invoice of the profile,
// as xmllint with the profile's XSD says (CII-XSD, for D16B, is off for the profiles).
func TestFacturXSchema(t *testing.T) {
	checkFX(t, []fxCase{
		{"postcode twice", fxBasic, "<ram:PostcodeCode>80333</ram:PostcodeCode>", "<ram:PostcodeCode>80333</ram:PostcodeCode><ram:PostcodeCode>80333</ram:PostcodeCode>",
			[]string{"FX-XSD"}, nil},
		{"rate that is no number", fxBasic, "<ram:RateApplicablePercent>19.00</ram:RateApplicablePercent>", "<ram:RateApplicablePercent>G</ram:RateApplicablePercent>",
			[]string{"FX-XSD"}, nil},
		{"as published", fxBasic, "<ram:PostcodeCode>80333</ram:PostcodeCode>", "<ram:PostcodeCode>80333</ram:PostcodeCode>",
			nil, []string{"FX-XSD"}},
	})
}

// TestExactDecimal: xs:decimal of an xs:double is its exact binary value.
func TestExactDecimal(t *testing.T) {
	for f, want := range map[float64]string{
		21.26: "21.260000000000001563194018672220408916473388671875",
		0.5:   "0.5",
		-0.1:  "-0.1000000000000000055511151231257827021181583404541015625",
		1e20:  "100000000000000000000",
	} {
		if got := exactDecimal(f).String(); got != want {
			t.Errorf("%v: %s, want %s", f, got, want)
		}
	}
}
