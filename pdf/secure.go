package pdf

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	pdfcpu "github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
	"golang.org/x/text/unicode/norm"

	"github.com/papierkram/papierkram/fault"
)

// MaxPasswordBytes bounds a password in UTF-8: AES-256 (revision 6, ISO 32000-2) uses the
// first 127 bytes only, so a longer one would silently mean its prefix.
const MaxPasswordBytes = 127

// Permissions are what a user who opens an encrypted PDF with the user password may do
// (ISO 32000-2, table 22). Viewers enforce them; they do not bind anyone who has the owner
// password.
type Permissions struct {
	Print     bool // print, at full quality
	Copy      bool // copy or otherwise extract text and graphics
	Modify    bool // change the document, and insert, rotate or delete pages
	Annotate  bool // add or change comments (and fill in forms)
	FillForms bool // fill in form fields, even without Annotate
}

// EncryptOptions steer Encrypt.
type EncryptOptions struct {
	// UserPassword opens the document; empty, anyone may open it and the permissions
	// restrict what they may do.
	UserPassword string
	// OwnerPassword opens the document with all rights and lets the permissions be
	// changed. Empty, it is the user password.
	OwnerPassword string
	Permissions   Permissions
}

// P bits of ISO 32000-2, table 22: bits 7, 8 and 13 to 32 must be 1, bits 1 and 2 0.
const (
	permReserved   = ^int32(0) &^ 0x0F3F
	permPrint      = 1 << 2
	permModify     = 1 << 3
	permCopy       = 1 << 4
	permAnnotate   = 1 << 5
	permFillForms  = 1 << 8
	permAccessible = 1 << 9 // PDF 2.0 deprecates it: readers assume it set
	permAssemble   = 1 << 10
	permPrintHigh  = 1 << 11
)

// flags is the /P value of p.
func (p Permissions) flags() int32 {
	f := permReserved | permAccessible
	if p.Print {
		f |= permPrint | permPrintHigh
	}
	if p.Modify {
		f |= permModify | permAssemble
	}
	if p.Copy {
		f |= permCopy
	}
	if p.Annotate {
		f |= permAnnotate
	}
	if p.FillForms {
		f |= permFillForms
	}
	return f
}

// encryptionPassword checks and normalises a password given for encryption. ISO 32000-2 asks for
// SASLprep, whose core is NFKC: a password typed as "ü" or as "u" and a combining mark
// is then the same password, as it is to Acrobat.
func encryptionPassword(pw, what string) (string, error) {
	if !utf8.ValidString(pw) {
		return "", fault.New(fault.InvalidInput, "the %s is not valid UTF-8", what)
	}
	pw = norm.NFKC.String(pw)
	if len(pw) > MaxPasswordBytes {
		return "", fault.New(fault.InvalidInput, "the %s has %d bytes in UTF-8; at most %d are allowed (AES-256 uses no more)", what, len(pw), MaxPasswordBytes)
	}
	return pw, nil
}

