package signature

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	pdfr "github.com/digitorus/pdf"
	"github.com/digitorus/pdfsign/sign"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/netguard"
	"github.com/papierkram/papierkram/pdf"
)

// Visible places a visible signature on a page. The rectangle is in PDF points from the
// page's lower-left corner.
type Visible struct {
	Page                int
	X, Y, Width, Height float64
	Text                []string // lines drawn in the box; default the signer's name
	Image               []byte   // PNG or JPEG shown at the left of the box
}

// Options of Sign.
type Options struct {
	Reason, Location, ContactInfo, SignerName string
	Visible                                   *Visible
	TimestampURL                              string          // RFC 3161 TSA; reached under Network
	Network                                   netguard.Policy // outbound policy for the TSA
	TSATimeout                                time.Duration   // default 15 s
	Now                                       time.Time       // signing time; default time.Now
	AllowExpired                              bool            // sign with an expired or not-yet-valid certificate (tests)
}

// Sign signs data with c and returns the signed PDF: the original bytes followed by an
// incremental update holding the signature, so earlier signatures and PDF/A conformance
// are kept.
func Sign(ctx context.Context, data []byte, c *Credentials, o Options) (out []byte, err error) {
	doc, err := pdf.Read(data)
	if err != nil {
		return nil, err
	}
	if doc.Unlocked() {
		// The signature is an incremental update of the original bytes, which are encrypted.
		return nil, fault.New(fault.EncryptedPDF, "the PDF is encrypted (owner restrictions); unlock it first (/api/pdf-tools/unlock), then sign the result")
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if err := checkUsable(c.Cert, o.Now, o.AllowExpired); err != nil {
		return nil, err
	}
	name := o.SignerName
	if name == "" {
		name = c.Cert.Subject.CommonName
	}
	sd := sign.SignData{
		Signature: sign.SignDataSignature{
			CertType:   sign.ApprovalSignature,
			DocMDPPerm: sign.AllowFillingExistingFormFieldsAndSignaturesPerms,
			Info:       sign.SignDataSignatureInfo{Name: name, Location: o.Location, Reason: o.Reason, ContactInfo: o.ContactInfo, Date: o.Now},
		},
		Signer:          c.Key,
		DigestAlgorithm: crypto.SHA256,
		Certificate:     c.Cert,
	}
	if len(c.Chain) > 0 {
		sd.CertificateChains = [][]*x509.Certificate{append([]*x509.Certificate{c.Cert}, c.Chain...)}
	}
	if v := o.Visible; v != nil {
		if v.Page < 1 || v.Page > doc.PageCount() {
			return nil, fault.New(fault.InvalidInput, "visible signature page %d does not exist (the PDF has %d pages)", v.Page, doc.PageCount())
		}
		if v.Width < 10 || v.Height < 10 || v.Width > 2000 || v.Height > 2000 || v.X < 0 || v.Y < 0 {
			return nil, fault.New(fault.InvalidInput, "the visible signature rectangle must be 10 to 2000 points wide and high, at non-negative x and y")
		}
		lines := v.Text
		if len(lines) == 0 {
			lines = []string{name}
		}
		img, err := appearance(lines, v.Image, v.Width, v.Height)
		if err != nil {
			return nil, err
		}
		sd.Appearance = sign.Appearance{Visible: true, Page: uint32(v.Page), LowerLeftX: v.X, LowerLeftY: v.Y,
			UpperRightX: v.X + v.Width, UpperRightY: v.Y + v.Height, Image: img}
	}
	if o.TimestampURL != "" {
		u, err := o.Network.CheckURL(ctx, o.TimestampURL)
		if err != nil {
			return nil, fault.Wrap(fault.InvalidInput, err, "timestampUrl: %s", fault.As(err).Message)
		}
		timeout := o.TSATimeout
		if timeout <= 0 {
			timeout = 15 * time.Second
		}
		relay, err := startRelay(ctx, u.String(), o.Network.Client(timeout))
		if err != nil {
			return nil, err
		}
		defer relay.close()
		sd.TSA = sign.TSA{URL: relay.url}
	}

	defer func() {
		if v := recover(); v != nil {
			out, err = nil, fault.New(fault.InvalidPDF, "the PDF's structure cannot be signed: %v", v)
		}
	}()
	rdr, err := pdfr.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the PDF cannot be read for signing: %v", err)
	}
	var buf bytes.Buffer
	if err := sign.Sign(bytes.NewReader(data), &buf, rdr, int64(len(data)), sd); err != nil {
		if fe := fault.As(err); fe != nil {
			return nil, err
		}
		return nil, fault.Wrap(fault.Unprocessable, err, "the PDF could not be signed: %v", err)
	}
	return buf.Bytes(), nil
}

// relay is a one-request HTTP endpoint on loopback that pdfsign posts its timestamp request
// to; it forwards the request to the real TSA with the policy-checking client, so the
// outbound policy and a timeout apply although pdfsign's own client has neither.
type relay struct {
	url string
	srv *http.Server
	ln  net.Listener
}

func startRelay(ctx context.Context, target string, client *http.Client) (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("signature: TSA relay: %w", err)
	}
	var token [16]byte
	rand.Read(token[:])
	path := "/tsa/" + hex.EncodeToString(token[:])
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, io.LimitReader(r.Body, 64<<10))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		req.Header.Set("Content-Type", "application/timestamp-query")
		res, err := client.Do(req)
		if err != nil {
			http.Error(w, "timestamp authority unreachable: "+err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		w.Header().Set("Content-Type", res.Header.Get("Content-Type"))
		w.WriteHeader(res.StatusCode)
		io.Copy(w, io.LimitReader(res.Body, 1<<20))
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return &relay{url: "http://" + ln.Addr().String() + path, srv: srv, ln: ln}, nil
}

func (r *relay) close() { r.srv.Close() }
