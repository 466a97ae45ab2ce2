package portal_test

import (
	"bytes"
	"image"
	"image/png"
	"testing"

	"kycd/kyc"
	"kycd/locale"
)

// TestCostlyImageNamesItsCause is issue 23 item 19 in the portal: an image
// within the pixel limit that still takes too much memory to decode was
// told "The image has too many pixels. Upload one of at most 16
// megapixels", a false cause. It now gets a message that says it was
// saved in a costly form; an image over the limit keeps the pixel message.
// Both keep the reason too_many_pixels.
func TestCostlyImageNamesItsCause(t *testing.T) {
	e := newEnv(t)
	token, _ := e.create(kyc.WorkflowStandard, "")
	pngOf := func(m image.Image) []byte {
		var b bytes.Buffer
		if err := png.Encode(&b, m); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	upload := func(lang string, data []byte) *response {
		body, ct := multipartBody(t, doc("front", "passport"), data)
		return e.do("POST", "/portal/"+token+"/captures?lang="+lang, body, "Content-Type", ct)
	}
	for _, tt := range []struct {
		name  string
		data  []byte
		key   string
		extra []string
	}{
		// 9 MP at 16 bits per channel: 72 MB decoded, then a copy and
		// the PNG output: over the 128 MiB budget.
		{"9 MP of 16-bit RGBA", pngOf(image.NewNRGBA64(image.Rect(0, 0, 3000, 3000))), "error.image_too_costly", nil},
		{"20 MP of grey", pngOf(image.NewGray(image.Rect(0, 0, 5000, 4000))), "error.image_too_many_pixels", []string{"megapixels", "16"}},
	} {
		for _, lang := range []string{"en", "de"} {
			r := upload(lang, tt.data)
			env := r.envelope(t)
			if want := locale.Get(lang).T(tt.key, tt.extra...); r.status != 400 || env.Error.Reason != "too_many_pixels" || env.Error.Message != want {
				t.Errorf("%s in %s: %d %s, want %q", tt.name, lang, r.status, r.body, want)
			}
		}
	}
}
