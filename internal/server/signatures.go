package server

import (
	"context"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/hex"
	"github.com/papierkram/papierkram/internal/lazyre"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/signature"
	"github.com/papierkram/papierkram/store"
)

// VisibleSpec places a visible signature.
type VisibleSpec struct {
	Page   int      `json:"page" minimum:"1" doc:"1-based page." example:"1"`
	X      float64  `json:"x" minimum:"0" doc:"Left edge, from the page's left." example:"350"`
	Y      float64  `json:"y" minimum:"0" doc:"Bottom edge, from the page's bottom." example:"60"`
	Width  float64  `json:"width" exclusiveMinimum:"0" example:"200"`
	Height float64  `json:"height" exclusiveMinimum:"0" example:"60"`
	Unit   string   `json:"unit,omitempty" enum:"pt,mm" default:"pt" doc:"Unit of x, y, width and height."`
	Text   []string `json:"text,omitempty" maxItems:"6" doc:"Lines drawn in the box; default the signer's name." example:"[\"Digital signiert von Anna Muster\"]"`
	Image  string   `json:"image,omitempty" doc:"PNG or JPEG, Base64, drawn at the left of the box."`
}

// SignRequest is the body of /api/signatures/sign.
type SignRequest struct {
	File            string       `json:"file" minLength:"1" doc:"The PDF, Base64."`
	CertificateName string       `json:"certificateName,omitempty" doc:"A certificate stored with POST /api/signatures/certificates. Give this or certificate." example:"firma"`
	Certificate     string       `json:"certificate,omitempty" doc:"An inline PKCS#12 file, Base64."`
	Password        string       `json:"password" doc:"The PKCS#12 password. Used once, never logged or stored."`
	Reason          string       `json:"reason,omitempty" maxLength:"500" example:"Rechnung freigegeben"`
	Location        string       `json:"location,omitempty" maxLength:"500" example:"Berlin"`
	ContactInfo     string       `json:"contactInfo,omitempty" maxLength:"500"`
	SignerName      string       `json:"signerName,omitempty" maxLength:"500" doc:"Default: the certificate's common name."`
	Visible         *VisibleSpec `json:"visible,omitempty" doc:"A visible signature box; without it the signature is invisible."`
	TimestampURL    string       `json:"timestampUrl,omitempty" maxLength:"2000" doc:"RFC 3161 timestamp authority (http or https; internal addresses only when the operator allows them)."`
}

// CertificateEntry is a stored certificate as listed.
type CertificateEntry struct {
	Name       string     `json:"name" example:"firma"`
	Subject    string     `json:"subject,omitempty" doc:"Empty until the file was opened with its password (upload with ?password=, or first signing)."`
	Issuer     string     `json:"issuer,omitempty"`
	NotBefore  *time.Time `json:"notBefore,omitempty"`
	NotAfter   *time.Time `json:"notAfter,omitempty"`
	SHA256     string     `json:"sha256" doc:"SHA-256 of the uploaded file, hex."`
	UploadedAt time.Time  `json:"uploadedAt"`
}

var (
	certUpload = form{
		{Name: "file", Doc: "The PKCS#12 file (.p12, .pfx).", File: true, Required: true, Types: []string{"application/x-pkcs12"}},
		{Name: "name", Doc: "Name to refer to it by (letters, digits, . _ -); default the file name without extension."},
	}
	certInfoUpload = form{{Name: "file", Doc: "The PKCS#12 file (.p12, .pfx).", File: true, Required: true, Types: []string{"application/x-pkcs12"}}}
	signUpload     = form{
		{Name: "pdf", Doc: "The PDF.", File: true, Required: true, Types: []string{"application/pdf"}},
		{Name: "certificate", Doc: "The PKCS#12 file.", File: true, Required: true, Types: []string{"application/x-pkcs12"}},
	}
	certName = lazyre.New(`^[A-Za-z0-9._-]{1,100}$`)
)

type certUploadQuery struct {
	Password string `query:"password" doc:"Optional: opens the file to check the password and record subject, issuer and validity. Never stored."`
}

type certPath struct {
	Name string `path:"name" maxLength:"100" example:"firma"`
}

type signInput struct {
	Validate string `header:"X-Service-Validate" doc:"true: verify the signed PDF before returning it (500 validation_failed if it does not verify)."`
	Body     SignRequest
}

type verifyBase64 struct {
	Base64Body
}

func (s *Server) signOptions(reason, location, contact, name, tsa string) signature.Options {
	return signature.Options{Reason: reason, Location: location, ContactInfo: contact, SignerName: name, TimestampURL: tsa, Network: s.cfg.Network, Now: s.now()}
}

