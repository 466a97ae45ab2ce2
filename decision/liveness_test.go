package decision

import (
	"bytes"
	"encoding/json"
	"image"
	"os"
	"strings"
	"testing"

	"kycd/internal/realdata"
	"kycd/kyc"
)

func TestSelfieLiveness(t *testing.T) {
	id := "lvs_2"
	passed := kyc.LivenessSession{ID: id, Status: kyc.LivenessPassed, Challenge: []string{"turn_left", "look_up"},
		Verdict: json.RawMessage(`{"passed":true,"checks":[{"name":"timing","passed":true},{"name":"screen_light","passed":true}]}`), Frames: make([]kyc.LivenessFrame, 6)}
	failed := kyc.LivenessSession{ID: "lvs_1", Status: kyc.LivenessFailed, Challenge: []string{"turn_right", "look_down"},
		Verdict: json.RawMessage(`{"passed":false,"checks":[{"name":"head_movement","passed":false,"code":"LIVENESS_MOVEMENT_NOT_SEEN"}]}`)}
	other := "lvs_9"
	for _, tt := range []struct {
		name     string
		selfie   *kyc.Capture
		sessions []kyc.LivenessSession
		want     Status
	}{
		{"no selfie", nil, nil, NotRun},
		{"uploaded", &kyc.Capture{ID: "cap_1", Method: kyc.MethodUpload}, nil, Fail},
		{"uploaded after a failed session", &kyc.Capture{ID: "cap_1", Method: kyc.MethodUpload}, []kyc.LivenessSession{failed}, Fail},
		{"from a passed session", &kyc.Capture{ID: "cap_1", Method: kyc.MethodCameraChallenge, SessionID: &id},
			[]kyc.LivenessSession{failed, passed}, Pass},
		{"camera, but its session is not the request's", &kyc.Capture{ID: "cap_1", Method: kyc.MethodCameraChallenge, SessionID: &other},
			[]kyc.LivenessSession{passed}, Fail},
		{"camera, session failed", &kyc.Capture{ID: "cap_1", Method: kyc.MethodCameraChallenge, SessionID: &failed.ID},
			[]kyc.LivenessSession{failed}, Fail},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := SelfieLiveness(tt.selfie, tt.sessions)
			if s.Status != tt.want {
				t.Fatalf("status %s (%s), want %s", s.Status, s.Detail, tt.want)
			}
			if tt.want == Fail && (len(s.Findings) != 1 || s.Findings[0].Code != CodeSelfieNotLive) {
				t.Errorf("findings %v", s.Findings)
			}
			if tt.selfie != nil && len(s.Data["sessions"].([]map[string]any)) != len(tt.sessions) {
				t.Errorf("sessions in data: %v", s.Data["sessions"])
			}
		})
	}
	// The default policy reviews an uploaded selfie; a passed session
	// leaves nothing to review.
	res := apply(DefaultPolicy(), kyc.Sandbox, []Signal{SelfieLiveness(&kyc.Capture{ID: "cap_1", Method: kyc.MethodUpload}, nil)})
	if res.Outcome != Review || res.Processing["reasons"].([]Reason)[0].Code != CodeSelfieNotLive {
		t.Errorf("uploaded selfie: %s %v", res.Outcome, res.Processing["reasons"])
	}
	res = apply(DefaultPolicy(), kyc.Sandbox, []Signal{SelfieLiveness(&kyc.Capture{ID: "cap_1", Method: kyc.MethodCameraChallenge, SessionID: &id},
		[]kyc.LivenessSession{passed})})
	if res.Outcome != Approve {
		t.Errorf("camera_challenge selfie: %s %v", res.Outcome, res.Processing["reasons"])
	}
}

// TestPassiveLiveness: the passive models run on the selfie's face and
// their scores are recorded, but the signal is not_run with no finding,
// live face or phone-screen replay alike: measured on labelled attacks
// they do not separate them (face.TestPassiveAttackDetection), so they
// are no evidence.
func TestPassiveLiveness(t *testing.T) {
	for _, file := range []string{"live_p2_01_frontal.jpg", "live_spoof1_03_frontal.jpg"} {
		data, err := os.ReadFile(realdata.Path(t, "images/liveness/"+file))
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		f := findFace(img, false)
		s := PassiveLiveness(&kyc.Capture{ID: "cap_1"}, img, &f)
		t.Logf("%s: %s real %v live %v", file, s.Status, s.Data["antispoofReal"], s.Data["livenessLive"])
		if s.Status != NotRun || len(s.Findings) != 0 || s.Data["antispoofReal"] == nil || s.Data["excluded"] != true ||
			!strings.Contains(s.Detail, "Not used as evidence") {
			t.Errorf("%s: %s %v %q %v", file, s.Status, s.Findings, s.Detail, s.Data)
		}
	}
	if s := PassiveLiveness(nil, nil, nil); s.Status != NotRun {
		t.Errorf("no selfie: %s", s.Status)
	}
}

