package fault

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestWrapKeepsCodeAndCause(t *testing.T) {
	err := fmt.Errorf("reading upload: %w", Wrap(InvalidPDF, io.ErrUnexpectedEOF, "the PDF is truncated"))
	if got := CodeOf(err); got != InvalidPDF {
		t.Fatalf("CodeOf = %q, want %q", got, InvalidPDF)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatal("cause lost through Wrap")
	}
	if e := As(err); e == nil || e.Message != "the PDF is truncated" {
		t.Fatalf("As = %+v", e)
	}
}

func TestCodeOfPlainErrorIsInternal(t *testing.T) {
	if got := CodeOf(errors.New("boom")); got != Internal {
		t.Fatalf("CodeOf = %q, want internal", got)
	}
	if CodeOf(nil) != "" {
		t.Fatal("CodeOf(nil) must be empty")
	}
}

func TestWithCopies(t *testing.T) {
	base := New(InvalidInput, "bad field")
	a := base.With("field", "pages")
	if base.Details != nil {
		t.Fatal("With mutated the receiver")
	}
	if a.Details["field"] != "pages" {
		t.Fatalf("details = %v", a.Details)
	}
}