// credentials opens a stored or inline PKCS#12; a stored one learns its details on first use.
func (s *Server) credentials(ctx context.Context, name, inline, password string) (*signature.Credentials, error) {
	switch {
	case name != "" && inline != "":
		return nil, fault.New(fault.InvalidInput, "give certificateName or certificate, not both")
	case name != "":
		key := keyFrom(ctx)
		c, err := s.store.Certificate(ctx, key.ID, name)
		if err != nil {
			if fault.Is(err, fault.NotFound) {
				return nil, fault.New(fault.InvalidCertificate, "no stored certificate named %q", name)
			}
			return nil, err
		}
		cred, err := signature.Load(c.Data, password)
		if err != nil {
			return nil, err
		}
		if c.Subject == "" {
			s.store.SetCertificateInfo(ctx, key.ID, name, signature.DistinguishedName(cred.Cert.RawSubject), signature.DistinguishedName(cred.Cert.RawIssuer), cred.Cert.NotBefore, cred.Cert.NotAfter)
		}
		return cred, nil
	case inline != "":
		p12, err := decodeBase64(inline)
		if err != nil {
			return nil, fault.New(fault.InvalidCertificate, "certificate is not valid Base64")
		}
		return signature.Load(p12, password)
	default:
		return nil, fault.New(fault.InvalidInput, "certificateName or certificate is required")
	}
}

