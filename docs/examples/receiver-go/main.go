// Command receiver-go is a webhook receiver for kycd in Go's standard
// library alone, to copy into your own service. It checks every delivery's
// X-Svc-Signature exactly as kycd signs it (docs/quickstart.md, "Verify the
// webhook"), answers 204 to a valid one and 400 to anything else, and prints
// one line per delivery:
//
//	verified svc.kyc.request.approved kev_… kyc_… approved
//	duplicate kev_…                      (the same eventId again: acknowledged, not handled twice)
//	rejected: signature does not match   (answered 400)
//
//	WEBHOOK_SECRET=whsec_… go run ./docs/examples/receiver-go -addr 127.0.0.1:9000
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// tolerance is how far the signature's timestamp may be from this clock,
// either way: kycd's rule (spec §6.4).
const tolerance = 300 * time.Second

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "where to listen")
	flag.Parse()
	secret := os.Getenv("WEBHOOK_SECRET")
	if secret == "" {
		log.Fatal("receiver-go: set WEBHOOK_SECRET to the endpoint's whsec_… secret")
	}
	log.SetFlags(0)
	h := &receiver{secret: secret, seen: map[string]bool{}, now: time.Now}
	log.Printf("receiver-go: listening on %s", *addr)
	log.Fatal(http.ListenAndServe(*addr, h))
}

type receiver struct {
	secret string
	now    func() time.Time
	mu     sync.Mutex
	seen   map[string]bool // eventIds handled; a real service keeps them in its database
}

func (h *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	// The raw bytes, as received: the signature covers them, not a
	// re-encoding of the parsed JSON.
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return
	}
	if err := verify(h.secret, r.Header.Get("X-Svc-Signature"), body, h.now()); err != nil {
		fmt.Printf("rejected: %v\n", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var event struct {
		EventID   string `json:"eventId"`
		EventType string `json:"eventType"`
		PublicID  string `json:"publicId"` // the request's or check's public id; absent from test events
		Status    string `json:"status"`
	}
	if err := json.Unmarshal(body, &event); err != nil || event.EventID == "" {
		fmt.Printf("rejected: signed, but not an event: %v\n", err)
		http.Error(w, "not an event", http.StatusBadRequest)
		return
	}
	// kycd may deliver an event more than once (a retry after a lost
	// answer): acknowledge it again, handle it once.
	h.mu.Lock()
	dup := h.seen[event.EventID]
	h.seen[event.EventID] = true
	h.mu.Unlock()
	if dup {
		fmt.Printf("duplicate %s\n", event.EventID)
	} else {
		fmt.Printf("verified %s %s %s %s\n", event.EventType, event.EventID, event.PublicID, event.Status)
	}
	w.WriteHeader(http.StatusNoContent)
}

// verify checks header (v1,t=<unix seconds>,sig=<hex>[,sig=<hex>…]) for
// body: the only version is v1, t is within 300 s of now, and one sig is
// the lower-case hex HMAC-SHA256 of "<t>.<body>" keyed with the secret's
// UTF-8 bytes (whsec_ prefix included), compared in constant time. During
// a secret rotation with dual signing there are two sig= parts: any match
// will do. Unknown key=value parts are ignored, as kycd's own Verify does.
func verify(secret, header string, body []byte, now time.Time) error {
	parts := strings.Split(header, ",")
	if strings.TrimSpace(parts[0]) != "v1" {
		return errors.New("no v1 signature")
	}
	var ts string
	var sigs [][]byte
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			return errors.New("malformed signature header")
		}
		switch k {
		case "t":
			if ts != "" {
				return errors.New("more than one t=")
			}
			ts = v
		case "sig":
			b, err := hex.DecodeString(v)
			if err != nil || len(b) != sha256.Size || strings.ToLower(v) != v {
				return errors.New("sig= must be 64 lower-case hex characters")
			}
			sigs = append(sigs, b)
		}
	}
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || t < 0 || strings.HasPrefix(ts, "+") || len(sigs) == 0 {
		return errors.New("malformed signature header: it needs t= and sig=")
	}
	if d := now.Sub(time.Unix(t, 0)); d > tolerance || d < -tolerance {
		return errors.New("timestamp more than 300 s from this clock")
	}
	mac := hmac.New(sha256.New, []byte(secret))
	// kycd signs the decimal seconds as it wrote them; formatting the
	// parsed number again is what kycd's Verify does too.
	mac.Write([]byte(strconv.FormatInt(t, 10) + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	match := false
	for _, s := range sigs {
		if hmac.Equal(want, s) {
			match = true
		}
	}
	if !match {
		return errors.New("signature does not match")
	}
	return nil
}
