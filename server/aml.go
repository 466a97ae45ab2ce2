package server

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"kycd/aml"
	"kycd/kyc"
	"kycd/store"
)

// amlCheckJSON is the AML check of the API (spec §2.3). List items leave
// out monitoringHistory, which grows by one entry a day.
type amlCheckJSON struct {
	ID                string           `json:"id"`
	PublicID          string           `json:"publicId"`
	Environment       kyc.Environment  `json:"environment"`
	FirstName         string           `json:"firstName"`
	LastName          string           `json:"lastName"`
	DOB               *string          `json:"dob"`
	Country           *string          `json:"country"`
	MonitoringEnabled bool             `json:"monitoringEnabled"`
	Status            kyc.AMLStatus    `json:"status"`
	RiskLevel         *kyc.RiskLevel   `json:"riskLevel"`
	MatchCount        int              `json:"matchCount"`
	Threshold         float64          `json:"threshold"`
	Results           []kyc.ListResult `json:"results"`
	LastScreenedAt    string           `json:"lastScreenedAt"`
	NextScreenAt      *string          `json:"nextScreenAt"`
	CreatedAt         string           `json:"createdAt"`
	UpdatedAt         string           `json:"updatedAt"`
	ReviewStatus      string           `json:"reviewStatus"`
	ResolvedAt        *string          `json:"resolvedAt"`
	ErasedAt          *string          `json:"erasedAt"` // retention ended (store/amlretention.go)
	MonitoringHistory []screeningJSON  `json:"monitoringHistory,omitempty"`
}

type screeningJSON struct {
	ID             string         `json:"id"`
	Trigger        string         `json:"trigger"`
	ScreenedAt     string         `json:"screenedAt"`
	Status         kyc.AMLStatus  `json:"status"`
	PreviousStatus *kyc.AMLStatus `json:"previousStatus"`
	RiskLevel      *kyc.RiskLevel `json:"riskLevel"`
	MatchCount     int            `json:"matchCount"`
	Changed        bool           `json:"changed"`
	NewMatches     []string       `json:"newMatches"`
	RemovedMatches []string       `json:"removedMatches"`
	ListVersions   []string       `json:"listVersions"`
	// ChangedEntities are decided matches whose listed entity changed.
	ChangedEntities []kyc.EntityChange `json:"changedEntities"`
	ErasedAt        *string            `json:"erasedAt"`
}

