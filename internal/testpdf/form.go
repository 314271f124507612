package testpdf

import "fmt"

// Form returns a one-page PDF with an AcroForm written by hand (not by the library under
// test): a required text field "name", a read-only text field "id" holding "A-1", a text
// field "city" under the non-terminal field "address", a check box "agree" (on state
// /Yes), a radio group "size" with the options S and M, and a combo box "country" with DE,
// AT and CH. The page shows the label "Form" and draws nothing of the fields.
func Form() []byte {
	// Fixed numbers: 1 catalog, 2 pages, 3 page, 4 content, 5 font, 6 AcroForm, then fields.
	const (
		name = 7 + iota
		id
		address
		city
		agree
		size
		sizeS
		sizeM
		country
		yes
		off
		apS
		apM
	)
	field := func(n int) string { return fmt.Sprintf("%d 0 R", n) }
	widget := "/Type /Annot /Subtype /Widget /P 3 0 R /F 4"
	mark := "/Type /XObject /Subtype /Form /BBox [0 0 14 14]"
	return Raw(
		"<< /Type /Catalog /Pages 2 0 R /AcroForm 6 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R /Annots [%s %s %s %s %s %s %s] >>",
			field(name), field(id), field(city), field(agree), field(sizeS), field(sizeM), field(country)),
		StreamBody("", "BT /F1 24 Tf 72 760 Td (Form) Tj ET"),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Fields [%s %s %s %s %s %s] /DA (/Helv 0 Tf 0 g) /DR << /Font << /Helv 5 0 R >> >> >>",
			field(name), field(id), field(address), field(agree), field(size), field(country)),
		fmt.Sprintf("<< %s /FT /Tx /T (name) /Ff 2 /Rect [72 700 300 720] /DA (/Helv 12 Tf 0 g) >>", widget),
		fmt.Sprintf("<< %s /FT /Tx /T (id) /Ff 1 /V (A-1) /Rect [72 670 300 690] /DA (/Helv 12 Tf 0 g) >>", widget),
		fmt.Sprintf("<< /T (address) /Kids [%s] >>", field(city)),
		fmt.Sprintf("<< %s /Parent %s /FT /Tx /T (city) /Rect [72 640 300 660] /DA (/Helv 12 Tf 0 g) >>", widget, field(address)),
		fmt.Sprintf("<< %s /FT /Btn /T (agree) /V /Off /AS /Off /Rect [72 610 86 624] /AP << /N << /Yes %s /Off %s >> >> >>", widget, field(yes), field(off)),
		fmt.Sprintf("<< /FT /Btn /T (size) /Ff 49152 /V /Off /Kids [%s %s] >>", field(sizeS), field(sizeM)),
		fmt.Sprintf("<< %s /Parent %s /AS /Off /Rect [72 580 86 594] /AP << /N << /S %s /Off %s >> >> >>", widget, field(size), field(apS), field(off)),
		fmt.Sprintf("<< %s /Parent %s /AS /Off /Rect [100 580 114 594] /AP << /N << /M %s /Off %s >> >> >>", widget, field(size), field(apM), field(off)),
		fmt.Sprintf("<< %s /FT /Ch /T (country) /Ff 131072 /Opt [(DE) (AT) (CH)] /Rect [72 540 200 560] /DA (/Helv 12 Tf 0 g) >>", widget),
		StreamBody(mark, "0 g 2 2 10 10 re f"),
		StreamBody(mark, ""),
		StreamBody(mark, "0 g 3 3 8 8 re f"),
		StreamBody(mark, "0 g 3 3 8 8 re f"),
	)
}
