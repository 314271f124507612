package rules

import (
	"context"
	"testing"

	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testinvoice"
)

// A large invoice costs more than its size (rules that look across the document run at every
// line); validation ends with its request instead of running on after the client has gone.
func TestValidateEndsWithContext(t *testing.T) {
	big := testinvoice.Large(t, 50)

	r, err := Validate(context.Background(), big)
	if err != nil || r == nil {
		t.Fatalf("uncancelled: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Validate(ctx, big); !fault.Is(err, fault.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), -1)
	defer cancel()
	if _, err := Validate(ctx, big); !fault.Is(err, fault.Timeout) {
		t.Fatalf("deadline: %v", err)
	}
	// The rules themselves stop too, not only the parse before them.
	root, err := xmlc.Parse(context.Background(), big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, newDocument(root, prefixes), ciiRules(), nil); !fault.Is(err, fault.Timeout) {
		t.Fatalf("rules past the deadline: %v", err)
	}
}