// TestSelfieLivenessDiscontinuous: a session whose frames were not one
// continuous capture is named in its own finding, even when a later
// session passed (a replay attempt on the request is for a reviewer).
func TestSelfieLivenessDiscontinuous(t *testing.T) {
	id := "lvs_2"
	bad := kyc.LivenessSession{ID: "lvs_1", Status: kyc.LivenessFailed,
		Verdict: json.RawMessage(`{"passed":false,"checks":[{"name":"continuity","passed":false,"code":"LIVENESS_DISCONTINUOUS"}]}`)}
	good := kyc.LivenessSession{ID: id, Status: kyc.LivenessPassed, Verdict: json.RawMessage(`{"passed":true,"checks":[{"name":"screen_light","passed":true}]}`)}
	for _, c := range []struct {
		name     string
		selfie   kyc.Capture
		sessions []kyc.LivenessSession
		codes    []string
	}{
		{"replay, then an upload", kyc.Capture{ID: "cap_1", Method: kyc.MethodUpload}, []kyc.LivenessSession{bad},
			[]string{CodeLivenessDiscontinuous, CodeSelfieNotLive}},
		{"replay, then a pass", kyc.Capture{ID: "cap_1", Method: kyc.MethodCameraChallenge, SessionID: &id}, []kyc.LivenessSession{bad, good},
			[]string{CodeLivenessDiscontinuous}},
		{"a pass", kyc.Capture{ID: "cap_1", Method: kyc.MethodCameraChallenge, SessionID: &id}, []kyc.LivenessSession{good}, nil},
	} {
		s := SelfieLiveness(&c.selfie, c.sessions)
		var codes []string
		for _, f := range s.Findings {
			codes = append(codes, f.Code)
		}
		if strings.Join(codes, " ") != strings.Join(c.codes, " ") || (len(codes) > 0) != (s.Status == Fail) {
			t.Errorf("%s: %s %v, want %v", c.name, s.Status, codes, c.codes)
		}
	}
}

// TestSelfieLivenessLight: the selfie's session must have seen the screen
// colours on the face. A session that could not measure them, or asked
// none (a session recorded before the check), proves nothing about the
// light: not_run, which live sends to review (CHECK_NOT_RUN). Sessions
// that failed on the light, when no session passed, are named in
// LIVENESS_LIGHT_MISMATCH beside SELFIE_NOT_LIVE.
func TestSelfieLivenessLight(t *testing.T) {
	id := "lvs_2"
	camera := &kyc.Capture{ID: "cap_1", Method: kyc.MethodCameraChallenge, SessionID: &id}
	withChecks := func(sid, status, checks string) kyc.LivenessSession {
		return kyc.LivenessSession{ID: sid, Status: status, Verdict: json.RawMessage(`{"passed":` +
			map[string]string{kyc.LivenessPassed: "true", kyc.LivenessFailed: "false"}[status] + `,"checks":[` + checks + `]}`)}
	}
	unlit := withChecks("lvs_1", kyc.LivenessFailed, `{"name":"screen_light","passed":false,"code":"LIVENESS_LIGHT_MISMATCH"}`)
	for _, c := range []struct {
		name     string
		selfie   *kyc.Capture
		sessions []kyc.LivenessSession
		want     Status
		codes    string
	}{
		{"light seen", camera, []kyc.LivenessSession{withChecks(id, kyc.LivenessPassed, `{"name":"screen_light","passed":true}`)}, Pass, ""},
		{"too dark to measure", camera, []kyc.LivenessSession{withChecks(id, kyc.LivenessPassed,
			`{"name":"screen_light","passed":false,"notRun":true,"detail":"The straight frames could not be measured."}`)}, NotRun, ""},
		{"no colours asked", camera, []kyc.LivenessSession{withChecks(id, kyc.LivenessPassed, `{"name":"timing","passed":true}`)}, NotRun, ""},
		{"unlit footage, then an upload", &kyc.Capture{ID: "cap_1", Method: kyc.MethodUpload}, []kyc.LivenessSession{unlit}, Fail,
			CodeLivenessLightMismatch + " " + CodeSelfieNotLive},
		{"unlit footage, then a pass", camera, []kyc.LivenessSession{unlit, withChecks(id, kyc.LivenessPassed, `{"name":"screen_light","passed":true}`)}, Pass, ""},
	} {
		s := SelfieLiveness(c.selfie, c.sessions)
		var codes []string
		for _, f := range s.Findings {
			codes = append(codes, f.Code)
		}
		if s.Status != c.want || strings.Join(codes, " ") != c.codes {
			t.Errorf("%s: %s %v (%s), want %s %s", c.name, s.Status, codes, s.Detail, c.want, c.codes)
		}
		// Live: only a pass may approve; the rest goes to review.
		signals := passing()
		for i := range signals {
			if signals[i].Name == s.Name {
				signals[i] = s
			}
		}
		res := apply(DefaultPolicy(), kyc.Live, signals)
		if (res.Outcome == Approve) != (c.want == Pass) {
			t.Errorf("%s: live %s %v", c.name, res.Outcome, res.Processing["reasons"])
		}
	}
}
