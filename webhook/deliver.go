package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// AckTimeout is how long a receiver has to answer 2xx (spec §6.3.1).
const AckTimeout = 10 * time.Second

// UserAgent is sent with every delivery (spec §6.1).
const UserAgent = "Svc-Webhook/1.0"

// excerptLimit bounds the response body kept with an attempt.
const excerptLimit = 1024

// ErrPrivateAddress refuses a live delivery to a loopback, private,
// link-local or otherwise internal address.
var ErrPrivateAddress = errors.New("webhook: the URL resolves to a private or internal address, refused in live")

// Sender posts deliveries. Redirects are not followed (a 3xx is a failed
// attempt). The guarded client checks the address it actually connects
// to, after DNS resolution, so a name that re-resolves to an internal
// address between check and use (DNS rebinding) is refused too.
type Sender struct {
	open    *http.Client // sandbox, or live with --allow-private-webhooks
	guarded *http.Client // live
}

// NewSender returns a Sender with the 10-second acknowledgement timeout.
// allowPrivate lifts the private-address check in live, for on-prem
// networks.
func NewSender(allowPrivate bool) *Sender { return newSender(allowPrivate, AckTimeout) }

func newSender(allowPrivate bool, timeout time.Duration) *Sender {
	mk := func(guard bool) *http.Client {
		d := &net.Dialer{Timeout: 5 * time.Second}
		if guard {
			d.Control = func(network, address string, _ syscall.RawConn) error {
				ap, err := netip.ParseAddrPort(address)
				if err != nil || !Public(ap.Addr()) {
					return ErrPrivateAddress
				}
				return nil
			}
		}
		return &http.Client{
			Timeout:       timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			Transport: &http.Transport{
				DialContext:         d.DialContext,
				TLSHandshakeTimeout: 5 * time.Second,
				MaxIdleConnsPerHost: 8,
				IdleConnTimeout:     90 * time.Second,
				ForceAttemptHTTP2:   true,
			},
		}
	}
	s := &Sender{open: mk(false), guarded: mk(true)}
	if allowPrivate {
		s.guarded = s.open
	}
	return s
}

// Public reports whether a is an address a live webhook may reach: not
// loopback, private (RFC 1918, ULA), link-local (including cloud metadata
// 169.254.169.254), unspecified, multicast, CGNAT or documentation space.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"), // CGNAT
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("2001:db8::/32"),
}

// Result is what one POST did.
type Result struct {
	Status   int // 0 when no response came
	Excerpt  string
	Duration time.Duration
	Err      error // transport error, or a non-2xx status
}

// Post sends body to url with headers; live selects the guarded client.
func (s *Sender) Post(ctx context.Context, live bool, url string, headers http.Header, body []byte) Result {
	client := s.open
	if live {
		client = s.guarded
	}
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Result{Err: err}
	}
	req.Header = headers
	res, err := client.Do(req)
	if err != nil {
		return Result{Duration: time.Since(start), Err: err}
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, excerptLimit))
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20)) // let the connection be reused
	r := Result{Status: res.StatusCode, Excerpt: string(b), Duration: time.Since(start)}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		r.Err = fmt.Errorf("receiver answered %d", res.StatusCode)
	}
	return r
}
