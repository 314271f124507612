package signature

import (
	"bytes"
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"fmt"
	"time"

	pdfr "github.com/digitorus/pdf"
	"github.com/digitorus/pkcs7"
	"github.com/digitorus/timestamp"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf"
)

var (
	oidSigningTime    = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 5}
	oidTimeStampToken = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 14}
)

// Report is the verification of every signature of a PDF.
type Report struct {
	Signed     bool        `json:"signed" doc:"The PDF holds at least one signature."`
	Valid      bool        `json:"valid" doc:"Every signature is intact and the last one covers the whole file."`
	Count      int         `json:"count" example:"1"`
	Signatures []Signature `json:"signatures"`
}

// Signature is one signature's verification.
type Signature struct {
	Field       string     `json:"field,omitempty" example:"Signature1"`
	Signer      Signer     `json:"signer"`
	Certificate CertInfo   `json:"certificate"`
	Chain       Chain      `json:"chain"`
	Integrity   Integrity  `json:"integrity"`
	SigningTime *time.Time `json:"signingTime,omitempty" doc:"The time the signer claims (not proof; see timestamp)."`
	Reason      string     `json:"reason,omitempty"`
	Location    string     `json:"location,omitempty"`
	ContactInfo string     `json:"contactInfo,omitempty"`
	Timestamp   *Timestamp `json:"timestamp,omitempty"`
	Verdict     string     `json:"verdict" enum:"valid,modified,invalid" doc:"valid: intact and nothing changed after it; modified: intact, but the file was changed after signing; invalid: the signed bytes do not match."`
}

// Signer is who signed, from the signing certificate.
type Signer struct {
	Name         string `json:"name,omitempty" example:"Anna Muster"`
	Email        string `json:"email,omitempty"`
	Organization string `json:"organization,omitempty"`
}

// Chain says whether the signing certificate leads to a root.
type Chain struct {
	SelfSigned bool   `json:"selfSigned"`
	Length     int    `json:"length" doc:"Certificates in the chain built from those embedded in the signature." example:"2"`
	Complete   bool   `json:"complete" doc:"The chain ends at a self-signed root that is embedded in the signature."`
	Trusted    bool   `json:"trusted" doc:"The chain ends at a root this server trusts (the system's CA store)."`
	Error      string `json:"error,omitempty"`
}

// Integrity says whether the signed bytes are unchanged and what they cover.
type Integrity struct {
	Intact               bool    `json:"intact" doc:"The hash of the signed byte ranges matches and the signature over it verifies."`
	CoversWholeDocument  bool    `json:"coversWholeDocument" doc:"The byte ranges cover the whole file but the signature value."`
	ModifiedAfterSigning bool    `json:"modifiedAfterSigning" doc:"Bytes were appended after this signature (an incremental update: a later signature or an edit)."`
	ByteRange            []int64 `json:"byteRange"`
	Error                string  `json:"error,omitempty"`
}

// Timestamp is an RFC 3161 timestamp in the signature.
type Timestamp struct {
	Time      time.Time `json:"time"`
	Authority string    `json:"authority,omitempty" doc:"Subject of the timestamp authority's certificate."`
	Valid     bool      `json:"valid" doc:"The token verifies and its imprint matches the signature value."`
	Error     string    `json:"error,omitempty"`
}

// Verify checks every signature field of data. A PDF without signatures is a report with
// Signed false, not an error; an unreadable PDF is fault.InvalidPDF.
func Verify(data []byte) (rep *Report, err error) {
	d, err := pdf.Read(data)
	if err != nil {
		return nil, err
	}
	if d.Unlocked() {
		// Signatures cover the encrypted bytes; their decrypted contents are not checked here.
		return nil, fault.New(fault.EncryptedPDF, "the signatures of an encrypted PDF cannot be verified here")
	}
	defer func() {
		if v := recover(); v != nil {
			rep, err = nil, fault.New(fault.InvalidPDF, "the PDF's signature structures cannot be read: %v", v)
		}
	}()
	r, err := pdfr.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the PDF cannot be read: %v", err)
	}
	rep = &Report{Signatures: []Signature{}}
	var walk func(fields pdfr.Value, depth int)
	walk = func(fields pdfr.Value, depth int) {
		if depth > 16 {
			return
		}
		for i := 0; i < fields.Len() && len(rep.Signatures) < 100; i++ {
			f := fields.Index(i)
			if kids := f.Key("Kids"); kids.Kind() == pdfr.Array {
				walk(kids, depth+1)
			}
			v := f.Key("V")
			if f.Key("FT").Name() != "Sig" || v.Kind() != pdfr.Dict || v.Key("Contents").Kind() != pdfr.String {
				continue
			}
			rep.Signatures = append(rep.Signatures, verifyOne(data, f.Key("T").Text(), v))
		}
	}
	walk(r.Trailer().Key("Root").Key("AcroForm").Key("Fields"), 0)
	rep.Count = len(rep.Signatures)
	rep.Signed = rep.Count > 0
	rep.Valid = rep.Signed
	for i, s := range rep.Signatures {
		if !s.Integrity.Intact || (i == rep.Count-1 && !s.Integrity.CoversWholeDocument) {
			rep.Valid = false
		}
	}
	return rep, nil
}

