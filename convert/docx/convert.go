package docx

import (
	"bytes"
	"context"
	"path"
	"strings"

	"github.com/papierkram/papierkram/convert"
	"github.com/papierkram/papierkram/engine/office"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf/conform"
)

// Request is a Word (or OpenDocument, RTF) to PDF conversion.
type Request struct {
	Document  []byte
	Filename  string         // for the type when the content does not tell (doc vs. docm)
	Variables map[string]any // template values; see the package documentation
	PDFA      bool           // PDF/A-3b
	// TrackChanges "visualize" shows tracked changes as markup; "" or "accept" accepts them.
	TrackChanges string
	HideComments bool
	// Locale (BCP 47) decides formats that follow the system and the default paper; empty: de-DE.
	Locale string
	// UpdateIndexes rebuilds tables of contents and other indexes; fields otherwise keep
	// what the document says (a SAVEDATE stays the date it was saved).
	UpdateIndexes bool
	// Fonts are the caller's uploaded fonts; those the document names are embedded in it
	// (.docx and .docm), so that LibreOffice draws with them.
	Fonts []convert.FontFace
}

// Kind names a word-processing document by its bytes (and the file name's extension to
// tell .docm from .docx): docx, docm, doc, odt or rtf.
func Kind(data []byte, filename string) (string, error) {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(filename), "."))
	switch {
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		if bytes.Contains(data[:min(len(data), 200)], []byte("mimetypeapplication/vnd.oasis.opendocument.text")) {
			return "odt", nil
		}
		if ext == "docm" {
			return "docm", nil
		}
		return "docx", nil
	case bytes.HasPrefix(data, []byte{0xD0, 0xCF, 0x11, 0xE0}):
		if bytes.Contains(data, []byte("E\x00n\x00c\x00r\x00y\x00p\x00t\x00i\x00o\x00n\x00I\x00n\x00f\x00o")) {
			return "", fault.New(fault.InvalidInput, "the document is password-protected; remove the password and upload it again")
		}
		return "doc", nil
	case bytes.HasPrefix(data, []byte(`{\rtf`)):
		return "rtf", nil
	}
	return "", fault.New(fault.InvalidInput, "the document is not a Word file (.docx, .docm, .doc), OpenDocument text (.odt) or RTF")
}

// ToPDF fills the template (for .docx and .docm) and converts with LibreOffice.
func ToPDF(ctx context.Context, o convert.Office, r Request) ([]byte, error) {
	kind, err := Kind(r.Document, r.Filename)
	if err != nil {
		return nil, err
	}
	switch r.TrackChanges {
	case "", "accept", "visualize":
	default:
		return nil, fault.New(fault.InvalidInput, "trackChanges is %q; leave it out to accept changes, or visualize", r.TrackChanges)
	}
	doc := r.Document
	switch {
	case kind == "docx" || kind == "docm":
		// Open checks the package (zip bomb, damage) even without variables.
		if doc, err = Fill(doc, r.Variables); err != nil {
			return nil, err
		}
		if doc, err = EmbedFonts(doc, r.Fonts); err != nil {
			return nil, err
		}
		if doc, err = PreferVector(doc); err != nil {
			return nil, err
		}
	case len(r.Variables) > 0:
		return nil, fault.New(fault.InvalidInput, "variables need a .docx template; this is a .%s file", kind)
	}
	name := strings.TrimSuffix(path.Base(r.Filename), path.Ext(r.Filename))
	out, err := o.Convert(ctx, office.Job{Document: doc, Ext: kind, Name: name, Locale: r.Locale, UpdateIndexes: r.UpdateIndexes,
		PDFA: r.PDFA, TrackChanges: r.TrackChanges, HideComments: r.HideComments}, "pdf")
	if err == nil && r.PDFA {
		// LibreOffice's PDF/A export is trusted no more than Ghostscript's.
		err = conform.Require(ctx, out, conform.PDFA3B, "LibreOffice's PDF/A export")
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}
