package signature

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/digitorus/timestamp"
	"software.sslmate.com/src/go-pkcs12"
)

// testPKI is a CA and a signing leaf made for the test.
type testPKI struct {
	ca, leaf       *x509.Certificate
	caKey, leafKey crypto.Signer
}

func newPKI(t testing.TB, notBefore, notAfter time.Time) *testPKI {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Papierkram Test CA", Organization: []string{"Papierkram Tests"}},
		NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(10 * 365 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	leafKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(4242), Subject: pkix.Name{CommonName: "Anna Muster", Organization: []string{"Muster GmbH"}, Country: []string{"DE"}},
		EmailAddresses: []string{"anna@muster.example"}, NotBefore: notBefore, NotAfter: notAfter,
		KeyUsage:           x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		UnknownExtKeyUsage: []asn1.ObjectIdentifier{documentSigning},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, leafKey.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(leafDER)
	return &testPKI{ca: ca, leaf: leaf, caKey: caKey, leafKey: leafKey}
}

func validPKI(t testing.TB) *testPKI {
	return newPKI(t, time.Now().Add(-24*time.Hour), time.Now().Add(365*24*time.Hour))
}

func (p *testPKI) p12(t testing.TB, password string) []byte {
	t.Helper()
	b, err := pkcs12.Modern.Encode(p.leafKey, p.leaf, []*x509.Certificate{p.ca}, password)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (p *testPKI) creds() *Credentials {
	return &Credentials{Key: p.leafKey, Cert: p.leaf, Chain: []*x509.Certificate{p.ca}}
}

// tsaServer is an RFC 3161 timestamp authority on 127.0.0.1, for the tests.
func tsaServer(t testing.TB) (*httptest.Server, *int) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "Papierkram Test TSA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	calls := new(int)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*calls++
		body, _ := io.ReadAll(r.Body)
		req, err := timestamp.ParseRequest(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ts := timestamp.Timestamp{
			HashAlgorithm: req.HashAlgorithm, HashedMessage: req.HashedMessage, Time: time.Now().UTC().Truncate(time.Second),
			Nonce: req.Nonce, Policy: asn1.ObjectIdentifier{1, 2, 3, 4, 1}, SerialNumber: big.NewInt(int64(*calls)),
			AddTSACertificate: true, Ordering: true, Accuracy: time.Second,
		}
		resp, err := ts.CreateResponse(cert, key)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/timestamp-reply")
		w.Write(resp)
	}))
	t.Cleanup(srv.Close)
	return srv, calls
}