func verifyOne(data []byte, field string, v pdfr.Value) Signature {
	s := Signature{Field: field, Reason: v.Key("Reason").Text(), Location: v.Key("Location").Text(), ContactInfo: v.Key("ContactInfo").Text(), Verdict: "invalid"}
	br := v.Key("ByteRange")
	for i := 0; i < br.Len() && i < 8; i++ {
		s.Integrity.ByteRange = append(s.Integrity.ByteRange, br.Index(i).Int64())
	}
	signed, err := signedBytes(data, s.Integrity.ByteRange)
	if err != nil {
		s.Integrity.Error = err.Error()
		return s
	}
	last := s.Integrity.ByteRange[len(s.Integrity.ByteRange)-2] + s.Integrity.ByteRange[len(s.Integrity.ByteRange)-1]
	s.Integrity.CoversWholeDocument = s.Integrity.ByteRange[0] == 0 && last == int64(len(data))
	s.Integrity.ModifiedAfterSigning = last < int64(len(data))

	p7, err := pkcs7.Parse([]byte(v.Key("Contents").RawString()))
	if err != nil {
		s.Integrity.Error = "the signature value is not a CMS signature: " + err.Error()
		return s
	}
	if cert := p7.GetOnlySigner(); cert != nil {
		s.Certificate = Describe(cert)
		s.Signer = Signer{Name: cert.Subject.CommonName, Email: s.Certificate.Email, Organization: s.Certificate.Organization}
		s.Chain = chainOf(cert, p7.Certificates)
	}
	p7.Content = signed
	if err := p7.Verify(); err != nil {
		s.Integrity.Error = "the signed bytes do not match the signature: " + err.Error()
	} else {
		s.Integrity.Intact = true
	}
	var st time.Time
	if err := p7.UnmarshalSignedAttribute(oidSigningTime, &st); err == nil {
		s.SigningTime = &st
	} else if m := v.Key("M").Text(); m != "" {
		if t, ok := pdfDate(m); ok {
			s.SigningTime = &t
		}
	}
	if len(p7.Signers) > 0 {
		for _, a := range p7.Signers[0].UnauthenticatedAttributes {
			if a.Type.Equal(oidTimeStampToken) {
				s.Timestamp = timestampOf(a.Value.Bytes, p7.Signers[0].EncryptedDigest)
			}
		}
	}
	switch {
	case !s.Integrity.Intact:
		s.Verdict = "invalid"
	case s.Integrity.ModifiedAfterSigning:
		s.Verdict = "modified"
	default:
		s.Verdict = "valid"
	}
	return s
}

// signedBytes concatenates the byte ranges, checking they lie inside the file, in order.
func signedBytes(data []byte, br []int64) ([]byte, error) {
	if len(br) < 4 || len(br)%2 != 0 {
		return nil, errors.New("the signature has no valid /ByteRange")
	}
	var out []byte
	prevEnd := int64(-1)
	for i := 0; i < len(br); i += 2 {
		start, n := br[i], br[i+1]
		if start < 0 || n < 0 || start+n > int64(len(data)) || start < prevEnd {
			return nil, fmt.Errorf("the /ByteRange %v lies outside the file", br)
		}
		out = append(out, data[start:start+n]...)
		prevEnd = start + n
	}
	return out, nil
}

func chainOf(leaf *x509.Certificate, embedded []*x509.Certificate) Chain {
	c := Chain{SelfSigned: selfSigned(leaf)}
	inter, roots := x509.NewCertPool(), x509.NewCertPool()
	for _, e := range embedded {
		if bytes.Equal(e.RawIssuer, e.RawSubject) {
			roots.AddCert(e)
		} else {
			inter.AddCert(e)
		}
	}
	opts := x509.VerifyOptions{Intermediates: inter, Roots: roots, CurrentTime: leaf.NotBefore.Add(time.Second), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}
	if chains, err := leaf.Verify(opts); err == nil {
		c.Complete, c.Length = true, len(chains[0])
	} else {
		c.Length = 1
		c.Error = err.Error()
	}
	if sys, err := x509.SystemCertPool(); err == nil {
		opts.Roots = sys
		opts.CurrentTime = time.Now()
		if _, err := leaf.Verify(opts); err == nil {
			c.Trusted, c.Error = true, ""
		}
	}
	return c
}

func timestampOf(token, signatureValue []byte) *Timestamp {
	ts, err := timestamp.Parse(token)
	if err != nil {
		return &Timestamp{Error: "the timestamp token does not verify: " + err.Error()}
	}
	out := &Timestamp{Time: ts.Time.UTC()}
	if len(ts.Certificates) > 0 {
		out.Authority = DistinguishedName(ts.Certificates[0].RawSubject)
	}
	if !ts.HashAlgorithm.Available() {
		out.Error = "unsupported timestamp hash"
		return out
	}
	h := ts.HashAlgorithm.New()
	h.Write(signatureValue)
	if !bytes.Equal(h.Sum(nil), ts.HashedMessage) {
		out.Error = "the timestamp does not belong to this signature"
		return out
	}
	out.Valid = true
	return out
}

// pdfDate reads a PDF date string (D:YYYYMMDDHHmmSS+HH'mm').
func pdfDate(s string) (time.Time, bool) {
	if len(s) >= 2 && s[:2] == "D:" {
		s = s[2:]
	}
	for _, layout := range []string{"20060102150405-07'00'", "20060102150405Z07'00'", "20060102150405Z", "20060102150405", "200601021504", "20060102"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
