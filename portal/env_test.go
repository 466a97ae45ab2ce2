package portal_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/portal"
	"kycd/store"
	"kycd/store/storetest"
	"kycd/verification"
)

// env is a portal on a fresh database with one organization and a fake
// clock.
type env struct {
	t     *testing.T
	st    *store.Store
	clock *storetest.Clock
	svc   *verification.Service
	org   storetest.Org
	h     http.Handler
}

func newEnv(t *testing.T, mod ...func(*portal.Options)) *env {
	t.Helper()
	st := storetest.Open(t)
	clock := &storetest.Clock{}
	st.Now = clock.Now
	e := &env{t: t, st: st, clock: clock, svc: verification.New(st, nil, "https://kyc.example/portal", nil),
		org: storetest.MustOrg(t, st, "acme", nil)}
	o := portal.Options{Service: e.svc, Store: st}
	for _, m := range mod {
		m(&o)
	}
	e.h = portal.New(o)
	return e
}

// create makes a sandbox KYC request for a new applicant from Germany and
// returns its portal token.
func (e *env) create(wf kyc.WorkflowType, redirect string) (string, *kyc.KYCRequest) {
	e.t.Helper()
	first, last, country := "Erika", "Mustermann", "DE"
	in := verification.CreateInput{WorkflowType: wf,
		Applicant: &kyc.ApplicantInput{FirstName: &first, LastName: &last, Country: &country}}
	if redirect != "" {
		in.RedirectURL = &redirect
	}
	var r *kyc.KYCRequest
	err := e.st.InTx(e.t.Context(), func(tx *store.Tx) (err error) {
		r, err = e.svc.Create(tx, e.org.ID, kyc.Sandbox, verification.Actor{Type: kyc.ActorAPIKey}, in)
		return err
	})
	if err != nil {
		e.t.Fatalf("create request: %v", err)
	}
	return r.PortalToken, r
}

// request reloads a request by id.
func (e *env) request(id string) *kyc.KYCRequest {
	e.t.Helper()
	r, err := e.st.FindKYCRequest(e.t.Context(), e.org.ID, kyc.Sandbox, id)
	if err != nil {
		e.t.Fatalf("find request: %v", err)
	}
	return r
}

// response is what the handler answered.
type response struct {
	status int
	header http.Header
	body   string
}

// errorEnvelope is the §7.1 shape the JSON endpoints answer with.
type errorEnvelope struct {
	Error struct {
		Type    string           `json:"type"`
		Message string           `json:"message"`
		Code    string           `json:"code"`
		Reason  string           `json:"reason"`
		Details []kyc.FieldError `json:"details"`
	} `json:"error"`
}

// envelope decodes an error answer, failing unless it has the §7.1 shape.
func (r *response) envelope(t *testing.T) errorEnvelope {
	t.Helper()
	var e errorEnvelope
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type=%q, want application/json; body %s", ct, r.body)
	}
	if err := json.Unmarshal([]byte(r.body), &e); err != nil || e.Error.Code == "" || e.Error.Message == "" || e.Error.Type == "" ||
		e.Error.Details == nil {
		t.Fatalf("not an error envelope (%v): %s", err, r.body)
	}
	return e
}

// fields returns the field names of the details, in order.
func (e errorEnvelope) fields() string {
	var f []string
	for _, d := range e.Error.Details {
		f = append(f, d.Field)
	}
	return strings.Join(f, ",")
}

// do sends one request through the handler from a fixed client address.
func (e *env) do(method, path string, body io.Reader, header ...string) *response {
	e.t.Helper()
	req := httptest.NewRequestWithContext(e.t.Context(), method, path, body)
	req.RemoteAddr = "203.0.113.7:41000"
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return &response{status: rec.Code, header: rec.Header(), body: rec.Body.String()}
}

// upload posts a capture form; image nil sends no image part.
func (e *env) upload(token string, fields map[string]string, image []byte, header ...string) *response {
	e.t.Helper()
	body, ct := multipartBody(e.t, fields, image)
	return e.do("POST", "/portal/"+token+"/captures", body, append([]string{"Content-Type", ct}, header...)...)
}

func multipartBody(t *testing.T, fields map[string]string, image []byte) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if image != nil {
		part, err := w.CreateFormFile("image", "photo.jpg")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := part.Write(image); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf, w.FormDataContentType()
}

// photo returns a w×h JPEG with a gradient, so it is a real, decodable
// image and not a flat colour.
func photo(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// doc and selfie are the form fields of the usual captures.
func doc(side, docType string) map[string]string {
	return map[string]string{"kind": "document", "side": side, "documentType": docType, "country": "DE", "method": "camera"}
}

func selfie() map[string]string {
	return map[string]string{"kind": "selfie", "method": "camera"}
}

// expire moves the clock past every link made so far.
func (e *env) expire() { e.clock.Advance(verification.DefaultPortalTTL + time.Minute) }
