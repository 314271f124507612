package fault

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"strings"
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

// TestEveryCodeInTable: a code added to the constants but not to the table would be a 500
// on the server and exit status 1 on the command line, whatever it means.
func TestEveryCodeInTable(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "fault.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Code]int{}
	for _, c := range Codes {
		seen[c.Code]++
		if c.Status < 400 || c.Status > 599 || c.Meaning == "" {
			t.Errorf("%s: status %d, meaning %q", c.Code, c.Status, c.Meaning)
		}
		if c.Kind == ClientFault && c.Status >= 500 || c.Kind == ServerFault && c.Status < 500 {
			t.Errorf("%s: kind %d does not fit status %d", c.Code, c.Kind, c.Status)
		}
	}
	n := 0
	ast.Inspect(f, func(nd ast.Node) bool {
		vs, ok := nd.(*ast.ValueSpec)
		if !ok || vs.Type == nil || fmt.Sprint(vs.Type) != "Code" {
			return true
		}
		for _, v := range vs.Values {
			lit := v.(*ast.BasicLit)
			c := Code(strings.Trim(lit.Value, `"`))
			n++
			if seen[c] != 1 {
				t.Errorf("code %s is in the table %d times, want once", c, seen[c])
			}
		}
		return true
	})
	if n != len(Codes) || n < 20 {
		t.Errorf("%d code constants, %d table rows", n, len(Codes))
	}
	if Lookup("no_such_code").Code != Internal {
		t.Error("an unknown code must read as internal")
	}
}
