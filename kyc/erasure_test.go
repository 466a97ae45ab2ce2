package kyc

import (
	"testing"
	"time"
)

// TestErasableFrom is the due-date rule of decided data: DecidedYears
// after the later of the last decision and the relationship end; at once
// in sandbox, when nothing was decided, or once the date has passed.
func TestErasableFrom(t *testing.T) {
	p := RetentionPolicy{DecidedYears: 5, InactiveDays: 90, SandboxDays: 30, AMLYears: 5}
	day := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	now := *day("2026-11-28T00:00:00Z")
	for _, c := range []struct {
		name          string
		env           Environment
		decision, end *time.Time
		policy        RetentionPolicy
		want          time.Time
	}{
		{"sandbox, decided yesterday", Sandbox, day("2026-11-27T10:00:00Z"), nil, p, now},
		{"sandbox, relationship ends next year", Sandbox, day("2026-11-27T10:00:00Z"), day("2027-06-01T00:00:00Z"), p, now},
		{"live, nothing decided", Live, nil, nil, p, now},
		{"live, nothing decided, relationship ends later", Live, nil, day("2030-01-01T00:00:00Z"), p, now},
		{"live, decided, no relationship end", Live, day("2024-03-01T09:30:00Z"), nil, p, *day("2029-03-01T09:30:00Z")},
		{"live, relationship ended after the decision", Live, day("2024-03-01T09:30:00Z"), day("2025-07-15T00:00:00Z"), p, *day("2030-07-15T00:00:00Z")},
		{"live, relationship ended before the decision", Live, day("2024-03-01T09:30:00Z"), day("2023-01-01T00:00:00Z"), p, *day("2029-03-01T09:30:00Z")},
		{"live, relationship ends in the future", Live, day("2024-03-01T09:30:00Z"), day("2027-12-31T00:00:00Z"), p, *day("2032-12-31T00:00:00Z")},
		{"live, relationship end same instant as decision", Live, day("2024-03-01T00:00:00Z"), day("2024-03-01T00:00:00Z"), p, *day("2029-03-01T00:00:00Z")},
		{"live, both long past", Live, day("2015-03-01T09:30:00Z"), day("2019-06-30T00:00:00Z"), p, now},
		{"live, relationship end makes it due exactly now", Live, day("2020-01-01T00:00:00Z"), day("2021-11-28T00:00:00Z"), p, now},
		{"live, relationship end one day short", Live, day("2020-01-01T00:00:00Z"), day("2021-11-29T00:00:00Z"), p, *day("2026-11-29T00:00:00Z")},
		{"live, shorter policy", Live, day("2024-03-01T09:30:00Z"), day("2025-07-15T00:00:00Z"), RetentionPolicy{DecidedYears: 1}, now},
		{"live, leap day end", Live, day("2023-01-01T00:00:00Z"), day("2024-02-29T00:00:00Z"), p, *day("2029-03-01T00:00:00Z")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ErasableFrom(c.env, now, c.decision, c.end, c.policy); !got.Equal(c.want) {
				t.Errorf("ErasableFrom = %s, want %s", FormatTime(got), FormatTime(c.want))
			}
		})
	}
}

// TestRelationshipEndValidation: relationshipEndDate is a real date from
// 1900-01-01 to 2199-12-31; "" clears it.
func TestRelationshipEndValidation(t *testing.T) {
	now := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		v  string
		ok bool
	}{
		{"2025-07-15", true}, {"2030-01-01", true}, {"", true}, {"1900-01-01", true}, {"2199-12-31", true},
		{"2025-02-30", false}, {"2025-7-15", false}, {"2025-07-15T00:00:00Z", false}, {"1899-12-31", false},
		{"2200-01-01", false}, {"yesterday", false},
	} {
		v := c.v
		errs := (&ApplicantInput{RelationshipEnd: &v}).Validate(false, now, "")
		if (len(errs) == 0) != c.ok {
			t.Errorf("%q: %v, want ok=%v", c.v, errs, c.ok)
		}
		for _, e := range errs {
			if e.Field != "relationshipEndDate" {
				t.Errorf("%q: field %s", c.v, e.Field)
			}
		}
	}
}
