package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// Some requests never reach a handler: net/http answers them itself while
// reading the request (a bad Content-Length, no Host, headers over
// MaxHeaderBytes, a header value with a NUL such as an Idempotency-Key,
// an unsupported Transfer-Encoding), in plain text without X-Request-Id.
// http.Server has no hook for these replies; what it has is the
// connection it writes them to. Listener wraps each connection and
// rewrites exactly those replies into the §7.1 envelope.
//
// They are recognised by their fixed shape (net/http's serve loop writes
// each with one Fprintf straight to the connection): a status line and
// then at once the headers below. A response of a handler never looks like
// that: net/http writes Date and the handler's headers (X-Request-Id
// first among them, sorted) between the status line and Content-Type.
// If a later Go writes these replies differently, nothing is rewritten
// and they pass unchanged; TestMalformedRequestsEnvelope then fails.
const rawErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// Listener wraps l so that the replies net/http makes before any handler
// runs are written in the error envelope, with an X-Request-Id and an
// access-log line. Only for plain-HTTP listeners: a TLS connection must
// reach http.Server as a *tls.Conn.
func (s *Server) Listener(l net.Listener) net.Listener { return &envelopeListener{Listener: l, s: s} }

type envelopeListener struct {
	net.Listener
	s *Server
}

func (l *envelopeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &envelopeConn{Conn: c, s: l.s}, nil
}

// envelopeConn rewrites net/http's own error replies; every other write
// passes through untouched.
type envelopeConn struct {
	net.Conn
	s *Server
}

func (c *envelopeConn) Write(p []byte) (int, error) {
	status, detail, ok := parseRawError(p)
	if !ok {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(c.s.rawErrorReply(status, detail)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// CloseWrite keeps net/http's half-close before it hangs up on a request
// whose headers were too large (closeWriteAndWait), so that the client
// reads the reply instead of a reset.
func (c *envelopeConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom keeps the connection's sendfile path for bodies (net/http
// uses it when the connection offers it); only headers are rewritten.
func (c *envelopeConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// parseRawError reads a reply of net/http's serve loop: "HTTP/1.1 <code>
// <text>[: <detail>]" + rawErrorHeaders + body.
func parseRawError(p []byte) (status int, detail string, ok bool) {
	line, rest, found := bytes.Cut(p, []byte("\r\n"))
	if !found || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) || !bytes.HasPrefix(rest, []byte(rawErrorHeaders[2:])) {
		return 0, "", false
	}
	code, text, _ := strings.Cut(string(line[len("HTTP/1.1 "):]), " ")
	status, err := strconv.Atoi(code)
	if err != nil || status < 400 || status > 599 {
		return 0, "", false
	}
	if _, d, has := strings.Cut(text, ": "); has {
		detail = d
	}
	return status, detail, true
}

// rawErrorReply is the envelope for a request net/http refused: a
// complete HTTP/1.1 response that closes the connection, as the original
// did.
func (s *Server) rawErrorReply(status int, detail string) []byte {
	id := "req_" + store.NewRandomULID(time.Now())
	msg := "The HTTP request is malformed and was not read"
	switch {
	case status == http.StatusRequestHeaderFieldsTooLarge:
		msg = "The request's headers are larger than this server accepts; nothing was read"
	case status == http.StatusNotImplemented:
		msg = "The request's Transfer-Encoding is not supported (only chunked is); nothing was read"
	case detail != "":
		msg += ": " + detail
	}
	body, _ := json.Marshal(errorBody{Error: errorFields{Type: typeByCode[kyc.EValidation], Message: msg + ".",
		Code: kyc.EValidation, Details: []kyc.FieldError{}}})
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\n")
	b.WriteString("Content-Type: application/json\r\n")
	b.WriteString("X-Request-Id: " + id + "\r\n")
	b.WriteString("X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nReferrer-Policy: no-referrer\r\n")
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\nConnection: close\r\n\r\n")
	b.Write(body)
	// The access-log line of a request no handler saw; like the others it
	// names no header or body.
	s.log.LogAttrs(context.Background(), slog.LevelInfo, "request", slog.String("request_id", id), slog.Int("status", status),
		slog.String("code", kyc.EValidation), slog.String("refused_by", "net/http"), slog.String("detail", detail))
	s.metrics.observeRequest("", "", status, 0)
	return b.Bytes()
}
