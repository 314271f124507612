package signature

import (
	"bytes"
	"context"
	"crypto/x509"
	"image"
	"image/png"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testpki"
	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/netguard"
)

// pdfsig runs poppler's verifier; its exit status is not a verdict, its text is.
func pdfsig(t *testing.T, data []byte) string {
	t.Helper()
	out, _ := exec.Command("pdfsig", testtool.File(t, "s.pdf", data)).CombinedOutput()
	return string(out)
}

func TestSignAndVerify(t *testing.T) {
	pki := testpki.Valid(t)
	src := testpdf.New(2)
	signed, err := Sign(context.Background(), src, creds(pki), Options{Reason: "Rechnung freigegeben", Location: "Berlin", ContactInfo: "anna@muster.example"})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, signed)
	if !bytes.HasPrefix(signed, src) {
		t.Fatal("signing rewrote the original bytes instead of appending an update")
	}
	out := pdfsig(t, signed)
	for _, want := range []string{"Signature #1", "Signer Certificate Common Name: Anna Muster", "Signature Validation: Signature is Valid.", "Signing Hash Algorithm: SHA-256", "Total document signed"} {
		if !strings.Contains(out, want) {
			t.Fatalf("pdfsig lacks %q:\n%s", want, out)
		}
	}
	rep, err := Verify(signed)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Signed || !rep.Valid || rep.Count != 1 {
		t.Fatalf("report %+v", rep)
	}
	s := rep.Signatures[0]
	if !s.Integrity.Intact || !s.Integrity.CoversWholeDocument || s.Integrity.ModifiedAfterSigning || s.Verdict != "valid" ||
		s.Signer.Name != "Anna Muster" || s.Signer.Email != "anna@muster.example" || s.Signer.Organization != "Muster GmbH" ||
		s.Reason != "Rechnung freigegeben" || s.Location != "Berlin" || s.SigningTime == nil ||
		!s.Chain.Complete || s.Chain.Length != 2 || s.Chain.Trusted || s.Chain.SelfSigned || s.Timestamp != nil {
		t.Fatalf("signature %+v", s)
	}
	if s.Certificate.SerialNumber != "1092" || !strings.Contains(strings.Join(s.Certificate.ExtKeyUsage, ","), "documentSigning") {
		t.Fatalf("certificate %+v", s.Certificate)
	}

	// Flip one byte inside the signed range: both verifiers see it.
	broken := bytes.Clone(signed)
	i := bytes.Index(broken, []byte("(Page 2)"))
	broken[i+1] = 'X'
	if out := pdfsig(t, broken); !strings.Contains(out, "Signature is Invalid") && !strings.Contains(out, "Digest Mismatch") {
		t.Fatalf("pdfsig missed the change:\n%s", out)
	}
	rep, err = Verify(broken)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Valid || rep.Signatures[0].Integrity.Intact || rep.Signatures[0].Verdict != "invalid" {
		t.Fatalf("broken file verified: %+v", rep.Signatures[0].Integrity)
	}
}

func TestSecondSignatureAndChanges(t *testing.T) {
	pki := testpki.Valid(t)
	once, err := Sign(context.Background(), testpdf.New(1), creds(pki), Options{})
	if err != nil {
		t.Fatal(err)
	}
	twice, err := Sign(context.Background(), once, creds(pki), Options{SignerName: "Zweite Person"})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, twice)
	rep, _ := Verify(twice)
	if rep.Count != 2 || !rep.Valid || rep.Signatures[0].Verdict != "modified" || !rep.Signatures[0].Integrity.ModifiedAfterSigning || rep.Signatures[1].Verdict != "valid" {
		t.Fatalf("two signatures: %+v", rep)
	}
	if out := pdfsig(t, twice); strings.Count(out, "Signature is Valid.") != 2 {
		t.Fatalf("pdfsig:\n%s", out)
	}
	// An edit appended after the signature leaves it intact but no longer covering the file.
	edited := append(bytes.Clone(once), []byte("\n% appended\n")...)
	rep, _ = Verify(edited)
	if rep.Valid || !rep.Signatures[0].Integrity.Intact || rep.Signatures[0].Verdict != "modified" {
		t.Fatalf("appended edit: %+v", rep.Signatures[0])
	}
}

