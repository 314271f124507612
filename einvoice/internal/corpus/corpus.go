// Package corpus finds the shared test corpus and lists its e-invoices, for the tests of
// the e-invoice packages.
package corpus

import (
	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// Dir is the corpus root (../shared/corpus beside the checkout).
func Dir(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("test corpus not found at %s: %v", dir, err)
	}
	return dir
}

// Schema paths below Dir.
const (
	SchemaCII        = "schemas/cii-d16b/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd"
	SchemaUBLInvoice = "schemas/ubl-2.1/maindoc/UBL-Invoice-2.1.xsd"
	SchemaUBLCredit  = "schemas/ubl-2.1/maindoc/UBL-CreditNote-2.1.xsd"
)

// FacturXSchema is the profile schema of a Factur-X profile folder name (MINIMUM, BASICWL,
// BASIC, EN16931, EXTENDED).
func FacturXSchema(profile string) string {
	return "schemas/factur-x-1.07.2/Factur-X_1.07.2_" + profile + "/Factur-X_1.07.2_" + profile + ".xsd"
}

// Files lists corpus files below dir (relative to Dir) whose names satisfy keep.
func Files(t testing.TB, sub string, keep func(name string) bool) []string {
	root := filepath.Join(Dir(t), sub)
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && keep(strings.ToLower(d.Name())) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// CII lists the CII invoices of the corpus: XRechnung test suite, EN 16931 examples and the
// ZUGFeRD 2.3 examples' XML.
func CII(t testing.TB) []string {
	var out []string
	out = append(out, Files(t, "xrechnung-testsuite", func(n string) bool { return strings.HasSuffix(n, "_uncefact.xml") })...)
	out = append(out, Files(t, "en16931/examples-cii", func(n string) bool { return strings.HasSuffix(n, ".xml") })...)
	out = append(out, Files(t, "zugferd/2.3-examples", func(n string) bool { return strings.HasSuffix(n, ".xml") })...)
	return out
}

// UBL lists the UBL invoices and credit notes of the corpus.
func UBL(t testing.TB) []string {
	var out []string
	out = append(out, Files(t, "xrechnung-testsuite", func(n string) bool { return strings.HasSuffix(n, "_ubl.xml") })...)
	out = append(out, Files(t, "en16931/examples-ubl", func(n string) bool { return strings.HasSuffix(n, ".xml") })...)
	return out
}

// Leaves lists every text value and attribute value of an XML tree as "path=value" with
// local names, counted, so two documents can be compared for lost content.
func Leaves(n *xmlc.Node) map[string]int {
	out := map[string]int{}
	var walk func(n *xmlc.Node, prefix string)
	walk = func(n *xmlc.Node, prefix string) {
		p := prefix + "/" + n.Local
		for _, a := range n.Attrs {
			// An attribute qualifies a value; on an empty element it says nothing.
			if a.Local != "schemaLocation" && (n.Text != "" || len(n.Kids) > 0) {
				out[p+"/@"+a.Local+"="+a.Value]++
			}
		}
		if len(n.Kids) == 0 && n.Text != "" {
			v := n.Text
			if d, err := einvoice.ParseDecimal(v); err == nil {
				v = d.Value().String() // "100." and "100" are one number
			}
			if strings.HasSuffix(p, "Indicator") { // xsd:boolean: 1 is true, 0 is false
				v = map[string]string{"1": "true", "0": "false"}[v] + strings.TrimLeft(v, "01")
			}
			out[p+"="+v]++
		}
		for _, k := range n.Kids {
			walk(k, p)
		}
	}
	walk(n, "")
	return out
}

// Missing lists the leaves of a that b lacks.
func Missing(a, b map[string]int) []string {
	var out []string
	for k, n := range a {
		if b[k] < n {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// ublDate is a UBL date element with its value.
var ublDate = regexp.MustCompile(`<cbc:(\w*Date)>(\d{4}-\d{2}-\d{2})</cbc:\w*Date>`)

// WithZones gives every date of a UBL document a time zone, in turn +01:00, Z and -05:00
// (xs:date allows one), and returns how many it changed.
func WithZones(doc string) (string, int) {
	zones := []string{"+01:00", "Z", "-05:00"}
	k := 0
	out := ublDate.ReplaceAllStringFunc(doc, func(m string) string {
		p := ublDate.FindStringSubmatch(m)
		k++
		return "<cbc:" + p[1] + ">" + p[2] + zones[k%len(zones)] + "</cbc:" + p[1] + ">"
	})
	return out, k
}

// ZonedUBL are corpus invoices with invoice and line periods, XRechnung and plain EN 16931,
// invoice and credit note: the inputs of the tests of dates with a time zone.
var ZonedUBL = []string{
	"xrechnung-testsuite/business-cases/standard/03.01a-INVOICE_ubl.xml",
	"en16931/examples-ubl/ubl-tc434-example5.xml",
	"en16931/examples-ubl/ubl-tc434-creditnote1.xml",
}

// Zoned reads the corpus file rel and answers it as it is and with WithZones applied; a file
// with fewer than three dates fails the test (it would prove little).
func Zoned(t testing.TB, rel string) (orig, zoned []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Dir(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	doc, k := WithZones(string(data))
	if k < 3 {
		t.Fatalf("only %d dates in %s", k, rel)
	}
	return data, []byte(doc)
}
