package netguard

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/papierkram/papierkram/fault"
)

// Policy decides which destinations are allowed.
type Policy struct {
	// Allow lists ranges that are reachable even though they are internal (for example a
	// company TSA at 10.1.2.3/32, or 127.0.0.1/32 in tests).
	Allow []netip.Prefix
	// Schemes allowed; default http and https.
	Schemes []string
}

// ParseAllow reads a comma-separated list of CIDR ranges or addresses.
func ParseAllow(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return nil, fault.Wrap(fault.InvalidInput, err, "%q is not an address or CIDR range", part)
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fault.Wrap(fault.InvalidInput, err, "%q is not a CIDR range", part)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Internal reports whether a is an address a caller must not reach by default.
func Internal(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() ||
		netip.MustParsePrefix("100.64.0.0/10").Contains(a) || // carrier-grade NAT
		netip.MustParsePrefix("192.0.0.0/24").Contains(a) ||
		netip.MustParsePrefix("198.18.0.0/15").Contains(a) // benchmarking networks
}

// AllowedAddr reports whether p lets a request reach a.
func (p Policy) AllowedAddr(a netip.Addr) bool {
	a = a.Unmap()
	for _, pre := range p.Allow {
		if pre.Contains(a) {
			return true
		}
	}
	return !Internal(a)
}

// CheckURL parses raw and checks its scheme and host; hosts given by name are resolved and
// every address must be allowed. Errors are fault.InvalidInput naming the reason.
func (p Policy) CheckURL(ctx context.Context, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fault.New(fault.InvalidInput, "%q is not an absolute URL", raw)
	}
	schemes := p.Schemes
	if len(schemes) == 0 {
		schemes = []string{"http", "https"}
	}
	ok := false
	for _, s := range schemes {
		ok = ok || strings.EqualFold(u.Scheme, s)
	}
	if !ok {
		return nil, fault.New(fault.InvalidInput, "the URL scheme %q is not allowed (%s)", u.Scheme, strings.Join(schemes, ", "))
	}
	if u.User != nil {
		return nil, fault.New(fault.InvalidInput, "URLs with credentials are not accepted")
	}
	if _, err := p.Addrs(ctx, u.Hostname(), nil); err != nil {
		return nil, err
	}
	return u, nil
}

// Lookup resolves a host name; nil means net.DefaultResolver.
type Lookup func(ctx context.Context, host string) ([]netip.Addr, error)

// Addrs answers the addresses host stands for (a literal address itself, a name as lookup
// resolves it) when the policy allows every one of them; a name with any internal address is
// refused whole. A caller that connects must dial these addresses, not the name again, so
// that a second lookup (DNS rebinding) cannot answer differently. Errors are
// fault.InvalidInput naming the reason.
func (p Policy) Addrs(ctx context.Context, host string, lookup Lookup) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		if !p.AllowedAddr(a) {
			return nil, fault.New(fault.InvalidInput, "the URL points to an internal address (%s), which is not allowed", a)
		}
		return []netip.Addr{a}, nil
	}
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	addrs, err := lookup(ctx, host)
	if err != nil || len(addrs) == 0 {
		return nil, fault.Wrap(fault.InvalidInput, err, "the host %q cannot be resolved", host)
	}
	for _, a := range addrs {
		if !p.AllowedAddr(a) {
			return nil, fault.New(fault.InvalidInput, "the host %q resolves to an internal address (%s), which is not allowed", host, a)
		}
	}
	return addrs, nil
}

// Dialer returns a dialer that checks every address once more just before its socket
// connects.
func (p Policy) Dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, Control: func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fault.New(fault.InvalidInput, "cannot check address %q", address)
		}
		if !p.AllowedAddr(ap.Addr()) {
			return fault.New(fault.InvalidInput, "connection to internal address %s refused by policy", ap.Addr())
		}
		return nil
	}}
}

// Client returns an HTTP client whose every connection is checked at dial time, so a name
// that resolves differently between check and use (DNS rebinding) still cannot reach an
// internal address, and redirects are checked too.
func (p Policy) Client(timeout time.Duration) *http.Client {
	d := p.Dialer(10 * time.Second)
	tr := &http.Transport{DialContext: d.DialContext, Proxy: nil, TLSHandshakeTimeout: 10 * time.Second, MaxIdleConns: 10, IdleConnTimeout: 30 * time.Second}
	return &http.Client{Transport: tr, Timeout: timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return fault.New(fault.InvalidInput, "too many redirects")
		}
		_, err := p.CheckURL(req.Context(), req.URL.String())
		return err
	}}
}
