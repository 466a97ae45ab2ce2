package portal_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/jpeg"
	"image/png"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"kycd/capture"
	"kycd/internal/clientip"
	"kycd/kyc"
	"kycd/portal"
)

// TestCaptureUpload stores a photo with what the server knows about it,
// answers 201 with its id and size, and replaces it on a retake.
func TestCaptureUpload(t *testing.T) {
	e := newEnv(t)
	token, req := e.create(kyc.WorkflowStandard, "")
	r := e.upload(token, doc("front", "id_card"), photo(t, 800, 505), "User-Agent", "TestPhone/1.0", "X-Forwarded-For", "198.51.100.1")
	if r.status != 201 {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	var got struct {
		ID, Kind      string
		Side          *string
		Width, Height int
	}
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.ID, "cap_") || got.Kind != "document" || got.Side == nil || *got.Side != "front" || got.Width != 800 || got.Height != 505 {
		t.Fatalf("answer: %s", r.body)
	}
	// The upload opened the link, like opening the page.
	if s := e.request(req.ID); s.Status != kyc.KYCLinkGenerated || s.PortalOpenedAt == nil {
		t.Errorf("status=%s portalOpenedAt=%v, want link_generated and opened", s.Status, s.PortalOpenedAt)
	}
	caps, err := e.st.FindCaptures(t.Context(), req.ID, "")
	if err != nil || len(caps) != 1 {
		t.Fatalf("captures: %v %v", caps, err)
	}
	c := caps[0]
	// X-Forwarded-For is not trusted without the option. The page said
	// "camera"; the server did not see it, so the capture is an upload and
	// the claim is kept as evidence.
	if c.IP != "203.0.113.7" || c.UserAgent != "TestPhone/1.0" || c.Method != kyc.MethodUpload || *c.DocumentType != "id_card" ||
		*c.Country != "DE" || c.ContentType != "image/jpeg" || c.SHA256 == "" || c.SourceSHA256 == "" {
		t.Errorf("stored capture: %+v", c)
	}
	// What the server read of the zone at upload: a plain photo has none.
	wantMeta := map[string]any{"software": "", "hadExif": false, "hadGps": false, "sourceType": "image/jpeg", "orientation": float64(0),
		"mrzStatus": "not_found", "mrzHint": "no_zone", "clientMethod": "camera"}
	if !maps.Equal(c.Meta, wantMeta) {
		t.Errorf("meta=%v, want %v", c.Meta, wantMeta)
	}

	// A retake of the front replaces it; a selfie is stored beside it.
	if r := e.upload(token, doc("front", "id_card"), photo(t, 1000, 631)); r.status != 201 {
		t.Fatalf("retake: %d %s", r.status, r.body)
	}
	if r := e.upload(token, selfie(), photo(t, 480, 640)); r.status != 201 || !strings.Contains(r.body, `"side":null`) {
		t.Fatalf("selfie: %d %s", r.status, r.body)
	}
	caps, err = e.st.FindCaptures(t.Context(), req.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 2 || caps[0].Width != 1000 || caps[1].Kind != "selfie" {
		t.Errorf("after retake: %+v", caps)
	}
}

// TestCaptureForwardedFor records the client a trusted proxy (here the
// test's peer, 203.0.113.7) vouches for, not the entries the client
// wrote; a peer that is not a trusted proxy is recorded itself, whatever
// its header says.
func TestCaptureForwardedFor(t *testing.T) {
	for _, tt := range []struct {
		name    string
		trusted []netip.Prefix
		want    string
	}{
		{"trusted proxy", []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}, "198.51.100.23"},
		{"direct client", []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, "203.0.113.7"},
	} {
		e := newEnv(t, func(o *portal.Options) { o.ClientIP = clientip.New(tt.trusted).ClientIP })
		token, req := e.create(kyc.WorkflowStandard, "")
		if r := e.upload(token, selfie(), photo(t, 300, 300), "X-Forwarded-For", "10.9.9.9, 198.51.100.23"); r.status != 201 {
			t.Fatalf("%s: upload: %d %s", tt.name, r.status, r.body)
		}
		caps, err := e.st.FindCaptures(t.Context(), req.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if caps[0].IP != tt.want {
			t.Errorf("%s: IP=%s, want %s", tt.name, caps[0].IP, tt.want)
		}
	}
}

// TestCaptureFields refuses every bad field at once, in the envelope.
func TestCaptureFields(t *testing.T) {
	e := newEnv(t)
	token, _ := e.create(kyc.WorkflowStandard, "")
	img := photo(t, 400, 300)
	with := func(base map[string]string, kv ...string) map[string]string {
		m := maps.Clone(base)
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	for _, tt := range []struct {
		name   string
		fields map[string]string
		image  []byte
		want   string // detail fields
	}{
		{"no image", doc("front", "id_card"), nil, "image"},
		{"unknown kind", with(selfie(), "kind", "video"), img, "kind"},
		{"no side", with(doc("front", "id_card"), "side", ""), img, "side"},
		{"passport has no back", doc("back", "passport"), img, "side"},
		{"unknown document", doc("front", "library_card"), img, "documentType"},
		{"lower-case country", with(doc("front", "id_card"), "country", "de"), img, "country"},
		{"unassigned country", with(doc("front", "id_card"), "country", "ZZ"), img, "country"},
		{"bad method", with(selfie(), "method", "scanner"), img, "method"},
		{"selfie with document fields", with(selfie(), "side", "front", "country", "DE"), img, "side,country"},
		{"everything wrong", map[string]string{"kind": "document", "method": "fax"}, nil, "documentType,side,country,method,image"},
		{"unknown field", with(selfie(), "admin", "1"), img, "admin"},
		{"overlong field", with(doc("front", "id_card"), "documentType", strings.Repeat("x", 65)), img, "documentType"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.upload(token, tt.fields, tt.image)
			if r.status != 400 {
				t.Fatalf("status=%d, want 400: %s", r.status, r.body)
			}
			env := r.envelope(t)
			if env.Error.Code != kyc.EValidation || env.Error.Type != "validation" {
				t.Errorf("code=%s type=%s", env.Error.Code, env.Error.Type)
			}
			// Map order is random, so compare the sets of fields.
			if got := sortedFields(env.fields()); got != sortedFields(tt.want) {
				t.Errorf("details=%s, want %s", env.fields(), tt.want)
			}
		})
	}
	t.Run("not multipart", func(t *testing.T) {
		r := e.do("POST", "/portal/"+token+"/captures", strings.NewReader(`{"kind":"selfie"}`), "Content-Type", "application/json")
		if r.status != 400 || r.envelope(t).fields() != "body" {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	t.Run("truncated body", func(t *testing.T) {
		body, ct := multipartBody(t, selfie(), img)
		r := e.do("POST", "/portal/"+token+"/captures", bytes.NewReader(body.Bytes()[:body.Len()/2]), "Content-Type", ct)
		if r.status != 400 || r.envelope(t).fields() != "body" {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
}

func sortedFields(s string) string {
	f := strings.Split(s, ",")
	slices.Sort(f)
	return strings.Join(f, ",")
}

// TestCaptureImages maps capture's refusals to statuses: 413 for size,
// 415 for a type we cannot read, 400 for the rest, each with capture's
// applicant message and code.
func TestCaptureImages(t *testing.T) {
	e := newEnv(t)
	token, _ := e.create(kyc.WorkflowStandard, "")
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, image.NewGray(image.Rect(0, 0, 120, 80))); err != nil {
		t.Fatal(err)
	}
	jpg := photo(t, 400, 300)
	for _, tt := range []struct {
		name   string
		image  []byte
		status int
		reason string
	}{
		{"pdf", []byte("%PDF-1.7\n1 0 obj\n<<>>\nendobj\n"), 415, capture.EUnsupportedType},
		{"gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), 415, capture.EUnsupportedType},
		{"too small", pngBuf.Bytes(), 400, capture.ETooSmall},
		{"truncated jpeg", jpg[:len(jpg)/2], 400, capture.ECorrupt},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.upload(token, selfie(), tt.image)
			if r.status != tt.status {
				t.Fatalf("status=%d, want %d: %s", r.status, tt.status, r.body)
			}
			env := r.envelope(t)
			if env.Error.Reason != tt.reason || env.Error.Code != kyc.EValidation || env.fields() != "image" ||
				!strings.HasSuffix(env.Error.Message, ".") || strings.Contains(env.Error.Message, "capture:") {
				t.Errorf("envelope: %s", r.body)
			}
		})
	}
}

// TestCaptureTooLarge refuses a body over the limit while reading it
// (413), and an image over the limit inside a body that fits (413 too).
func TestCaptureTooLarge(t *testing.T) {
	e := newEnv(t)
	token, _ := e.create(kyc.WorkflowStandard, "")
	big := append(photo(t, 400, 300), make([]byte, capture.DefaultMaxBytes+128<<10)...)
	r := e.upload(token, selfie(), big)
	if r.status != 413 {
		t.Fatalf("body over the limit: %d %s", r.status, r.body)
	}
	if env := r.envelope(t); env.Error.Reason != capture.ETooLarge || !strings.Contains(env.Error.Message, "10 MB") {
		t.Errorf("envelope: %s", r.body)
	}

	small := newEnv(t, func(o *portal.Options) { o.Limits = capture.Limits{MaxBytes: 2000} })
	token, _ = small.create(kyc.WorkflowStandard, "")
	r = small.upload(token, selfie(), photo(t, 400, 300))
	if r.status != 413 || r.envelope(t).Error.Reason != capture.ETooLarge {
		t.Fatalf("image over the limit: %d %s", r.status, r.body)
	}
}

// TestCaptureLinks refuses uploads to links that cannot take them: 410
// with the page kind as reason, 404 for a token that does not exist, 403
// for a post another site made.
func TestCaptureLinks(t *testing.T) {
	e := newEnv(t)
	token, _ := e.create(kyc.WorkflowStandard, "")
	img := photo(t, 400, 300)

	r := e.upload(token, selfie(), img, "Sec-Fetch-Site", "cross-site")
	if r.status != 403 || r.envelope(t).Error.Code != kyc.EForbidden {
		t.Errorf("cross-site: %d %s", r.status, r.body)
	}
	r = e.upload("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", selfie(), img)
	if r.status != 404 || r.envelope(t).Error.Code != kyc.ENotFound {
		t.Errorf("unknown token: %d %s", r.status, r.body)
	}
	e.expire()
	r = e.upload(token, selfie(), img)
	if r.status != 410 {
		t.Fatalf("expired: %d %s", r.status, r.body)
	}
	if env := r.envelope(t); env.Error.Reason != "expired" || env.Error.Code != kyc.EUnprocessable {
		t.Errorf("expired envelope: %s", r.body)
	}
}

// TestCaptureUploadsPerLink: one link may send UploadsPerMinute uploads in
// any minute; the next is 429 in the envelope with Retry-After, before
// its body is read or decoded. Other links are not affected, and the
// allowance comes back as the minute passes.
func TestCaptureUploadsPerLink(t *testing.T) {
	var e *env
	e = newEnv(t, func(o *portal.Options) { o.UploadsPerMinute = 3; o.Now = func() time.Time { return e.clock.Now() } })
	token, _ := e.create(kyc.WorkflowStandard, "")
	other, _ := e.create(kyc.WorkflowStandard, "")
	img := photo(t, 400, 300)
	for i := range 3 {
		if r := e.upload(token, selfie(), img); r.status != 201 {
			t.Fatalf("upload %d: %d %s", i+1, r.status, r.body)
		}
		e.clock.Advance(10 * time.Second)
	}
	r := e.upload(token, selfie(), img)
	if r.status != 429 {
		t.Fatalf("fourth upload in a minute: %d %s", r.status, r.body)
	}
	if env := r.envelope(t); env.Error.Code != kyc.ERateLimited || env.Error.Type != "rate_limit" || r.header.Get("Retry-After") != "30" {
		t.Errorf("429: Retry-After %q, %s", r.header.Get("Retry-After"), r.body)
	}
	if r := e.upload(other, selfie(), img); r.status != 201 {
		t.Errorf("another link: %d %s", r.status, r.body)
	}
	e.clock.Advance(30 * time.Second) // the first upload is now a minute old
	if r := e.upload(token, selfie(), img); r.status != 201 {
		t.Errorf("after the window moved on: %d %s", r.status, r.body)
	}
}

// TestCaptureStoresScaledDown: a photo over the stored bound is kept at the
// bound, with the upload's own size in the capture's metadata.
func TestCaptureStoresScaledDown(t *testing.T) {
	e := newEnv(t, func(o *portal.Options) { o.Limits = capture.Limits{MaxStoredPixels: 400 * 300} })
	token, req := e.create(kyc.WorkflowStandard, "")
	r := e.upload(token, doc("front", "id_card"), photo(t, 800, 600))
	if r.status != 201 || !strings.Contains(r.body, `"width":400,"height":300`) {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	caps, err := e.st.FindCaptures(t.Context(), req.ID, "")
	if err != nil || len(caps) != 1 {
		t.Fatal(caps, err)
	}
	c, err := e.st.FindCaptureData(t.Context(), caps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	m, err := jpeg.Decode(bytes.NewReader(c.Data))
	if err != nil || m.Bounds().Dx() != 400 || caps[0].Meta["sourceWidth"] != float64(800) || caps[0].Meta["sourceHeight"] != float64(600) {
		t.Errorf("stored %v (%v), meta %v", m.Bounds(), err, caps[0].Meta)
	}
}
