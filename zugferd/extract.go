package zugferd

import (
	"context"
	"strings"

	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf"
)

// maxXML bounds the embedded XML we decode: far above any real invoice, far below what a
// compressed bomb would expand to.
const maxXML = 64 << 20

// knownNames are the file names the standards give the invoice XML, in order of preference
// (ZUGFeRD 1.0's ZUGFeRD-invoice.xml is found, then refused by its namespace).
var knownNames = []string{"factur-x.xml", "xrechnung.xml", "zugferd-invoice.xml"}

// Document is the e-invoice found in a PDF.
type Document struct {
	XML          []byte
	FileName     string
	Relationship string // /AFRelationship of its file specification
	MIME         string
	ModDate      string // the embedded file's /Params /ModDate
	Associated   bool   // listed in the catalog's /AF
	Info         syntax.Info
}

// Extract finds the invoice XML in a PDF: by its standard name, else the associated file
// (or, last, any embedded file) that is a CII or UBL invoice. ZUGFeRD 1.0 is refused by
// syntax.Detect with a message that says so.
//
// A file that a strict read refuses for a defect of its object graph (a date written
// "+00:00", a structure tree root without /Type: generators of real invoices write both)
// is read all the same (pdf.ReadToRead): the attachment is what is wanted here, and
// validation reports the defects by their clauses.
func Extract(ctx context.Context, data []byte) (*Document, *pdf.Doc, error) {
	d, err := pdf.ReadToRead(data)
	if err != nil {
		return nil, nil, err
	}
	atts, err := d.Attachments(maxXML)
	if err != nil {
		return nil, nil, err
	}
	pick := func(a pdf.Attachment) (*Document, error) {
		in, err := syntax.Detect(ctx, a.Data)
		if err != nil {
			return nil, err
		}
		return &Document{XML: a.Data, FileName: a.Name, Relationship: a.Relationship, MIME: a.MIME, ModDate: a.ModDate, Associated: a.Associated, Info: in}, nil
	}
	for _, name := range knownNames {
		for _, a := range atts {
			if strings.EqualFold(a.Name, name) {
				doc, err := pick(a)
				return doc, d, err
			}
		}
	}
	for _, associated := range []bool{true, false} {
		for _, a := range atts {
			if a.Associated != associated || !strings.HasSuffix(strings.ToLower(a.Name), ".xml") {
				continue
			}
			if doc, err := pick(a); err == nil {
				return doc, d, nil
			}
		}
	}
	var names []string
	for _, a := range atts {
		names = append(names, a.Name)
	}
	if len(names) == 0 {
		return nil, nil, fault.New(fault.InvalidInput, "the PDF has no embedded files, so no e-invoice XML (factur-x.xml, xrechnung.xml or zugferd-invoice.xml)")
	}
	return nil, nil, fault.New(fault.InvalidInput, "none of the PDF's embedded files (%s) is a CII or UBL invoice", strings.Join(names, ", "))
}
