package ubl_test

import (
	"context"
	"encoding/json"
	"github.com/papierkram/papierkram/fault"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice/internal/corpus"
	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
	"github.com/papierkram/papierkram/einvoice/ubl"
)

// xsdValid checks data against a corpus schema with xmllint.
func xsdValid(t *testing.T, data []byte, schema string) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "out.xml")
	if err := os.WriteFile(f, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("xmllint", "--noout", "--schema", filepath.Join(corpus.Dir(t), schema), f).CombinedOutput()
	if err != nil {
		t.Fatalf("not valid against %s: %v\n%s", filepath.Base(schema), err, out)
	}
}

func TestCorpusRoundTrip(t *testing.T) {
	for _, file := range corpus.UBL(t) {
		name := strings.TrimPrefix(file, corpus.Dir(t)+"/")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			inv, err := ubl.Read(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			out, err := ubl.Write(inv)
			if err != nil {
				t.Fatal(err)
			}
			schema := corpus.SchemaUBLInvoice
			if inv.IsCreditNote() {
				schema = corpus.SchemaUBLCredit
			}
			xsdValid(t, out, schema)
			again, err := ubl.Read(context.Background(), out)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(inv)
			b, _ := json.Marshal(again)
			if string(a) != string(b) {
				t.Errorf("model changed by a round trip:\n%s\n%s", a, b)
			}
			srcTree, _ := xmlc.Parse(context.Background(), src)
			outTree, _ := xmlc.Parse(context.Background(), out)
			if miss := corpus.Missing(corpus.Leaves(srcTree), corpus.Leaves(outTree)); len(miss) > 0 {
				t.Errorf("lost %d values:\n%s", len(miss), strings.Join(miss, "\n"))
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	for _, file := range corpus.UBL(f)[:8] {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
	f.Add([]byte(`<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := ubl.Read(context.Background(), data)
		if err != nil {
			if c := fault.CodeOf(err); c != fault.InvalidInput && c != fault.PayloadTooLarge {
				t.Fatalf("error of code %s: %v", c, err)
			}
			return
		}
		if _, err := ubl.Write(inv); err != nil && fault.CodeOf(err) != fault.InvalidInput {
			t.Fatalf("write: %v", err)
		}
	})
}
