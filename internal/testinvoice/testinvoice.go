// Package testinvoice makes e-invoices for tests out of the corpus. Only tests import it.
package testinvoice

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Large is the XRechnung test suite's comprehensive CII invoice with its line items repeated
// copies times: a valid invoice whose rules take long (rules that look across the document
// run at every line).
func Large(t testing.TB, copies int) []byte {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(here), "../../../shared/corpus/xrechnung-testsuite/technical-cases/cius/01.01_comprehensive_test_uncefact.xml")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	open, end := "<ram:IncludedSupplyChainTradeLineItem>", "</ram:IncludedSupplyChainTradeLineItem>"
	i, j := strings.Index(s, open), strings.LastIndex(s, end)+len(end)
	if i < 0 || j < i {
		t.Fatal("no line items in the corpus invoice")
	}
	return []byte(s[:i] + strings.Repeat(s[i:j], copies) + s[j:])
}
