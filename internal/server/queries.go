package server

import (
	"github.com/danielgtaylor/huma/v2"
)

// Query parameters and media types shared by the routes.

// PreviewQuery is the query of /api/preview and /api/preview/base64.
type PreviewQuery struct {
	Page     int    `query:"page" minimum:"1" default:"1" doc:"1-based page number."`
	Format   string `query:"format" enum:"PNG,JPEG" default:"PNG" doc:"Image format."`
	DPI      int    `query:"dpi" minimum:"1" maximum:"300" default:"96" doc:"Resolution in dots per inch."`
	MaxWidth int    `query:"maxWidth" minimum:"0" default:"0" doc:"Scale down to at most this width in pixels; 0 = no scaling."`
}

// PreviewPagesQuery is the query of /api/preview/pages and its /base64 twin.
type PreviewPagesQuery struct {
	Pages    string `query:"pages" default:"all" maxLength:"1000" doc:"Page specification: all, 1, 1-3, 1,3,5 or 1-3,7. At most 50 pages."`
	Format   string `query:"format" enum:"PNG,JPEG" default:"PNG" doc:"Image format."`
	DPI      int    `query:"dpi" minimum:"1" maximum:"300" default:"72" doc:"Resolution in dots per inch."`
	MaxWidth int    `query:"maxWidth" minimum:"0" default:"0" doc:"Scale down to at most this width in pixels; 0 = no scaling."`
}

type pagesQuery struct {
	Pages string `query:"pages" default:"all" maxLength:"1000" doc:"Page specification: all (each page), 1-3,4-6 (ranges) or 1,3,5 (single pages)."`
}

type rotateQuery struct {
	Degrees int    `query:"degrees" required:"true" minimum:"90" maximum:"270" multipleOf:"90" doc:"Clockwise rotation: 90, 180 or 270."`
	Pages   string `query:"pages" default:"all" maxLength:"1000" doc:"Pages to rotate: all, 1, 1-3, 1,3,5 or 1-3,7."`
}

// PDFAQuery is the query of /api/pdf-tools/pdfa and its /base64 twin.
type PDFAQuery struct {
	Title  string `query:"title" maxLength:"1000" doc:"Title written to XMP and the Info dictionary."`
	Author string `query:"author" maxLength:"1000" doc:"Author written to XMP and the Info dictionary."`
}

type metadataSetQuery struct {
	Title    string `query:"title" maxLength:"1000" doc:"Document title."`
	Author   string `query:"author" maxLength:"1000" doc:"Document author."`
	Subject  string `query:"subject" maxLength:"1000" doc:"Document subject."`
	Keywords string `query:"keywords" maxLength:"1000" doc:"Keywords, comma-separated."`
	Creator  string `query:"creator" maxLength:"1000" doc:"The application that created the original document."`
	Producer string `query:"producer" maxLength:"1000" doc:"The application that produced the PDF."`
}

type transformQuery struct {
	TargetFormat string `query:"targetFormat" enum:"CII,UBL" default:"UBL" doc:"Target syntax; the source syntax is detected."`
}

type passwordQuery struct {
	Password string `query:"password" required:"true" doc:"The PKCS#12 password. Never logged or stored."`
}

type signUploadQuery struct {
	Password     string `query:"password" required:"true" doc:"The PKCS#12 password. Never logged or stored."`
	Reason       string `query:"reason" maxLength:"500" doc:"Reason for signing."`
	Location     string `query:"location" maxLength:"500" doc:"Where it was signed."`
	ContactInfo  string `query:"contactInfo" maxLength:"500" doc:"How to reach the signer."`
	SignerName   string `query:"signerName" maxLength:"500" doc:"Name of the signer."`
	TimestampURL string `query:"timestampUrl" maxLength:"2000" doc:"RFC 3161 timestamp authority URL."`
}

type asyncQuery struct {
	CallbackURL    string `query:"callbackUrl" maxLength:"2000" doc:"Webhook URL called when the job ends."`
	CallbackSecret string `query:"callbackSecret" maxLength:"500" doc:"Secret for the X-Service-Signature HMAC-SHA256 of the webhook body."`
}

type toDocumentQuery struct {
	Format       string `query:"format" enum:"PDF,DOCX" default:"PDF" doc:"Output format."`
	TemplateName string `query:"templateName" maxLength:"200" doc:"A stored template; default: the built-in expense report layout."`
	Title        string `query:"title" default:"Spesenbeleg" maxLength:"200" doc:"Document title."`
}

// Media types of responses.
var (
	pdfResponse  = map[string]*huma.MediaType{"application/pdf": {Schema: &huma.Schema{Type: "string", Format: "binary"}}}
	xmlResponse  = map[string]*huma.MediaType{"application/xml": {Schema: &huma.Schema{Type: "string"}}}
	jsonResponse = map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Type: "object"}}}
	imgResponse  = map[string]*huma.MediaType{"image/png": {Schema: &huma.Schema{Type: "string", Format: "binary"}}, "image/jpeg": {Schema: &huma.Schema{Type: "string", Format: "binary"}}}
	xlsxResponse = map[string]*huma.MediaType{xlsxType: {Schema: &huma.Schema{Type: "string", Format: "binary"}}}
	csvResponse  = map[string]*huma.MediaType{"text/csv": {Schema: &huma.Schema{Type: "string"}}}
	jsonList     = map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Type: "array"}}}
)

// jsonBody documents a JSON request body by its top-level fields.
func jsonBody(desc string, fields map[string]string) *huma.RequestBody {
	props := map[string]*huma.Schema{}
	for name, doc := range fields {
		props[name] = &huma.Schema{Description: doc}
	}
	return &huma.RequestBody{Required: true, Description: desc, Content: map[string]*huma.MediaType{
		"application/json": {Schema: &huma.Schema{Type: "object", Properties: props}}}}
}

var base64Request = &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{
	Type: "object", Required: []string{base64Key},
	Properties: map[string]*huma.Schema{
		base64Key:  {Type: "string", ContentEncoding: "base64", Description: "The document, standard Base64."},
		"filename": {Type: "string", Description: "Optional file name."},
	}}}}}
