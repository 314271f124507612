package testpdf

import (
	"bytes"
	"fmt"
)

// Form returns a one-page PDF with an AcroForm written by hand (not by the library under
// test): a required text field "name", a read-only text field "id" holding "A-1", a text
// field "city" under the non-terminal field "address", a check box "agree" (on state
// /Yes), a radio group "size" with the options S and M, and a combo box "country" with DE,
// AT and CH. The page shows the label "Form" and draws nothing of the fields.
func Form() []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) int {
		offsets = append(offsets, b.Len())
		n := len(offsets)
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, body)
		return n
	}
	stream := func(dict, data string) string {
		return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
	}
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
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
	obj("<< /Type /Catalog /Pages 2 0 R /AcroForm 6 0 R >>")
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R /Annots [%s %s %s %s %s %s %s] >>",
		field(name), field(id), field(city), field(agree), field(sizeS), field(sizeM), field(country)))
	obj(stream("", "BT /F1 24 Tf 72 760 Td (Form) Tj ET"))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	obj(fmt.Sprintf("<< /Fields [%s %s %s %s %s %s] /DA (/Helv 0 Tf 0 g) /DR << /Font << /Helv 5 0 R >> >> >>",
		field(name), field(id), field(address), field(agree), field(size), field(country)))
	widget := "/Type /Annot /Subtype /Widget /P 3 0 R /F 4"
	obj(fmt.Sprintf("<< %s /FT /Tx /T (name) /Ff 2 /Rect [72 700 300 720] /DA (/Helv 12 Tf 0 g) >>", widget))
	obj(fmt.Sprintf("<< %s /FT /Tx /T (id) /Ff 1 /V (A-1) /Rect [72 670 300 690] /DA (/Helv 12 Tf 0 g) >>", widget))
	obj(fmt.Sprintf("<< /T (address) /Kids [%s] >>", field(city)))
	obj(fmt.Sprintf("<< %s /Parent %s /FT /Tx /T (city) /Rect [72 640 300 660] /DA (/Helv 12 Tf 0 g) >>", widget, field(address)))
	obj(fmt.Sprintf("<< %s /FT /Btn /T (agree) /V /Off /AS /Off /Rect [72 610 86 624] /AP << /N << /Yes %s /Off %s >> >> >>", widget, field(yes), field(off)))
	obj(fmt.Sprintf("<< /FT /Btn /T (size) /Ff 49152 /V /Off /Kids [%s %s] >>", field(sizeS), field(sizeM)))
	obj(fmt.Sprintf("<< %s /Parent %s /AS /Off /Rect [72 580 86 594] /AP << /N << /S %s /Off %s >> >> >>", widget, field(size), field(apS), field(off)))
	obj(fmt.Sprintf("<< %s /Parent %s /AS /Off /Rect [100 580 114 594] /AP << /N << /M %s /Off %s >> >> >>", widget, field(size), field(apM), field(off)))
	obj(fmt.Sprintf("<< %s /FT /Ch /T (country) /Ff 131072 /Opt [(DE) (AT) (CH)] /Rect [72 540 200 560] /DA (/Helv 12 Tf 0 g) >>", widget))
	mark := "/Type /XObject /Subtype /Form /BBox [0 0 14 14]"
	obj(stream(mark, "0 g 2 2 10 10 re f"))
	obj(stream(mark, ""))
	obj(stream(mark, "0 g 3 3 8 8 re f"))
	obj(stream(mark, "0 g 3 3 8 8 re f"))
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}
