package rules

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice/internal/corpus"
	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
	"github.com/papierkram/papierkram/fault"
)

const panicDoc = `<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
 xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
 <cbc:ID>1</cbc:ID><cbc:Note>abc</cbc:Note><cbc:LineExtensionAmount>1,5</cbc:LineExtensionAmount>
 <cbc:ChargeIndicator>maybe</cbc:ChargeIndicator><cbc:ChargeIndicator>true</cbc:ChargeIndicator>
</Invoice>`

// runOne runs one injected pattern on panicDoc and returns what run answers and what was
// logged.
func runOne(t *testing.T, p pattern) ([]Result, error, string) {
	t.Helper()
	var log bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&log, nil)))
	defer slog.SetDefault(prev)
	root, err := xmlc.Parse(context.Background(), []byte(panicDoc))
	if err != nil {
		t.Fatal(err)
	}
	res, err := run(context.Background(), newDocument(root, prefixes), []*compiled{compilePattern(p)}, nil)
	return res, err, log.String()
}

// TestRulePanicIsInternalError: a rule that panics (a bug of ours) must not become a failed
// rule on the customer's invoice: validation answers an internal error naming the rule,
// and the panic is logged with the rule and its stack. Before, safe() turned it into a
// failed fatal rule.
func TestRulePanicIsInternalError(t *testing.T) {
	var nilMap map[string]*N
	for _, c := range []struct {
		part string
		p    pattern
	}{
		{"test", pattern{{at("/ubl:Invoice"), []assert{
			row("TEST-PANIC-TEST", Fatal, "panics in its test", func(n *N) bool { return nilMap["x"].Has("cbc:ID") }),
		}}}},
		{"context", pattern{{where(func(n *N) bool { return nilMap["x"].Is("cbc:ID") }), []assert{
			row("TEST-PANIC-CONTEXT", Fatal, "panics in its context", func(*N) bool { return true }),
		}}}},
		{"message", pattern{{at("/ubl:Invoice"), []assert{{
			id: "TEST-PANIC-MESSAGE", flag: Fatal, msg: "panics in its message",
			test: func(*N) bool { return false },
			why:  func(n *N) string { return nilMap["x"].Text },
		}}}}},
	} {
		id := c.p[0].asserts[0].id
		res, err, log := runOne(t, c.p)
		if !fault.Is(err, fault.Internal) {
			t.Errorf("%s: want an internal error, got %v and results %+v", c.part, err, res)
			continue
		}
		if msg := fault.As(err).Message; !strings.Contains(msg, id) || !strings.Contains(msg, "bug of ours") {
			t.Errorf("%s: the error does not name the rule as our bug: %q", c.part, msg)
		}
		for _, want := range []string{"rule=" + id, "part=" + c.part, "nil pointer dereference", "panic_test.go"} {
			if !strings.Contains(log, want) {
				t.Errorf("%s: the log lacks %q:\n%s", c.part, want, log)
			}
		}
	}
}

// TestDynamicErrorFailsRule: what XPath raises a dynamic error for (a value that is not a
// decimal or a boolean where the rule casts it) still fails the rule, without an error,
// in the rule's test and in its context alike; other elements are unaffected.
func TestDynamicErrorFailsRule(t *testing.T) {
	res, err, log := runOne(t, pattern{
		{atIf(func(n *N) bool { return n.DecVal().IsZero() }, "cbc:Note"), []assert{
			row("TEST-CONTEXT-CAST", Fatal, "never applies: its context casts a non-decimal", func(*N) bool { return false }),
		}},
		{at("cbc:LineExtensionAmount", "cbc:ID"), []assert{
			row("TEST-CAST", Fatal, "a decimal", func(n *N) bool { return n.DecVal().GreaterThanOrEqual(n.DecVal()) }),
		}},
		{at("/ubl:Invoice"), []assert{
			row("TEST-BOOLEAN", Fatal, "a boolean", charge(true)),
		}},
	})
	if err != nil {
		t.Fatalf("a dynamic error became %v (log %s)", err, log)
	}
	verdict := map[string]bool{}
	for _, r := range res {
		verdict[r.ID+" "+r.Location] = r.Passed
	}
	want := map[string]bool{
		"TEST-CAST /Invoice[1]/cbc:ID[1]":                  true,
		"TEST-CAST /Invoice[1]/cbc:LineExtensionAmount[1]": false,
		// "maybe" is no boolean: the rule fails though the next indicator is true.
		"TEST-BOOLEAN /Invoice[1]": false,
	}
	for k, v := range want {
		if got, ok := verdict[k]; !ok || got != v {
			t.Errorf("%s: passed %v (present %v), want %v; all %v", k, got, ok, v, verdict)
		}
	}
	if len(verdict) != len(want) {
		t.Errorf("results %v, want %v", verdict, want)
	}
	if log != "" {
		t.Errorf("a dynamic error was logged as a panic: %s", log)
	}
}

// TestMissingOperandFailsRule: rules whose XPath compares a missing element (an empty
// sequence: the comparison is false) fail on such invoices, as the official rule does,
// instead of tripping over the missing element (which would now be an internal error).
func TestMissingOperandFailsRule(t *testing.T) {
	const (
		ubl = "xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_ubl.xml"
		cii = "xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_uncefact.xml"
	)
	for _, c := range []struct {
		file, rule string
		old, new   []string
	}{
		// A price allowance with a gross price, but no net price to compare.
		{ubl, "PEPPOL-EN16931-R046", []string{`<cbc:PriceAmount currencyID="EUR">288.79</cbc:PriceAmount>`},
			[]string{`<cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:Amount currencyID="EUR">1</cbc:Amount><cbc:BaseAmount currencyID="EUR">289.79</cbc:BaseAmount></cac:AllowanceCharge>`}},
		// A gross price without a net price.
		{cii, "PEPPOL-EN16931-R046", []string{"<ram:NetPriceProductTradePrice>", "</ram:NetPriceProductTradePrice>"},
			[]string{"<ram:GrossPriceProductTradePrice>", "</ram:GrossPriceProductTradePrice>"}},
		// A price directly below the root: ../../.. of its base quantity is empty.
		{cii, "PEPPOL-EN16931-R130", []string{"<rsm:ExchangedDocumentContext>"},
			[]string{`<ram:NetPriceProductTradePrice><ram:BasisQuantity unitCode="XPP">1</ram:BasisQuantity></ram:NetPriceProductTradePrice><rsm:ExchangedDocumentContext>`}},
	} {
		data, err := os.ReadFile(filepath.Join(corpus.Dir(t), c.file))
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		for i := range c.old {
			if !strings.Contains(s, c.old[i]) {
				t.Fatalf("%q not in %s", c.old[i], c.file)
			}
			s = strings.Replace(s, c.old[i], c.new[i], 1)
		}
		r, err := Validate(context.Background(), []byte(s))
		if err != nil {
			t.Errorf("%s %s: %v", filepath.Ext(strings.TrimSuffix(c.file, ".xml")), c.rule, err)
			continue
		}
		if !slices.ContainsFunc(r.Failed(), func(x Result) bool { return x.ID == c.rule }) {
			t.Errorf("%s: %s did not fail; failed: %v", c.file, c.rule, r.Failed())
		}
	}
}
