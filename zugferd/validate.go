package zugferd

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/conform"
)

// XMP namespaces of the container checks.
const (
	nsPDFAID   = "http://www.aiim.org/pdfa/ns/id/"
	nsFacturX  = "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"
	nsZUGFeRD2 = "urn:zugferd:pdfa:CrossIndustryDocument:invoice:2p0#"
)

// Report is the verdict on a ZUGFeRD / Factur-X PDF: valid only if both parts are.
type Report struct {
	Valid    bool   `json:"valid"`
	FileName string `json:"fileName" doc:"The embedded invoice XML's file name."`
	Profile  string `json:"profile,omitempty"`
	// XML is the invoice's own report (the rules of its profile).
	XML *rules.Report `json:"xml"`
	// PDF lists the container checks: PDF/A-3 identification, output intent, embedded
	// fonts, the associated file and the Factur-X XMP properties.
	PDF PDFReport `json:"pdf"`
}

// PDFReport is the container part of the report.
type PDFReport struct {
	Valid   bool           `json:"valid"`
	Results []rules.Result `json:"results"`
}

// conformanceLevel is the XMP fx:ConformanceLevel a profile requires.
var conformanceLevel = map[einvoice.Profile][]string{
	einvoice.Minimum:   {"MINIMUM"},
	einvoice.BasicWL:   {"BASIC WL"},
	einvoice.Basic:     {"BASIC"},
	einvoice.EN16931:   {"EN 16931", "COMFORT"}, // COMFORT: ZUGFeRD 2.0's name
	einvoice.Extended:  {"EXTENDED"},
	einvoice.XRechnung: {"XRECHNUNG"},
}

// ValidateOptions steer Validate.
type ValidateOptions struct {
	// Pages reads the text of the PDF's first pages (poppler, and OCR for scanned pages:
	// ocr.PageTexts). With it, the report's PDF part gets the FX-VISIBLE-* warnings that
	// compare what the pages show with the XML (see Visible); nil leaves them out.
	Pages func(ctx context.Context, pdf []byte) ([]string, error)

	known *knownXML // Embed's own check: the XML it embedded and validated a moment ago
}

// knownXML is an invoice XML with its validation report.
type knownXML struct {
	xml    []byte
	report *rules.Report
}

// Validate checks a PDF with an embedded e-invoice.
func Validate(ctx context.Context, data []byte, o ValidateOptions) (*Report, error) {
	doc, d, err := Extract(ctx, data)
	if err != nil {
		return nil, err
	}
	var xr *rules.Report
	if o.known != nil && bytes.Equal(o.known.xml, doc.XML) {
		xr = o.known.report
	} else if xr, err = rules.Validate(ctx, doc.XML); err != nil {
		return nil, err
	}
	r := &Report{FileName: doc.FileName, Profile: string(doc.Info.Profile), XML: xr}
	if r.PDF, err = container(ctx, d, doc, data); err != nil {
		return nil, err
	}
	r.Valid = xr.Valid && r.PDF.Valid
	if o.Pages != nil {
		vis, err := visible(ctx, o.Pages, data, doc.XML)
		if err != nil {
			return nil, err
		}
		// Warnings only: the XML prevails, so a disagreement never makes the file invalid.
		r.PDF.Results = append(r.PDF.Results, vis...)
	}
	return r, nil
}

// visible runs Visible on the pages of data. An XML that cannot be read into the model
// has its errors in the XML report already, so it gets no comparison; pages that cannot
// be read get one warning that says so, as the check is advice and the rest of the report
// stands. Only a request that has ended stops the validation.
func visible(ctx context.Context, pages func(context.Context, []byte) ([]string, error), data, xml []byte) ([]rules.Result, error) {
	inv, _, err := syntax.Read(ctx, xml)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fault.FromContext(ctx, "the invoice was being read")
		}
		return nil, nil
	}
	texts, err := pages(ctx, data)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return []rules.Result{{ID: "FX-VISIBLE", Severity: rules.Warning, Message: "The pages could not be read, so what they show was not compared with the XML: " + err.Error(), Location: "pages"}}, nil
	}
	return Visible(inv, texts), nil
}

