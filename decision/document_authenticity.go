package decision

import (
	"fmt"
	"image"

	"kycd/docforensics"
	"kycd/face"
	"kycd/kyc"
	"kycd/mrz/ocr"
)

// The document-authenticity signals: was the document photographed now
// (through the server's camera session), and do its pixels, its layout
// and its MRZ say it is a real document rather than a drawing, a
// recapture, a specimen or a collage with the selfie's photo.
const (
	SigDocumentCapture   = "document_capture"
	SigDocumentRendering = "document_rendering"
	SigDocumentRecapture = "document_recapture"
	SigDocumentLayout    = "document_layout"
	SigDocumentSpecimen  = "document_specimen"
	SigPortraitReuse     = "portrait_not_selfie"
)

// Reason codes of the document-authenticity signals.
const (
	// CodeDocumentUploaded: a document image did not come through a
	// server-issued camera session; what the page said is kept as
	// evidence, never believed.
	CodeDocumentUploaded = "DOCUMENT_UPLOADED"
	CodeLooksRendered    = docforensics.CodeLooksRendered
	CodeRecaptured       = docforensics.CodeRecaptured
	CodeLayoutMismatch   = docforensics.CodeLayoutMismatch
	CodePortraitReused   = docforensics.CodePortraitReused
	CodeSpecimen         = docforensics.CodeSpecimen
)

// DocumentCapture says how each document image was made, as the server
// derived it: camera_session only for an image posted into a camera
// session the server opened for this request; everything else is an
// upload (DOCUMENT_UPLOADED), whatever the page claimed (clientMethod).
func DocumentCapture(docs []kyc.Capture) Signal {
	if len(docs) == 0 {
		return notRun(SigDocumentCapture, "No document image was submitted.")
	}
	s := newSignal(SigDocumentCapture)
	var caps []map[string]any
	uploads := 0
	for _, c := range docs {
		claim, _ := c.Meta["clientMethod"].(string)
		caps = append(caps, map[string]any{"captureId": c.ID, "captureMethod": c.Method, "clientMethod": claim})
		if c.Method != kyc.MethodCameraSession {
			uploads++
			msg := fmt.Sprintf("The %s was uploaded as a file, not taken in the server's camera session", captureLabel(c))
			if claim == "camera" {
				msg += " (the page said camera, which the server cannot verify)"
			}
			s.add(Fail, 0, CodeDocumentUploaded, msg+".")
		}
	}
	s.Data["captures"], s.Data["uploads"] = caps, uploads
	if uploads == 0 {
		s.Detail = "Every document image was taken in the server's camera session."
	} else {
		s.Detail = s.Findings[0].Message
	}
	return s
}

// documentPixels runs the pixel readers on one document image: a
// rendering (no sensor noise, flat fills) and a recapture (a screen's
// grid, halftone dots).
func documentPixels(c kyc.Capture, img image.Image) []Signal {
	rend, rec := newSignal(SigDocumentRendering), newSignal(SigDocumentRecapture)
	rend.CaptureID, rec.CaptureID = c.ID, c.ID
	rf, rm := docforensics.Rendering(img)
	cf, cm := docforensics.Recapture(img, rm.NoiseFloor)
	rend.Data["measures"], rec.Data["measures"] = rm, cm
	rend.Data["findings"], rec.Data["findings"] = orEmpty(rf), orEmpty(cf)
	if rm.Blocks == 0 {
		rend = notRunImage(SigDocumentRendering, c, "The image is too small to measure its noise.")
	}
	for _, f := range rf {
		rend.add(Fail, 0, f.Code, f.Message)
	}
	for _, f := range cf {
		rec.add(Fail, 0, f.Code, f.Message)
	}
	rend.Detail = detailOr(rend, "The document image carries a camera's noise and no flat fills.")
	rec.Detail = detailOr(rec, "No screen grid or halftone pattern was found in the document image.")
	return []Signal{rend, rec}
}

// DocumentLayout compares the geometry of each document image whose MRZ
// was read with ICAO 9303 for the format read (docforensics.Layout); the
// portrait is the face found on the document's front. It is not_run when
// no zone was read.
func DocumentLayout(docs []kyc.Capture, looks []*imageLook, front *imageFace, frontID string) Signal {
	s := newSignal(SigDocumentLayout)
	var measured []map[string]any
	for i, c := range docs {
		l := looks[i]
		if l == nil || l.read == nil || (l.read.Status != ocr.StatusRead && l.read.Status != ocr.StatusInvalid) {
			continue
		}
		in := docforensics.LayoutInput{Format: l.read.Format, Lines: len(l.read.Lines), MRZ: l.read.Box, PitchPx: l.read.PitchPx,
			Rotation: l.read.Rotation, Image: l.bounds}
		if c.ID == frontID && front != nil && front.face != nil {
			b := front.face.Box
			r := image.Rect(int(b.X), int(b.Y), int(b.X+b.W), int(b.Y+b.H))
			in.Portrait = &r
		}
		fs, m := docforensics.Layout(in)
		if !m.Measured {
			continue
		}
		measured = append(measured, map[string]any{"captureId": c.ID, "format": string(l.read.Format), "measures": m, "findings": orEmpty(fs)})
		for _, f := range fs {
			s.add(Fail, 0, f.Code, f.Message)
		}
	}
	if len(measured) == 0 {
		return notRun(SigDocumentLayout, "No machine-readable zone was read from a document image, so its layout could not be measured.")
	}
	s.Data["documents"] = measured
	s.Detail = detailOr(s, "The document's zones sit where ICAO 9303 puts them for its format.")
	return s
}

