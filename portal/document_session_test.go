package portal_test

import (
	"encoding/json"
	"testing"
	"time"

	"kycd/kyc"
)

// TestDocumentCameraSession: only a document photo posted with the
// nonce of a document camera session the server opened, before its
// deadline, is a camera_session capture; a wrong nonce, an ended session,
// another request's session or a selfie in a document session is
// refused; without a session a document is an upload whatever the page
// says.
func TestDocumentCameraSession(t *testing.T) {
	e := newEnv(t)
	token, req := e.create(kyc.WorkflowStandard, "")
	open := func(tok string) (id, nonce string) {
		t.Helper()
		r := e.do("POST", "/portal/"+tok+"/document-session", nil)
		if r.status != 201 {
			t.Fatalf("open: %d %s", r.status, r.body)
		}
		var got struct {
			ID, Nonce, Deadline string
			Seconds             int
		}
		if err := json.Unmarshal([]byte(r.body), &got); err != nil {
			t.Fatal(err)
		}
		if got.ID == "" || len(got.Nonce) < 40 || got.Seconds != int(kyc.DocumentSessionTTL/time.Second) || got.Deadline == "" {
			t.Fatalf("open answer: %s", r.body)
		}
		return got.ID, got.Nonce
	}
	with := func(f map[string]string, id, nonce string) map[string]string {
		f["sessionId"], f["nonce"] = id, nonce
		return f
	}
	method := func(side string) string {
		t.Helper()
		caps, err := e.st.FindCaptures(t.Context(), req.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range caps {
			if c.Side != nil && *c.Side == side {
				if (c.Method == kyc.MethodCameraSession) != (c.DocumentSessionID != nil) {
					t.Errorf("method %s with session %v", c.Method, c.DocumentSessionID)
				}
				return c.Method
			}
		}
		t.Fatalf("no %s capture", side)
		return ""
	}

	// Claimed camera, no session: an upload.
	if r := e.upload(token, doc("front", "id_card"), photo(t, 800, 505)); r.status != 201 {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	if m := method("front"); m != kyc.MethodUpload {
		t.Errorf("no session: %s", m)
	}

	id, nonce := open(token)
	// A wrong nonce, a selfie in a document session, an unknown session.
	for _, c := range []struct {
		name   string
		fields map[string]string
		status int
	}{
		{"wrong nonce", with(doc("front", "id_card"), id, nonce+"x"), 400},
		{"no nonce", with(doc("front", "id_card"), id, ""), 400},
		{"selfie", with(selfie(), id, nonce), 400},
		{"unknown session", with(doc("front", "id_card"), "dcs_01XXXXXXXXXXXXXXXXXXXXXXXX", nonce), 404},
	} {
		if r := e.upload(token, c.fields, photo(t, 800, 505)); r.status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, r.status, r.body, c.status)
		}
	}
	if m := method("front"); m != kyc.MethodUpload {
		t.Errorf("after refused claims: %s", m)
	}

	// Both sides in the session: camera_session.
	for _, side := range []string{"front", "back"} {
		if r := e.upload(token, with(doc(side, "id_card"), id, nonce), photo(t, 800, 505)); r.status != 201 {
			t.Fatalf("%s in session: %d %s", side, r.status, r.body)
		}
		if m := method(side); m != kyc.MethodCameraSession {
			t.Errorf("%s in session: %s", side, m)
		}
	}

	// Another request cannot use this session.
	other, _ := e.create(kyc.WorkflowStandard, "")
	if r := e.upload(other, with(doc("front", "id_card"), id, nonce), photo(t, 800, 505)); r.status != 404 {
		t.Errorf("another request's session: %d %s", r.status, r.body)
	}

	// After the deadline the session takes nothing more.
	e.clock.Advance(kyc.DocumentSessionTTL + time.Second)
	if r := e.upload(token, with(doc("front", "id_card"), id, nonce), photo(t, 800, 505)); r.status != 409 {
		t.Errorf("ended session: %d %s", r.status, r.body)
	}
	if m := method("front"); m != kyc.MethodCameraSession {
		t.Errorf("the refused retake replaced the session's photo: %s", m)
	}
}
