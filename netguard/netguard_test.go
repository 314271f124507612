package netguard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/fault"
)

func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	var p Policy
	for _, bad := range []string{
		"http://127.0.0.1/x", "http://localhost/x", "https://10.0.0.1/", "http://192.168.1.1", "http://169.254.169.254/latest/meta-data",
		"http://[::1]/", "http://[fe80::1]/", "http://0.0.0.0/", "file:///etc/passwd", "ftp://example.org/", "gopher://x", "not a url",
		"http://user:pw@1.1.1.1/", "http://[::ffff:127.0.0.1]/",
	} {
		if _, err := p.CheckURL(ctx, bad); fault.CodeOf(err) != fault.InvalidInput {
			t.Errorf("%s allowed: %v", bad, err)
		}
	}
	for _, good := range []string{"http://1.1.1.1/tsa", "https://8.8.8.8/"} {
		if _, err := p.CheckURL(ctx, good); err != nil {
			t.Errorf("%s refused: %v", good, err)
		}
	}
	allow, err := ParseAllow("127.0.0.1, 10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	p.Allow = allow
	for _, ok := range []string{"http://127.0.0.1:9/", "http://10.2.3.4/"} {
		if _, err := p.CheckURL(ctx, ok); err != nil {
			t.Errorf("%s refused despite allow list: %v", ok, err)
		}
	}
	if _, err := p.CheckURL(ctx, "http://127.0.0.2/"); err == nil {
		t.Error("127.0.0.2 allowed by 127.0.0.1/32")
	}
	if _, err := ParseAllow("nonsense"); fault.CodeOf(err) != fault.InvalidInput {
		t.Errorf("bad allow list: %v", err)
	}
}

func TestClientRefusesAtDial(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "http://10.0.0.1/", http.StatusFound)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	// Without an allowance, the loopback test server cannot be reached even though the URL
	// was never checked first.
	if _, err := (Policy{}).Client(2 * time.Second).Get(srv.URL); err == nil {
		t.Fatal("dial to loopback allowed")
	}
	allow := Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	res, err := allow.Client(2 * time.Second).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	// A redirect is checked like the first URL.
	_, err = allow.Client(2 * time.Second).Get(srv.URL + "/redirect")
	if err == nil || !strings.Contains(err.Error(), "internal address (10.0.0.1)") {
		t.Fatalf("redirect to an internal address: %v", err)
	}
}
