package server

import (
	"encoding/json"

	"kycd/kyc"
)

// livenessSessionJSON is one camera session of a request, as the selfies
// endpoint lists it: what was asked, what the server concluded and every
// frame it concluded it from.
type livenessSessionJSON struct {
	ID              string              `json:"id"`
	Attempt         int                 `json:"attempt"`
	Status          string              `json:"status"`
	Challenge       []string            `json:"challenge"`
	OpenedAt        string              `json:"openedAt"`
	Deadline        string              `json:"deadline"`
	ReceivedAt      *string             `json:"receivedAt"`
	SelfieCaptureID *string             `json:"selfieCaptureId"`
	Verdict         json.RawMessage     `json:"verdict"`
	UserAgent       string              `json:"userAgent"`
	IP              string              `json:"ip"`
	Frames          []livenessFrameJSON `json:"frames"`
}

type livenessFrameJSON struct {
	ID          string `json:"id"`
	Seq         int    `json:"seq"`
	Step        int    `json:"step"`
	ContentType string `json:"contentType"`
	Size        int    `json:"size"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	SHA256      string `json:"sha256"`
	DownloadURL string `json:"downloadUrl"`
	ExpiresAt   string `json:"downloadUrlExpiresAt"`
}

func (s *Server) toLivenessJSON(ss kyc.LivenessSession) livenessSessionJSON {
	out := livenessSessionJSON{ID: ss.ID, Attempt: max(ss.Attempt, 1), Status: ss.Status, Challenge: ss.Challenge, OpenedAt: kyc.FormatTime(ss.OpenedAt),
		Deadline: kyc.FormatTime(ss.DeadlineAt), SelfieCaptureID: ss.SelfieCaptureID, Verdict: ss.Verdict,
		UserAgent: ss.UserAgent, IP: ss.IP, Frames: make([]livenessFrameJSON, len(ss.Frames))}
	if out.Challenge == nil {
		out.Challenge = []string{}
	}
	if out.Verdict == nil {
		out.Verdict = json.RawMessage("null")
	}
	if ss.ReceivedAt != nil {
		t := kyc.FormatTime(*ss.ReceivedAt)
		out.ReceivedAt = &t
	}
	for i, f := range ss.Frames {
		url, exp := s.downloadURL(f.ID)
		out.Frames[i] = livenessFrameJSON{ID: f.ID, Seq: f.Seq, Step: f.Step, ContentType: f.ContentType, Size: f.Size,
			Width: f.Width, Height: f.Height, SHA256: f.SHA256, DownloadURL: url, ExpiresAt: exp}
	}
	return out
}
