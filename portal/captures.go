package portal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"kycd/capture"
	"kycd/internal/clientip"
	"kycd/kyc"
	"kycd/store"
)

// multipartOverhead is what the form adds to the image: the five short
// fields, the part headers and the boundaries take well under 2 KB, so 64
// KB leaves room for long file names without letting the body grow much
// past the image limit.
const multipartOverhead = 64 << 10

// maxFieldBytes bounds one text field; the longest valid value is
// "residence_permit".
const maxFieldBytes = 64

// maxUserAgent bounds the User-Agent kept with a capture.
const maxUserAgent = 512

// captureForm is a parsed upload.
type captureForm struct {
	fields map[string]string
	image  []byte // nil when no image part was sent
}

// captureResponse is the 201 answer to an upload.
type captureResponse struct {
	ID     string  `json:"id"`
	Kind   string  `json:"kind"`
	Side   *string `json:"side"`
	Width  int     `json:"width"`
	Height int     `json:"height"`
	// MRZ is what the server read from a document photo (absent for a
	// selfie): the details for the applicant to confirm, or a retake hint.
	MRZ *mrzView `json:"mrz,omitempty"`
	// Barcode is what the server read from the licence barcode on the
	// back of a US or Canadian driving licence or identity card.
	Barcode *barcodeView `json:"barcode,omitempty"`
}

// handleCaptureCreate handles "POST /portal/{token}/captures": one photo
// of a document side or of the applicant's face, as multipart/form-data
// with the fields kind, side, documentType, country, method and the file
// image. A retake of the same kind and side replaces the earlier photo.
//
// Refused images answer 413 (too large), 415 (not JPEG, PNG or WebP) or
// 400 (too small, too many pixels, damaged), each with capture's message
// for the applicant and its code in error.reason. More uploads from one
// link than Options.UploadsPerMinute answer 429, and an upload that finds
// the decoding gate full answers 503, both with Retry-After.
func (p *portal) handleCaptureCreate(w http.ResponseWriter, r *http.Request) error {
	// Refuse a dead link before reading megabytes and decoding them.
	token, err := p.usableToken(r)
	if err != nil {
		return err
	}
	if ok, retry := p.uploads.take(token); !ok {
		return &statusError{status: http.StatusTooManyRequests, retryAfter: retry, err: &kyc.Error{Code: kyc.ERateLimited,
			Message: "error.rate_limited"}}
	}
	r.Body = http.MaxBytesReader(w, r.Body, p.limits.MaxBytes+multipartOverhead)
	form, err := readCaptureForm(r)
	if err != nil {
		return err
	}
	c, err := validateCapture(form)
	if err != nil {
		return err
	}
	img, err := p.gate.Process(r.Context(), form.image, p.limits)
	if err != nil {
		return imageError(err)
	}
	c.ContentType, c.Width, c.Height, c.SHA256, c.SourceSHA256 = img.ContentType, img.Width, img.Height, img.SHA256, img.SourceSHA256
	c.UserAgent, c.IP = truncate(r.UserAgent(), maxUserAgent), p.clientIP(r)
	c.Meta["software"], c.Meta["hadExif"], c.Meta["hadGps"] = img.Metadata.Software, img.Metadata.HadEXIF, img.Metadata.HadGPS
	c.Meta["sourceType"], c.Meta["orientation"] = img.SourceType, img.Metadata.Orientation
	if img.Metadata.EXIFError != "" {
		c.Meta["exifError"] = img.Metadata.EXIFError
	}
	if img.SourceWidth*img.SourceHeight != img.Width*img.Height {
		// Scaled down to the stored bound: the upload's own size is evidence.
		c.Meta["sourceWidth"], c.Meta["sourceHeight"] = img.SourceWidth, img.SourceHeight
	}
	// Read a document photo's MRZ now, so that the page can show what it
	// says or ask for a retake while the document is still at hand. The
	// engine reads it again when it decides: this read only guides.
	var view *mrzView
	if c.Kind == "document" {
		err := p.gate.Run(r.Context(), img.Width, img.Height, func() error {
			res, err := readDocument(img.Data, p.store.Now())
			if err == nil {
				view = viewOf(res)
			}
			return err
		})
		if err != nil {
			return imageError(err)
		}
		c.Meta["mrzStatus"], c.Meta["mrzHint"] = view.Status, view.Hint
	}
	// The back of a North American licence: its barcode, read now for the
	// same reason (the engine reads it again when it decides).
	var barcode *barcodeView
	if wantsBarcodeRead(c) {
		err := p.gate.Run(r.Context(), img.Width, img.Height, func() error {
			card, found, err := readLicence(img.Data)
			if err == nil {
				barcode = barcodeViewOf(card, found)
			}
			return err
		})
		if err != nil {
			return imageError(err)
		}
		c.Meta["barcodeStatus"] = barcode.Status
	}
	err = p.store.InTx(r.Context(), func(tx *store.Tx) error {
		_, err := p.svc.AddCaptureInSession(tx, token, c, img.Data, form.fields["sessionId"], form.fields["nonce"])
		return err
	})
	if err != nil {
		return livenessError(err) // an ended camera session is 409
	}
	p.writeJSON(w, r, http.StatusCreated, captureResponse{ID: c.ID, Kind: c.Kind, Side: c.Side, Width: c.Width, Height: c.Height, MRZ: view, Barcode: barcode})
	return nil
}