func (s *Server) registerSignatures() {
	up := s.uploads()
	tag := []string{"Signatures"}

	register(s, huma.Operation{
		OperationID: "postSignaturesSign", Method: http.MethodPost, Path: "/api/signatures/sign", Tags: tag, Summary: "Sign a PDF",
		Responses: binaryResponse(pdfResponse),
	}, func(ctx context.Context, in *signInput) (*fileOutput, error) {
		b := in.Body
		data, err := decodeBase64(b.File)
		if err != nil {
			return nil, err
		}
		cred, err := s.credentials(ctx, b.CertificateName, b.Certificate, b.Password)
		if err != nil {
			return nil, err
		}
		o := s.signOptions(b.Reason, b.Location, b.ContactInfo, b.SignerName, b.TimestampURL)
		if v := b.Visible; v != nil {
			f := 1.0
			if v.Unit == "mm" {
				f = 72 / 25.4
			}
			o.Visible = &signature.Visible{Page: v.Page, X: v.X * f, Y: v.Y * f, Width: v.Width * f, Height: v.Height * f, Text: v.Text}
			if v.Image != "" {
				if o.Visible.Image, err = decodeBase64(v.Image); err != nil {
					return nil, err
				}
			}
		}
		signed, err := signature.Sign(ctx, data, cred, o)
		if err != nil {
			return nil, err
		}
		if ok, _ := strconv.ParseBool(in.Validate); ok {
			rep, err := signature.Verify(signed)
			if err != nil || !rep.Valid {
				return nil, fault.New(fault.ValidationFailed, "the signed PDF did not verify")
			}
		}
		return pdfOutput("signed.pdf", signed), nil
	}, up)

	register(s, huma.Operation{
		OperationID: "postSignaturesSignUpload", Method: http.MethodPost, Path: "/api/signatures/sign/upload", Tags: tag, Summary: "Sign an uploaded PDF",
		RequestBody: signUpload.body(), Responses: binaryResponse(pdfResponse),
	}, func(ctx context.Context, in *signUploadQuery) (*fileOutput, error) {
		u, err := signUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		cred, err := signature.Load(u.File("certificate").Data, in.Password)
		if err != nil {
			return nil, err
		}
		f := u.File("pdf")
		signed, err := signature.Sign(ctx, f.Data, cred, s.signOptions(in.Reason, in.Location, in.ContactInfo, in.SignerName, in.TimestampURL))
		if err != nil {
			return nil, err
		}
		return pdfOutput(stem(f.Filename)+"-signed.pdf", signed), nil
	}, up)

	verifyDoc := "Every signature: signer, certificate, chain, integrity of the signed bytes, whether the file changed after signing, signing time and timestamp. A PDF without signatures gives signed=false."
	register(s, huma.Operation{
		OperationID: "postSignaturesVerify", Method: http.MethodPost, Path: "/api/signatures/verify", Tags: tag, Summary: "Verify signatures",
		Description: verifyDoc, RequestBody: pdfUpload.body(),
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body *signature.Report }, error) {
		u, err := pdfUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		rep, err := signature.Verify(u.File("file").Data)
		return &struct{ Body *signature.Report }{rep}, err
	}, up)
	register(s, huma.Operation{
		OperationID: "postSignaturesVerifyBase64", Method: http.MethodPost, Path: "/api/signatures/verify/base64", Tags: tag, Summary: "Verify signatures (Base64 input)",
		Description: verifyDoc,
	}, func(ctx context.Context, in *verifyBase64) (*struct{ Body *signature.Report }, error) {
		data, _, err := in.decode()
		if err != nil {
			return nil, err
		}
		rep, err := signature.Verify(data)
		return &struct{ Body *signature.Report }{rep}, err
	}, up)

	register(s, huma.Operation{
		OperationID: "getSignaturesCertificates", Method: http.MethodGet, Path: "/api/signatures/certificates", Tags: tag, Summary: "List stored certificates",
		Description: "The calling key's stored certificates (other keys' are never visible).",
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body []CertificateEntry }, error) {
		list, err := s.store.Certificates(ctx, keyFrom(ctx).ID)
		if err != nil {
			return nil, err
		}
		out := make([]CertificateEntry, 0, len(list))
		for _, c := range list {
			out = append(out, CertificateEntry{Name: c.Name, Subject: c.Subject, Issuer: c.Issuer, NotBefore: c.NotBefore, NotAfter: c.NotAfter, SHA256: c.SHA256, UploadedAt: c.UploadedAt})
		}
		return &struct{ Body []CertificateEntry }{out}, nil
	})

	register(s, huma.Operation{
		OperationID: "postSignaturesCertificates", Method: http.MethodPost, Path: "/api/signatures/certificates", Tags: tag, Summary: "Store a certificate",
		RequestBody: certUpload.body(),
	}, func(ctx context.Context, in *certUploadQuery) (*struct{ Body map[string]string }, error) {
		u, err := certUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		f := u.File("file")
		name := u.Fields["name"]
		if name == "" {
			name = strings.TrimSuffix(strings.TrimSuffix(f.Filename, ".p12"), ".pfx")
		}
		if !certName.MatchString(name) {
			return nil, fault.New(fault.InvalidInput, "certificate name %q: use 1 to 100 letters, digits, dots, underscores or hyphens", name)
		}
		if len(f.Data) > signature.MaxPKCS12 || !isPFX(f.Data) {
			return nil, fault.New(fault.InvalidCertificate, "the file is not a PKCS#12 (.p12/.pfx) file")
		}
		sum := sha256.Sum256(f.Data)
		c := &store.Certificate{KeyID: keyFrom(ctx).ID, Name: name, Data: f.Data, SHA256: hex.EncodeToString(sum[:]), UploadedAt: s.now().UTC()}
		if in.Password != "" {
			cred, err := signature.Load(f.Data, in.Password)
			if err != nil {
				return nil, err
			}
			nb, na := cred.Cert.NotBefore.UTC(), cred.Cert.NotAfter.UTC()
			c.Subject, c.Issuer, c.NotBefore, c.NotAfter = signature.DistinguishedName(cred.Cert.RawSubject), signature.DistinguishedName(cred.Cert.RawIssuer), &nb, &na
		}
		if err := s.store.PutCertificate(ctx, c); err != nil {
			return nil, err
		}
		out := map[string]string{"name": c.Name, "sha256": c.SHA256, "uploadedAt": c.UploadedAt.Format(time.RFC3339)}
		if c.Subject != "" {
			out["subject"], out["issuer"] = c.Subject, c.Issuer
			out["notBefore"], out["notAfter"] = c.NotBefore.Format(time.RFC3339), c.NotAfter.Format(time.RFC3339)
		}
		return &struct{ Body map[string]string }{out}, nil
	}, up)

	register(s, huma.Operation{
		OperationID: "deleteSignaturesCertificatesByName", Method: http.MethodDelete, Path: "/api/signatures/certificates/{name}", Tags: tag,
		Summary: "Delete a stored certificate", DefaultStatus: http.StatusNoContent, Errors: []int{http.StatusNotFound},
	}, func(ctx context.Context, in *certPath) (*struct{}, error) {
		return nil, s.store.DeleteCertificate(ctx, keyFrom(ctx).ID, in.Name)
	})

	register(s, huma.Operation{
		OperationID: "postSignaturesCertificatesInfo", Method: http.MethodPost, Path: "/api/signatures/certificates/info", Tags: tag, Summary: "Inspect a certificate",
		RequestBody: certInfoUpload.body(),
	}, func(ctx context.Context, in *passwordQuery) (*struct{ Body *signature.CertInfo }, error) {
		u, err := certInfoUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		info, err := signature.Inspect(u.File("file").Data, in.Password)
		return &struct{ Body *signature.CertInfo }{info}, err
	}, up)
}

// isPFX checks the outer structure of a PKCS#12 file (PFX version 3), which needs no password.
func isPFX(b []byte) bool {
	var pfx struct {
		Version  int
		AuthSafe asn1.RawValue
		MacData  asn1.RawValue `asn1:"optional"`
	}
	rest, err := asn1.Unmarshal(b, &pfx)
	return err == nil && len(rest) == 0 && pfx.Version == 3
}
