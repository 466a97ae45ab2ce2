package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"kycd/kyc"
	"kycd/store"
)

type ctxKey int

const (
	infoKey ctxKey = iota
	idempotencyCtxKey
)

// requestInfo follows one request through the middleware so that the access
// log line can say who called and what went wrong.
type requestInfo struct {
	id      string
	status  int
	err     error
	key     *kyc.APIKey
	pattern string // the ServeMux pattern that matched; "" for none
}

func requestInfoFrom(ctx context.Context) *requestInfo {
	if v, ok := ctx.Value(infoKey).(*requestInfo); ok {
		return v
	}
	return &requestInfo{}
}

// clientRequestID accepts a caller's id if it is short and plain, so that it
// can be logged and echoed without escaping.
var clientRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// requestID sets X-Request-Id on every response: the client's own when it
// sent a sane one, else a new req_<ulid>.
func (s *Server) requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !clientRequestID.MatchString(id) {
			id = "req_" + store.NewRandomULID(time.Now())
		}
		w.Header().Set("X-Request-Id", id)
		info := &requestInfo{id: id}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), infoKey, info)))
	})
}

// statusWriter remembers the status for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// accessLog writes one structured line per request with the request id. It
// never logs headers or bodies: they carry API keys and personal data.
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		info := requestInfoFrom(r.Context())
		status := sw.status
		if info.status != 0 {
			status = info.status // 499: the client went away
		}
		attrs := []slog.Attr{
			slog.String("request_id", info.id),
			slog.String("method", r.Method),
			slog.String("path", logPath(r.URL.Path)),
			slog.Int("status", status),
			slog.Int("bytes", sw.bytes),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
		}
		if info.key != nil {
			attrs = append(attrs, slog.String("key_id", info.key.ID), slog.String("org_id", info.key.OrganizationID))
		}
		level := slog.LevelInfo
		if info.err != nil {
			attrs = append(attrs, slog.String("code", kyc.ErrorCode(info.err)))
			if status >= 500 {
				level = slog.LevelError
				attrs = append(attrs, slog.String("err", info.err.Error()))
			}
		}
		s.log.LogAttrs(r.Context(), level, "request", attrs...)
		s.metrics.observeRequest(info.pattern, r.Method, status, time.Since(start))
	})
}

// recoverPanic turns a handler panic into a 500 in the envelope; the panic
// and its stack go to the log only.
func (s *Server) recoverPanic(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.writeError(w, r, fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// securityHeaders are safe defaults for a JSON API.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

// logPath keeps portal link tokens out of the access log: the token is
// the applicant's only credential.
func logPath(p string) string {
	rest, ok := strings.CutPrefix(p, "/portal/")
	if !ok || strings.HasPrefix(rest, "assets/") {
		return p
	}
	if _, tail, found := strings.Cut(rest, "/"); found {
		return "/portal/{token}/" + tail
	}
	return "/portal/{token}"
}
