package decision

import (
	"testing"

	"kycd/kyc"
	"kycd/mrz"
	"kycd/mrz/ocr"
)

// TestDocumentCapture: only the server's camera session makes a document
// a camera capture; the page's "camera" is evidence, not a fact.
func TestDocumentCapture(t *testing.T) {
	front, back := "front", "back"
	for _, c := range []struct {
		name string
		caps []kyc.Capture
		want Status
		n    int // DOCUMENT_UPLOADED findings
	}{
		{"none", nil, NotRun, 0},
		{"uploaded, claimed camera", []kyc.Capture{{ID: "c1", Kind: "document", Side: &front, Method: kyc.MethodUpload, Meta: map[string]any{"clientMethod": "camera"}}}, Fail, 1},
		{"uploaded, said upload", []kyc.Capture{{ID: "c1", Kind: "document", Side: &front, Method: kyc.MethodUpload, Meta: map[string]any{"clientMethod": "upload"}}}, Fail, 1},
		{"camera session", []kyc.Capture{{ID: "c1", Kind: "document", Side: &front, Method: kyc.MethodCameraSession}}, Pass, 0},
		{"one of two uploaded", []kyc.Capture{{ID: "c1", Kind: "document", Side: &front, Method: kyc.MethodCameraSession},
			{ID: "c2", Kind: "document", Side: &back, Method: kyc.MethodUpload}}, Fail, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := DocumentCapture(c.caps)
			if s.Status != c.want || len(s.Findings) != c.n {
				t.Fatalf("%s with %d findings (%+v), want %s with %d", s.Status, len(s.Findings), s.Findings, c.want, c.n)
			}
			for _, f := range s.Findings {
				if f.Code != CodeDocumentUploaded {
					t.Errorf("code %s", f.Code)
				}
			}
		})
	}
}

// TestDocumentSpecimenSignal: the specimen table is consulted on what
// the server read, and nothing read is not_run, never a pass.
func TestDocumentSpecimenSignal(t *testing.T) {
	if s := DocumentSpecimen(nil); s.Status != NotRun {
		t.Fatalf("nothing read: %s", s.Status)
	}
	d := &mrz.Document{Format: mrz.TD3, IssuingState: "UTO", Nationality: "UTO", Surname: "ERIKSSON", GivenNames: "ANNA MARIA", DocumentNumber: "L898902C3"}
	s := DocumentSpecimen([]DocumentRead{{CaptureID: "c1", Result: &ocr.Result{Status: ocr.StatusRead, Document: d}}})
	if s.Status != Fail || len(s.Findings) == 0 || s.Findings[0].Code != CodeSpecimen {
		t.Fatalf("the ICAO specimen: %+v", s)
	}
	d2 := &mrz.Document{Format: mrz.TD3, IssuingState: "GBR", Nationality: "GBR", Surname: "SMITH", GivenNames: "JAMES", DocumentNumber: "533401372"}
	if s := DocumentSpecimen([]DocumentRead{{CaptureID: "c1", Result: &ocr.Result{Status: ocr.StatusRead, Document: d2}}}); s.Status != Pass {
		t.Fatalf("an ordinary document: %+v", s)
	}
}

// TestDefaultPolicyAuthenticity: in the default policy no authenticity
// finding lets a request through.
func TestDefaultPolicyAuthenticity(t *testing.T) {
	p := DefaultPolicy()
	for code, want := range map[string]Action{CodeDocumentUploaded: ActReview, CodeLooksRendered: ActReview, CodeRecaptured: ActReview,
		CodeLayoutMismatch: ActReview, CodeSpecimen: ActReject, CodePortraitReused: ActReject} {
		if got := p.action(code); got != want {
			t.Errorf("%s: %s, want %s", code, got, want)
		}
		res := apply(p, kyc.Sandbox, []Signal{{Name: "x", Status: Fail, Findings: []Finding{{Code: code, Message: "m"}}}})
		if res.Outcome == Approve {
			t.Errorf("%s approved", code)
		}
	}
}

// TestAuthenticityNotRun: a reader that had nothing to compare says so
// (not_run), never pass.
func TestAuthenticityNotRun(t *testing.T) {
	front := "front"
	docs := []kyc.Capture{{ID: "c1", Kind: "document", Side: &front}}
	unread := &imageLook{read: &ocr.Result{Status: ocr.StatusNotFound}}
	for name, s := range map[string]Signal{
		"layout, no zone read":       DocumentLayout(docs, []*imageLook{unread}, nil, "c1"),
		"layout, no look":            DocumentLayout(docs, []*imageLook{nil}, nil, "c1"),
		"portrait, no faces":         PortraitNotSelfie(nil, nil, nil, nil, nil, 0),
		"portrait, no selfie face":   PortraitNotSelfie(nil, &imageFace{}, nil, &imageFace{}, nil, 0),
		"specimen, nothing read":     DocumentSpecimen([]DocumentRead{{CaptureID: "c1", Result: &ocr.Result{Status: ocr.StatusUnreadable}}}),
		"capture, no document image": DocumentCapture(nil),
	} {
		if s.Status != NotRun || s.Detail == "" {
			t.Errorf("%s: %s (%q), want not_run with why", name, s.Status, s.Detail)
		}
	}
}
