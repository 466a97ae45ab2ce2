package decision

import (
	"encoding/json"
	"image"
	"os"
	"path/filepath"
	"testing"

	"kycd/internal/forgery"
	"kycd/kyc"
	"kycd/liveness"
	"kycd/mrz"
)

func liveFrame(t *testing.T, name string) image.Image {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "shared", "data", "images", "liveness", name+".jpg"))
	if err != nil {
		t.Skip("shared data not present:", err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestPortraitIsSessionFrame: a drawn passport whose portrait is one of
// the camera session's frames (not the selfie frame) is
// DOCUMENT_PORTRAIT_REUSED once the portrait is compared with every
// frame; compared with the selfie alone (as before issue 24's frame
// rule) it passed. A frame whose image was not loaded is counted as not
// compared, and a frameless request with no selfie is not_run.
func TestPortraitIsSessionFrame(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the face models")
	}
	ocrb, err := os.ReadFile(filepath.Join("..", "tools", "mrztrain", "font", "ocrb-mrz.ttf"))
	if err != nil {
		t.Fatal(err)
	}
	reused, selfieImg := liveFrame(t, "live_p2_01_frontal"), liveFrame(t, "live_p2_06_frontal")
	doc, err := forgery.Draw(forgery.Spec{Format: mrz.TD3, Person: forgery.Person{Surname: "SMITH", Given: "JOHN", Number: "533401383", State: "GBR", Birth: "850303", Expiry: "310415", Sex: "M"},
		Face: reused, Layout: "icao", Background: "guilloche", OCRB: ocrb, Scale: 10, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	docImg := forgery.JPEG(forgery.Noise(forgery.Warp(doc, 0.03, 7), 2, 7), 88)
	docFace, selfie := findFace(docImg, true), findFace(selfieImg, false)
	if docFace.face == nil || selfie.face == nil {
		t.Fatalf("faces not found: document %v, selfie %v", docFace.face != nil, selfie.face != nil)
	}

	before := PortraitNotSelfie(docImg, &docFace, selfieImg, &selfie, nil, 0)
	if hasFinding(before, CodePortraitReused) {
		t.Fatalf("the selfie (another frame) was taken for the portrait's photograph: %+v", before.Findings)
	}

	// The session: the reused frame (sent as JPEG, as the page does), the
	// selfie frame, and one frame whose image was not loaded.
	verdict, _ := json.Marshal(liveness.Verdict{Frames: []liveness.FrameResult{{Faces: 1}, {Faces: 1}, {Faces: 1}}})
	sess := kyc.LivenessSession{ID: "ls1", Verdict: verdict, Frames: []kyc.LivenessFrame{
		{Seq: 0, Data: forgery.Encode(selfieImg, 90)}, {Seq: 1, Data: forgery.Encode(reused, 85)}, {Seq: 2}}}
	frames, missing := sessionFrames([]kyc.LivenessSession{sess})
	if len(frames) != 2 || missing != 1 {
		t.Fatalf("%d frames with faces, %d missing; want 2 and 1", len(frames), missing)
	}
	s := PortraitNotSelfie(docImg, &docFace, selfieImg, &selfie, frames, missing)
	if s.Status != Fail || !hasFinding(s, CodePortraitReused) {
		t.Fatalf("the portrait is frame 1 of the session and was not caught: %s %+v %+v", s.Status, s.Findings, s.Data["frames"])
	}
	for _, f := range s.Findings {
		t.Logf("%s: %s", f.Code, f.Message)
	}
	if s.Data["framesNotCompared"] != 1 {
		t.Errorf("framesNotCompared %v, want 1", s.Data["framesNotCompared"])
	}
	// Without a selfie face the frames alone are compared.
	if s := PortraitNotSelfie(docImg, &docFace, nil, nil, frames, missing); !hasFinding(s, CodePortraitReused) {
		t.Errorf("frames without a selfie: %s %+v", s.Status, s.Findings)
	}
	if s := PortraitNotSelfie(docImg, &docFace, nil, nil, nil, 3); s.Status != NotRun {
		t.Errorf("nothing to compare with: %s, want not_run", s.Status)
	}
}
