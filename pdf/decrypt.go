package pdf

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"crypto/rc4"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/binary"
	"io"
)

// The standard security handler, for the bounds check only: pdfcpu inflates the object
// streams of an encrypted PDF while reading it, with the empty password (Read, Inspect)
// or the one given (Decrypt), so the check must see through the encryption to measure
// them. A file the password does not open is not decrypted here; pdfcpu refuses it before
// it inflates anything.

var passwordPad = []byte{
	0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
	0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
}

type decrypter struct {
	key      []byte // file key
	r        int64  // revision of the handler
	aes      bool   // streams use AES (AESV2, AESV3), else RC4
	identity bool   // streams are not encrypted (StmF /Identity)
	plainXMP bool   // EncryptMetadata false: metadata streams are not encrypted
}

// newDecrypter returns the decrypter of the encryption dictionary enc and the first
// element of the trailer's /ID opened with pw (nil: the empty password) as the user or
// the owner password, or nil when pw opens neither.
func newDecrypter(enc value, id, pw []byte) *decrypter {
	if !enc.get("Filter").isName("Standard") {
		return nil
	}
	v, _ := enc.get("V").int()
	r, _ := enc.get("R").int()
	p, _ := enc.get("P").int()
	o, u := enc.get("O").str(), enc.get("U").str()
	d := &decrypter{r: r, plainXMP: enc.get("EncryptMetadata").keyword() == "false"}
	if v >= 4 {
		switch stmf := enc.get("StmF").name(); {
		case stmf == "" || stmf == "Identity":
			d.identity = true
		default:
			switch enc.get("CF").get(stmf).get("CFM").name() {
			case "V2":
			case "AESV2", "AESV3":
				d.aes = true
			case "None":
				d.identity = true
			default:
				return nil
			}
		}
	}
	if r >= 5 {
		d.key = keyR56(r, pw, o, u, enc.get("OE").str(), enc.get("UE").str())
	} else {
		// Revisions 2 to 4. A lower one, which pdfcpu refuses, is taken as those are:
		// some other reader might.
		length, ok := enc.get("Length").int()
		if !ok {
			length = 40
			if v >= 4 {
				length = 128
			}
		}
		d.key = keyR24(r, length, pw, o, u, p, id, !d.plainXMP)
	}
	if d.key == nil {
		return nil
	}
	return d
}

// paddedPassword is pw as revisions 2 to 4 take it: its first 32 bytes, filled up with the pad.
func paddedPassword(pw []byte) []byte {
	pw = pw[:min(len(pw), 32)]
	return append(append([]byte(nil), pw...), passwordPad[:32-len(pw)]...)
}

// keyR24 is the file key of revisions 2 to 4 (algorithms 2, 6 and 7 of ISO 32000-2)
// for pw as the user password, else as the owner password.
func keyR24(r, length int64, pw, o, u []byte, p int64, id []byte, encryptMetadata bool) []byte {
	if len(o) < 32 || len(u) < 16 {
		return nil
	}
	n := int(length / 8)
	if r == 2 {
		n = 5
	}
	if n < 5 || n > 16 {
		return nil
	}
	fileKey := func(upw []byte) []byte {
		h := md5.New()
		h.Write(upw)
		h.Write(o[:32])
		h.Write(binary.LittleEndian.AppendUint32(nil, uint32(p)))
		h.Write(id)
		if r >= 4 && !encryptMetadata {
			h.Write([]byte{0xff, 0xff, 0xff, 0xff})
		}
		k := h.Sum(nil)
		if r >= 3 {
			for range 50 {
				s := md5.Sum(k[:n])
				k = s[:]
			}
		}
		return k[:n]
	}
	rc4Rounds := func(k, b []byte, down bool) {
		if r == 2 {
			c, _ := rc4.NewCipher(k)
			c.XORKeyStream(b, b)
			return
		}
		for i := range 20 {
			if down {
				i = 19 - i
			}
			rk := make([]byte, len(k))
			for j := range k {
				rk[j] = k[j] ^ byte(i)
			}
			c, _ := rc4.NewCipher(rk)
			c.XORKeyStream(b, b)
		}
	}
	userOK := func(k []byte) bool {
		if r == 2 {
			x := append([]byte(nil), passwordPad...)
			rc4Rounds(k, x, false)
			return subtle.ConstantTimeCompare(x, u[:min(len(u), 32)]) == 1
		}
		h := md5.New()
		h.Write(passwordPad)
		h.Write(id)
		x := h.Sum(nil)
		rc4Rounds(k, x, false)
		return subtle.ConstantTimeCompare(x[:16], u[:16]) == 1
	}
	if k := fileKey(paddedPassword(pw)); userOK(k) {
		return k
	}
	// As the owner password: its key decrypts /O to the user password.
	s := md5.Sum(paddedPassword(pw))
	ok := s[:]
	if r >= 3 {
		for range 50 {
			s := md5.Sum(ok)
			ok = s[:]
		}
	}
	upw := append([]byte(nil), o[:32]...)
	rc4Rounds(ok[:n], upw, true)
	if k := fileKey(upw); userOK(k) {
		return k
	}
	return nil
}

