package ops

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf/pdfa"
)

// Part is one multipart input of an operation.
type Part struct {
	Name     string
	Doc      string
	File     bool     // a file; otherwise a text part (a password, a JSON document)
	Required bool     // missing or empty -> 400
	Max      int      // up to Max files; 0 = one
	Types    []string // documented media types of a file part
	// Secret parts (passwords) travel in the body, never in a URL, and are never logged,
	// echoed or stored.
	Secret bool
}

// File is one uploaded input.
type File struct {
	Name string // the client's file name, base name only; may be empty
	Data []byte
}

// Input is what a request or a command line hands an operation: files and text parts by
// part name.
type Input struct {
	Files  map[string][]File
	Fields map[string]string
}

// File is the first file of part name, or nil.
func (in *Input) File(name string) *File {
	if fs := in.Files[name]; len(fs) > 0 {
		return &fs[0]
	}
	return nil
}

// Output is an operation's result: a document (Data with its ContentType and a file name)
// or a JSON value. Facts are short key-value results beside a document (sizes before and
// after); the server sends them as X-Service-<Key> headers, the command line prints them.
type Output struct {
	Name        string
	ContentType string
	Data        []byte
	Value       any
	Facts       [][2]string
	// Fails is set by a check whose input failed it (a PDF that does not conform): the
	// server still answers 200 with the report, the command line writes it and exits 1
	// with this message.
	Fails string
}

// Renderer renders PDF pages to images and reads their text (engine/poppler); OCR leaves
// pages that have text alone by asking for it.
type Renderer interface {
	Render(ctx context.Context, pdf []byte, pages []int, o poppler.RenderOptions) ([][]byte, error)
	Text(ctx context.Context, pdf []byte, first, last int, layout bool) ([]string, error)
}

// Engines are the external programs operations may use; a nil one is not configured here
// and the operations that need it answer engine_unavailable.
type Engines struct {
	PDFA      pdfa.Converter
	Printer   Printer
	Distiller Distiller
	Renderer  Renderer
	OCR       Recognizer
}

// Operation is one capability with options of type P: a struct whose fields carry `query`
// tags (name), `doc`, `default`, `enum`, `minimum`, `maximum` tags as huma reads them.
type Operation[P any] struct {
	Group   string // "pdf-tools": /api/pdf-tools/<Name>; the command line's group is the server's
	Name    string // "compress"; a path below the group, "bookmarks/set"
	Command string // the command line's name when Name has a slash: "set-bookmarks"
	Summary string
	Parts   []Part // the first file part is the operation's main input
	// Produces are the media types of a document result (an option such as format picks
	// one); none for a JSON result of type Result.
	Produces []string
	Result   any // a zero value of the JSON result's type, for its schema
	// Conversion: each success uses one conversion of the key's monthly allowance, as the
	// conversions under /v1/convert do.
	Conversion bool
	Run        func(ctx context.Context, e *Engines, in *Input, p *P) (*Output, error)
}

// CommandName is the operation's name on the command line.
func (o *Operation[P]) CommandName() string {
	if o.Command != "" {
		return o.Command
	}
	return o.Name
}

// Description is the operation's prose from its group's Markdown file.
func (o *Operation[P]) Description() string { return prose(o.Group, o.Name) }

var (
	//go:embed pdftools.md
	pdfToolsProse string
	//go:embed xrechnung.md
	xrechnungProse string
	//go:embed zugferd.md
	zugferdProse string
)

var groups = map[string]map[string]string{
	"pdf-tools": Sections(pdfToolsProse), "xrechnung": Sections(xrechnungProse), "zugferd": Sections(zugferdProse),
}

// Sections splits Markdown into its "## name" sections: the prose files of operations and
// of the server's routes.
func Sections(md string) map[string]string {
	m := map[string]string{}
	for _, s := range strings.Split("\n"+md, "\n## ")[1:] {
		name, body, _ := strings.Cut(s, "\n")
		m[strings.TrimSpace(name)] = strings.TrimSpace(body)
	}
	return m
}

func prose(group, name string) string {
	s, ok := groups[group][name]
	if !ok {
		panic(fmt.Sprintf("ops: no prose for %s/%s", group, name)) // caught by the tests that mount every operation
	}
	return s
}

// need is the error of an operation whose engine is not configured.
func need(what string) error {
	return fault.New(fault.EngineUnavailable, "%s is not configured here", what)
}

// Meta names an operation, whatever its options' type.
type Meta struct{ Group, Name, Command string }

// Meta is o's names.
func (o *Operation[P]) Meta() Meta { return Meta{o.Group, o.Name, o.CommandName()} }

// All lists every operation, for the tests that check that the server and the command line
// mount each (a test of this package checks that the list is complete).
func All() []Meta {
	return []Meta{Compress.Meta(), Encrypt.Meta(), Decrypt.Meta(), Unlock.Meta(), Bookmarks.Meta(), SetBookmarks.Meta(),
		DeletePages.Meta(), Insert.Meta(), Reorder.Meta(), Stamp.Meta(), Watermark.Meta(), PageNumbers.Meta(),
		Flatten.Meta(), ImagesToPDF.Meta(), OCR.Meta(), Validate.Meta(), Visualize.Meta(), Create.Meta()}
}
