package view

import (
	"testing"
	"time"
)

// tenLines is a corpus invoice of 10 lines without attachments: the size issue #22's
// budget (< 5 ms per render) is stated for.
const tenLines = corpus + "/en16931/examples-cii/CII_example8.xml"

func BenchmarkHTML(b *testing.B) {
	inv, _ := readInvoice(b, tenLines)
	if len(inv.Lines) != 10 {
		b.Fatalf("%d lines, want 10", len(inv.Lines))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := HTML(inv, Options{Language: "de"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHTMLAttachments is the XRechnung comprehensive test invoice: 2 lines but
// attachments of some 300 KB, which the page carries as base64 download links.
func BenchmarkHTMLAttachments(b *testing.B) {
	inv, _ := readInvoice(b, comprehensive)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := HTML(inv, Options{Language: "de"}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRenderTimeFloor is a loose floor (ten times the budget) that holds on a busy CI
// machine but catches an accidental quadratic or a template parsed per call.
func TestRenderTimeFloor(t *testing.T) {
	inv, _ := readInvoice(t, tenLines)
	const n = 20
	start := time.Now()
	for range n {
		if _, err := HTML(inv, Options{Language: "fr"}); err != nil {
			t.Fatal(err)
		}
	}
	if avg := time.Since(start) / n; avg > 50*time.Millisecond {
		t.Fatalf("%s per render of a 10-line invoice, floor 50ms", avg)
	}
}