// keyR56 is the file key of revisions 5 and 6 (AES-256; algorithm 2.A of ISO
// 32000-2) for pw as the user password, else as the owner password.
func keyR56(r int64, pw, o, u, oe, ue []byte) []byte {
	if len(u) < 48 {
		return nil
	}
	open := func(hash, salt, udata, wrapped []byte) []byte {
		if len(hash) < 32 || len(wrapped) < 32 {
			return nil
		}
		if subtle.ConstantTimeCompare(hash2B(r, pw, salt[:8], udata), hash[:32]) != 1 {
			return nil
		}
		blk, err := aes.NewCipher(hash2B(r, pw, salt[8:16], udata))
		if err != nil {
			return nil
		}
		key := make([]byte, 32)
		cipher.NewCBCDecrypter(blk, make([]byte, 16)).CryptBlocks(key, wrapped[:32])
		return key
	}
	if k := open(u[:32], u[32:48], nil, ue); k != nil {
		return k
	}
	if len(o) < 48 {
		return nil
	}
	return open(o[:32], o[32:48], u[:48], oe)
}

// hash2B is the password hash of revision 6 (algorithm 2.B of ISO 32000-2), or plain
// SHA-256 (revision 5), of pw with salt and udata.
func hash2B(r int64, pw, salt, udata []byte) []byte {
	k0 := sha256.Sum256(append(append(append([]byte(nil), pw...), salt...), udata...))
	k := k0[:]
	if r == 5 {
		return k
	}
	var e []byte
	for j := 0; j < 64 || e[len(e)-1] > byte(j-32); j++ {
		unit := append(append(append([]byte(nil), pw...), k...), udata...)
		k1 := bytes.Repeat(unit, 64)
		blk, _ := aes.NewCipher(k[:16])
		e = make([]byte, len(k1))
		cipher.NewCBCEncrypter(blk, k[16:32]).CryptBlocks(e, k1)
		sum := 0
		for _, b := range e[:16] {
			sum += int(b)
		}
		switch sum % 3 {
		case 0:
			s := sha256.Sum256(e)
			k = s[:]
		case 1:
			s := sha512.Sum384(e)
			k = s[:]
		default:
			s := sha512.Sum512(e)
			k = s[:]
		}
	}
	return k[:32]
}

// reader decrypts the stream of object num, gen as it is read, so that only as much is
// decrypted as the decoders consume.
func (d *decrypter) reader(num, gen int, r io.Reader) io.Reader {
	key := d.key
	if d.r < 5 {
		h := md5.New()
		h.Write(key)
		h.Write([]byte{byte(num), byte(num >> 8), byte(num >> 16), byte(gen), byte(gen >> 8)})
		if d.aes {
			h.Write([]byte("sAlT"))
		}
		key = h.Sum(nil)[:min(len(d.key)+5, 16)]
	}
	if !d.aes {
		c, err := rc4.NewCipher(key)
		if err != nil {
			return bytes.NewReader(nil)
		}
		return &cipher.StreamReader{S: c, R: r}
	}
	blk, err := aes.NewCipher(key)
	if err != nil {
		return bytes.NewReader(nil)
	}
	return &cbcReader{r: r, blk: blk}
}

// cbcReader decrypts AES-CBC as it is read; the first block is the IV. Padding is left
// in: the decoders stop at their end-of-data marker before it.
type cbcReader struct {
	r   io.Reader
	blk cipher.Block
	m   cipher.BlockMode
	buf [4096]byte
	out []byte
	eof bool
}

func (c *cbcReader) Read(p []byte) (int, error) {
	for len(c.out) == 0 {
		if c.eof {
			return 0, io.EOF
		}
		if c.m == nil {
			iv := make([]byte, aes.BlockSize)
			if _, err := io.ReadFull(c.r, iv); err != nil {
				return 0, io.EOF
			}
			c.m = cipher.NewCBCDecrypter(c.blk, iv)
		}
		n, err := io.ReadFull(c.r, c.buf[:])
		if err != nil {
			c.eof = true
		}
		n -= n % aes.BlockSize
		c.m.CryptBlocks(c.buf[:n], c.buf[:n])
		c.out = c.buf[:n]
	}
	k := copy(p, c.out)
	c.out = c.out[k:]
	return k, nil
}
