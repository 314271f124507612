package signature

import (
	"bytes"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"strings"
)

// attributeNames are the short names of the name attributes a signing certificate carries
// (RFC 4514 and the usual OpenSSL names): Go's pkix.Name.String knows only some and prints
// the others, the e-mail address among them, as an OID with hex.
var attributeNames = map[string]string{
	"2.5.4.3": "CN", "2.5.4.4": "SN", "2.5.4.5": "SERIALNUMBER", "2.5.4.6": "C", "2.5.4.7": "L",
	"2.5.4.8": "ST", "2.5.4.9": "STREET", "2.5.4.10": "O", "2.5.4.11": "OU", "2.5.4.12": "title",
	"2.5.4.17": "postalCode", "2.5.4.42": "GN", "2.5.4.43": "initials", "2.5.4.97": "organizationIdentifier",
	"1.2.840.113549.1.9.1": "emailAddress", "0.9.2342.19200300.100.1.25": "DC", "0.9.2342.19200300.100.1.1": "UID",
}

// DistinguishedName writes a DER-encoded name (a certificate's RawSubject or RawIssuer) as
// RFC 4514 text, last RDN first as Go and OpenSSL print it, with readable attribute names.
func DistinguishedName(raw []byte) string {
	var seq pkix.RDNSequence
	if rest, err := asn1.Unmarshal(raw, &seq); err != nil || len(rest) > 0 {
		var n pkix.Name
		n.FillFromRDNSequence(&seq)
		return n.String()
	}
	var b strings.Builder
	for i := len(seq) - 1; i >= 0; i-- {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		for j, atv := range seq[i] {
			if j > 0 {
				b.WriteByte('+')
			}
			name, known := attributeNames[atv.Type.String()]
			s, isString := atv.Value.(string)
			if !known || !isString {
				// As RFC 4514 says for what has no name: the OID and the value's DER in hex.
				der, _ := asn1.Marshal(atv.Value)
				b.WriteString(atv.Type.String() + "=#" + hex.EncodeToString(der))
				continue
			}
			b.WriteString(name + "=" + escapeValue(s))
		}
	}
	return b.String()
}

// escapeValue escapes an attribute value as RFC 4514, 2.4 asks.
func escapeValue(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case strings.ContainsRune(`,+"\<>;`, r),
			i == 0 && (r == ' ' || r == '#'),
			i == len(s)-1 && r == ' ':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == 0:
			b.WriteString(`\00`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// selfSigned reports whether a certificate is signed by its own key and names itself as
// its issuer; unlike CheckSignatureFrom it does not ask the certificate to be a CA.
func selfSigned(c *x509.Certificate) bool {
	return bytes.Equal(c.RawIssuer, c.RawSubject) && c.CheckSignature(c.SignatureAlgorithm, c.RawTBSCertificate, c.Signature) == nil
}