// Encrypt returns the document encrypted with AES-256 (revision 6, the only one ISO
// 32000-2 keeps). A PDF 2.0 file stays PDF 2.0; an older one becomes PDF 1.7 with Adobe's
// extension level 8, which declares the same encryption to 1.7 readers (as qpdf and
// Acrobat write it). An encrypted input is fault.EncryptedPDF.
func Encrypt(ctx context.Context, data []byte, o EncryptOptions) (out []byte, err error) {
	if ctx.Err() != nil {
		return nil, fault.FromContext(ctx, "the PDF was not encrypted")
	}
	user, err := encryptionPassword(o.UserPassword, "user password")
	if err != nil {
		return nil, err
	}
	owner, err := encryptionPassword(o.OwnerPassword, "owner password")
	if err != nil {
		return nil, err
	}
	if owner == "" {
		if user == "" {
			return nil, fault.New(fault.InvalidInput, "encryption needs an owner password (and, to keep the document from being opened without one, a user password)")
		}
		owner = user
	}
	d, err := Read(data)
	if err != nil {
		if fault.CodeOf(err) == fault.EncryptedPDF {
			return nil, fault.Wrap(fault.EncryptedPDF, err, "the PDF is encrypted already; decrypt it first, then encrypt it again")
		}
		return nil, err
	}
	defer recoverInto(&err, "encrypt")
	c := d.ctx
	pdf20 := c.XRefTable.Version() == model.V20
	if !pdf20 {
		if err := addExtensionLevel8(c); err != nil {
			return nil, err
		}
	}
	// pdfcpu writes revision 6 for PDF 2.0 only, and revision 5 (withdrawn: its password
	// hash is a single SHA-256) otherwise; the header is set back below.
	v := model.V20
	c.RootVersion = &v
	c.Cmd = model.ENCRYPT
	c.EncryptUsingAES = true
	c.EncryptKeyLength = 256
	c.UserPW, c.OwnerPW = user, owner
	c.Permissions = model.PermissionFlags(o.Permissions.flags())
	if ctx.Err() != nil {
		return nil, fault.FromContext(ctx, "the PDF was not encrypted")
	}
	if out, err = write(c); err != nil {
		return nil, err
	}
	if !pdf20 {
		// The header is the file's first bytes and nothing refers to its offset.
		if !bytes.HasPrefix(out, []byte("%PDF-2.0")) {
			return nil, fault.New(fault.Internal, "the encrypted PDF has an unexpected header")
		}
		copy(out, "%PDF-1.7")
	}
	return out, nil
}

// addExtensionLevel8 declares AES-256 revision 6 in a PDF 1.7 file (ISO 32000-2 calls it
// Adobe's extension level 8).
func addExtensionLevel8(c *model.Context) error {
	root, err := c.Catalog()
	if err != nil {
		return fault.Wrap(fault.InvalidPDF, err, "the PDF has no readable catalog")
	}
	ext := types.Dict{}
	if old, err := c.DereferenceDict(root["Extensions"]); err == nil && old != nil {
		for k, v := range old {
			ext[k] = v
		}
	}
	if adbe, err := c.DereferenceDict(ext["ADBE"]); err == nil && adbe != nil {
		if l, err := c.DereferenceInteger(adbe["ExtensionLevel"]); err == nil && l != nil && l.Value() >= 8 {
			return nil
		}
	}
	ext["ADBE"] = types.Dict{"BaseVersion": types.Name("1.7"), "ExtensionLevel": types.Integer(8)}
	root["Extensions"] = ext
	return nil
}

// Decrypt returns the document without its encryption, opened with the user or the owner
// password; either removes all restrictions, as qpdf --decrypt does. A wrong password is
// fault.InvalidPDFPassword. A document that is not encrypted comes back unchanged. The
// limits of Read hold for what the encrypted streams decode to.
func Decrypt(ctx context.Context, data []byte, password string) ([]byte, error) {
	if len(password) > MaxPasswordBytes {
		return nil, fault.New(fault.InvalidInput, "the password has %d bytes; at most %d are allowed", len(password), MaxPasswordBytes)
	}
	return decrypt(ctx, data, password, false)
}

// Unlock removes the encryption of a document that opens without a password: one with an
// owner password only, which restricts printing, copying or changes. A document that needs
// a password to open is fault.EncryptedPDF (Decrypt takes the password). A document that
// is not encrypted comes back unchanged.
func Unlock(ctx context.Context, data []byte) ([]byte, error) {
	return decrypt(ctx, data, "", true)
}

