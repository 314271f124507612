package xmlc

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// stdTree parses with encoding/xml, the oracle: the same tree shape as Parse.
func stdTree(data []byte) (*Node, error) {
	d := xml.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	d.Strict = true
	var stack []*Node
	var texts []string
	var root *Node
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return root, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &Node{Space: t.Name.Space, Local: t.Name.Local}
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
					continue
				}
				n.Attrs = append(n.Attrs, Attr{a.Name.Space, a.Name.Local, a.Value})
			}
			if len(stack) > 0 {
				stack[len(stack)-1].Kids = append(stack[len(stack)-1].Kids, n)
			} else {
				root = n
			}
			stack = append(stack, n)
			texts = append(texts, "")
		case xml.CharData:
			if len(stack) > 0 && strings.TrimSpace(string(t)) != "" {
				texts[len(texts)-1] += string(t)
			}
		case xml.EndElement:
			stack[len(stack)-1].Text = strings.TrimSpace(texts[len(texts)-1])
			stack, texts = stack[:len(stack)-1], texts[:len(texts)-1]
		}
	}
}

func same(a, b *Node) bool {
	if a.Space != b.Space || a.Local != b.Local || a.Text != b.Text || len(a.Attrs) != len(b.Attrs) || len(a.Kids) != len(b.Kids) {
		return false
	}
	for i := range a.Attrs {
		if a.Attrs[i] != b.Attrs[i] {
			return false
		}
	}
	for i := range a.Kids {
		if !same(a.Kids[i], b.Kids[i]) {
			return false
		}
	}
	return true
}

func TestScannerAgreesWithEncodingXML(t *testing.T) {
	doc := `<?xml version="1.0" encoding="utf-8"?>
<!-- a comment -->
<r:root xmlns:r="urn:r" xmlns="urn:d" a="1 &amp; 2" r:b='x'>
  <child>text &lt;here&gt; &#228;&#xE4;</child>
  <child><![CDATA[<raw> & stuff]]></child>
  <inner xmlns="urn:other"><leaf/></inner>
  <?pi ignored?>
</r:root>`
	ours, err := Parse(context.Background(), []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	std, err := stdTree([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if !same(ours, std) {
		t.Fatalf("trees differ")
	}
	if ours.Kids[0].Text != "text <here> ää" || ours.Kids[1].Text != "<raw> & stuff" || ours.Kids[2].Space != "urn:other" || ours.Attrs[1].Space != "urn:r" {
		t.Fatalf("%+v", ours)
	}
	for _, bad := range []string{"<a>", "<a></b>", "<a x=1/>", "<a x='1' x='2'/>", "<p:a/>", "<a>&bogus;</a>", "<a>\x01</a>", "<a>\xff</a>", "<a>&#0;</a>", "<a/><b/>", "<a/>text"} {
		if _, err := Parse(context.Background(), []byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzParse: what the scanner accepts, encoding/xml accepts too, as the same tree.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`<a x="1"><b>t</b></a>`, `<?xml version="1.0"?><p:a xmlns:p="u"><![CDATA[x]]><!--c--></p:a>`, `<a>&amp;&#65;</a>`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ours, err := Parse(context.Background(), data)
		if err != nil {
			return
		}
		std, err := stdTree(data)
		if err != nil {
			t.Fatalf("accepted %q, which encoding/xml refuses: %v", data, err)
		}
		if !same(ours, std) {
			t.Fatalf("trees differ for %q", data)
		}
	})
}
