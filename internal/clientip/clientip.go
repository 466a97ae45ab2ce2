// Package clientip finds a request's client address behind reverse
// proxies: only proxies named by address range (serve --trusted-proxies)
// are believed about the client, and only when the request comes from one
// of them.
package clientip

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Loopback is what the deprecated serve --trust-proxy means: a reverse
// proxy on the same machine.
var Loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// Resolver takes client addresses from X-Forwarded-For as far as trusted
// proxies vouch for them. The zero Resolver (or nil) trusts no proxy and
// answers the connection's peer.
type Resolver struct {
	trusted []netip.Prefix
}

// New returns a resolver trusting proxies in the given ranges.
func New(trusted []netip.Prefix) *Resolver {
	return &Resolver{trusted: trusted}
}

// ParseList reads "CIDR,CIDR,…" (a bare address is a range of one).
func ParseList(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if p, err := netip.ParsePrefix(part); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address range (10.0.0.0/8, fd00::/8) nor an address", part)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

func (r *Resolver) isTrusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range r.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ClientIP is the request's client address. The connection's peer, unless
// it is a trusted proxy: then X-Forwarded-For is walked from the right
// (the entry the nearest proxy appended) past every trusted proxy, and the
// first address that is not one is the client. A client that reaches
// kycd directly cannot choose its address with the header; entries a
// client put before the proxies' are never reached. A malformed entry
// stops the walk at the last trusted address seen (the proxy is blamed,
// never a name the client chose). When every entry is a trusted proxy,
// the leftmost is the client.
func (r *Resolver) ClientIP(req *http.Request) string {
	peer := peerAddr(req.RemoteAddr)
	addr, err := netip.ParseAddr(peer)
	if r == nil || len(r.trusted) == 0 || err != nil || !r.isTrusted(addr) {
		return peer
	}
	client := addr.Unmap()
	values := req.Header.Values("X-Forwarded-For")
	for i := len(values) - 1; i >= 0; i-- {
		hops := strings.Split(values[i], ",")
		for j := len(hops) - 1; j >= 0; j-- {
			hop := strings.TrimSpace(hops[j])
			a, err := netip.ParseAddr(hop)
			if err != nil {
				if ap, perr := netip.ParseAddrPort(hop); perr == nil { // "[::1]:8080", "1.2.3.4:5"
					a, err = ap.Addr(), nil
				}
			}
			if err != nil {
				return client.String()
			}
			client = a.Unmap()
			if !r.isTrusted(client) {
				return client.String()
			}
		}
	}
	return client.String()
}

// peerAddr is the connection's address without its port.
func peerAddr(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return remote // no port: already an address (or a test's fake)
	}
	return host
}
