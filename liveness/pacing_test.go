package liveness

import (
	"strings"
	"testing"
	"time"
)

// TestReceipts: a receipt opens under its key only, unaltered; receipts
// chain from the session's opening, one per step, each for its frames.
func TestReceipts(t *testing.T) {
	key, other := []byte("key one"), []byte("key two")
	opened := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	frames := map[int][][]byte{0: {[]byte("a"), []byte("b")}, 1: {[]byte("c"), []byte("d")}}
	r0 := Receipt{Session: "lvs_1", Step: 0, Revealed: opened, Received: opened.Add(2 * time.Second), Frames: FramesDigest(frames[0])}
	r1 := Receipt{Session: "lvs_1", Step: 1, Revealed: r0.Received, Received: r0.Received.Add(2 * time.Second), Frames: FramesDigest(frames[1])}
	s0, _ := r0.Sign(key)
	s1, _ := r1.Sign(key)
	if got, err := CheckReceipts(key, "lvs_1", opened, 2, nil, []string{s0, s1}, frames); err != nil || len(got) != 2 || !got[1].Received.Equal(r1.Received) {
		t.Fatalf("genuine receipts: %v %v", got, err)
	}
	s1other, _ := r1.Sign(other)
	swapped := map[int][][]byte{0: frames[1], 1: frames[0]}
	for name, c := range map[string]struct {
		session  string
		receipts []string
		frames   map[int][][]byte
	}{
		"another key":       {"lvs_1", []string{s0, s1other}, frames},
		"another session":   {"lvs_2", []string{s0, s1}, frames},
		"out of order":      {"lvs_1", []string{s1, s0}, frames},
		"a step missing":    {"lvs_1", []string{s0}, frames},
		"other frames":      {"lvs_1", []string{s0, s1}, swapped},
		"altered":           {"lvs_1", []string{s0, strings.Replace(s1, "A", "B", 1)}, frames},
		"not a receipt":     {"lvs_1", []string{s0, "x"}, frames},
		"an unchained step": {"lvs_1", []string{s0, mustSign(t, key, Receipt{Session: "lvs_1", Step: 1, Revealed: opened, Frames: FramesDigest(frames[1])})}, frames},
	} {
		if _, err := CheckReceipts(key, c.session, opened, 2, nil, c.receipts, c.frames); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// A step answered after StepDeadline fails the timing check.
	late := r1
	late.Received = late.Revealed.Add(StepDeadline + time.Second)
	tm := Timing{Opened: opened, Deadline: opened.Add(Deadline), Received: late.Received, Steps: []Receipt{r0, late}}
	if c := checkTiming(Challenge{Moves: []Move{TurnLeft}}, tm); c.Passed || c.Code != CodeTooLate || !strings.Contains(c.Detail, "Step 1") {
		t.Errorf("late step: %+v", c)
	}
}

func mustSign(t *testing.T, key []byte, r Receipt) string {
	s, err := r.Sign(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// FuzzOpenReceipt: whatever a page sends as a receipt, OpenReceipt never
// panics and accepts only what the key signed.
func FuzzOpenReceipt(f *testing.F) {
	key := []byte("fuzz key")
	good, _ := Receipt{Session: "lvs_1", Step: 2, Frames: "00"}.Sign(key)
	f.Add(good)
	f.Add("")
	f.Add(".")
	f.Add("e30.AAAA")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := OpenReceipt(key, s)
		if err == nil && s != good {
			if again, _ := r.Sign(key); again != s {
				// A different encoding of a signed body would need the key.
				t.Fatalf("accepted %q", s)
			}
		}
	})
}
