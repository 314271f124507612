package signature

import (
	"crypto"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/papierkram/papierkram/fault"
)

// MaxPKCS12 bounds an uploaded certificate file.
const MaxPKCS12 = 1 << 20

// Credentials are what signing needs: the private key, its certificate and the chain.
type Credentials struct {
	Key   crypto.Signer
	Cert  *x509.Certificate
	Chain []*x509.Certificate // issuers, leaf excluded
}

// Load opens a PKCS#12 file. A wrong password is fault.InvalidCertPassword; anything that
// is not a usable PKCS#12 file with a private key and certificate is fault.InvalidCertificate.
func Load(p12 []byte, password string) (c *Credentials, err error) {
	if len(p12) == 0 {
		return nil, fault.New(fault.InvalidCertificate, "the certificate file is empty")
	}
	if len(p12) > MaxPKCS12 {
		return nil, fault.New(fault.InvalidCertificate, "the certificate file is larger than %d bytes", MaxPKCS12)
	}
	defer func() {
		if v := recover(); v != nil {
			c, err = nil, fault.New(fault.InvalidCertificate, "the file is not a readable PKCS#12 certificate")
		}
	}()
	key, cert, chain, err := pkcs12.DecodeChain(p12, password)
	if err != nil {
		if errors.Is(err, pkcs12.ErrIncorrectPassword) {
			return nil, fault.New(fault.InvalidCertPassword, "the certificate password is wrong")
		}
		return nil, fault.Wrap(fault.InvalidCertificate, err, "the file is not a usable PKCS#12 certificate: %v", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok || cert == nil {
		return nil, fault.New(fault.InvalidCertificate, "the PKCS#12 file holds no usable private key and certificate")
	}
	return &Credentials{Key: signer, Cert: cert, Chain: chain}, nil
}

// CertInfo describes a certificate.
type CertInfo struct {
	Subject      string    `json:"subject" example:"CN=Anna Muster,O=Muster GmbH,C=DE"`
	CommonName   string    `json:"commonName,omitempty" example:"Anna Muster"`
	Organization string    `json:"organization,omitempty" example:"Muster GmbH"`
	Email        string    `json:"email,omitempty" example:"anna@muster.example"`
	Issuer       string    `json:"issuer" example:"CN=Muster CA,O=Muster GmbH,C=DE"`
	SerialNumber string    `json:"serialNumber" example:"4f3a9c"`
	NotBefore    time.Time `json:"notBefore" example:"2026-01-01T00:00:00Z"`
	NotAfter     time.Time `json:"notAfter" example:"2028-01-01T00:00:00Z"`
	KeyUsage     []string  `json:"keyUsage,omitempty" example:"digitalSignature,contentCommitment"`
	ExtKeyUsage  []string  `json:"extKeyUsage,omitempty" example:"documentSigning"`
	SelfSigned   bool      `json:"selfSigned" example:"false"`
	SHA256       string    `json:"sha256" doc:"SHA-256 fingerprint of the DER certificate, hex."`
	ChainLength  int       `json:"chainLength,omitempty" doc:"Issuer certificates included (PKCS#12 only)." example:"1"`
}

// Describe returns what a person wants to know about a certificate.
func Describe(c *x509.Certificate) CertInfo {
	sum := sha256.Sum256(c.Raw)
	info := CertInfo{
		Subject: DistinguishedName(c.RawSubject), CommonName: c.Subject.CommonName, Issuer: DistinguishedName(c.RawIssuer),
		SerialNumber: c.SerialNumber.Text(16), NotBefore: c.NotBefore.UTC(), NotAfter: c.NotAfter.UTC(),
		KeyUsage: keyUsages(c.KeyUsage), ExtKeyUsage: extKeyUsages(c), SHA256: hex.EncodeToString(sum[:]),
		SelfSigned: selfSigned(c),
	}
	if len(c.Subject.Organization) > 0 {
		info.Organization = strings.Join(c.Subject.Organization, ", ")
	}
	if len(c.EmailAddresses) > 0 {
		info.Email = c.EmailAddresses[0]
	}
	return info
}

// Inspect opens a PKCS#12 file and describes its certificate; nothing is kept.
func Inspect(p12 []byte, password string) (*CertInfo, error) {
	c, err := Load(p12, password)
	if err != nil {
		return nil, err
	}
	info := Describe(c.Cert)
	info.ChainLength = len(c.Chain)
	return &info, nil
}

// checkUsable refuses certificates that must not sign at t.
func checkUsable(c *x509.Certificate, t time.Time, allowExpired bool) error {
	if !allowExpired {
		if t.Before(c.NotBefore) {
			return fault.New(fault.InvalidCertificate, "the certificate is not valid before %s", c.NotBefore.UTC().Format(time.RFC3339))
		}
		if t.After(c.NotAfter) {
			return fault.New(fault.InvalidCertificate, "the certificate expired on %s", c.NotAfter.UTC().Format(time.RFC3339))
		}
	}
	if c.KeyUsage != 0 && c.KeyUsage&(x509.KeyUsageDigitalSignature|x509.KeyUsageContentCommitment) == 0 {
		return fault.New(fault.InvalidCertificate, "the certificate's key usage does not allow signing")
	}
	return nil
}

func keyUsages(k x509.KeyUsage) []string {
	names := []struct {
		bit  x509.KeyUsage
		name string
	}{
		{x509.KeyUsageDigitalSignature, "digitalSignature"}, {x509.KeyUsageContentCommitment, "contentCommitment"},
		{x509.KeyUsageKeyEncipherment, "keyEncipherment"}, {x509.KeyUsageDataEncipherment, "dataEncipherment"},
		{x509.KeyUsageKeyAgreement, "keyAgreement"}, {x509.KeyUsageCertSign, "keyCertSign"},
		{x509.KeyUsageCRLSign, "cRLSign"}, {x509.KeyUsageEncipherOnly, "encipherOnly"}, {x509.KeyUsageDecipherOnly, "decipherOnly"},
	}
	var out []string
	for _, n := range names {
		if k&n.bit != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// documentSigning is id-kp-documentSigning (RFC 9336).
var documentSigning = []int{1, 3, 6, 1, 5, 5, 7, 3, 36}

func extKeyUsages(c *x509.Certificate) []string {
	var out []string
	for _, u := range c.ExtKeyUsage {
		switch u {
		case x509.ExtKeyUsageEmailProtection:
			out = append(out, "emailProtection")
		case x509.ExtKeyUsageClientAuth:
			out = append(out, "clientAuth")
		case x509.ExtKeyUsageServerAuth:
			out = append(out, "serverAuth")
		case x509.ExtKeyUsageCodeSigning:
			out = append(out, "codeSigning")
		case x509.ExtKeyUsageTimeStamping:
			out = append(out, "timeStamping")
		case x509.ExtKeyUsageAny:
			out = append(out, "any")
		default:
			out = append(out, fmt.Sprint(u))
		}
	}
	for _, oid := range c.UnknownExtKeyUsage {
		if oid.Equal(documentSigning) {
			out = append(out, "documentSigning")
		} else {
			out = append(out, oid.String())
		}
	}
	return out
}