func TestVisibleSignature(t *testing.T) {
	pki := testpki.Valid(t)
	logo := image.NewRGBA(image.Rect(0, 0, 40, 40))
	for y := 0; y < 40; y++ {
		for x := 0; x < 40; x++ {
			logo.Set(x, y, image.Black)
		}
	}
	var logoPNG bytes.Buffer
	png.Encode(&logoPNG, logo)
	v := &Visible{Page: 2, X: 300, Y: 100, Width: 240, Height: 60, Text: []string{"Digital signiert von Anna Muster", "2026-11-22"}, Image: logoPNG.Bytes()}
	signed, err := Sign(context.Background(), testpdf.New(2), creds(pki), Options{Visible: v})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, signed)
	// Render page 2 at 72 dpi (1 px = 1 pt) and look inside and outside the rectangle.
	p := testtool.File(t, "v.pdf", signed)
	img := renderPage(t, p, 2)
	h := img.Bounds().Dy()
	inside := dark(img, image.Rect(300, h-160, 540, h-100))
	outside := dark(img, image.Rect(300, h-300, 540, h-240))
	if inside < 200 || outside != 0 {
		t.Fatalf("dark pixels inside %d, outside %d", inside, outside)
	}
	if out := pdfsig(t, signed); !strings.Contains(out, "Signature is Valid.") {
		t.Fatalf("pdfsig:\n%s", out)
	}
	if _, err := Sign(context.Background(), testpdf.New(1), creds(pki), Options{Visible: &Visible{Page: 3, X: 1, Y: 1, Width: 100, Height: 50}}); fault.CodeOf(err) != fault.InvalidInput {
		t.Fatalf("page 3 of 1: %v", err)
	}
}

func renderPage(t *testing.T, path string, page int) image.Image {
	t.Helper()
	out, err := exec.Command("pdftoppm", "-png", "-r", "72", "-f", itoa(page), "-l", itoa(page), "-singlefile", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func itoa(n int) string { return strconv.Itoa(n) }

func dark(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr+cg+cb < 3*0xa000 {
				n++
			}
		}
	}
	return n
}

func TestTimestamp(t *testing.T) {
	pki := testpki.Valid(t)
	tsa, calls := testpki.TSA(t)
	policy := netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	signed, err := Sign(context.Background(), testpdf.New(1), creds(pki), Options{TimestampURL: tsa.URL, Network: policy})
	if err != nil {
		t.Fatal(err)
	}
	if *calls != 1 {
		t.Fatalf("TSA called %d times", *calls)
	}
	rep, _ := Verify(signed)
	ts := rep.Signatures[0].Timestamp
	if ts == nil || !ts.Valid || ts.Authority != "CN=Papierkram Test TSA" || time.Since(ts.Time) > time.Minute {
		t.Fatalf("timestamp %+v", ts)
	}
	if out := pdfsig(t, signed); !strings.Contains(out, "Signature is Valid.") {
		t.Fatalf("pdfsig:\n%s", out)
	}
	// Without an allowance the loopback TSA is out of reach: the policy protects the network.
	_, err = Sign(context.Background(), testpdf.New(1), creds(pki), Options{TimestampURL: tsa.URL})
	if fault.CodeOf(err) != fault.InvalidInput || !strings.Contains(err.Error(), "internal address") {
		t.Fatalf("loopback TSA without allowance: %v", err)
	}
}