func container(ctx context.Context, d *pdf.Doc, doc *Document, data []byte) (PDFReport, error) {
	var out []rules.Result
	check := func(id string, sev rules.Severity, ok bool, msg, where string) {
		out = append(out, rules.Result{ID: id, Severity: sev, Passed: ok, Message: msg, Location: where})
	}
	id := d.XMPProperties(nsPDFAID)
	check("PDFA-ID", rules.Fatal, id["part"] == "3" && strings.Contains("ABU", strings.ToUpper(id["conformance"])) && id["conformance"] != "",
		"The XMP identifies the file as PDF/A-3 (pdfaid:part 3, conformance A, B or U); found part "+quoted(id["part"])+", conformance "+quoted(id["conformance"])+".", "XMP pdfaid")
	// PDF/A-3 conformance by the native validator: each failed rule is fatal, under its
	// clause (PDFA-6.2.4.3-2 …).
	pdfa, err := conform.Check(ctx, data, conform.PDFA3B)
	if err != nil {
		if ctx.Err() != nil {
			return PDFReport{}, err
		}
		check("PDFA-CONFORMANCE", rules.Fatal, false, "The file could not be checked against PDF/A-3B: "+err.Error(), "file")
	} else if pdfa.Compliant {
		check("PDFA-CONFORMANCE", rules.Fatal, true, fmt.Sprintf("The file conforms to PDF/A-3B (%d rules checked).", pdfa.Checked), "file")
	}
	if pdfa != nil {
		for _, f := range pdfa.Failed {
			out = append(out, rules.Result{ID: "PDFA-" + f.Rule, Severity: rules.Fatal, Message: fmt.Sprintf("%s (ISO 19005-3, %s; %d times)", f.Description, f.Clause, f.Count), Location: strings.Join(f.Locations, "; ")})
		}
	}

	where := "attachment " + doc.FileName
	check("FX-AF", rules.Fatal, doc.Associated && (doc.Relationship == "Data" || doc.Relationship == "Source" || doc.Relationship == "Alternative"),
		"The invoice XML is an associated file of the document (/AF) with /AFRelationship Data, Source or Alternative; found "+quoted(doc.Relationship)+".", where)
	want := Relationship(doc.Info.Profile)
	check("FX-AF-RELATIONSHIP", rules.Warning, doc.Relationship == want, "For the "+string(doc.Info.Profile)+" profile the relationship should be /"+want+".", where)
	check("FX-MIME", rules.Warning, doc.MIME == "text/xml" || doc.MIME == "application/xml", "The embedded XML's /Subtype should be text/xml; found "+quoted(doc.MIME)+".", where)
	check("FX-MODDATE", rules.Warning, doc.ModDate != "", "The embedded XML's stream should give its modification date (/Params /ModDate), as Factur-X and ZUGFeRD ask.", where)

	fx := d.XMPProperties(nsFacturX)
	if len(fx) == 0 {
		fx = d.XMPProperties(nsZUGFeRD2)
	}
	check("FX-XMP", rules.Fatal, fx["DocumentType"] != "" && fx["DocumentFileName"] != "" && fx["Version"] != "" && fx["ConformanceLevel"] != "",
		"The XMP carries the Factur-X properties DocumentType, DocumentFileName, Version and ConformanceLevel.", "XMP fx")
	check("FX-XMP-TYPE", rules.Fatal, strings.EqualFold(fx["DocumentType"], "INVOICE") || fx["DocumentType"] == "ORDER" || fx["DocumentType"] == "",
		"fx:DocumentType is INVOICE; found "+quoted(fx["DocumentType"])+".", "XMP fx:DocumentType")
	check("FX-XMP-FILENAME", rules.Fatal, fx["DocumentFileName"] == doc.FileName,
		"fx:DocumentFileName names the embedded XML ("+doc.FileName+"); found "+quoted(fx["DocumentFileName"])+".", "XMP fx:DocumentFileName")
	level := strings.ToUpper(strings.TrimSpace(fx["ConformanceLevel"]))
	okLevel := false
	for _, l := range conformanceLevel[doc.Info.Profile] {
		okLevel = okLevel || strings.ReplaceAll(level, " ", "") == strings.ReplaceAll(l, " ", "")
	}
	check("FX-XMP-PROFILE", rules.Fatal, okLevel,
		"fx:ConformanceLevel matches the profile of the XML ("+string(doc.Info.Profile)+"); found "+quoted(fx["ConformanceLevel"])+".", "XMP fx:ConformanceLevel")

	valid := true
	for _, x := range out {
		if !x.Passed && x.Severity == rules.Fatal {
			valid = false
		}
	}
	return PDFReport{Valid: valid, Results: out}, nil
}

func quoted(s string) string {
	if s == "" {
		return "nothing"
	}
	return `"` + s + `"`
}