// readCaptureForm reads the multipart body part by part, so that the image
// is read once, into memory, within the body limit, and never spills to a
// temporary file as ParseMultipartForm would.
func readCaptureForm(r *http.Request) (*captureForm, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, invalidForm(kyc.FieldError{Field: "body", Message: "must be multipart/form-data"})
	}
	form := &captureForm{fields: map[string]string{}}
	var details []kyc.FieldError
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, bodyError(err)
		}
		name := part.FormName()
		switch {
		case name == "image":
			if form.image != nil {
				details = append(details, kyc.FieldError{Field: "image", Message: "must be sent once"})
			}
			if form.image, err = readPart(part, r.ContentLength); err != nil {
				return nil, bodyError(err)
			}
		case captureFields[name]:
			v, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
			if err != nil {
				return nil, bodyError(err)
			}
			if _, dup := form.fields[name]; dup || len(v) > maxFieldBytes {
				details = append(details, kyc.FieldError{Field: name, Message: "must be sent once, as a short text"})
			}
			form.fields[name] = string(v)
		default:
			details = append(details, kyc.FieldError{Field: name, Message: "is not a field of this form"})
		}
	}
	if len(details) > 0 {
		return nil, invalidForm(details...)
	}
	return form, nil
}

// readPart reads the image part in one allocation of the body's size when
// the client said it (the body limit has already bounded that), instead
// of the doublings of io.ReadAll: the image is held until it is decoded,
// possibly behind other uploads in the decoding gate.
func readPart(part io.Reader, bodySize int64) ([]byte, error) {
	var buf bytes.Buffer
	if bodySize > 0 {
		buf.Grow(int(bodySize) + bytes.MinRead) // ReadFrom grows when less than MinRead is free
	}
	_, err := buf.ReadFrom(part)
	return buf.Bytes(), err
}

// captureFields are the text fields of an upload.
// sessionId and nonce name the document camera session a photo was taken
// in (see handleDocumentSessionOpen).
var captureFields = map[string]bool{"kind": true, "side": true, "documentType": true, "country": true, "method": true,
	"sessionId": true, "nonce": true}

