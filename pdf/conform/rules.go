package conform

// rule is one test of the standard: its clause, test number and what it asks, in our words.
type rule struct {
	clause string
	test   int
	text   string
}

// rules are the tests this package checks, by id (clause-test, as veraPDF numbers them).
// A test that is not here is not checked and not reported.
var rules = map[string]rule{}

func init() {
	for _, r := range []rule{
		// 6.1 File structure
		{"6.1.2", 1, "The file starts at byte 0 with %PDF-1.n (n from 0 to 7) and one end-of-line marker."},
		{"6.1.2", 2, "The header line is followed by a comment of at least four bytes above 127."},
		{"6.1.3", 1, "The trailer has an ID: an array of two strings (in a linearised file, the first-page trailer too)."},
		{"6.1.3", 2, "The trailer has no Encrypt entry."},
		{"6.1.3", 3, "Nothing but one end-of-line marker follows the last %%EOF."},
		{"6.1.4", 2, "The xref keyword and the subsection header are separated by one end-of-line marker."},
		{"6.1.6", 1, "A hexadecimal string has an even number of digits."},
		{"6.1.6", 2, "A hexadecimal string holds only hexadecimal digits and white space."},
		{"6.1.7.1", 1, "A stream's Length is the number of bytes between the end-of-line after stream and the one before endstream."},
		{"6.1.7.1", 2, "The stream keyword is followed by CR LF or LF, and endstream is preceded by an end-of-line marker."},
		{"6.1.7.1", 3, "A stream dictionary has no F, FFilter or FDecodeParms entry."},
		{"6.1.7.2", 1, "Streams use only standard filters, not LZWDecode, and Crypt only with the Identity filter."},
		{"6.1.8", 1, "Font, colourant and structure type names are valid UTF-8 once #-escapes are expanded."},
		{"6.1.9", 1, "Object number, generation number and obj are separated by single spaces, and obj and endobj stand on their own lines."},
		{"6.1.10", 1, "An inline image uses no LZW, Crypt or non-standard filter."},
		{"6.1.12", 1, "A permissions dictionary holds only UR3 and DocMDP."},
		{"6.1.12", 2, "With DocMDP, a signature reference has no DigestLocation, DigestMethod or DigestValue."},
		{"6.1.13", 1, "Integers lie between -2147483648 and 2147483647."},
		{"6.1.13", 2, "Real numbers lie within ±3.403 × 10^38."},
		{"6.1.13", 3, "Strings are at most 32767 bytes long."},
		{"6.1.13", 4, "Names are at most 127 bytes long."},
		{"6.1.13", 5, "Real numbers other than 0 are not closer to 0 than ±1.175 × 10^-38."},
		{"6.1.13", 7, "The file has at most 8388607 indirect objects."},
		{"6.1.13", 8, "q/Q pairs nest at most 28 levels deep."},
		{"6.1.13", 9, "A DeviceN colour space has at most 32 colourants."},
		{"6.1.13", 10, "CIDs are at most 65535."},
		{"6.1.13", 11, "Page boundaries are between 3 and 14400 units in each direction."},

		// 6.2 Graphics
		{"6.2.2", 1, "Content streams use only operators ISO 32000-1 defines, also inside BX/EX."},
		{"6.2.2", 2, "A content stream that names resources has its own Resources dictionary (none inherited by a form, pattern or glyph)."},
		{"6.2.3", 1, "The output intent's profile is an output or monitor profile (prtr, mntr) in GRAY, RGB or CMYK, of ICC version below 5."},
		{"6.2.3", 2, "All output intents with a DestOutputProfile share the same profile object."},
		{"6.2.3", 3, "A PDF/X output intent has no DestOutputProfileRef."},
		{"6.2.4.2", 1, "An ICCBased colour space's profile is a valid ICC profile (prtr, mntr, scnr or spac; GRAY, RGB, CMYK or Lab; version below 5)."},
		{"6.2.4.2", 2, "Overprint mode 1 is not used with an ICCBased CMYK colour space while overprinting."},
		{"6.2.4.3", 2, "DeviceRGB is used only with an RGB output intent or a DefaultRGB colour space."},
		{"6.2.4.3", 3, "DeviceCMYK is used only with a CMYK output intent or a DefaultCMYK colour space."},
		{"6.2.4.3", 4, "DeviceGray is used only with an output intent or a DefaultGray colour space."},
		{"6.2.4.4", 1, "Every spot colour of a DeviceN colour space has an entry in its Colorants dictionary."},
		{"6.2.4.4", 2, "Separation colour spaces of the same name have the same alternate space and tint transform."},
		{"6.2.5", 1, "A graphics state has no TR entry."},
		{"6.2.5", 2, "A graphics state's TR2 is Default if present."},
		{"6.2.5", 3, "A graphics state has no HTP entry."},
		{"6.2.5", 4, "Halftones are of type 1 or 5."},
		{"6.2.5", 5, "Halftones have no HalftoneName."},
		{"6.2.5", 6, "A halftone's TransferFunction is given for non-primary colourants and only for them."},
		{"6.2.6", 1, "Rendering intents are RelativeColorimetric, AbsoluteColorimetric, Perceptual or Saturation."},
		{"6.2.8", 1, "An image has no Alternates."},
		{"6.2.8", 2, "An image has no OPI."},
		{"6.2.8", 3, "An image's Interpolate (an inline image's I) is false if present."},
		{"6.2.8", 4, "An image's BitsPerComponent is 1, 2, 4, 8 or 16."},
		{"6.2.8", 5, "An image mask's BitsPerComponent is 1 if present."},
		{"6.2.8.3", 1, "JPEG 2000 data has 1, 3 or 4 colour channels."},
		{"6.2.8.3", 2, "JPEG 2000 data without a ColorSpace entry has one colour specification, or exactly one with APPROX 1."},
		{"6.2.8.3", 3, "The colour specification of JPEG 2000 data without a ColorSpace entry has METH 1, 2 or 3."},
		{"6.2.8.3", 4, "JPEG 2000 data without a ColorSpace entry does not use the enumerated colour space 19 (CIEJab)."},
		{"6.2.8.3", 5, "JPEG 2000 data has one bit depth for all channels, from 1 to 38."},
		{"6.2.9", 1, "A form XObject has no OPI, no PS and no Subtype2 PS."},
		{"6.2.9", 2, "There are no reference XObjects."},
		{"6.2.9", 3, "There are no PostScript XObjects."},
		{"6.2.10", 1, "Blend modes are those ISO 32000-1 defines."},
		{"6.2.10", 2, "Without an output intent, a page that uses transparency has a group with a colour space (CS)."},
		{"6.2.11.2", 1, "A font dictionary's Type is Font."},
		{"6.2.11.2", 2, "A font's Subtype is Type1, MMType1, TrueType, Type3, Type0, CIDFontType0 or CIDFontType2."},
		{"6.2.11.2", 3, "A font other than Type 3 has a BaseFont."},
		{"6.2.11.2", 4, "A simple font other than the standard 14 has FirstChar."},
		{"6.2.11.2", 5, "A simple font other than the standard 14 has LastChar."},
		{"6.2.11.2", 6, "A simple font other than the standard 14 has Widths with LastChar − FirstChar + 1 entries."},
		{"6.2.11.2", 7, "An embedded FontFile3's Subtype is Type1C, CIDFontType0C or OpenType."},
		{"6.2.11.3.1", 1, "A Type 0 font's CMap and CIDFont agree on Registry and Ordering (unless the CMap is Identity-H or -V)."},
		{"6.2.11.3.2", 1, "An embedded CIDFontType2 font has a CIDToGIDMap."},
		{"6.2.11.3.3", 1, "A CMap other than the predefined ones is embedded."},
		{"6.2.11.3.3", 2, "An embedded CMap's WMode in its dictionary and in its program agree."},
		{"6.2.11.3.3", 3, "An embedded CMap uses (UseCMap) only predefined CMaps."},
		{"6.2.11.4.1", 1, "Every font used for rendering is embedded."},
		{"6.2.11.4.1", 2, "An embedded font defines every glyph text is rendered with."},
		{"6.2.11.4.2", 1, "A subset Type 1 font's CharSet lists every glyph of its program."},
		{"6.2.11.4.2", 2, "A subset CID font's CIDSet lists every CID of its program."},
		{"6.2.11.5", 1, "A glyph's width in the font dictionary agrees with the embedded program's (within 1/1000 em)."},
		{"6.2.11.8", 1, "Text does not show the .notdef glyph."},
		{"6.2.11.7.2", 1, "Level U: every font text is rendered in maps its codes to Unicode (ToUnicode, a standard encoding, or a predefined CJK collection)."},
		{"6.2.11.7.2", 2, "Level U: ToUnicode maps no code to U+0000, U+FEFF or U+FFFE."},
		{"6.2.11.6", 2, "A non-symbolic TrueType font has MacRomanEncoding or WinAnsiEncoding."},
		{"6.2.11.6", 3, "A symbolic TrueType font has no Encoding."},

		// 6.3 Annotations, 6.4 Forms, 6.5 Actions
		{"6.3.1", 1, "Annotations are of types ISO 32000-1 defines, and not 3D, Sound, Screen or Movie."},
		{"6.3.2", 1, "An annotation other than a Popup has the F key."},
		{"6.3.2", 2, "An annotation's flags set Print and clear Hidden, Invisible, ToggleNoView and NoView."},
		{"6.3.3", 1, "An annotation other than a Popup or Link, and not of zero size, has an appearance dictionary."},
		{"6.3.3", 2, "An appearance dictionary holds only N."},
		{"6.3.3", 3, "A button widget's N is an appearance subdictionary."},
		{"6.3.3", 4, "Any other annotation's N is an appearance stream."},
		{"6.4.1", 1, "A widget annotation has no A or AA."},
		{"6.4.1", 2, "A form field has no AA."},
		{"6.4.1", 3, "The form's NeedAppearances is absent or false."},
		{"6.4.2", 1, "The form has no XFA."},
		{"6.4.2", 2, "The catalog has no NeedsRendering."},
		{"6.5.1", 1, "Actions are only GoTo, GoToR, GoToE, Thread, URI, Named or SubmitForm."},
		{"6.5.1", 2, "Named actions are only NextPage, PrevPage, FirstPage or LastPage."},
		{"6.5.2", 1, "The catalog has no AA."},
		{"6.5.2", 2, "A page has no AA."},

		// 6.6 Metadata
		{"6.6.2.1", 1, "The catalog has a Metadata stream of Type Metadata and Subtype XML."},
		{"6.6.2.1", 2, "The XMP packet header has no bytes attribute."},
		{"6.6.2.1", 3, "The XMP packet header has no encoding attribute."},
		{"6.6.2.1", 4, "The XMP is well-formed XML and valid RDF as the XMP Specification serialises it."},
		{"6.6.2.1", 5, "The XMP is encoded as UTF-8."},
		{"6.6.2.3.1", 1, "Every XMP property belongs to a predefined schema or to an extension schema the file declares."},
		{"6.6.2.3.1", 2, "Every XMP property's value has the type its schema gives it."},
		{"6.6.2.3.2", 1, "Extension schema descriptions use only the fields of the PDF/A extension schema container."},
		{"6.6.2.3.3", 1, "pdfaExtension:schemas is a Bag under the prefix pdfaExtension."},
		{"6.6.2.3.3", 2, "An extension schema has pdfaSchema:schema (Text)."},
		{"6.6.2.3.3", 3, "An extension schema has pdfaSchema:namespaceURI (URI)."},
		{"6.6.2.3.3", 4, "An extension schema has pdfaSchema:prefix (Text)."},
		{"6.6.2.3.3", 5, "An extension schema's pdfaSchema:property is a Seq."},
		{"6.6.2.3.3", 6, "An extension schema's pdfaSchema:valueType is a Seq."},
		{"6.6.2.3.3", 7, "An extension property has pdfaProperty:name (Text)."},
		{"6.6.2.3.3", 8, "An extension property has pdfaProperty:valueType (Text) naming a defined type."},
		{"6.6.2.3.3", 9, "An extension property has pdfaProperty:category, internal or external."},
		{"6.6.2.3.3", 10, "An extension property has pdfaProperty:description (Text)."},
		{"6.6.2.3.3", 11, "An extension value type has pdfaType:type (Text)."},
		{"6.6.2.3.3", 12, "An extension value type has pdfaType:namespaceURI (URI)."},
		{"6.6.2.3.3", 13, "An extension value type has pdfaType:prefix (Text)."},
		{"6.6.2.3.3", 14, "An extension value type has pdfaType:description (Text)."},
		{"6.6.2.3.3", 15, "An extension value type's pdfaType:field is a Seq."},
		{"6.6.2.3.3", 16, "An extension field has pdfaField:name (Text)."},
		{"6.6.2.3.3", 17, "An extension field has pdfaField:valueType (Text) naming a defined type."},
		{"6.6.2.3.3", 18, "An extension field has pdfaField:description (Text)."},
		{"6.6.4", 1, "The XMP identifies the PDF/A part and conformance (pdfaid)."},
		{"6.6.4", 2, "pdfaid:part is the part checked against."},
		{"6.6.4", 3, "pdfaid:conformance is A, B or U."},
		{"6.6.4", 4, "pdfaid:part uses the prefix pdfaid."},
		{"6.6.4", 5, "pdfaid:conformance uses the prefix pdfaid."},
		{"6.6.4", 6, "pdfaid:amd uses the prefix pdfaid."},
		{"6.6.4", 7, "pdfaid:corr uses the prefix pdfaid."},

		// 6.8 Embedded files, 6.9 Optional content, 6.10, 6.11
		{"6.8", 1, "An embedded file's MIME type is given in its Subtype (type/subtype)."},
		{"6.8", 2, "The file specification of an embedded file has F and UF."},
		{"6.8", 3, "The file specification of an embedded file has AFRelationship."},
		{"6.8", 4, "An embedded file is associated with the document or a part of it (AF)."},
		{"6.8", 5, "Embedded files are PDF/A-1 or PDF/A-2 files (PDF/A-2 only)."},
		{"6.9", 1, "Every optional content configuration has a Name."},
		{"6.9", 2, "Optional content configuration names are unique."},
		{"6.9", 3, "A configuration's Order lists every optional content group."},
		{"6.9", 4, "No optional content configuration has AS."},
		{"6.10", 1, "The names dictionary has no AlternatePresentations."},
		{"6.10", 2, "No page has PresSteps."},
		{"6.11", 1, "The catalog has no Requirements."},
	} {
		rules[r.clause+"-"+itoa(r.test)] = r
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