func toAMLCheckJSON(c *kyc.AMLCheck) amlCheckJSON {
	j := amlCheckJSON{
		ID: c.ID, PublicID: c.PublicID, Environment: c.Environment, FirstName: c.FirstName, LastName: c.LastName,
		DOB: c.DOB, Country: c.Country, MonitoringEnabled: c.MonitoringEnabled, Status: c.Status, RiskLevel: c.RiskLevel,
		MatchCount: c.MatchCount, Threshold: c.Threshold, Results: c.Results, LastScreenedAt: kyc.FormatTime(c.LastScreenedAt),
		CreatedAt: kyc.FormatTime(c.CreatedAt), UpdatedAt: kyc.FormatTime(c.UpdatedAt), ReviewStatus: string(c.ReviewStatus),
		ResolvedAt: timePtr(c.ResolvedAt), ErasedAt: timePtr(c.ErasedAt),
	}
	if c.NextScreenAt != nil {
		t := kyc.FormatTime(*c.NextScreenAt)
		j.NextScreenAt = &t
	}
	if c.History != nil {
		j.MonitoringHistory = make([]screeningJSON, 0, len(c.History))
		for _, h := range c.History {
			j.MonitoringHistory = append(j.MonitoringHistory, screeningJSON{
				ID: h.ID, Trigger: h.Trigger, ScreenedAt: kyc.FormatTime(h.ScreenedAt), Status: h.Status,
				PreviousStatus: h.PreviousStatus, RiskLevel: h.RiskLevel, MatchCount: h.MatchCount, Changed: h.Changed,
				NewMatches: orEmpty(h.NewMatches), RemovedMatches: orEmpty(h.RemovedMatches), ListVersions: orEmpty(h.ListVersions),
				ChangedEntities: h.ChangedEntities, ErasedAt: timePtr(h.ErasedAt),
			})
			if j.MonitoringHistory[len(j.MonitoringHistory)-1].ChangedEntities == nil {
				j.MonitoringHistory[len(j.MonitoringHistory)-1].ChangedEntities = []kyc.EntityChange{}
			}
		}
	}
	return j
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// handleAMLCheckCreate handles "POST /v1/aml-checks": screens synchronously
// and answers 201 with the verdict and per-list results.
func (s *Server) handleAMLCheckCreate(w http.ResponseWriter, r *http.Request) error {
	o, err := readObject(w, r)
	if err != nil {
		return err
	}
	key := keyFrom(r.Context())
	envErr := checkEnvironment(o, key)
	in := kyc.AMLCheckInput{FirstName: o.str("firstName"), LastName: o.str("lastName"), DOB: o.str("dob"), Country: o.str("country")}
	if m := o.boolean("monitoring"); m != nil {
		in.Monitoring = *m
	}
	if err := o.check(in.Validate(s.now())); err != nil {
		return err
	}
	if envErr != nil {
		return envErr
	}
	screened, err := s.aml.Screen(r.Context(), key.OrganizationID, key.Environment,
		aml.Subject{FirstName: *in.FirstName, LastName: *in.LastName, DOB: in.DOB, Country: in.Country})
	if err != nil {
		return err
	}
	return s.commit(w, r, http.StatusCreated, func(tx *store.Tx) (any, error) {
		c, err := s.aml.Create(tx, key.OrganizationID, key.Environment, screened, in.Monitoring)
		if err != nil {
			return nil, err
		}
		return toAMLCheckJSON(c), nil
	})
}

// handleAMLCheckList handles "GET /v1/aml-checks": one page, newest first,
// optionally filtered by status.
func (s *Server) handleAMLCheckList(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	p, size := q.paging()
	status := kyc.AMLStatus(q.str("status"))
	if status != "" && !validAMLStatus(status) {
		q.errs = append(q.errs, kyc.FieldError{Field: "status", Message: "must be one of no_match, potential_match, failed"})
	}
	review := kyc.AMLReviewStatus(q.str("reviewStatus"))
	if review != "" && review != kyc.AMLReviewNotRequired && review != kyc.AMLReviewPending && review != kyc.AMLReviewResolved {
		q.errs = append(q.errs, kyc.FieldError{Field: "reviewStatus", Message: "must be one of not_required, pending, resolved"})
	}
	if err := q.check(); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	list, total, err := s.store.FindAMLChecks(r.Context(), key.OrganizationID, key.Environment,
		kyc.AMLCheckFilter{Status: status, ReviewStatus: review, Page: p, Size: size})
	if err != nil {
		return err
	}
	for _, c := range list {
		if c.ReviewStatus == kyc.AMLReviewNotRequired {
			continue
		}
		ds, err := s.store.FindMatchDecisions(r.Context(), c.ID)
		if err != nil {
			return err
		}
		kyc.ApplyMatchDecisions(c.Results, ds)
	}
	writeJSON(w, http.StatusOK, newPage(mapAll(list, toAMLCheckJSON), p, size, total))
	return nil
}

func validAMLStatus(st kyc.AMLStatus) bool {
	for _, v := range kyc.AMLStatuses {
		if v == st {
			return true
		}
	}
	return false
}

// handleAMLCheckGet handles "GET /v1/aml-checks/{id}": the check with its
// matches and monitoring history (the JSON form of the AML report).
func (s *Server) handleAMLCheckGet(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	c, err := s.aml.Load(r.Context(), key.OrganizationID, key.Environment, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toAMLCheckJSON(c))
	return nil
}

// handleAMLCheckUpdate handles "PATCH /v1/aml-checks/{id}": the only
// writable field is monitoring.
func (s *Server) handleAMLCheckUpdate(w http.ResponseWriter, r *http.Request) error {
	o, err := readObject(w, r)
	if err != nil {
		return err
	}
	m := o.boolean("monitoring")
	var errs []kyc.FieldError
	if m == nil {
		errs = append(errs, kyc.FieldError{Field: "monitoring", Message: "is required (true or false)"})
	}
	if err := o.check(errs); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	err = s.commit(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
		c, err := tx.SetAMLMonitoring(key.OrganizationID, key.Environment, r.PathValue("id"), *m)
		if err != nil {
			return nil, err
		}
		if c.History, err = tx.FindScreenings(c.ID); err != nil {
			return nil, err
		}
		ds, err := tx.FindMatchDecisions(c.ID)
		if err != nil {
			return nil, err
		}
		kyc.ApplyMatchDecisions(c.Results, ds)
		return toAMLCheckJSON(c), nil
	})
	return err
}

// handleAMLMatchDecision handles "POST /v1/aml-checks/{id}/matches/{matchId}/decision":
// body {"decision": "false_positive"|"confirmed", "note"}; the key is the
// actor. It answers with the whole check.
func (s *Server) handleAMLMatchDecision(w http.ResponseWriter, r *http.Request) error {
	o, err := readObject(w, r)
	if err != nil {
		return err
	}
	d, note := o.str("decision"), o.str("note")
	var errs []kyc.FieldError
	if d == nil || !kyc.MatchDecision(*d).Valid() {
		errs = append(errs, kyc.FieldError{Field: "decision", Message: "is required: false_positive or confirmed"})
	}
	switch {
	case note == nil || strings.TrimSpace(*note) == "":
		errs = append(errs, kyc.FieldError{Field: "note", Message: "is required: say why"})
	case utf8.RuneCountInString(*note) > aml.MaxNoteLen:
		errs = append(errs, kyc.FieldError{Field: "note", Message: "must be at most 2000 characters"})
	}
	if err := o.check(errs); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
		c, err := s.aml.DecideMatch(tx, key.OrganizationID, key.Environment, r.PathValue("id"), r.PathValue("matchId"),
			kyc.MatchDecision(*d), *note, aml.Actor{Type: kyc.ActorAPIKey, ID: "key_" + key.ID})
		if err != nil {
			return nil, err
		}
		return toAMLCheckJSON(c), nil
	})
}

// handleAMLCheckRescreen handles "POST /v1/aml-checks/{id}/rescreen": the
// check is screened again now and the result recorded in its history with
// the trigger manual. This is how a failed check is retried. The body may
// be empty or {}.
func (s *Server) handleAMLCheckRescreen(w http.ResponseWriter, r *http.Request) error {
	o, err := readOptionalObject(w, r)
	if err != nil {
		return err
	}
	if err := o.check(nil); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	again, err := s.aml.ScreenAgain(r.Context(), key.OrganizationID, key.Environment, r.PathValue("id"))
	if err != nil {
		return err
	}
	return s.commit(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
		c, err := s.aml.RecordRescreen(tx, again)
		if err != nil {
			return nil, err
		}
		return toAMLCheckJSON(c), nil
	})
}
