package webhook

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
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

// Sender posts deliveries. Redirects are not followed (a 3xx is a failed
// attempt). Unless private targets are allowed, the client checks the
// address it actually connects to, after DNS resolution, so a name that
// re-resolves to an internal address between check and use (DNS
// rebinding) is refused too, in both environments.
type Sender struct {
	client *http.Client
	// public decides whose answers are kept; Public, except in tests that
	// need a loopback receiver to count as public.
	public func(netip.Addr) bool
}

// NewSender returns a Sender with the 10-second acknowledgement timeout.
// allowPrivate (the operator's --allow-private-webhooks) lets deliveries
// reach loopback and private addresses, for on-prem networks and tests.
func NewSender(allowPrivate bool) *Sender { return newSender(allowPrivate, AckTimeout) }

func newSender(allowPrivate bool, timeout time.Duration) *Sender {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if !allowPrivate {
		d.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !Public(ap.Addr()) {
				return ErrPrivateAddress
			}
			return nil
		}
	}
	return &Sender{public: Public, client: &http.Client{
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{
			DialContext:         d.DialContext,
			TLSHandshakeTimeout: 5 * time.Second,
			MaxIdleConnsPerHost: 8,
			IdleConnTimeout:     90 * time.Second,
			ForceAttemptHTTP2:   true,
		},
	}}
}

// Result is what one POST did.
type Result struct {
	Status   int // 0 when no response came
	Excerpt  string
	Withheld bool // the peer's address was not public: Excerpt was not kept
	Duration time.Duration
	Err      error // transport error, or a non-2xx status
}

// Post sends body to url with headers. The first KiB of the answer is kept
// only from a public address: what an internal service (a metadata
// endpoint, a Docker socket) answers must never be readable through the
// deliveries API, even where the operator allowed private targets.
func (s *Sender) Post(ctx context.Context, url string, headers http.Header, body []byte) Result {
	start := time.Now()
	var peer netip.Addr
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if ap, err := netip.ParseAddrPort(info.Conn.RemoteAddr().String()); err == nil {
			peer = ap.Addr()
		}
	}}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Result{Err: err}
	}
	req.Header = headers
	res, err := s.client.Do(req)
	if err != nil {
		return Result{Duration: time.Since(start), Err: err}
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, excerptLimit))
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20)) // let the connection be reused
	r := Result{Status: res.StatusCode, Excerpt: string(b), Duration: time.Since(start)}
	if !s.public(peer) {
		r.Excerpt, r.Withheld = "", true
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		r.Err = fmt.Errorf("receiver answered %d", res.StatusCode)
	}
	return r
}
