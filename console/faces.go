package console

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"

	_ "image/png" // captures are stored as JPEG or PNG

	"golang.org/x/image/draw"
	"golang.org/x/image/math/f64"

	"kycd/kyc"
	"kycd/store"
)

// Face crops put the document's portrait and the selfie side by side at
// the same scale: each is a square around the face the face_match signal
// compared (its box, in the stored image's pixels), scaled so that the
// eyes are faceCropEyes apart, and turned upright when the document lay
// on its side. A reviewer then compares two faces of one size, whatever
// the photos' resolutions.
const (
	faceCropSide = 320 // pixels of the crop's side
	faceCropEyes = 80  // pixels between the eyes in the crop: the crop spans four eye distances
)

// faceView is one side of the face comparison on the case page.
type faceView struct {
	Side      string  // document, selfie
	URL       string  // the crop
	EyePx     float64 // eye distance in the original image
	Scale     float64 // crop pixels per original pixel
	CaptureID string
}

// faceSide reads one side ("document" or "selfie") of face_match's data:
// the capture, the face box, the eye distance and the turn. ok is false
// when the signal found no face there.
func faceSide(pr map[string]any, side string) (captureID string, box image.Rectangle, eyes float64, turn int, ok bool) {
	d := mapOf(signalData(pr, "face_match")[side])
	b := mapOf(d["box"])
	captureID = strOf(d["captureId"])
	x, _ := b["x"].(float64)
	y, _ := b["y"].(float64)
	w, _ := b["w"].(float64)
	h, _ := b["h"].(float64)
	if captureID == "" || w <= 0 || h <= 0 {
		return "", image.Rectangle{}, 0, 0, false
	}
	eyes, _ = mapOf(d["landmarks"])["eyeDistancePx"].(float64)
	if eyes <= 0 {
		// No landmark figure (an older result): the tiny face detector's
		// box is about 2.4 eye distances wide.
		eyes = w / 2.4
	}
	t, _ := d["turnedDegrees"].(float64)
	return captureID, image.Rect(int(x), int(y), int(x+w), int(y+h)), eyes, int(t), true
}

// faceViews are the two crops of the case page (nil when face_match
// found no face on a side; the page then shows the whole images).
func faceViews(caseURL string, pr map[string]any) []faceView {
	var out []faceView
	for _, side := range []string{"document", "selfie"} {
		id, _, eyes, _, ok := faceSide(pr, side)
		if !ok {
			return nil
		}
		out = append(out, faceView{Side: side, URL: caseURL + "/faces/" + side, EyePx: eyes, Scale: faceCropEyes / eyes, CaptureID: id})
	}
	return out
}

// alignedFace is the square crop of img around box, scaled so that eyes
// (the eye distance in img's pixels) becomes faceCropEyes, turned turn
// degrees clockwise (0, 90, 180, 270). What lies outside img is dark.
func alignedFace(img image.Image, box image.Rectangle, eyes float64, turn int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, faceCropSide, faceCropSide))
	draw.Draw(dst, dst.Bounds(), &image.Uniform{C: color.RGBA{0x0d, 0x11, 0x17, 0xff}}, image.Point{}, draw.Src)
	s := faceCropEyes / eyes
	cx, cy := float64(box.Min.X+box.Max.X)/2, float64(box.Min.Y+box.Max.Y)/2
	// R turns a point about the face's centre clockwise (y points down).
	a, b, c, d := 1.0, 0.0, 0.0, 1.0
	switch turn {
	case 90:
		a, b, c, d = 0, -1, 1, 0
	case 180:
		a, b, c, d = -1, 0, 0, -1
	case 270:
		a, b, c, d = 0, 1, -1, 0
	}
	half := float64(faceCropSide) / 2
	// dst = half + s·R·(src − centre)
	m := f64.Aff3{s * a, s * b, half - s*(a*cx+b*cy), s * c, s * d, half - s*(c*cx+d*cy)}
	draw.CatmullRom.Transform(dst, m, img, img.Bounds(), draw.Over, nil)
	return dst
}

// handleFaceCrop handles "GET /console/{env}/cases/{id}/faces/{side}":
// the aligned crop of the document portrait or the selfie, through the
// session, never cached, its viewing recorded as an image's.
func (c *console) handleFaceCrop(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	req, err := c.store.FindKYCRequest(r.Context(), sess.User.OrganizationID, env(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	side := r.PathValue("side")
	if side != "document" && side != "selfie" {
		return errNoPage
	}
	id, box, eyes, turn, ok := faceSide(req.ProcessingResult, side)
	if !ok {
		return kyc.Errorf(kyc.ENotFound, "The face comparison found no %s face in this request.", side)
	}
	capt, err := c.store.FindCaptureData(r.Context(), id)
	if err != nil {
		return err
	}
	if capt.RequestID != req.ID {
		return kyc.Errorf(kyc.ENotFound, "This request has no such image.")
	}
	img, _, err := image.Decode(bytes.NewReader(capt.Data))
	if err != nil {
		return kyc.Errorf(kyc.ENotFound, "The %s image cannot be read to show its face.", side)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, alignedFace(img, box, eyes, turn), &jpeg.Options{Quality: 90}); err != nil {
		return err
	}
	if err := c.store.RecordAccess(r.Context(), req.OrganizationID, req.Environment, "kyc_request", req.ID, store.AccessImageViewed,
		"face of image "+capt.ID); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "image/jpeg")
	h.Set("Cache-Control", "private, no-store")
	h.Set("Content-Disposition", "inline")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(buf.Bytes()); err != nil {
		c.log.DebugContext(r.Context(), "console face crop interrupted", "capture", capt.ID, "err", err)
	}
	return nil
}