func decrypt(ctx context.Context, data []byte, pw string, unlock bool) (out []byte, err error) {
	if ctx.Err() != nil {
		return nil, fault.FromContext(ctx, "the PDF was not decrypted")
	}
	if !bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) {
		return nil, fault.New(fault.InvalidPDF, "the file is not a PDF (no %%PDF- header)")
	}
	op, err := checkOpen(data, pw)
	if err != nil {
		return nil, err
	}
	if !op.encrypted {
		if _, err := read(data, false); err != nil {
			return nil, err
		}
		return data, nil
	}
	if !op.ok {
		if unlock {
			return nil, fault.New(fault.EncryptedPDF, "the PDF needs a password to open: send it in the multipart part password (or decrypt the file with /api/pdf-tools/decrypt)")
		}
		return nil, fault.New(fault.InvalidPDFPassword, "the password does not open the PDF")
	}
	if ctx.Err() != nil {
		return nil, fault.FromContext(ctx, "the PDF was not decrypted")
	}
	defer recoverInto(&err, "decrypt")
	src, upw := data, string(op.pw)
	if op.r >= 5 && len(op.pw) > 0 {
		// pdfcpu checks AES-256 passwords after SASLprep with a profile that refuses
		// spaces and symbols, and so fails on passwords such as "mein Passwort" that
		// it, qpdf and Acrobat encrypt with. The file key is known: the copy it reads
		// opens with the empty user password instead.
		if re, ok := rekey(data, op); ok {
			src, upw = re, ""
		}
	}
	conf := config()
	conf.UserPW, conf.OwnerPW = upw, upw
	conf.Cmd = model.DECRYPT
	c, err := api.ReadContext(bytes.NewReader(src), conf)
	if err != nil {
		switch {
		case errors.Is(err, pdfcpu.ErrNotEncrypted):
			// The scan found an encryption dictionary that the last revision no longer names.
			if _, err := read(data, false); err != nil {
				return nil, err
			}
			return data, nil
		case errors.Is(err, pdfcpu.ErrWrongPassword):
			return nil, fault.New(fault.InvalidPDFPassword, "the password does not open the PDF")
		}
		return nil, fault.Wrap(fault.InvalidPDF, err, "the encrypted PDF cannot be read: %s", trimPdfcpu(err.Error()))
	}
	if ctx.Err() != nil {
		return nil, fault.FromContext(ctx, "the PDF was not decrypted")
	}
	c.Cmd = model.DECRYPT
	// pdfcpu leaves the encryption dictionary out of the result but not out of its
	// table, whose /Size then counts an object the cross-reference section lacks.
	if c.Encrypt != nil {
		if err := c.FreeObject(c.Encrypt.ObjectNumber.Value()); err != nil {
			return nil, fault.Wrap(fault.InvalidPDF, err, "the encryption dictionary cannot be removed: %s", trimPdfcpu(err.Error()))
		}
	}
	if out, err = write(c); err != nil {
		return nil, err
	}
	// What comes out must be what every other operation reads.
	if _, err := Read(out); err != nil {
		return nil, err
	}
	return out, nil
}

// opening is what checkOpen learnt of an encrypted file.
type opening struct {
	encrypted bool   // a trailer names an encryption dictionary
	ok        bool   // the password opens it
	r         int64  // the revision of the handler it opened
	pw        []byte // the form of the password that opened it
	key       []byte // the file key
	dicts     []int  // positions of the encryption dictionaries it opened
}

// checkOpen is Check for an encrypted file opened with pw: the streams are measured as
// they decrypt with the key pw gives, besides the empty password's. A file pw does not
// open is not measured (nothing reads it); pdfcpu, which needs the password, would
// otherwise inflate its object streams unchecked.
func checkOpen(data []byte, pw string) (op opening, err error) {
	defer recoverInto(&err, "check")
	s := newScanner(data)
	defer s.put()
	s.withPassword, s.password = true, pw
	err = s.run()
	return s.opened, err
}

// passwordForms are the byte strings pw may have been encrypted with. Revisions 5 and 6
// take UTF-8, SASLprep'd (NFKC) by some writers and not by others; revisions 2 to 4 take
// PDFDocEncoding, which writers approximate with Latin-1 or take UTF-8 for, and use the
// first 32 bytes.
func passwordForms(pw string, r int64) [][]byte {
	forms := [][]byte{[]byte(pw)}
	add := func(b []byte) {
		for _, f := range forms {
			if bytes.Equal(f, b) {
				return
			}
		}
		forms = append(forms, b)
	}
	if r >= 5 {
		add([]byte(norm.NFKC.String(pw)))
		for i, f := range forms {
			forms[i] = f[:min(len(f), MaxPasswordBytes)]
		}
		return forms
	}
	latin := make([]byte, 0, len(pw))
	for _, c := range pw {
		if c > 0xff {
			latin = nil
			break
		}
		latin = append(latin, byte(c))
	}
	if latin != nil {
		add(latin)
	}
	return forms
}

