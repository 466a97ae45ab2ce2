package decision

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"kycd/kyc"
	"kycd/store"
)

// DryRunSize is how many of the latest decided requests a policy dry run
// decides again.
const DryRunSize = 50

// DryRunRow is one request decided again under the current policy and
// under the proposed one.
type DryRunRow struct {
	Request store.DecidedRequest
	// Current and Proposed are the outcomes the two policies reach on
	// what the decision recorded (Replay). Comparing the proposal with the
	// current policy replayed, not with the outcome recorded, shows what
	// the change does: the recorded outcome may come from an older policy
	// or engine, and in sandbox from a test trigger.
	Current, Proposed Result
	Changed           bool
	// Skipped says why the request could not be decided again ("" when
	// it was): the manual engine ran, or nothing usable was recorded.
	Skipped string
}

// DryRun is what a proposed policy would change.
type DryRun struct {
	Environment kyc.Environment
	Rows        []DryRunRow
	Compared    int // rows decided again
	Changed     int // of which the outcome changes
	// Moves counts the changed rows by "current → proposed" outcome, e.g.
	// "approve → review".
	Moves map[string]int
}

// MoveList is Moves as "review → reject ×2", most frequent first.
func (d *DryRun) MoveList() []string {
	moves := make([]string, 0, len(d.Moves))
	for m := range d.Moves {
		moves = append(moves, m)
	}
	sort.Slice(moves, func(i, j int) bool {
		if d.Moves[moves[i]] != d.Moves[moves[j]] {
			return d.Moves[moves[i]] > d.Moves[moves[j]]
		}
		return moves[i] < moves[j]
	})
	for i, m := range moves {
		moves[i] = fmt.Sprintf("%s ×%d", m, d.Moves[m])
	}
	return moves
}

// DryRunPolicy decides the environment's latest DryRunSize decided
// requests again under current and proposed, from what their decisions
// recorded. Nothing is written.
func DryRunPolicy(ctx context.Context, st *store.Store, orgID string, env kyc.Environment, current, proposed *Policy) (*DryRun, error) {
	reqs, err := st.FindDecidedRequests(ctx, orgID, env, DryRunSize)
	if err != nil {
		return nil, err
	}
	out := &DryRun{Environment: env, Moves: map[string]int{}}
	for _, r := range reqs {
		row := DryRunRow{Request: r}
		cur, err := Replay(current, r.ProcessingResult)
		if err == nil {
			row.Proposed, err = Replay(proposed, r.ProcessingResult)
		}
		switch {
		case errors.Is(err, ErrNotReplayable):
			row.Skipped = "No automated checks were recorded for it."
		case err != nil:
			row.Skipped = "Its recorded signals could not be read: " + err.Error()
		default:
			row.Current = cur
			out.Compared++
			if cur.Outcome != row.Proposed.Outcome {
				row.Changed = true
				out.Changed++
				out.Moves[fmt.Sprintf("%s → %s", cur.Outcome, row.Proposed.Outcome)]++
			}
		}
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}
