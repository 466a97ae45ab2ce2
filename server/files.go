package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"kycd/decision"
	"kycd/kyc"
	"kycd/store"
)

// DownloadURLTTL is how long a document or selfie download URL works
// (spec §8: 10 minutes).
const DownloadURLTTL = 10 * time.Minute

// captureJSON is a document or selfie record.
type captureJSON struct {
	ID           string  `json:"id"`
	Kind         string  `json:"kind"`
	Side         *string `json:"side"`
	DocumentType *string `json:"documentType"`
	Country      *string `json:"country"`
	ContentType  string  `json:"contentType"`
	Size         int     `json:"size"`
	Width        int     `json:"width"`
	Height       int     `json:"height"`
	SHA256       string  `json:"sha256"`
	CapturedAt   string  `json:"capturedAt"`
	// Attempt is the request's attempt the image belongs to: 1, then one
	// more per resubmission; earlier attempts' images stay listed.
	Attempt     int            `json:"attempt"`
	Method      string         `json:"captureMethod"`
	SessionID   *string        `json:"livenessSessionId"`
	Capture     map[string]any `json:"captureMetadata"`
	DownloadURL string         `json:"downloadUrl"`
	ExpiresAt   string         `json:"downloadUrlExpiresAt"`
	// Reading is what the engine read from a document image when it
	// decided (decision.Readings); absent before a decision and for
	// images it read nothing from.
	Reading map[string]any `json:"reading,omitempty"`
}

// signDownload returns the signature of a capture id and expiry.
func (s *Server) signDownload(id string, expires int64) string {
	m := hmac.New(sha256.New, s.urlKey)
	m.Write([]byte(id + "\n" + strconv.FormatInt(expires, 10)))
	return hex.EncodeToString(m.Sum(nil))
}

// downloadURL is a pre-signed URL of a capture or liveness frame, and its
// expiry.
func (s *Server) downloadURL(id string) (string, string) {
	exp := s.now().Add(DownloadURLTTL).Truncate(time.Second)
	url := s.baseURL + "/v1/files/" + id + "?expires=" + strconv.FormatInt(exp.Unix(), 10) + "&signature=" + s.signDownload(id, exp.Unix())
	return url, kyc.FormatTime(exp)
}

func (s *Server) toCaptureJSON(c kyc.Capture) captureJSON {
	url, exp := s.downloadURL(c.ID)
	meta := c.Metadata()
	return captureJSON{ID: c.ID, Kind: c.Kind, Side: c.Side, DocumentType: c.DocumentType, Country: c.Country,
		ContentType: c.ContentType, Size: c.Size, Width: c.Width, Height: c.Height, SHA256: c.SHA256,
		CapturedAt: kyc.FormatTime(c.CapturedAt), Attempt: max(c.Attempt, 1), Method: c.Method, SessionID: c.SessionID, Capture: meta, DownloadURL: url, ExpiresAt: exp}
}

// handleKYCCaptures lists a request's documents or selfies.
func (s *Server) handleKYCCaptures(kind string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		req, err := s.findKYC(r)
		if err != nil {
			return err
		}
		caps, err := s.store.FindCaptures(r.Context(), req.ID, kind)
		if err != nil {
			return err
		}
		// The answer carries pre-signed download URLs: issuing them is an
		// access to the images, recorded before they are handed out.
		action := store.AccessDocumentURLs
		if kind == "selfie" {
			action = store.AccessSelfieURLs
		}
		if err := s.store.RecordAccess(r.Context(), req.OrganizationID, req.Environment, "kyc_request", req.ID, action, ""); err != nil {
			return err
		}
		readings := decision.Readings(req.ProcessingResult)
		if kind != "selfie" {
			// The address read from a licence is kept sealed, apart
			// from processingResult: it joins its image's reading here.
			addr, err := s.store.FindAddressRead(r.Context(), req)
			if err != nil {
				return err
			}
			decision.JoinAddress(readings, addr)
		}
		out := make([]captureJSON, len(caps))
		for i, c := range caps {
			out[i] = s.toCaptureJSON(c)
			out[i].Reading = readings[c.ID]
		}
		if kind != "selfie" {
			writeJSON(w, http.StatusOK, map[string]any{"data": out})
			return nil
		}
		// Selfies come with the evidence of every camera session: the
		// challenge, the verdict and each frame, passed or not.
		sessions, err := s.store.FindLivenessSessions(r.Context(), req.ID)
		if err != nil {
			return err
		}
		list := make([]livenessSessionJSON, len(sessions))
		for i, ss := range sessions {
			list[i] = s.toLivenessJSON(ss)
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": out, "livenessSessions": list})
		return nil
	}
}

// handleFile handles "GET /v1/files/{id}": the image behind a pre-signed
// URL, without an API key. The signature proves the URL came from an
// authorised documents or selfies call less than 10 minutes ago.
func (s *Server) handleFile(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	q := r.URL.Query()
	exp, err := strconv.ParseInt(q.Get("expires"), 10, 64)
	sig, decErr := hex.DecodeString(q.Get("signature"))
	want, _ := hex.DecodeString(s.signDownload(id, exp))
	switch {
	case err != nil || decErr != nil || !hmac.Equal(sig, want):
		return &kyc.Error{Code: kyc.EForbidden, Reason: "invalid_signature", Message: "This download URL is not valid. Get a fresh one from the documents or selfies endpoint."}
	case s.now().Unix() > exp:
		return &kyc.Error{Code: kyc.EForbidden, Reason: "expired_signature", Message: "This download URL has expired (they work for 10 minutes). Get a fresh one from the documents or selfies endpoint."}
	}
	var c *kyc.Capture
	if strings.HasPrefix(id, "lvf_") {
		f, _, err := s.store.FindLivenessFrameData(r.Context(), id)
		if err != nil {
			return err
		}
		c = &kyc.Capture{ID: f.ID, ContentType: f.ContentType, Data: f.Data}
	} else if c, err = s.store.FindCaptureData(r.Context(), id); err != nil {
		return err
	}
	w.Header().Set("Content-Type", c.ContentType)
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Disposition", `inline; filename="`+c.ID+extension(c.ContentType)+`"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(c.Data)))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(c.Data); err != nil {
		// The status is sent; all that is left is to note it.
		s.log.Info("file download interrupted", "file", c.ID, "err", err)
	}
	return nil
}

func extension(ct string) string {
	if ct == "image/png" {
		return ".png"
	}
	return ".jpg"
}

// derivedKey is a key of its own for purpose, derived from the URL
// signing key (the installation's signing secret), so that one signature
// can never stand for another.
func (s *Server) derivedKey(purpose string) []byte {
	m := hmac.New(sha256.New, s.urlKey)
	m.Write([]byte("kycd " + purpose))
	return m.Sum(nil)
}