// rekey returns data with the /U and /UE entries of the AES-256 encryption dictionaries
// op opened rewritten for the empty user password and the same file key, in place: the
// new strings are written no longer than the old ones (padded with spaces), so no offset
// moves. /O, /OE, /P and /Perms stay: the owner password still opens the copy, and the
// permissions still check out against the key.
func rekey(data []byte, op opening) ([]byte, bool) {
	out := bytes.Clone(data)
	for _, pos := range op.dicts {
		uAt, ueAt := entrySpans(out, pos)
		if uAt[1] == 0 || ueAt[1] == 0 {
			return nil, false
		}
		done := false
		// Random salts make strings that need escapes now and then; a few tries find
		// ones that fit where the old strings were written tightly.
		for range 64 {
			u, ue := emptyUserEntries(op.r, op.key)
			us, ues := fitString(u, uAt[1]-uAt[0]), fitString(ue, ueAt[1]-ueAt[0])
			if us == nil || ues == nil {
				continue
			}
			copy(out[uAt[0]:uAt[1]], us)
			copy(out[ueAt[0]:ueAt[1]], ues)
			done = true
			break
		}
		if !done {
			return nil, false
		}
	}
	return out, true
}

// emptyUserEntries are /U and /UE for the empty user password and key (algorithm 8 of
// ISO 32000-2).
func emptyUserEntries(r int64, key []byte) (u, ue []byte) {
	salts := make([]byte, 16)
	rand.Read(salts)
	u = append(hash2B(r, nil, salts[:8], nil), salts...)
	blk, _ := aes.NewCipher(hash2B(r, nil, salts[8:], nil))
	ue = make([]byte, 32)
	cipher.NewCBCEncrypter(blk, make([]byte, 16)).CryptBlocks(ue, key)
	return u, ue
}

// fitString writes b as a PDF string of exactly n bytes (hex when it fits, else a literal
// string), padded with spaces, or returns nil when it does not fit.
func fitString(b []byte, n int) []byte {
	var s []byte
	if 2*len(b)+2 <= n {
		s = []byte("<" + hex.EncodeToString(b) + ">")
	} else {
		s = append(s, '(')
		for _, c := range b {
			switch c {
			case '(', ')', '\\':
				s = append(s, '\\', c)
			case '\r':
				// A bare CR in a literal string reads as LF.
				s = append(s, '\\', 'r')
			default:
				s = append(s, c)
			}
		}
		s = append(s, ')')
	}
	if len(s) > n {
		return nil
	}
	return append(s, bytes.Repeat([]byte{' '}, n-len(s))...)
}

// entrySpans finds the /U and /UE string tokens of the dictionary at pos.
func entrySpans(b []byte, pos int) (u, ue [2]int) {
	l := lexer{b: b, p: pos}
	if l.next().kind != tDictOpen {
		return
	}
	for {
		t := l.next()
		switch t.kind {
		case tEOF, tDictClose:
			return
		case tDictOpen, tArrOpen:
			l.skipContainer(1)
			continue
		case tName:
		default:
			continue
		}
		key := nameText(l.text(t))
		if key != "U" && key != "UE" {
			continue
		}
		v := l.next()
		if v.kind != tString && v.kind != tHex {
			if v.kind == tDictOpen || v.kind == tArrOpen {
				l.skipContainer(1)
			}
			continue
		}
		if key == "U" {
			u = [2]int{v.start, v.end}
		} else {
			ue = [2]int{v.start, v.end}
		}
	}
}
