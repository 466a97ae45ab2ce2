package server

import (
	"archive/zip"
	"bytes"
	"context"
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
	// AddressRead is the holder's address the engine read from a
	// licence's barcode (kept sealed, apart from the request), or null.
	AddressRead *kyc.DocumentAddress `json:"addressRead"`
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
// envelope and never half a file. An erased applicant's is refused.
func (s *Server) handleApplicantExport(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	key := keyFrom(ctx)
	a, err := s.store.FindApplicant(ctx, key.OrganizationID, key.Environment, r.PathValue("id"))
	if err != nil {
		return err
	}
	archive, err := s.ExportApplicant(ctx, a)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("Content-Disposition", `attachment; filename="`+ExportFileName(a, s.now())+`"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(archive)))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(archive); err != nil {
		s.log.Info("export download interrupted", "applicant", a.ID, "err", err)
	}
	return nil
}

// ExportFileName is the download name of an applicant's export.
func ExportFileName(a *kyc.Applicant, now time.Time) string {
	return a.PublicID + "-export-" + now.UTC().Format(time.DateOnly) + ".zip"
}

// ExportApplicant builds the export archive of an applicant found in the
// caller's organization and environment, and audits it (applicant.exported,
// with the context's actor: the API key, or the console's user) before it
// is returned: an export that is not recorded is not handed out. The
// console's download uses it too, so both give the same archive.
func (s *Server) ExportApplicant(ctx context.Context, a *kyc.Applicant) ([]byte, error) {
	return Exporter{Store: s.store, Now: s.now, PortalURL: s.kyc.PortalURL}.Export(ctx, a)
}

// Exporter builds applicants' export archives without a Server: the API,
// the console (through ExportApplicant) and the operator's kycd applicants
// export all build them here, so the archive is the same whoever asks.
type Exporter struct {
	Store *store.Store
	// Now is the clock of generatedAt and of portal links' expiry;
	// default time.Now.
	Now func() time.Time
	// PortalURL makes an open portal link from its token; nil when the
	// caller does not know the portal's address: portalUrl is then left
	// out of the archive rather than written wrong.
	PortalURL func(token string) string
}

// Export builds the archive of an applicant found in the caller's
// organization and environment and audits it (applicant.exported, with the
// context's actor: the API key, the console's user, the operator's CLI)
// before it is returned: an export that is not recorded is not handed out.
// An erased applicant's is refused (UNPROCESSABLE applicant_erased).
func (x Exporter) Export(ctx context.Context, a *kyc.Applicant) ([]byte, error) {
	if a.ErasedAt != nil {
		return nil, exportErased(a)
	}
	now := x.Now
	if now == nil {
		now = time.Now
	}
	org, env := a.OrganizationID, a.Environment
	out := exportJSON{Object: "applicant_export", GeneratedAt: kyc.FormatTime(now()), Applicant: toApplicantJSON(a),
		Requests: []exportRequestJSON{}, AMLChecks: []amlCheckJSON{}}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	addFile := func(name string, data []byte) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: now()})
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		return err
	}
	reqs, err := x.Store.FindKYCRequestsOfApplicant(ctx, org, env, a.ID)
	if err != nil {
		return nil, err
	}
	for _, req := range reqs {
		er := exportRequestJSON{Request: kycToJSON(req, now(), x.PortalURL), Captures: []exportCaptureJSON{}, Liveness: []exportSessionJSON{}}
		if er.Timeline, err = x.Store.FindKYCEvents(ctx, req.ID); err != nil {
			return nil, err
		}
		if er.Tags, err = x.Store.FindTags(ctx, org, env, kyc.SubjectKYCRequest, req.ID); err != nil {
			return nil, err
		}
		if er.AddressRead, err = x.Store.FindAddressRead(ctx, req); err != nil {
			return nil, err
		}
		cs, err := x.Store.FindComments(ctx, org, env, kyc.SubjectKYCRequest, req.ID)
		if err != nil {
			return nil, err
		}
		er.Comments = make([]commentJSON, len(cs))
		for i, c := range cs {
			er.Comments[i] = toCommentJSON(c)
		}
		caps, err := x.Store.FindCaptures(ctx, req.ID, "")
		if err != nil {
			return nil, err
		}
		for _, c := range caps {
			full, err := x.Store.FindCaptureData(ctx, c.ID)
			if err != nil {
				return nil, err
			}
			name := "requests/" + req.ID + "/" + c.ID + extension(c.ContentType)
			if err := addFile(name, full.Data); err != nil {
				return nil, err
			}
			er.Captures = append(er.Captures, exportCaptureJSON{ID: c.ID, Kind: c.Kind, Side: c.Side, ContentType: c.ContentType,
				SHA256: c.SHA256, Method: c.Method, UserAgent: c.UserAgent, IP: c.IP, Meta: c.Meta,
				CapturedAt: kyc.FormatTime(c.CapturedAt), File: name})
		}
		sessions, err := x.Store.FindLivenessSessions(ctx, req.ID)
		if err != nil {
			return nil, err
		}
		for _, ls := range sessions {
			es := exportSessionJSON{ID: ls.ID, Status: ls.Status, Challenge: ls.Challenge, OpenedAt: kyc.FormatTime(ls.OpenedAt),
				UserAgent: ls.UserAgent, IP: ls.IP, Verdict: ls.Verdict, Frames: []exportFrameJSON{}}
			for _, f := range ls.Frames {
				full, _, err := x.Store.FindLivenessFrameData(ctx, f.ID)
				if err != nil {
					return nil, err
				}
				name := "requests/" + req.ID + "/liveness/" + ls.ID + "/" + strconv.Itoa(f.Seq) + "-" + f.ID + extension(f.ContentType)
				if err := addFile(name, full.Data); err != nil {
					return nil, err
				}
				es.Frames = append(es.Frames, exportFrameJSON{ID: f.ID, Seq: f.Seq, Step: f.Step, SHA256: f.SHA256, File: name})
			}
			er.Liveness = append(er.Liveness, es)
		}
		out.Requests = append(out.Requests, er)
	}
	checks, err := x.Store.FindAMLChecksForPerson(ctx, org, env, a.FirstName, a.LastName, a.DOB)
	if err != nil {
		return nil, err
	}
	for _, c := range checks {
		out.AMLChecks = append(out.AMLChecks, toAMLCheckJSON(c))
	}
	doc, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := addFile("export.json", doc); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	// Audited before a byte leaves: an export that is not recorded is not sent.
	if err := x.Store.InTx(ctx, func(tx *store.Tx) error {
		reason := "data subject access export, " + strconv.Itoa(len(reqs)) + " request(s), " + strconv.Itoa(buf.Len()) + " bytes"
		return tx.AppendAudit(store.AuditEntry{OrganizationID: org, Environment: env,
			ResourceType: "applicant", ResourceID: a.ID, Action: "applicant.exported", Reason: &reason})
	}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// exportErased refuses the export of an erased applicant: nothing about the
// person is left, and an archive of the tombstone would read as if it were
// everything held. The receipt says what was erased.
func exportErased(a *kyc.Applicant) error {
	return &kyc.Error{Code: kyc.EUnprocessable, Reason: "applicant_erased",
		Message: "Applicant " + a.ID + " was erased on " + kyc.FormatTime(*a.ErasedAt) +
			"; kycd holds no personal data of theirs to export. GET /v1/applicants/" + a.ID + "/erasure returns the erasure receipt."}
}
