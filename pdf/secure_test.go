package pdf

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"crypto/rc4"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// qpdfEncryption is what qpdf --json reports of a file's encryption.
type qpdfEncryption struct {
	Capabilities map[string]bool `json:"capabilities"`
	Encrypted    bool            `json:"encrypted"`
	OwnerMatched bool            `json:"ownerpasswordmatched"`
	UserMatched  bool            `json:"userpasswordmatched"`
	Parameters   struct {
		P, R, V int
		Bits    int    `json:"bits"`
		Stream  string `json:"streammethod"`
		String  string `json:"stringmethod"`
	} `json:"parameters"`
}

func qpdfShowEncryption(t *testing.T, pdf []byte, pw string) qpdfEncryption {
	t.Helper()
	out := testtool.Run(t, "qpdf", "--json", "--json-key=encrypt", "--password="+pw, testtool.File(t, "enc.pdf", pdf))
	var v struct{ Encrypt qpdfEncryption }
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("qpdf --json: %v\n%s", err, out)
	}
	return v.Encrypt
}

// qpdfEncrypt encrypts pdf with qpdf: args are qpdf's --encrypt arguments.
func qpdfEncrypt(t *testing.T, pdf []byte, args ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "qpdf-enc.pdf")
	a := append([]string{"--allow-weak-crypto", "--encrypt"}, args...)
	a = append(a, "--", testtool.File(t, "plain.pdf", pdf), out)
	testtool.Run(t, "qpdf", a...)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assertDecrypted checks that pdf is not encrypted, that qpdf accepts it, that Read reads it
// and that its pages carry the texts of testpdf.New(pages).
func assertDecrypted(t *testing.T, pdf []byte, pages int) {
	t.Helper()
	testtool.QPDFCheck(t, pdf)
	if out, _ := exec.Command("qpdf", "--show-encryption", testtool.File(t, "plain.pdf", pdf)).Output(); !strings.Contains(string(out), "File is not encrypted") {
		t.Fatalf("qpdf --show-encryption: %s", out)
	}
	d, err := Read(pdf)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if d.PageCount() != pages {
		t.Fatalf("%d pages, want %d", d.PageCount(), pages)
	}
	got := testtool.PageTexts(t, pdf)
	for i := range pages {
		if got[i] != fmt.Sprintf("Page %d", i+1) {
			t.Fatalf("page texts %q", got)
		}
	}
}

func expectFault(t *testing.T, err error, code fault.Code) {
	t.Helper()
	if fault.CodeOf(err) != code {
		t.Fatalf("got %v, want %s", err, code)
	}
}