// DocumentSpecimen refuses published specimens and samples: the MRZ read
// from the image is looked up in the specimen table (docforensics).
func DocumentSpecimen(reads []DocumentRead) Signal {
	s := newSignal(SigDocumentSpecimen)
	ran := false
	for _, r := range reads {
		if r.Result == nil || r.Result.Document == nil {
			continue
		}
		ran = true
		for _, f := range docforensics.Specimen(r.Result.Document) {
			s.add(Fail, 0, f.Code, f.Message)
		}
	}
	if !ran {
		return notRun(SigDocumentSpecimen, "No machine-readable zone was read, so the document could not be compared with the published specimens.")
	}
	s.Detail = detailOr(s, "The document is none of the published specimens kycd knows.")
	return s
}

// PortraitNotSelfie checks that the document's portrait is not the
// selfie's very photograph, nor that of any frame of the request's camera
// sessions (docforensics.PortraitReused, issue 24): a real document's
// photo was taken months or years before. It is not_run without the
// portrait, or with neither a selfie's face nor a session frame's face to
// compare it with. missing counts session frames that could not be
// compared (no image loaded, no face), recorded in the data.
func PortraitNotSelfie(docImg image.Image, doc *imageFace, selfieImg image.Image, selfie *imageFace, frames []sessionFrame, missing int) Signal {
	haveSelfie := selfieImg != nil && selfie != nil && selfie.face != nil
	if docImg == nil || doc == nil || doc.face == nil || (!haveSelfie && len(frames) == 0) {
		return notRun(SigPortraitReuse, "The document's portrait and the selfie's face (or a camera-session frame's) were not both found.")
	}
	s := newSignal(SigPortraitReuse)
	if haveSelfie {
		dist := -1.0
		if doc.face.Descriptor != (face.Descriptor{}) && selfie.face.Descriptor != (face.Descriptor{}) {
			dist = face.Compare(doc.face.Descriptor, selfie.face.Descriptor)
		}
		fs, m := docforensics.PortraitReused(docImg, alignedRect(doc.face), selfieImg, alignedRect(selfie.face), dist)
		s.Data["measures"] = m
		for _, f := range fs {
			s.add(Fail, 0, f.Code, f.Message)
		}
	}
	s.Data["frames"] = portraitVsFrames(&s, docImg, doc.face, frames)
	s.Data["framesNotCompared"] = missing
	ok := fmt.Sprintf("The document's portrait is not the selfie's photograph, nor that of any of the %d camera-session frames compared.", len(frames))
	if !haveSelfie {
		ok = fmt.Sprintf("The document's portrait is not the photograph of any of the %d camera-session frames compared (no selfie face to compare).", len(frames))
	}
	s.Detail = detailOr(s, ok)
	return s
}

func alignedRect(f *face.Face) image.Rectangle {
	a := f.Aligned
	return image.Rect(int(a.X), int(a.Y), int(a.X+a.W), int(a.Y+a.H))
}

func orEmpty(fs []docforensics.Finding) []docforensics.Finding {
	if fs == nil {
		return []docforensics.Finding{}
	}
	return fs
}

// detailOr is the first finding's message, or ok when there is none.
func detailOr(s Signal, ok string) string {
	if len(s.Findings) > 0 {
		return s.Findings[0].Message
	}
	return ok
}

// documentSignals are the request-level document-authenticity signals:
// how the document was captured, its layout, the specimen table and the
// portrait against the selfie and every camera-session frame.
func (e *Auto) documentSignals(docs []kyc.Capture, looks []*imageLook, reads []DocumentRead, work []imageWork, docIdx, selfieIdx int, caps []kyc.Capture, frames []sessionFrame, missing int) []Signal {
	out := []Signal{DocumentCapture(docs), DocumentSpecimen(reads)}
	if e.ImageSignals == nil {
		return append(out, notRun(SigDocumentLayout, "Image signals are not configured."), notRun(SigPortraitReuse, "Image signals are not configured."))
	}
	var front *imageFace
	var frontID string
	var docImg, selfieImg image.Image
	var selfieFace *imageFace
	if docIdx >= 0 {
		front, frontID, docImg = work[docIdx].face, caps[docIdx].ID, work[docIdx].img
	}
	if selfieIdx >= 0 {
		selfieFace, selfieImg = work[selfieIdx].face, work[selfieIdx].img
	}
	return append(out, DocumentLayout(docs, looks, front, frontID), PortraitNotSelfie(docImg, front, selfieImg, selfieFace, frames, missing))
}
