// Package liveness decides whether a selfie capture session shows a live
// person in front of the camera: the server draws a random challenge (a
// short sequence of head movements and a deadline), the applicant's page
// captures a few frames while they follow it, and Verify checks the
// frames themselves — one face in each, the same person in all, a head
// that turned as asked and in the order asked, frames that are not copies
// of each other, and an upload that came in time, once.
//
// What it proves: a printed photo or a replayed still cannot turn its
// head (turning a flat picture barely moves the landmarks' 3-D pose, see
// thresholds_test.go), and a recording made before the challenge was drawn
// shows the wrong movements. What it does not prove: a real-time deepfake
// or face-swap driven by the challenge, a video injected in place of the
// camera (a virtual camera, a modified browser), or a 3-D mask worn by
// someone who follows the instructions. docs/decisions.md says so to operators.
//
// The package is pure: Observe runs the face models on one frame, Verify
// decides on the observations, a challenge and the timing; storage and
// HTTP live elsewhere.
package liveness

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"time"
)

// Move is one head movement a challenge asks for.
type Move string

// The movements. Left and right are the applicant's own: turning to one's
// left puts the nose toward the right of an un-mirrored camera frame.
const (
	TurnLeft   Move = "turn_left"
	TurnRight  Move = "turn_right"
	LookUp     Move = "look_up"
	LookDown   Move = "look_down"
	MoveCloser Move = "move_closer"
)

// LookStraight is the first step of every session, before the challenge's
// movements: the applicant faces the camera. Its frames set the pose the
// movements are measured from, and the best of them becomes the selfie.
const LookStraight Move = "look_straight"

// Moves lists every movement a challenge may ask for.
var Moves = []Move{TurnLeft, TurnRight, LookUp, LookDown, MoveCloser}

// Valid reports whether m is a movement a challenge may ask for.
func (m Move) Valid() bool {
	for _, v := range Moves {
		if m == v {
			return true
		}
	}
	return false
}

// turn reports whether m rotates the head: a flat picture can be moved
// closer but cannot rotate like a head, so every challenge has turns.
func (m Move) turn() bool { return m != MoveCloser }

// Challenge is what one capture session asks of the applicant: after
// looking straight at the camera, the movements in order.
type Challenge struct {
	Moves []Move
	// Lights is the screen colour of each step (Lights), step 0's
	// Neutral; empty when the session asked for none (the light check is
	// then not run).
	Lights []Light
}

// Session limits.
const (
	// Deadline is how long after the session opens its frames must have
	// arrived. The page needs about 2 s per step (4 steps at most) and a
	// few seconds to upload small JPEGs on a slow connection.
	Deadline = 20 * time.Second
	// MinStepTime is the least time a person needs per step (to read an
	// instruction and move: a reaction of ~0.25 s plus the movement);
	// a session answered faster than this for every step was not
	// performed in front of the camera.
	MinStepTime = 400 * time.Millisecond
	// MaxFramesPerStep bounds the frames one step may send (the page sends
	// two), and so the work one session costs.
	MaxFramesPerStep = 3
	// MinMoves and MaxMoves bound a challenge's length.
	MinMoves = 2
	MaxMoves = 3
)

// MaxFrames is the most frames one session may send.
const MaxFrames = (MaxMoves + 1) * MaxFramesPerStep

// NewChallenge draws a challenge from r (crypto/rand.Reader when nil): two
// or three movements, no movement twice in a row, at least one turn to
// the left or right (yaw is what the landmarks measure best), at least
// two rotations of the head, and "move closer" at most once. That gives
// 76 different challenges, so a recording prepared in advance has to
// guess which one comes.
func NewChallenge(r io.Reader) (Challenge, error) {
	if r == nil {
		r = rand.Reader
	}
	all := challenges()
	var b [8]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return Challenge{}, fmt.Errorf("liveness: draw a challenge: %w", err)
	}
	// The modulo bias over 2^64 is below 10^-17.
	return all[binary.LittleEndian.Uint64(b[:])%uint64(len(all))], nil
}

// challenges enumerates every challenge NewChallenge may draw, in a fixed
// order.
func challenges() []Challenge {
	var out []Challenge
	var walk func(prefix []Move)
	walk = func(prefix []Move) {
		if len(prefix) >= MinMoves && allowed(prefix) {
			out = append(out, Challenge{Moves: append([]Move(nil), prefix...)})
		}
		if len(prefix) == MaxMoves {
			return
		}
		for _, m := range Moves {
			if len(prefix) > 0 && prefix[len(prefix)-1] == m {
				continue
			}
			walk(append(prefix, m))
		}
	}
	walk(nil)
	return out
}

// allowed is NewChallenge's rule for a full sequence.
func allowed(moves []Move) bool {
	yaw, turns, closer := false, 0, 0
	for _, m := range moves {
		yaw = yaw || m == TurnLeft || m == TurnRight
		if m.turn() {
			turns++
		} else {
			closer++
		}
	}
	return yaw && turns >= 2 && closer <= 1
}

// Validate checks a challenge read back from storage: known movements,
// the length bounds and NewChallenge's rule.
func (c Challenge) Validate() error {
	if len(c.Moves) < MinMoves || len(c.Moves) > MaxMoves {
		return fmt.Errorf("liveness: challenge of %d movements", len(c.Moves))
	}
	for i, m := range c.Moves {
		if !m.Valid() {
			return fmt.Errorf("liveness: unknown movement %q", m)
		}
		if i > 0 && c.Moves[i-1] == m {
			return fmt.Errorf("liveness: movement %q twice in a row", m)
		}
	}
	if !allowed(c.Moves) {
		return fmt.Errorf("liveness: challenge %v lacks turns", c.Moves)
	}
	if len(c.Lights) == 0 {
		return nil
	}
	if len(c.Lights) != c.Steps() || c.Lights[0] != Neutral {
		return fmt.Errorf("liveness: %d screen colours for %d steps", len(c.Lights), c.Steps())
	}
	for i, l := range c.Lights[1:] {
		if !slices.Contains(Palette, l) || l == c.Lights[i] {
			return fmt.Errorf("liveness: screen colour %q of step %d", l, i+1)
		}
	}
	return nil
}

// Steps is the number of steps of the session: looking straight, then
// each movement.
func (c Challenge) Steps() int { return len(c.Moves) + 1 }

// Step returns the movement of step i: LookStraight for 0, then the
// challenge's movements.
func (c Challenge) Step(i int) Move {
	if i == 0 {
		return LookStraight
	}
	return c.Moves[i-1]
}
