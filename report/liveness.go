package report

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"kycd/kyc"
)

// LivenessPart is one camera session of the request: the challenge, the
// server's verdict with its evidence, and every frame (identified by its
// hash; the API serves the images).
type LivenessPart struct {
	ID              string              `json:"id"`
	Status          string              `json:"status"`
	Challenge       []string            `json:"challenge"`
	OpenedAt        string              `json:"openedAt"`
	Deadline        string              `json:"deadline"`
	ReceivedAt      *string             `json:"receivedAt"`
	SelfieCaptureID *string             `json:"selfieCaptureId"`
	Verdict         json.RawMessage     `json:"verdict"`
	Frames          []LivenessFramePart `json:"frames"`
	Attempt         int                 `json:"attempt"` // the request's attempt it was opened in
}

// LivenessFramePart is one frame of a session.
type LivenessFramePart struct {
	ID          string `json:"id"`
	Seq         int    `json:"seq"`
	Step        int    `json:"step"`
	ContentType string `json:"contentType"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	Size        int    `json:"size"`
	SHA256      string `json:"sha256"`
}

func livenessParts(sessions []kyc.LivenessSession) []LivenessPart {
	out := make([]LivenessPart, 0, len(sessions))
	for _, s := range sessions {
		p := LivenessPart{ID: s.ID, Attempt: max(s.Attempt, 1), Status: s.Status, Challenge: s.Challenge, OpenedAt: kyc.FormatTime(s.OpenedAt),
			Deadline: kyc.FormatTime(s.DeadlineAt), ReceivedAt: fmtTime(s.ReceivedAt), SelfieCaptureID: s.SelfieCaptureID,
			Verdict: s.Verdict, Frames: make([]LivenessFramePart, len(s.Frames))}
		if p.Challenge == nil {
			p.Challenge = []string{}
		}
		if p.Verdict == nil {
			p.Verdict = json.RawMessage("null")
		}
		for i, f := range s.Frames {
			p.Frames[i] = LivenessFramePart{ID: f.ID, Seq: f.Seq, Step: f.Step, ContentType: f.ContentType, Width: f.Width,
				Height: f.Height, Size: f.Size, SHA256: f.SHA256}
		}
		out = append(out, p)
	}
	return out
}

// verdictView is the part of a stored liveness verdict the PDF prints.
type verdictView struct {
	Passed bool `json:"passed"`
	Checks []struct {
		Name   string `json:"name"`
		Passed bool   `json:"passed"`
		NotRun bool   `json:"notRun"`
		Code   string `json:"code"`
		Detail string `json:"detail"`
	} `json:"checks"`
	Light *struct {
		Asked []string `json:"asked"`
		Shown []string `json:"shown"`
		Steps []struct {
			Step            int     `json:"step"`
			Light           string  `json:"light"`
			Frames          int     `json:"frames"`
			FaceShift       float64 `json:"faceShift"`
			BackgroundShift float64 `json:"backgroundShift"`
			Shift           float64 `json:"shift"`
			Cos             float64 `json:"cos"`
			Passed          bool    `json:"passed"`
		} `json:"steps"`
	} `json:"light"`
	Steps []struct {
		Step      int     `json:"step"`
		Move      string  `json:"move"`
		Frames    int     `json:"frames"`
		BestFrame int     `json:"bestFrame"`
		Measured  float64 `json:"measured"`
		Required  float64 `json:"required"`
		Unit      string  `json:"unit"`
		Passed    bool    `json:"passed"`
	} `json:"steps"`
	Frames []struct {
		Step     int     `json:"step"`
		Faces    int     `json:"faces"`
		Yaw      float64 `json:"yaw"`
		Pitch    float64 `json:"pitch"`
		Scale    float64 `json:"scale"`
		Distance float64 `json:"distance"`
	} `json:"frames"`
	Selfie int `json:"selfie"`
}

// kycLiveness prints every camera session: what was asked, each check,
// each step's measured movement, and each frame with its hash and pose.
func kycLiveness(d *doc, sessions []LivenessPart) {
	d.section(fmt.Sprintf("Selfie liveness (%d camera %s)", len(sessions), plural(len(sessions), "session", "sessions")))
	if len(sessions) == 0 {
		d.para("No camera session was opened: any selfie was uploaded as a file.", regular, 9)
		return
	}
	d.para("In a camera session the server draws a random challenge (head movements after looking straight at the camera) "+
		"and a deadline; the page captures frames while the applicant follows it and the server checks the frames: one face "+
		"in each, the selfie frame's person in all, the head pose following the challenge in order, no identical or "+
		"near-identical frames, in time, once; and, in each movement step, the face taking on the screen colour the server "+
		"drew for it (the page shows white, then the colour) more than the far background does. It shows a live head that "+
		"followed the instructions, lit by the screen; it does not detect a real-time deepfake or face relighting, a video "+
		"injected in place of the camera, or a mask.", regular, 8)
	for i, s := range sessions {
		title := fmt.Sprintf("Session %d of %d — %s", i+1, len(sessions), s.Status)
		if s.Attempt > 1 {
			title += fmt.Sprintf(", attempt %d", s.Attempt)
		}
		d.subsection(title)
		t := d.kvTable()
		t.kv("Session id", s.ID, true)
		t.kv("Challenge", "look straight, then "+strings.Join(s.Challenge, ", "), false)
		t.kv("Opened", s.OpenedAt, false)
		t.kv("Deadline", s.Deadline, false)
		t.kv("Frames received", optStr(s.ReceivedAt), false)
		t.kv("Selfie capture", optStr(s.SelfieCaptureID), true)
		t.end()
		var v verdictView
		if len(s.Verdict) == 0 || string(s.Verdict) == "null" || json.Unmarshal(s.Verdict, &v) != nil {
			d.para("No frames arrived for this session.", regular, 9)
			continue
		}
		c := d.newTable("", true, col{head: "Check", w: 0.17}, col{head: "Result", w: 0.3}, col{head: "Detail", w: 0.53})
		for _, ch := range v.Checks {
			res := "pass"
			switch {
			case ch.NotRun:
				res = "not run"
			case !ch.Passed:
				res = "FAIL\n" + ch.Code
			}
			c.row(ch.Name, res, ch.Detail)
		}
		c.end()
		if v.Light != nil && len(v.Light.Steps) > 0 {
			lt := d.newTable("", true, col{head: "Step", w: 0.08, align: "R"}, col{head: "Colour asked", w: 0.16}, col{head: "Page showed", w: 0.16},
				col{head: "Face / background", w: 0.2, align: "R"}, col{head: "Shift (0.05)", w: 0.14, align: "R"}, col{head: "Cos (0.8)", w: 0.14, align: "R"},
				col{head: "Result", w: 0.12})
			for _, x := range v.Light.Steps {
				res := "pass"
				if !x.Passed {
					res = "FAIL"
				}
				if x.Frames < 2 {
					res = "not measured"
				}
				shown := "—"
				if x.Step < len(v.Light.Shown) {
					shown = v.Light.Shown[x.Step]
				}
				lt.row(strconv.Itoa(x.Step), x.Light, shown, fmt.Sprintf("%.3f / %.3f", x.FaceShift, x.BackgroundShift),
					fmt.Sprintf("%.3f", x.Shift), fmt.Sprintf("%.2f", x.Cos), res)
			}
			lt.end()
		}
		st := d.newTable("", true, col{head: "Step", w: 0.08, align: "R"}, col{head: "Asked", w: 0.22}, col{head: "Frames", w: 0.1, align: "R"},
			col{head: "Best frame", w: 0.14, align: "R"}, col{head: "Measured", w: 0.18, align: "R"}, col{head: "Needed", w: 0.18, align: "R"},
			col{head: "Result", w: 0.1})
		for _, x := range v.Steps {
			res := "pass"
			if !x.Passed {
				res = "FAIL"
			}
			best := "—"
			if x.BestFrame >= 0 {
				best = strconv.Itoa(x.BestFrame + 1)
			}
			measured, needed := fmt.Sprintf("%.1f°", x.Measured), fmt.Sprintf("%.0f°", x.Required)
			switch {
			case x.Unit == "ratio":
				measured, needed = fmt.Sprintf("×%.2f", x.Measured), fmt.Sprintf("×%.2f", x.Required)
			case x.Move == "look_straight":
				needed = "at most " + needed
			}
			st.row(strconv.Itoa(x.Step), x.Move, strconv.Itoa(x.Frames), best, measured, needed, res)
		}
		st.end()
		ft := d.newTable("", true, col{head: "#", w: 0.05, align: "R"}, col{head: "Step", w: 0.07, align: "R"}, col{head: "Frame", w: 0.3},
			col{head: "SHA-256", w: 0.2}, col{head: "Faces", w: 0.07, align: "R"}, col{head: "Yaw / pitch", w: 0.15, align: "R"},
			col{head: "Distance", w: 0.16, align: "R"})
		for j, f := range s.Frames {
			faces, pose, dist := "—", "—", "—"
			if j < len(v.Frames) {
				vf := v.Frames[j]
				faces = strconv.Itoa(vf.Faces)
				if vf.Faces > 0 {
					pose = fmt.Sprintf("%.0f° / %.0f°", vf.Yaw, vf.Pitch)
				}
				if vf.Distance >= 0 {
					dist = fmt.Sprintf("%.2f", vf.Distance)
				}
				if j == v.Selfie {
					dist += " (selfie)"
				}
			}
			ft.row(strconv.Itoa(j+1), strconv.Itoa(f.Step), f.ID, hashPrefix(f.SHA256), faces, pose, dist)
		}
		ft.end()
	}
}