func TestEncryptAES256(t *testing.T) {
	// A space, an umlaut and a symbol: pdfcpu's own check of AES-256 passwords refuses
	// spaces and symbols, so these take Decrypt's rekeyed path.
	const user, owner = "Benutzer Eins", "Eigentümer €"
	src := testpdf.New(2)
	out, err := Encrypt(context.Background(), src, EncryptOptions{UserPassword: user, OwnerPassword: owner, Permissions: Permissions{Print: true, FillForms: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, []byte("%PDF-1.7")) {
		t.Fatalf("header %q", out[:8])
	}
	for pw, who := range map[string]string{user: "user", owner: "owner"} {
		e := qpdfShowEncryption(t, out, pw)
		if !e.Encrypted || e.Parameters.V != 5 || e.Parameters.R != 6 || e.Parameters.Bits != 256 || e.Parameters.Stream != "AESv3" || e.Parameters.String != "AESv3" {
			t.Fatalf("%s: %+v", who, e)
		}
		if who == "owner" && !e.OwnerMatched || who == "user" && (!e.UserMatched || e.OwnerMatched) {
			t.Fatalf("%s password: %+v", who, e)
		}
		want := map[string]bool{"printhigh": true, "printlow": true, "modifyforms": true, "accessibility": true,
			"extract": false, "modify": false, "modifyother": false, "modifyannotations": false, "modifyassembly": false}
		for k, v := range want {
			if e.Capabilities[k] != v {
				t.Fatalf("%s: capability %s = %v, want %v (%v)", who, k, e.Capabilities[k], v, e.Capabilities)
			}
		}
	}
	// Without a password nothing opens it.
	if err := exec.Command("pdftotext", testtool.File(t, "locked.pdf", out), "-").Run(); err == nil {
		t.Fatal("pdftotext read the encrypted file without a password")
	}
	text := testtool.Run(t, "pdftotext", "-upw", user, testtool.File(t, "enc.pdf", out), "-")
	if !strings.Contains(text, "Page 1") || !strings.Contains(text, "Page 2") {
		t.Fatalf("pdftotext -upw: %q", text)
	}
	// PDF 1.7 readers learn of AES-256 from the extension level.
	cat := testtool.Run(t, "qpdf", "--password="+owner, "--show-object=trailer", testtool.File(t, "enc.pdf", out))
	root := strings.Fields(cat[strings.Index(cat, "/Root")+6:])[0]
	if obj := testtool.Run(t, "qpdf", "--password="+owner, "--show-object="+root, testtool.File(t, "enc.pdf", out)); !strings.Contains(obj, "/ExtensionLevel 8") {
		t.Fatalf("catalog %s", obj)
	}
	plain := filepath.Join(t.TempDir(), "qpdf-plain.pdf")
	testtool.Run(t, "qpdf", "--password="+user, "--decrypt", testtool.File(t, "enc.pdf", out), plain)
	b, _ := os.ReadFile(plain)
	assertDecrypted(t, b, 2)

	for _, pw := range []string{user, owner} {
		dec, err := Decrypt(context.Background(), out, pw)
		if err != nil {
			t.Fatalf("Decrypt: %v", err)
		}
		assertDecrypted(t, dec, 2)
	}
	_, err = Decrypt(context.Background(), out, "Benutzer Zwei")
	expectFault(t, err, fault.InvalidPDFPassword)
	if strings.Contains(err.Error(), "Zwei") {
		t.Fatalf("the password is in the error: %v", err)
	}
	_, err = Unlock(context.Background(), out)
	expectFault(t, err, fault.EncryptedPDF)
	if !strings.Contains(err.Error(), "decrypt") {
		t.Fatalf("Unlock: %v", err)
	}
	_, err = Encrypt(context.Background(), out, EncryptOptions{OwnerPassword: "x"})
	expectFault(t, err, fault.EncryptedPDF)
}

func TestEncryptUserPasswordOnly(t *testing.T) {
	out, err := Encrypt(context.Background(), testpdf.New(1), EncryptOptions{UserPassword: "geheim"})
	if err != nil {
		t.Fatal(err)
	}
	// The user password is the owner password too.
	if e := qpdfShowEncryption(t, out, "geheim"); !e.OwnerMatched || e.Parameters.R != 6 || e.Capabilities["printhigh"] {
		t.Fatalf("%+v", e)
	}
}

func TestEncryptOwnerPasswordOnly(t *testing.T) {
	out, err := Encrypt(context.Background(), testpdf.New(1), EncryptOptions{OwnerPassword: "chef", Permissions: Permissions{Copy: true}})
	if err != nil {
		t.Fatal(err)
	}
	e := qpdfShowEncryption(t, out, "")
	if !e.UserMatched || !e.Capabilities["extract"] || e.Capabilities["printlow"] {
		t.Fatalf("%+v", e)
	}
	// It opens without a password, so Inspect reads it, and Unlock removes the encryption.
	if info, err := Inspect(out); err != nil || !info.Encrypted {
		t.Fatalf("Inspect: %+v %v", info, err)
	}
	dec, err := Unlock(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	assertDecrypted(t, dec, 1)
}

func TestEncryptRefusesBadOptions(t *testing.T) {
	long := strings.Repeat("ä", 64) // 128 bytes
	for name, o := range map[string]EncryptOptions{
		"no password":          {},
		"long user password":   {UserPassword: long, OwnerPassword: "o"},
		"long owner password":  {OwnerPassword: long},
		"invalid UTF-8":        {OwnerPassword: "\xff\xfe"},
		"long once normalised": {OwnerPassword: strings.Repeat("ﬁ", 50)}, // 150 bytes; NFKC makes it "fi" x 50, 100 bytes
	} {
		_, err := Encrypt(context.Background(), testpdf.New(1), o)
		if name == "long once normalised" {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			continue
		}
		expectFault(t, err, fault.InvalidInput)
		if strings.Contains(err.Error(), "ää") {
			t.Fatalf("%s: the password is in the error: %v", name, err)
		}
	}
	_, err := Decrypt(context.Background(), testpdf.New(1), long)
	expectFault(t, err, fault.InvalidInput)
	for _, data := range map[string][]byte{"not a PDF": []byte("hello"), "truncated": testpdf.New(2)[:300]} {
		_, err := Encrypt(context.Background(), data, EncryptOptions{OwnerPassword: "o"})
		expectFault(t, err, fault.InvalidPDF)
		_, err = Decrypt(context.Background(), data, "o")
		expectFault(t, err, fault.InvalidPDF)
		_, err = Unlock(context.Background(), data)
		expectFault(t, err, fault.InvalidPDF)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Encrypt(ctx, testpdf.New(1), EncryptOptions{OwnerPassword: "o"})
	expectFault(t, err, fault.Canceled)
}

func TestDecryptNotEncryptedIsUnchanged(t *testing.T) {
	src := testpdf.New(2)
	for name, f := range map[string]func() ([]byte, error){
		"decrypt": func() ([]byte, error) { return Decrypt(context.Background(), src, "egal") },
		"unlock":  func() ([]byte, error) { return Unlock(context.Background(), src) },
	} {
		out, err := f()
		if err != nil || !bytes.Equal(out, src) {
			t.Fatalf("%s: %v, changed %v", name, err, !bytes.Equal(out, src))
		}
	}
}

// Files qpdf encrypted, each revision: both passwords open them, a wrong one does not,
// and Unlock takes only those without a user password.
func TestDecryptQPDFFiles(t *testing.T) {
	src := testpdf.New(3)
	for _, c := range []struct {
		name        string
		user, owner string
		args        []string
	}{
		{"RC4 40", "user", "owner", []string{"40"}},
		{"RC4 128", "user", "owner", []string{"128", "--use-aes=n"}},
		{"AES-128", "Grüße", "Straße", []string{"128", "--use-aes=y"}},
		{"AES-256", "mein Passwort", "sein Passwort", []string{"256"}},
		{"AES-256, revision 5", "user", "owner", []string{"256", "--force-R5"}},
		{"AES-256, owner only", "", "owner", []string{"256", "--print=none"}},
		{"RC4 128, owner only", "", "owner", []string{"128", "--use-aes=n", "--print=none"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			enc := qpdfEncrypt(t, src, append([]string{c.user, c.owner}, c.args...)...)
			if e := qpdfShowEncryption(t, enc, c.owner); !e.Encrypted || !e.OwnerMatched {
				t.Fatalf("qpdf: %+v", e)
			}
			for _, pw := range []string{c.user, c.owner} {
				out, err := Decrypt(context.Background(), enc, pw)
				if err != nil {
					t.Fatalf("password %q: %v", pw, err)
				}
				assertDecrypted(t, out, 3)
			}
			_, err := Decrypt(context.Background(), enc, "falsch")
			expectFault(t, err, fault.InvalidPDFPassword)
			out, err := Unlock(context.Background(), enc)
			if c.user != "" {
				expectFault(t, err, fault.EncryptedPDF)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			assertDecrypted(t, out, 3)
		})
	}
}

// The corpus's one encrypted file (RC4 128, revision 4, an empty user password).
func TestUnlockCorpusFile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpus, "verapdf", "PDF_A-2b", "6.1 File structure", "6.1.3 File trailer", "veraPDF test suite 6-1-3-t02-fail-a.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if e := qpdfShowEncryption(t, data, ""); !e.Encrypted || !e.UserMatched || e.Parameters.R != 4 {
		t.Fatalf("corpus file: %+v", e)
	}
	info, err := Inspect(data)
	if err != nil {
		t.Fatal(err)
	}
	before := testtool.Text(t, data)
	out, err := Unlock(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	if e := qpdfShowEncryption(t, out, ""); e.Encrypted {
		t.Fatalf("still encrypted: %+v", e)
	}
	d, err := Read(out)
	if err != nil || d.PageCount() != info.Pages {
		t.Fatalf("Read: %v", err)
	}
	// It draws no text: pdftotext sees the one page's form feed alike.
	if after := testtool.Text(t, out); after != before || testtool.Info(t, out)["Pages"] != fmt.Sprint(info.Pages) {
		t.Fatalf("text %q, was %q", after, before)
	}
	// The empty password is the user password: Decrypt takes it too.
	if _, err := Decrypt(context.Background(), data, ""); err != nil {
		t.Fatal(err)
	}
}

// userRC4 encrypts with RC4, 128 bits, revision 3, user password pw.
func userRC4(pw string) *testpdf.Encryption {
	id := bytes.Repeat([]byte{0x11}, 16)
	o := bytes.Repeat([]byte{0x22}, 32)
	h := md5.New()
	h.Write(paddedPassword([]byte(pw)))
	h.Write(o)
	h.Write(binary.LittleEndian.AppendUint32(nil, uint32(0xfffffffc)))
	h.Write(id)
	key := h.Sum(nil)
	for range 50 {
		s := md5.Sum(key)
		key = s[:]
	}
	x := md5.Sum(append(append([]byte(nil), passwordPad...), id...))
	u := x[:]
	for i := range 20 {
		rk := make([]byte, 16)
		for j := range rk {
			rk[j] = key[j] ^ byte(i)
		}
		c, _ := rc4.NewCipher(rk)
		c.XORKeyStream(u, u)
	}
	u = append(u, make([]byte, 16)...)
	d := &decrypter{key: key, r: 3}
	return &testpdf.Encryption{
		Dict: fmt.Sprintf("<</Filter/Standard/V 2/R 3/Length 128/O<%x>/U<%x>/P -4>>", o, u),
		ID:   hex.EncodeToString(id),
		Stream: func(num int, data []byte) []byte {
			b, _ := io.ReadAll(d.reader(num, 0, bytes.NewReader(data)))
			return b
		},
	}
}

// userAES256 encrypts with AES-256, revision 6, user password pw.
func userAES256(pw string) *testpdf.Encryption { return userAES256As(pw, "%x") }

// literalString writes b as a literal string with no more escapes than needed.
func literalString(b []byte) string {
	r := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`, "\r", `\r`)
	return "(" + r.Replace(string(b)) + ")"
}

// userAES256As is userAES256 with /U and /UE written by format: "%x" for hex strings,
// "%s" for literal strings.
func userAES256As(pw, format string) *testpdf.Encryption {
	str := func(b []byte) string {
		if format == "%s" {
			return literalString(b)
		}
		return "<" + hex.EncodeToString(b) + ">"
	}
	fileKey := bytes.Repeat([]byte{0x33}, 32)
	vsalt, ksalt := []byte("vsaltvsa"), []byte("ksaltksa")
	u := append(append(hash2B(6, []byte(pw), vsalt, nil), vsalt...), ksalt...)
	blk, _ := aes.NewCipher(hash2B(6, []byte(pw), ksalt, nil))
	ue := make([]byte, 32)
	cipher.NewCBCEncrypter(blk, make([]byte, 16)).CryptBlocks(ue, fileKey)
	fk, _ := aes.NewCipher(fileKey)
	perms := make([]byte, 16)
	fk.Encrypt(perms, []byte{0xfc, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 'T', 'a', 'd', 'b', 0, 0, 0, 0})
	return &testpdf.Encryption{
		Dict: fmt.Sprintf("<</Filter/Standard/V 5/R 6/Length 256/CF<</StdCF<</CFM/AESV3/AuthEvent/DocOpen/Length 32>>>>/StmF/StdCF/StrF/StdCF/O<%x>/U%s/OE<%x>/UE%s/P -4/Perms<%x>>>",
			bytes.Repeat([]byte{0x44}, 48), str(u), bytes.Repeat([]byte{0x55}, 32), str(ue), perms),
		ID: hex.EncodeToString(bytes.Repeat([]byte{0x66}, 16)),
		Stream: func(_ int, data []byte) []byte {
			pad := 16 - len(data)%16
			plain := append(append([]byte(nil), data...), bytes.Repeat([]byte{byte(pad)}, pad)...)
			iv := bytes.Repeat([]byte{0x77}, 16)
			ct := make([]byte, len(plain))
			cipher.NewCBCEncrypter(fk, iv).CryptBlocks(ct, plain)
			return append(iv, ct...)
		},
	}
}

// A bomb behind a user password: the check measures what the streams decrypt to before
// pdfcpu, given the password, inflates them. The same file at a harmless size decrypts.
func TestDecryptRefusesEncryptedBombs(t *testing.T) {
	for name, enc := range map[string]func(string) *testpdf.Encryption{"RC4": userRC4, "AES-256": userAES256} {
		t.Run(name, func(t *testing.T) {
			small := testpdf.ObjectStreamBomb(1<<20, enc("geheim"))
			if _, err := Inspect(small); fault.CodeOf(err) != fault.EncryptedPDF {
				t.Fatalf("Inspect without the password: %v", err)
			}
			out, err := Decrypt(context.Background(), small, "geheim")
			if err != nil {
				t.Fatal(err)
			}
			testtool.QPDFCheck(t, out)
			if d, err := Read(out); err != nil || d.PageCount() != 1 {
				t.Fatalf("Read: %v", err)
			}
			_, err = Decrypt(context.Background(), small, "falsch")
			expectFault(t, err, fault.InvalidPDFPassword)

			data := testpdf.ObjectStreamBomb(512<<20, enc("geheim"))
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err = Decrypt(context.Background(), data, "geheim")
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := (after.TotalAlloc - before.TotalAlloc) >> 20
			if fault.CodeOf(err) != fault.PayloadTooLarge || !strings.Contains(err.Error(), "the limit per object stream") {
				t.Fatalf("got %v", err)
			}
			if took > 20*time.Second*raceSlowdown || alloc > 200 {
				t.Fatalf("refused after %v, %d MiB allocated", took, alloc)
			}
		})
	}
}

func TestFitString(t *testing.T) {
	b := []byte("a(b)c\\d\re")
	for n, want := range map[int]string{
		20: "<61286229635c640d65>",
		15: `(a\(b\)c\\d\re)`,
		17: `(a\(b\)c\\d\re)  `,
	} {
		if got := fitString(b, n); string(got) != want {
			t.Fatalf("fitString(%d) = %q, want %q", n, got, want)
		}
	}
	if got := fitString(b, 14); got != nil {
		t.Fatalf("fitString(14) = %q", got)
	}
}

// AES-256 with a password pdfcpu would refuse (a space), /U and /UE written as literal
// strings with no spare bytes: the copy pdfcpu reads is rekeyed within them.
func TestDecryptRekeysTightStrings(t *testing.T) {
	const pw = "geheimes Wort"
	data := testpdf.ObjectStreamBomb(1<<10, userAES256As(pw, "%s"))
	if !bytes.Contains(data, []byte("/U(")) || !bytes.Contains(data, []byte("/UE(")) {
		t.Fatal("no literal strings in the test file")
	}
	if _, err := Inspect(data); fault.CodeOf(err) != fault.EncryptedPDF {
		t.Fatalf("Inspect: %v", err)
	}
	out, err := Decrypt(context.Background(), data, pw)
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	// The page content, unfiltered, reads in the clear.
	if !bytes.Contains(out, []byte("(Bomb) Tj")) {
		t.Fatal("the page content is not decrypted")
	}
	if d, err := Read(out); err != nil || d.PageCount() != 1 {
		t.Fatalf("Read: %v", err)
	}
}
