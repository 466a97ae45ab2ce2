package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"time"

	"kycd/kyc"
)

// ErrPrivateAddress refuses a delivery to a loopback, private, link-local
// or otherwise internal address: in either environment, unless the
// operator started kycd with --allow-private-webhooks.
var ErrPrivateAddress = errors.New("webhook: the URL resolves to a private or internal address; only kycd serve --allow-private-webhooks allows that")

// Public reports whether a is an address webhooks may reach without the
// operator's --allow-private-webhooks: a globally reachable unicast
// address. Refused are loopback, RFC 1918 and ULA, link-local (cloud
// metadata at 169.254.169.254 and fd00:ec2::254), CGNAT, unspecified,
// broadcast, multicast, reserved, benchmarking and documentation space,
// and every IPv6 form that carries an IPv4 address, judged by that
// address: IPv4-mapped ::ffff:a.b.c.d, 6to4 2002:AABB:CCDD::/48 and the
// NAT64 well-known prefix 64:ff9b::a.b.c.d are public only when a.b.c.d
// is; the deprecated IPv4-compatible ::a.b.c.d, IPv4-translated
// ::ffff:0:a.b.c.d, local-use NAT64 64:ff9b:1::/48 (its embedding is not
// fixed) and Teredo are refused outright.
func Public(a netip.Addr) bool {
	a = a.WithZone("")
	switch {
	case !a.IsValid():
		return false
	case a.Is4():
		return public4(a)
	case a.Is4In6():
		return public4(a.Unmap())
	case nat64.Contains(a):
		b := a.As16()
		return public4(netip.AddrFrom4([4]byte(b[12:])))
	case sixToFour.Contains(a):
		b := a.As16()
		return public4(netip.AddrFrom4([4]byte(b[2:6])))
	}
	// Only 2000::/3 is assigned as global unicast; everything else
	// (::/96 IPv4-compatible, ::ffff:0:0:0/96, 64:ff9b:1::/48, 100::/64,
	// 5f00::/16, fc00::/7, fe80::/10, fec0::/10, ff00::/8) is not public.
	if !globalUnicast6.Contains(a) {
		return false
	}
	for _, p := range nonPublic6 {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

var (
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
	nonPublic6     = []netip.Prefix{
		netip.MustParsePrefix("2001::/23"),     // IETF protocol assignments: Teredo, benchmarking, ORCHID…
		netip.MustParsePrefix("2001:db8::/32"), // documentation
		netip.MustParsePrefix("3fff::/20"),     // documentation (RFC 9637)
	}
	nonPublic4 = []netip.Prefix{
		netip.MustParsePrefix("0.0.0.0/8"),
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("100.64.0.0/10"), // CGNAT
		netip.MustParsePrefix("127.0.0.0/8"),
		netip.MustParsePrefix("169.254.0.0/16"), // link-local, cloud metadata
		netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
		netip.MustParsePrefix("192.0.2.0/24"),   // documentation
		netip.MustParsePrefix("192.88.99.0/24"), // 6to4 relay anycast
		netip.MustParsePrefix("192.168.0.0/16"),
		netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
		netip.MustParsePrefix("198.51.100.0/24"), // documentation
		netip.MustParsePrefix("203.0.113.0/24"),  // documentation
		netip.MustParsePrefix("224.0.0.0/4"),     // multicast
		netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	}
)

func public4(a netip.Addr) bool {
	for _, p := range nonPublic4 {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// allowHint ends the refusal of a private target.
const allowHint = " (the operator can allow private ones with --allow-private-webhooks on kycd serve and kycd webhooks add)"

// resolveTimeout bounds the DNS lookup of a target at creation.
const resolveTimeout = 5 * time.Second

// CheckTarget applies every creation-time rule to a webhook endpoint URL
// or a KYC request's callbackUrl: CheckURL's form rules and, unless
// allowPrivate (the operator's --allow-private-webhooks), that the host
// is or resolves only to public addresses, in both environments. The API
// and `kycd webhooks add` both call it. The same address check runs again
// at every connection (Sender), so a name that later re-resolves to an
// internal address is refused then. The error's text is written for the
// integrator.
func CheckTarget(ctx context.Context, raw string, env kyc.Environment, allowPrivate bool) error {
	if err := CheckURL(raw, env); err != nil {
		return err
	}
	if allowPrivate {
		return nil
	}
	u, _ := url.Parse(raw)
	host := u.Hostname()
	// Who meets the refusal is often the operator testing a receiver on
	// their own machine or network: say how to allow it.
	if a, err := netip.ParseAddr(host); err == nil {
		if !Public(a) {
			return fmt.Errorf("the address %s is private or internal; webhooks may only reach public addresses"+allowHint, a)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return fmt.Errorf("the host %s does not resolve", host)
	}
	for _, a := range addrs {
		if !Public(a) {
			return fmt.Errorf("the host %s resolves to a private or internal address (%s); webhooks may only reach public addresses"+allowHint, host, a.WithZone(""))
		}
	}
	return nil
}
