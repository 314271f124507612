package signature

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/internal/testpki"
)

// TestDescribeSelfSignedWithEmail: a self-signed signing certificate made by openssl (not a
// CA) is reported self-signed, its e-mail attribute by name; a CA-issued one is not
// self-signed.
func TestDescribeSelfSignedWithEmail(t *testing.T) {
	dir := t.TempDir()
	crt := filepath.Join(dir, "c.pem")
	out, err := exec.Command("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
		"-keyout", filepath.Join(dir, "k.pem"), "-out", crt, "-days", "30", "-utf8",
		"-subj", "/C=DE/O=Muster, Söhne & Co. KG/CN=Anna Muster/emailAddress=anna@muster.example",
		"-addext", "basicConstraints=critical,CA:FALSE").CombinedOutput()
	if err != nil {
		t.Fatalf("openssl: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(crt)
	blk, _ := pem.Decode(b)
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	info := Describe(c)
	want := `emailAddress=anna@muster.example,CN=Anna Muster,O=Muster\, Söhne & Co. KG,C=DE`
	if !info.SelfSigned || info.Subject != want || info.Issuer != want {
		t.Errorf("self-signed: %v, subject %q, issuer %q", info.SelfSigned, info.Subject, info.Issuer)
	}
	// openssl's own reading agrees on the attribute.
	if text, _ := exec.Command("openssl", "x509", "-in", crt, "-noout", "-subject").Output(); !strings.Contains(string(text), "emailAddress = anna@muster.example") {
		t.Errorf("openssl reads %q", text)
	}
	if chainOf(c, nil).SelfSigned != true {
		t.Error("the verify chain does not see it self-signed")
	}

	p := testpki.Valid(t)
	if leaf := Describe(p.Leaf); leaf.SelfSigned || leaf.Issuer != "O=Papierkram Tests,CN=Papierkram Test CA" && leaf.Issuer != "CN=Papierkram Test CA,O=Papierkram Tests" {
		t.Errorf("CA-issued: %+v", leaf)
	}
	if !Describe(p.CA).SelfSigned {
		t.Error("the CA's own certificate is self-signed")
	}
}

func FuzzDistinguishedName(f *testing.F) {
	p := testpki.Valid(f)
	f.Add(p.Leaf.RawSubject)
	f.Add(p.CA.RawIssuer)
	f.Add([]byte{0x30, 0x00})
	f.Fuzz(func(t *testing.T, raw []byte) {
		DistinguishedName(raw) // any bytes: a string, never a panic
	})
}
