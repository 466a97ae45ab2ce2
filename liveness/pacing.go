package liveness

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The server paces a session: the page learns each step's movement only
// once the previous step's frames reached the server, and each step must
// reach it within StepDeadline of being revealed, by the server's clock.
// Recorded footage then has to be chosen step by step, as the movements
// are revealed, within seconds.
//
// The server keeps nothing between the steps: each step's answer is a
// receipt it signs (the session, the step, when it was revealed, when its
// frames arrived, the digest of those frames), which the page sends back
// with the next step and, with all the frames, at the end. The end
// checks every receipt's signature, that they chain (step n was revealed
// when step n-1's frames arrived) and that each step's frames are the
// ones the receipt saw.

// StepDeadline is how long after a step is revealed its frames must
// arrive: the page takes them at 1.1 s and 1.7 s and then sends them.
const StepDeadline = 6 * time.Second

// Receipt is the server's record of one step's frames.
type Receipt struct {
	Session  string    `json:"s"`
	Step     int       `json:"n"`
	Revealed time.Time `json:"r"`
	Received time.Time `json:"t"`
	Frames   string    `json:"h"` // FramesDigest of the step's frames
	// Light is the screen colour the server asked for in this step: the
	// receipt binds the step's frames to it.
	Light Light `json:"l,omitempty"`
}

// FramesDigest is the SHA-256 of frames as uploaded, each with its length.
func FramesDigest(frames [][]byte) string {
	h := sha256.New()
	for _, f := range frames {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write(f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Sign encodes r with its signature under key.
func (r Receipt) Sign(key []byte) (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("liveness: receipt: %w", err)
	}
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil)), nil
}

// ErrReceipt: a receipt the server did not sign, or altered.
var ErrReceipt = errors.New("liveness: not a receipt of this server")

// OpenReceipt checks s's signature under key and decodes it.
func OpenReceipt(key []byte, s string) (Receipt, error) {
	body, sig, ok := strings.Cut(s, ".")
	if !ok {
		return Receipt{}, ErrReceipt
	}
	// Strict: one receipt has one spelling (lenient base64 would take
	// other trailing bits for the same bytes).
	b, err1 := base64.RawURLEncoding.Strict().DecodeString(body)
	mac, err2 := base64.RawURLEncoding.Strict().DecodeString(sig)
	// The decoder also skips line breaks: only the canonical spelling is
	// a receipt.
	if err1 != nil || err2 != nil || base64.RawURLEncoding.EncodeToString(b) != body || base64.RawURLEncoding.EncodeToString(mac) != sig {
		return Receipt{}, ErrReceipt
	}
	m := hmac.New(sha256.New, key)
	m.Write(b)
	if !hmac.Equal(mac, m.Sum(nil)) {
		return Receipt{}, ErrReceipt
	}
	var r Receipt
	if err := json.Unmarshal(b, &r); err != nil {
		return Receipt{}, ErrReceipt
	}
	return r, nil
}

// CheckReceipts checks that receipts are session's, one per step in
// order, chained from opened, that each step's frames (by step) are the
// ones its receipt saw, and, when lights is not empty, under the colour
// the server asked for that step. It returns the steps' receipts; an
// error names the first problem (the upload is then refused, not judged).
func CheckReceipts(key []byte, session string, opened time.Time, steps int, lights []Light, receipts []string, frames map[int][][]byte) ([]Receipt, error) {
	if len(receipts) != steps {
		return nil, fmt.Errorf("%d receipts for %d steps", len(receipts), steps)
	}
	out := make([]Receipt, steps)
	revealed := opened
	for i, s := range receipts {
		r, err := OpenReceipt(key, s)
		if err != nil {
			return nil, fmt.Errorf("receipt %d: %w", i, err)
		}
		switch {
		case r.Session != session || r.Step != i:
			return nil, fmt.Errorf("receipt %d is for step %d of session %s", i, r.Step, r.Session)
		case !r.Revealed.Equal(revealed):
			return nil, fmt.Errorf("receipt %d does not follow receipt %d", i, i-1)
		case r.Frames != FramesDigest(frames[i]):
			return nil, fmt.Errorf("step %d's frames are not the ones sent during the session", i)
		case len(lights) > 0 && (len(lights) != steps || r.Light != lights[i]):
			return nil, fmt.Errorf("receipt %d is not for the colour asked in step %d", i, i)
		}
		out[i] = r
		revealed = r.Received
	}
	return out, nil
}
