// Package testpki makes certificates, PKCS#12 files and an RFC 3161 timestamp authority on
// 127.0.0.1 for tests.
package testpki

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

// PKI is a CA and a signing leaf.
type PKI struct {
	CA, Leaf       *x509.Certificate
	CAKey, LeafKey crypto.Signer
}

// New makes a CA and a leaf valid from notBefore to notAfter.
func New(t testing.TB, notBefore, notAfter time.Time) *PKI {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Papierkram Test CA", Organization: []string{"Papierkram Tests"}},
		NotBefore: longAgo, NotAfter: time.Now().Add(10 * 365 * 24 * time.Hour),
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
		UnknownExtKeyUsage: []asn1.ObjectIdentifier{{1, 3, 6, 1, 5, 5, 7, 3, 36}}, // documentSigning
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, leafKey.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(leafDER)
	return &PKI{CA: ca, Leaf: leaf, CAKey: caKey, LeafKey: leafKey}
}

// longAgo starts the validity of test certificates meant to be valid: tests with a fixed
// clock (a day in 2026) must find them valid on any later day the tests run.
var longAgo = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// Valid makes a CA and a leaf valid now and at every fixed test clock since 2020.
func Valid(t testing.TB) *PKI {
	return New(t, longAgo, time.Now().Add(365*24*time.Hour))
}

// P12 encodes the leaf, its key and the CA as PKCS#12.
func (p *PKI) P12(t testing.TB, password string) []byte {
	t.Helper()
	b, err := pkcs12.Modern.Encode(p.LeafKey, p.Leaf, []*x509.Certificate{p.CA}, password)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TSA starts an RFC 3161 timestamp authority; calls counts its requests.
func TSA(t testing.TB) (*httptest.Server, *int) {
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