// validateCapture checks the text fields and that an image came, naming
// every problem at once, and returns the capture they describe.
func validateCapture(f *captureForm) (*kyc.Capture, error) {
	var details []kyc.FieldError
	bad := func(field, msg string) { details = append(details, kyc.FieldError{Field: field, Message: msg}) }
	v := f.fields
	c := &kyc.Capture{Kind: v["kind"], Method: v["method"]}
	switch c.Kind {
	case "document":
		hasBack, known := kyc.DocumentTypes[v["documentType"]]
		if !known {
			bad("documentType", "must be one of passport, id_card, driving_licence, residence_permit")
		}
		switch side := v["side"]; {
		case side != "front" && side != "back":
			bad("side", "must be front or back")
		case side == "back" && known && !hasBack:
			bad("side", "must be front: this document has no back to photograph")
		}
		if !kyc.ValidCountry(v["country"]) {
			bad("country", "must be an ISO 3166-1 alpha-2 country code such as DE")
		}
		side, docType, country := v["side"], v["documentType"], v["country"]
		c.Side, c.DocumentType, c.Country = &side, &docType, &country
	case "selfie":
		for _, name := range []string{"side", "documentType", "country"} {
			if v[name] != "" {
				bad(name, "must be empty for a selfie")
			}
		}
	default:
		bad("kind", "must be document or selfie")
	}
	if c.Method != "camera" && c.Method != "upload" {
		bad("method", "must be camera or upload")
	}
	// The page's word is evidence, not the capture method: only a passed
	// liveness session (handleLivenessFrames) or a document camera session
	// whose nonce the server checks (AddCaptureInSession) makes a camera
	// capture.
	c.Meta = map[string]any{"clientMethod": c.Method}
	c.Method = kyc.MethodUpload
	if len(f.image) == 0 {
		bad("image", "is required: attach the photo")
	}
	if len(details) > 0 {
		return nil, invalidForm(details...)
	}
	return c, nil
}

// bodyError turns a failure to read the upload into the applicant's
// error: too large (the body limit was hit) or not a readable form.
func bodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &statusError{status: http.StatusRequestEntityTooLarge, err: &kyc.Error{Code: kyc.EValidation,
			Message: "error.image_too_large", Reason: capture.ETooLarge,
			Details: []kyc.FieldError{{Field: "image", Message: "is larger than 10 MB"}}, Err: err}}
	}
	return &kyc.Error{Code: kyc.EValidation, Message: "error.upload_incomplete",
		Details: []kyc.FieldError{{Field: "body", Message: "is not a complete multipart/form-data body"}}, Err: err}
}

// busyRetryAfter is the Retry-After of an upload the decoding gate had no
// room for: decodes take a second or two each.
const busyRetryAfter = 3 * time.Second

// imageError turns capture's refusal into the applicant's error with its
// status: 413 too large, 415 a type we cannot read, 503 no room to decode
// it now, 400 the rest. Any other error (reading the bytes, encoding) is
// ours, a 500.
func imageError(err error) error {
	var ce *capture.Error
	if !errors.As(err, &ce) {
		return fmt.Errorf("process capture: %w", err)
	}
	if ce.Code == capture.EBusy {
		return &statusError{status: http.StatusServiceUnavailable, retryAfter: busyRetryAfter,
			err: &kyc.Error{Code: kyc.EUnavailable, Message: ce.Message, Reason: ce.Code, Err: err}}
	}
	status := http.StatusBadRequest
	switch ce.Code {
	case capture.ETooLarge:
		status = http.StatusRequestEntityTooLarge
	case capture.EUnsupportedType:
		status = http.StatusUnsupportedMediaType
	}
	return &statusError{status: status, err: &kyc.Error{Code: kyc.EValidation, Message: ce.Message, Reason: ce.Code,
		Details: []kyc.FieldError{{Field: "image", Message: ce.Message}}, Err: err}}
}

// clientIP is the address recorded with a capture: the connection's peer,
// or behind a trusted proxy the client it vouches for (Options.ClientIP).
func (p *portal) clientIP(r *http.Request) string {
	if p.clientIPOf != nil {
		return p.clientIPOf(r)
	}
	return (*clientip.Resolver)(nil).ClientIP(r)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