func TestCertificateProblems(t *testing.T) {
	expired := testpki.New(t, time.Now().Add(-400*24*time.Hour), time.Now().Add(-24*time.Hour))
	_, err := Sign(context.Background(), testpdf.New(1), creds(expired), Options{})
	if fault.CodeOf(err) != fault.InvalidCertificate || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("expired: %v", err)
	}
	if _, err := Sign(context.Background(), testpdf.New(1), creds(expired), Options{AllowExpired: true}); err != nil {
		t.Fatalf("AllowExpired: %v", err)
	}
	future := testpki.New(t, time.Now().Add(24*time.Hour), time.Now().Add(48*time.Hour))
	if _, err := Sign(context.Background(), testpdf.New(1), creds(future), Options{}); fault.CodeOf(err) != fault.InvalidCertificate {
		t.Fatalf("not yet valid: %v", err)
	}
	pki := testpki.Valid(t)
	p12 := pki.P12(t, "geheim")
	if _, err := Load(p12, "falsch"); fault.CodeOf(err) != fault.InvalidCertPassword {
		t.Fatalf("wrong password: %v", err)
	}
	for name, b := range map[string][]byte{"garbage": []byte("not a p12"), "truncated": p12[:len(p12)/2], "empty": nil} {
		if _, err := Load(b, "geheim"); fault.CodeOf(err) != fault.InvalidCertificate {
			t.Errorf("%s: %v", name, err)
		}
	}
	info, err := Inspect(p12, "geheim")
	if err != nil {
		t.Fatal(err)
	}
	if info.CommonName != "Anna Muster" || info.Issuer != "CN=Papierkram Test CA,O=Papierkram Tests" || info.ChainLength != 1 || info.SelfSigned ||
		!strings.Contains(strings.Join(info.KeyUsage, ","), "digitalSignature") {
		t.Fatalf("inspect %+v", info)
	}
	// A PKCS#12 made by openssl (a tool we did not write) loads too.
	dir := t.TempDir()
	key, crt, out := filepath.Join(dir, "k.pem"), filepath.Join(dir, "c.pem"), filepath.Join(dir, "o.p12")
	testtool.Run(t, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", crt, "-days", "30", "-subj", "/CN=OpenSSL Signer")
	testtool.Run(t, "openssl", "pkcs12", "-export", "-inkey", key, "-in", crt, "-out", out, "-passout", "pass:pw")
	b, _ := os.ReadFile(out)
	c, err := Load(b, "pw")
	if err != nil || c.Cert.Subject.CommonName != "OpenSSL Signer" {
		t.Fatalf("openssl p12: %v", err)
	}
	signed, err := Sign(context.Background(), testpdf.New(1), c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, _ := Verify(signed)
	if !rep.Valid || !rep.Signatures[0].Chain.SelfSigned {
		t.Fatalf("self-signed: %+v", rep.Signatures[0].Chain)
	}
}

func TestSignKeepsPDFA(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "shared", "corpus", "zugferd", "2.3-examples", "3. EN16931", "EN16931_Einfach", "EN16931_Einfach.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	signed, err := Sign(context.Background(), src, creds(testpki.Valid(t)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, signed)
	if !bytes.HasPrefix(signed, src) {
		t.Fatal("the PDF/A revision was rewritten")
	}
	meta := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "a.pdf", signed))
	if !strings.Contains(meta, "pdfaid") {
		t.Fatal("PDF/A identification lost")
	}
	if out := testtool.Run(t, "pdfdetach", "-list", testtool.File(t, "d.pdf", signed)); !strings.Contains(out, "factur-x.xml") {
		t.Fatalf("embedded invoice lost:\n%s", out)
	}
	rep, _ := Verify(signed)
	if !rep.Valid {
		t.Fatalf("%+v", rep)
	}
}

func TestVerifyUnsignedAndBad(t *testing.T) {
	rep, err := Verify(testpdf.New(1))
	if err != nil || rep.Signed || rep.Count != 0 || rep.Signatures == nil {
		t.Fatalf("unsigned: %+v %v", rep, err)
	}
	if _, err := Verify([]byte("nope")); fault.CodeOf(err) != fault.InvalidPDF {
		t.Fatalf("garbage: %v", err)
	}
}

func FuzzVerify(f *testing.F) {
	pki := testpki.Valid(f)
	signed, err := Sign(context.Background(), testpdf.New(1), creds(pki), Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(signed)
	f.Add(testpdf.New(1))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := Verify(data)
		if err != nil {
			if c := fault.CodeOf(err); c != fault.InvalidPDF && c != fault.EncryptedPDF {
				t.Fatalf("code %s: %v", c, err)
			}
			return
		}
		if rep.Count != len(rep.Signatures) {
			t.Fatal("count mismatch")
		}
	})
}

func FuzzLoad(f *testing.F) {
	pki := testpki.Valid(f)
	f.Add(pki.P12(f, "pw"), "pw")
	f.Add([]byte{0x30, 0x82}, "")
	f.Fuzz(func(t *testing.T, data []byte, pw string) {
		_, err := Load(data, pw)
		if err != nil {
			if c := fault.CodeOf(err); c != fault.InvalidCertificate && c != fault.InvalidCertPassword {
				t.Fatalf("code %s: %v", c, err)
			}
		}
	})
}

func creds(p *testpki.PKI) *Credentials {
	return &Credentials{Key: p.LeafKey, Cert: p.Leaf, Chain: []*x509.Certificate{p.CA}}
}

// TestOwnerRestrictedRefused: the PDF package reads a file with owner restrictions only,
// decrypted; signing appends to the original's encrypted bytes and verifying checks them, so
// both refuse such a file with what to do instead of writing a broken file or a false report.
func TestOwnerRestrictedRefused(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o.pdf")
	testtool.Run(t, "qpdf", "--encrypt", "", "owner", "256", "--print=none", "--", testtool.File(t, "p.pdf", testpdf.New(1)), out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Sign(context.Background(), b, creds(testpki.Valid(t)), Options{}); fault.CodeOf(err) != fault.EncryptedPDF || !strings.Contains(err.Error(), "unlock") {
		t.Fatalf("sign: %v", err)
	}
	if _, err := Verify(b); fault.CodeOf(err) != fault.EncryptedPDF {
		t.Fatalf("verify: %v", err)
	}
}
