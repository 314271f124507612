package cii_test

import (
	"context"
	"encoding/json"
	"github.com/papierkram/papierkram/fault"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/cii"
	"github.com/papierkram/papierkram/einvoice/internal/corpus"
	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
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

func schemaFor(p einvoice.Profile) string {
	switch p {
	case einvoice.Minimum, einvoice.BasicWL, einvoice.Basic, einvoice.EN16931, einvoice.Extended:
		return corpus.FacturXSchema(string(p))
	}
	return corpus.SchemaCII
}

func TestCorpusRoundTrip(t *testing.T) {
	for _, file := range corpus.CII(t) {
		name := strings.TrimPrefix(file, corpus.Dir(t)+"/")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			inv, err := cii.Read(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			profile := einvoice.ProfileOf(inv.Specification)
			if profile == "" {
				profile = einvoice.EN16931
			}
			out, err := cii.Write(inv, cii.Options{})
			if err != nil {
				t.Fatal(err)
			}
			xsdValid(t, out, schemaFor(profile))
			again, err := cii.Read(context.Background(), out)
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
			var miss []string
			for _, m := range corpus.Missing(corpus.Leaves(srcTree), corpus.Leaves(outTree)) {
				// EXTENDED carries more than EN 16931; what the model does not hold must at
				// least be nothing the EN 16931 profile has.
				path, _, _ := strings.Cut(m, "=")
				path = strings.TrimPrefix(path, "/CrossIndustryInvoice/")
				if profile == einvoice.Extended && (!cii.Allowed(einvoice.EN16931, path) || extendedOnly(path)) {
					continue
				}
				miss = append(miss, m)
			}
			if len(miss) > 0 {
				t.Errorf("lost %d values:\n%s", len(miss), strings.Join(miss, "\n"))
			}
		})
	}
}

// extendedOnly are paths the EN16931 schema has only because it shares the type with a
// business term elsewhere; no EN 16931 term lives there, but EXTENDED files fill them.
func extendedOnly(path string) bool {
	for _, p := range []string{
		"SupplyChainTradeTransaction/ApplicableHeaderTradeDelivery/ShipToTradeParty/URIUniversalCommunication/",                                             // ship-to contact data: EXTENDED
		"SupplyChainTradeTransaction/ApplicableHeaderTradeDelivery/ShipToTradeParty/DefinedTradeContact/",                                                   // ship-to contact data: EXTENDED
		"SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeAgreement/BuyerOrderReferencedDocument/IssuerAssignedID",            // per-line order number: EXTENDED
		"SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeAgreement/GrossPriceProductTradePrice/AppliedTradeAllowanceCharge/", // several price discounts with reasons: EXTENDED (BT-147 is one amount)
		"SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/SpecifiedTradePaymentTerms/",                                                           // second and further payment terms: EXTENDED
	} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// TestExampleInEveryProfile: the full example, written in each profile, is valid against
// that profile's schema and keeps what the profile carries.
func TestExampleInEveryProfile(t *testing.T) {
	for _, p := range einvoice.Profiles {
		t.Run(string(p), func(t *testing.T) {
			out, err := cii.Write(einvoice.Example(), cii.Options{Profile: p})
			if err != nil {
				t.Fatal(err)
			}
			xsdValid(t, out, schemaFor(p))
			back, err := cii.Read(context.Background(), out)
			if err != nil {
				t.Fatal(err)
			}
			if back.Specification != p.Guideline() {
				t.Errorf("BT-24 %q, want %q", back.Specification, p.Guideline())
			}
			if back.Totals.AmountDue.String() != "264.15" || back.Seller.Name == "" {
				t.Errorf("lost the totals or the seller: %+v", back.Totals)
			}
			lines := len(back.Lines)
			switch p {
			case einvoice.Minimum, einvoice.BasicWL:
				if lines != 0 {
					t.Errorf("%d lines in a profile without lines", lines)
				}
			default:
				if lines != 2 {
					t.Errorf("%d lines, want 2", lines)
				}
			}
			if p == einvoice.Minimum && back.Payment.CreditTransfers != nil {
				t.Errorf("MINIMUM carries no payment instructions")
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	for _, file := range corpus.CII(f)[:8] {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
	f.Add([]byte(`<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := cii.Read(context.Background(), data)
		if err != nil {
			if fault.CodeOf(err) != fault.InvalidInput && fault.CodeOf(err) != fault.PayloadTooLarge {
				t.Fatalf("error of code %s: %v", fault.CodeOf(err), err)
			}
			return
		}
		// What was read can be written, unless a syntax limit refuses it as input.
		if _, err := cii.Write(inv, cii.Options{Profile: einvoice.XRechnung}); err != nil && fault.CodeOf(err) != fault.InvalidInput {
			t.Fatalf("write: %v", err)
		}
	})
}
