package server

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// exportJSON is export.json in the archive of GET /v1/applicants/{id}/export:
// everything kycd holds about the person, in the API's shapes; the image
// files sit beside it under the paths named here.
type exportJSON struct {
	Object      string              `json:"object"`
	GeneratedAt string              `json:"generatedAt"`
	Applicant   applicantJSON       `json:"applicant"`
	Requests    []exportRequestJSON `json:"requests"`
	// AMLChecks are the checks run on the same person (same name, and
	// date of birth when both have one), as the console links them.
	AMLChecks []amlCheckJSON `json:"amlChecks"`
	Erasure   any            `json:"erasure"` // the receipt when erased, else null
}

type exportRequestJSON struct {
	Request  kycJSON             `json:"request"`
	Timeline []kyc.KYCEvent      `json:"timeline"`
	Captures []exportCaptureJSON `json:"captures"`
	Liveness []exportSessionJSON `json:"livenessSessions"`
	// The case's tags and comments: colleagues' notes about the person
	// are data held about them too.
	Tags     []string      `json:"tags"`
	Comments []commentJSON `json:"comments"`
}

type exportCaptureJSON struct {
	ID          string         `json:"id"`
	Kind        string         `json:"kind"`
	Side        *string        `json:"side"`
	ContentType string         `json:"contentType"`
	SHA256      string         `json:"sha256"`
	Method      string         `json:"method"`
	UserAgent   string         `json:"userAgent"`
	IP          string         `json:"ip"`
	Meta        map[string]any `json:"meta"`
	CapturedAt  string         `json:"capturedAt"`
	File        string         `json:"file"`
}

type exportSessionJSON struct {
	ID        string            `json:"id"`
	Status    string            `json:"status"`
	Challenge []string          `json:"challenge"`
	OpenedAt  string            `json:"openedAt"`
	UserAgent string            `json:"userAgent"`
	IP        string            `json:"ip"`
	Verdict   json.RawMessage   `json:"verdict"`
	Frames    []exportFrameJSON `json:"frames"`
}

type exportFrameJSON struct {
	ID     string `json:"id"`
	Seq    int    `json:"seq"`
	Step   int    `json:"step"`
	SHA256 string `json:"sha256"`
	File   string `json:"file"`
}

// handleApplicantExport handles "GET /v1/applicants/{id}/export": one zip
// (export.json and the images) for a data subject access request (GDPR
// art. 15). The access is audited (applicant.exported) before anything is
// sent; the archive is built whole first, so that a failure is an error
// envelope and never half a file.
func (s *Server) handleApplicantExport(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	key := keyFrom(ctx)
	a, err := s.store.FindApplicant(ctx, key.OrganizationID, key.Environment, r.PathValue("id"))
	if err != nil {
		return err
	}
	out := exportJSON{Object: "applicant_export", GeneratedAt: kyc.FormatTime(s.now()), Applicant: toApplicantJSON(a),
		Requests: []exportRequestJSON{}, AMLChecks: []amlCheckJSON{}}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	addFile := func(name string, data []byte) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: s.now()})
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		return err
	}
	reqs, err := s.store.FindKYCRequestsOfApplicant(ctx, key.OrganizationID, key.Environment, a.ID)
	if err != nil {
		return err
	}
	for _, req := range reqs {
		er := exportRequestJSON{Request: s.toKYCJSON(req), Captures: []exportCaptureJSON{}, Liveness: []exportSessionJSON{}}
		if er.Timeline, err = s.store.FindKYCEvents(ctx, req.ID); err != nil {
			return err
		}
		if er.Tags, err = s.store.FindTags(ctx, key.OrganizationID, key.Environment, kyc.SubjectKYCRequest, req.ID); err != nil {
			return err
		}
		cs, err := s.store.FindComments(ctx, key.OrganizationID, key.Environment, kyc.SubjectKYCRequest, req.ID)
		if err != nil {
			return err
		}
		er.Comments = make([]commentJSON, len(cs))
		for i, c := range cs {
			er.Comments[i] = toCommentJSON(c)
		}
		caps, err := s.store.FindCaptures(ctx, req.ID, "")
		if err != nil {
			return err
		}
		for _, c := range caps {
			full, err := s.store.FindCaptureData(ctx, c.ID)
			if err != nil {
				return err
			}
			name := "requests/" + req.ID + "/" + c.ID + extension(c.ContentType)
			if err := addFile(name, full.Data); err != nil {
				return err
			}
			er.Captures = append(er.Captures, exportCaptureJSON{ID: c.ID, Kind: c.Kind, Side: c.Side, ContentType: c.ContentType,
				SHA256: c.SHA256, Method: c.Method, UserAgent: c.UserAgent, IP: c.IP, Meta: c.Meta,
				CapturedAt: kyc.FormatTime(c.CapturedAt), File: name})
		}
		sessions, err := s.store.FindLivenessSessions(ctx, req.ID)
		if err != nil {
			return err
		}
		for _, ls := range sessions {
			es := exportSessionJSON{ID: ls.ID, Status: ls.Status, Challenge: ls.Challenge, OpenedAt: kyc.FormatTime(ls.OpenedAt),
				UserAgent: ls.UserAgent, IP: ls.IP, Verdict: ls.Verdict, Frames: []exportFrameJSON{}}
			for _, f := range ls.Frames {
				full, _, err := s.store.FindLivenessFrameData(ctx, f.ID)
				if err != nil {
					return err
				}
				name := "requests/" + req.ID + "/liveness/" + ls.ID + "/" + strconv.Itoa(f.Seq) + "-" + f.ID + extension(f.ContentType)
				if err := addFile(name, full.Data); err != nil {
					return err
				}
				es.Frames = append(es.Frames, exportFrameJSON{ID: f.ID, Seq: f.Seq, Step: f.Step, SHA256: f.SHA256, File: name})
			}
			er.Liveness = append(er.Liveness, es)
		}
		out.Requests = append(out.Requests, er)
	}
	if a.ErasedAt == nil {
		checks, err := s.store.FindAMLChecksForPerson(ctx, key.OrganizationID, key.Environment, a.FirstName, a.LastName, a.DOB)
		if err != nil {
			return err
		}
		for _, c := range checks {
			out.AMLChecks = append(out.AMLChecks, toAMLCheckJSON(c))
		}
	} else if out.Erasure, err = s.store.FindErasure(ctx, key.OrganizationID, key.Environment, a.ID); err != nil {
		return err
	}
	doc, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	if err := addFile("export.json", doc); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	// Audited before a byte leaves: an export that is not recorded is not sent.
	if err := s.store.InTx(ctx, func(tx *store.Tx) error {
		reason := "data subject access export, " + strconv.Itoa(len(reqs)) + " request(s), " + strconv.Itoa(buf.Len()) + " bytes"
		return tx.AppendAudit(store.AuditEntry{OrganizationID: a.OrganizationID, Environment: a.Environment,
			ResourceType: "applicant", ResourceID: a.ID, Action: "applicant.exported", Reason: &reason})
	}); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("Content-Disposition", `attachment; filename="`+a.PublicID+`-export-`+s.now().UTC().Format(time.DateOnly)+`.zip"`)
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(buf.Bytes()); err != nil {
		s.log.Info("export download interrupted", "applicant", a.ID, "err", err)
	}
	return nil
}
