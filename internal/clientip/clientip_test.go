package clientip

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// TestClientIP: the header counts only from a trusted peer, and only as
// far as trusted proxies vouch for it (issue 23 item 8).
func TestClientIP(t *testing.T) {
	proxies, err := ParseList("10.0.0.0/8, 192.0.2.1, fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, peer string
		xff        []string
		trusted    bool
		want       string
	}{
		{"direct client, spoofed header", "203.0.113.9:5000", []string{"198.51.100.1"}, true, "203.0.113.9"},
		{"direct client, no proxies trusted", "203.0.113.9:5000", []string{"198.51.100.1"}, false, "203.0.113.9"},
		{"trusted peer, proxies configured off", "10.0.0.2:5000", []string{"198.51.100.1"}, false, "10.0.0.2"},
		{"one proxy", "10.0.0.2:5000", []string{"198.51.100.1"}, true, "198.51.100.1"},
		{"client-sent entries before the proxy's are skipped", "10.0.0.2:5000", []string{"1.1.1.1, 2.2.2.2, 198.51.100.1"}, true, "198.51.100.1"},
		{"two proxies", "10.0.0.2:5000", []string{"6.6.6.6, 198.51.100.1, 10.1.1.1"}, true, "198.51.100.1"},
		{"single address in the list", "192.0.2.1:443", []string{"198.51.100.4"}, true, "198.51.100.4"},
		{"several header lines", "10.0.0.2:5000", []string{"6.6.6.6", "198.51.100.1, 10.9.9.9"}, true, "198.51.100.1"},
		{"IPv6 proxy and client", "[fd00::1]:443", []string{"2001:db8::7"}, true, "2001:db8::7"},
		{"IPv4-mapped peer", "[::ffff:10.0.0.2]:443", []string{"198.51.100.1"}, true, "198.51.100.1"},
		{"entry with a port", "10.0.0.2:5000", []string{"198.51.100.1:1234"}, true, "198.51.100.1"},
		{"malformed entry: blame the proxy", "10.0.0.2:5000", []string{"198.51.100.1, not-an-ip"}, true, "10.0.0.2"},
		{"malformed behind a trusted hop", "10.0.0.2:5000", []string{"junk, 10.3.3.3"}, true, "10.3.3.3"},
		{"all trusted: the leftmost", "10.0.0.2:5000", []string{"10.5.5.5, 10.6.6.6"}, true, "10.5.5.5"},
		{"no header from a proxy", "10.0.0.2:5000", nil, true, "10.0.0.2"},
	} {
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = tt.peer
		for _, v := range tt.xff {
			req.Header.Add("X-Forwarded-For", v)
		}
		r := New(nil)
		if tt.trusted {
			r = New(proxies)
		}
		if got := r.ClientIP(req); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
	var nilResolver *Resolver
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = "203.0.113.9:1"
	req.Header.Set("X-Forwarded-For", "1.2.3.4")
	if got := nilResolver.ClientIP(req); got != "203.0.113.9" {
		t.Errorf("nil resolver: %s", got)
	}
}

func TestParseList(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{"10.0.0.0/8,127.0.0.1", "10.0.0.0/8 127.0.0.1/32", ""},
		{" 10.1.2.3/8 , ::1 ", "10.0.0.0/8 ::1/128", ""},
		{"", "", ""},
		{"10.0.0.0/33", "", "neither"},
		{"proxy.example", "", "neither"},
	} {
		got, err := ParseList(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: %v, want error %q", tt.in, err, tt.err)
			}
			continue
		}
		var s []string
		for _, p := range got {
			s = append(s, p.String())
		}
		if err != nil || strings.Join(s, " ") != tt.want {
			t.Errorf("%q: %v %v, want %s", tt.in, s, err, tt.want)
		}
	}
}

// FuzzClientIP: whatever the header, the answer is the peer or an address
// that parses, and never an entry when the peer is not trusted.
func FuzzClientIP(f *testing.F) {
	f.Add("10.0.0.2:1", "1.2.3.4, 10.0.0.3")
	f.Add("203.0.113.1:1", "evil")
	r := New(Loopback)
	f.Fuzz(func(t *testing.T, peer, xff string) {
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = peer
		req.Header.Set("X-Forwarded-For", xff)
		got := r.ClientIP(req)
		p := peerAddr(peer)
		if got == p {
			return
		}
		a, err := netipParse(p)
		if err != nil || !r.isTrusted(a) {
			t.Fatalf("peer %q (not trusted) answered %q from the header", peer, got)
		}
		if _, err := netipParse(got); err != nil {
			t.Fatalf("answer %q is not an address", got)
		}
	})
}

func netipParse(s string) (netip.Addr, error) { return netip.ParseAddr(s) }
