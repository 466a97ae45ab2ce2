package liveness

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"
)

func TestChallenges(t *testing.T) {
	all := challenges()
	if len(all) != 76 {
		t.Errorf("%d challenges, want 76 (the package comment says so)", len(all))
	}
	seen := map[string]bool{}
	uses := map[Move]int{}
	for _, c := range all {
		if err := c.Validate(); err != nil {
			t.Errorf("%v: %v", c.Moves, err)
		}
		key := movesText(c)
		if seen[key] {
			t.Errorf("%v drawn twice", c.Moves)
		}
		seen[key] = true
		for _, m := range c.Moves {
			uses[m]++
		}
	}
	for _, m := range Moves {
		if uses[m] == 0 {
			t.Errorf("%s never asked for", m)
		}
	}
}

func TestNewChallengeUsesItsReader(t *testing.T) {
	all := challenges()
	for _, i := range []uint64{0, 1, 75, 76, 1 << 40} {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], i)
		c, err := NewChallenge(bytes.NewReader(b[:]))
		if err != nil {
			t.Fatal(err)
		}
		if want := all[i%uint64(len(all))]; !slices.Equal(c.Moves, want.Moves) {
			t.Errorf("draw %d: %v, want %v", i, c.Moves, want.Moves)
		}
	}
	if _, err := NewChallenge(bytes.NewReader([]byte{1, 2})); err == nil {
		t.Error("short randomness: no error")
	}
	c, err := NewChallenge(nil)
	if err != nil || c.Validate() != nil {
		t.Errorf("crypto/rand draw: %v %v", c.Moves, err)
	}
}

func TestChallengeValidate(t *testing.T) {
	for _, tt := range []struct {
		name  string
		moves []Move
	}{
		{"one move", []Move{TurnLeft}},
		{"four moves", []Move{TurnLeft, LookUp, TurnRight, LookDown}},
		{"unknown", []Move{TurnLeft, "wink"}},
		{"straight is no challenge", []Move{TurnLeft, LookStraight}},
		{"twice in a row", []Move{TurnLeft, TurnLeft, LookUp}},
		{"no left or right", []Move{LookUp, LookDown}},
		{"one turn only", []Move{TurnLeft, MoveCloser}},
	} {
		if err := (Challenge{Moves: tt.moves}).Validate(); err == nil {
			t.Errorf("%s: %v valid", tt.name, tt.moves)
		}
	}
	c := Challenge{Moves: []Move{TurnRight, MoveCloser, LookUp}}
	if c.Steps() != 4 || c.Step(0) != LookStraight || c.Step(2) != MoveCloser {
		t.Errorf("Steps %d, Step(0) %s, Step(2) %s", c.Steps(), c.Step(0), c.Step(2))
	}
}
