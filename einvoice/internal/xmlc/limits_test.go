package xmlc

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/fault"
)

// element writes <e a0="1" a1="1" ...> with n attributes.
func element(n int) string {
	var b strings.Builder
	b.WriteString("<e")
	for i := range n {
		fmt.Fprintf(&b, ` a%d="1"`, i)
	}
	b.WriteString("/>")
	return b.String()
}

// The duplicate-attribute check compared each attribute with every earlier one: 40,000
// attributes took 6 s and 300,000 (a 3.5 MB file) minutes of CPU. Now an element may have
// MaxAttrs and the check is linear.
func TestAttributeLimits(t *testing.T) {
	if _, err := Parse(context.Background(), []byte(element(MaxAttrs))); err != nil {
		t.Fatalf("%d attributes: %v", MaxAttrs, err)
	}
	for _, n := range []int{MaxAttrs + 1, 40_000, 300_000} {
		_, err := Parse(context.Background(), []byte(element(n)))
		if !fault.Is(err, fault.InvalidInput) || !strings.Contains(err.Error(), fmt.Sprintf("more than %d attributes", MaxAttrs)) {
			t.Fatalf("%d attributes: %v", n, err)
		}
	}
	// A repeat is found wherever it stands, among many attributes and among namespace
	// declarations.
	for name, doc := range map[string]string{
		"early":     `<e a="1" b="2" a="3"/>`,
		"late":      strings.Replace(element(200), "/>", ` a150="x"/>`, 1),
		"namespace": `<e xmlns:p="urn:a" xmlns:p="urn:b"/>`,
		"many ns":   strings.Replace(strings.Replace(element(100), "<e", `<e xmlns:p="urn:a"`, 1), "/>", ` xmlns:p="urn:b"/>`, 1),
	} {
		_, err := Parse(context.Background(), []byte(doc))
		if !fault.Is(err, fault.InvalidInput) || !strings.Contains(err.Error(), "repeated") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The document's attributes are bounded too: elements each just under the per-element
	// limit add up.
	var b strings.Builder
	b.WriteString("<r>")
	one := element(200)
	for range MaxAttributes/200 + 1 {
		b.WriteString(one)
	}
	b.WriteString("</r>")
	_, err := Parse(context.Background(), []byte(b.String()))
	if !fault.Is(err, fault.InvalidInput) || !strings.Contains(err.Error(), fmt.Sprintf("more than %d attributes", MaxAttributes)) {
		t.Fatalf("document: %v", err)
	}
}

// A parse ends with its request: cancelled, it stops with Canceled; past its deadline, with
// Timeout.
func TestParseEndsWithContext(t *testing.T) {
	doc := []byte("<r>" + strings.Repeat("<e>1</e>", 20_000) + "</r>")
	if _, err := Parse(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Parse(ctx, doc); !fault.Is(err, fault.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), -1)
	defer cancel()
	if _, err := Parse(ctx, doc); !fault.Is(err, fault.Timeout) {
		t.Fatalf("deadline: %v", err)
	}
}
