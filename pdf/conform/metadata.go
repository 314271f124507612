package conform

import (
	"bytes"
	"github.com/papierkram/papierkram/internal/lazyre"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// metadata is the document's XMP as read.
type metadata struct {
	present    bool // the catalog has a Metadata entry
	stream     *types.StreamDict
	raw        []byte
	packet     *packet
	parseError error
	// The PDF/A identification: the values and the prefixes they were written with.
	part, conformance string
	idPrefix          map[string]string // property -> prefix
	hasID             bool
}

const (
	nsPDFAID        = "http://www.aiim.org/pdfa/ns/id/"
	nsPDFAExtension = "http://www.aiim.org/pdfa/ns/extension/"
	nsPDFASchema    = "http://www.aiim.org/pdfa/ns/schema#"
	nsPDFAProperty  = "http://www.aiim.org/pdfa/ns/property#"
	nsPDFAType      = "http://www.aiim.org/pdfa/ns/type#"
	nsPDFAField     = "http://www.aiim.org/pdfa/ns/field#"
)

// maxXMP bounds the metadata stream decoded: a packet is a few kilobytes.
const maxXMP = 8 << 20

func (c *checker) readMetadata() {
	m := &metadata{idPrefix: map[string]string{}}
	c.meta = m
	ctx := c.doc.Context()
	cat, err := ctx.Catalog()
	if err != nil {
		return
	}
	o, ok := cat.Find("Metadata")
	if !ok {
		return
	}
	m.present = true
	sd, _, err := ctx.DereferenceStreamDict(o)
	if err != nil || sd == nil {
		return
	}
	m.stream = sd
	cp := *sd
	if err := cp.DecodeWithLimit(maxXMP); err != nil {
		m.parseError = err
		return
	}
	m.raw = cp.Content
	m.packet, m.parseError = parseXMP(m.raw)
	if m.packet == nil {
		return
	}
	for _, p := range m.packet.props {
		if p.ns != nsPDFAID {
			continue
		}
		m.idPrefix[p.name] = p.prefix
		switch p.name {
		case "part":
			m.part, m.hasID = strings.TrimSpace(p.value), true
		case "conformance":
			m.conformance = strings.TrimSpace(p.value)
		}
	}
}

// reXPacket finds the xpacket header.
var reXPacket = lazyre.New(`<\?xpacket\s[^?]*\bbegin=[^?]*\?>`)

func (c *checker) checkMetadata() {
	m := c.meta
	sd := m.stream
	c.check(m.present && sd != nil && nameOf(sd.Dict["Type"]) == "Metadata" && nameOf(sd.Dict["Subtype"]) == "XML", "6.6.2.1-1", "catalog")
	if m.raw == nil {
		if m.present {
			c.fail("6.6.2.1-4", "catalog Metadata")
		}
		c.fail("6.6.4-1", "catalog Metadata")
		return
	}
	if h := reXPacket.Find(m.raw); h != nil {
		c.check(!bytes.Contains(h, []byte("bytes=")), "6.6.2.1-2", "xpacket header")
		c.check(!bytes.Contains(h, []byte("encoding=")), "6.6.2.1-3", "xpacket header")
	}
	utf16 := bytes.HasPrefix(m.raw, []byte{0xfe, 0xff}) || bytes.HasPrefix(m.raw, []byte{0xff, 0xfe}) || bytes.HasPrefix(m.raw, []byte{0, 0, 0xfe, 0xff})
	c.check(!utf16 && utf8.Valid(m.raw), "6.6.2.1-5", "catalog Metadata")
	if m.parseError != nil {
		c.fail("6.6.2.1-4", "catalog Metadata: "+m.parseError.Error())
		c.fail("6.6.4-1", "catalog Metadata")
		return
	}
	c.checkIdentification()
	c.checkSchemas()
}

func (c *checker) checkIdentification() {
	m := c.meta
	if !m.hasID || m.conformance == "" {
		c.fail("6.6.4-1", "XMP")
		return
	}
	c.check(m.part == itoa(c.profile.part()), "6.6.4-2", "pdfaid:part "+m.part)
	c.check(m.conformance == "A" || m.conformance == "B" || m.conformance == "U", "6.6.4-3", "pdfaid:conformance "+m.conformance)
	for prop, rule := range map[string]string{"part": "6.6.4-4", "conformance": "6.6.4-5", "amd": "6.6.4-6", "corr": "6.6.4-7"} {
		if p, ok := m.idPrefix[prop]; ok {
			c.check(p == "pdfaid", rule, p+":"+prop)
		}
	}
}

// checkSchemas checks every top-level property against the predefined schemas and the
// extension schemas the packet declares (6.6.2.3).
func (c *checker) checkSchemas() {
	pre := predefined()
	ext := c.extensionSchemas()
	for _, p := range c.meta.packet.props {
		if p.ns == nsPDFAExtension {
			continue
		}
		typ, pat := ext.typeOf(p.ns, p.name), (*regexp.Regexp)(nil)
		if typ == "" {
			typ, pat = pre.typeOf(p.ns, p.name), pre.patterns[p.ns][p.name]
		}
		if typ == "" {
			c.fail("6.6.2.3.1-1", p.qname())
			continue
		}
		ok := pre.valid(p, typ, pat, ext)
		if seqs := pre.choices[p.ns][p.name]; closedChoices && ok && seqs != nil && ext.typeOf(p.ns, p.name) == "" {
			ok = oneOf(p, seqs)
		}
		c.check(ok, "6.6.2.3.1-2", p.qname())
	}
}

// oneOf tells whether the Seq n holds one of seqs.
func oneOf(n *xnode, seqs [][]string) bool {
	for _, s := range seqs {
		if len(s) != len(n.children) {
			continue
		}
		same := true
		for i, v := range s {
			same = same && strings.TrimSpace(n.children[i].value) == v
		}
		if same {
			return true
		}
	}
	return false
}

// nameOf is a name object's value, or "".
func nameOf(o types.Object) string {
	if n, ok := o.(types.Name); ok {
		return n.Value()
	}
	return ""
}
