package portal_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"kycd/aamva/aamvatest"
	"kycd/internal/realdata"
	"kycd/kyc"
)

// writeTemp writes data to a file named name in a temporary directory,
// for the file input.
func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// phonePhoto is a passport photo page as a phone takes it: the page a
// little turned, on a dark table filling the rest of a 4:3 frame twice
// its size, lit unevenly, saved as a JPEG of a phone's quality.
func phonePhoto(t *testing.T, page string) []byte {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	src, _, err := image.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	sw, sh := src.Bounds().Dx(), src.Bounds().Dy()
	w := sw * 3 / 2
	h := w * 3 / 4
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	const turn = 2.5 * math.Pi / 180
	sin, cos := math.Sin(turn), math.Cos(turn)
	cx, cy := float64(w)/2, float64(h)/2
	for y := range h {
		for x := range w {
			// The source pixel under (x, y), the page centred and turned.
			dx, dy := float64(x)-cx, float64(y)-cy
			u := cos*dx + sin*dy + float64(sw)/2
			v := -sin*dx + cos*dy + float64(sh)/2
			light := 0.8 + 0.2*float64(x)/float64(w) // brighter to the right
			var c color.RGBA
			if u >= 0 && v >= 0 && int(u) < sw && int(v) < sh {
				r, g, b, _ := src.At(src.Bounds().Min.X+int(u), src.Bounds().Min.Y+int(v)).RGBA()
				c = color.RGBA{uint8(float64(r>>8) * light), uint8(float64(g>>8) * light), uint8(float64(b>>8) * light), 255}
			} else {
				wood := uint8(40 + 10*math.Sin(float64(y)/7))
				c = color.RGBA{uint8(float64(wood+30) * light), uint8(float64(wood+12) * light), uint8(float64(wood) * light), 255}
			}
			out.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, out, &jpeg.Options{Quality: 82}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// cardFront is a plain licence front: no zone, no barcode.
func cardFront(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 856, 540))
	draw.Draw(img, img.Bounds(), &image.Uniform{color.RGBA{200, 215, 230, 255}}, image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(40, 120, 260, 400), &image.Uniform{color.RGBA{150, 150, 160, 255}}, image.Point{}, draw.Src)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBrowserLicence is the licence at 390 px: the applicant picks a US
// driving licence, uploads its front, then a back with no barcode on it
// (the page asks for a retake with the barcode hint), then the rendered
// back of the AAMVA sample licence: the page shows what the server read
// from its barcode, the applicant confirms it, and the stored details are
// the barcode's. Then a second applicant uploads a phone-style photo of a
// passport page and the page shows what was read from its zone. Every
// step the applicant sees is checked with axe.
func TestBrowserLicence(t *testing.T) {
	passport := realdata.Path(t, "images/doc_td3_deu_passport_specimen.jpg")
	s := newStack(t)
	link, id := s.create(kyc.WorkflowDocumentOnly, "")
	b := newTab(t, 390, false)
	b.withAxe(loadAxe(t))

	b.do(chromedp.Navigate(link))
	b.waitFor(`!document.getElementById('step-welcome').hidden`)
	b.click(`label[for=consent]`)
	b.click(`[data-action=consent]`)
	b.step("document")
	b.click(`label[for=doctype-driving_licence]`)
	b.do(chromedp.SetValue(chromedp.ID("country"), "US"))
	b.shot("licence-document")
	b.click(`[data-action=document]`)
	b.waitFor(`!document.getElementById('capture-error').hidden && document.getElementById('camera').hidden`)
	b.do(chromedp.SetUploadFiles(chromedp.ID("file"), []string{writeTemp(t, "front.jpg", cardFront(t))}))
	b.waitFor(`document.getElementById('capture-title').textContent === 'Back of your driving licence'`)
	if got := b.text("capture-hint"); !strings.Contains(got, "barcode") {
		t.Errorf("back hint: %q", got)
	}
	b.shot("licence-back")
	b.axe("licence-back")

	// A back without a barcode: the hint says what to change.
	b.do(chromedp.SetUploadFiles(chromedp.ID("file"), []string{writeTemp(t, "blank.jpg", cardFront(t))}))
	b.waitFor(`document.getElementById('capture-error').textContent.indexOf('try 2 of 3') >= 0`)
	if got := b.text("capture-error"); !strings.Contains(got, "could not find the barcode") || !strings.Contains(got, "flat") ||
		!strings.Contains(got, "closer") || !strings.Contains(got, "glare") {
		t.Errorf("retake hint: %q", got)
	}
	b.shot("licence-retake")
	b.axe("licence-retake")

	b.do(chromedp.SetUploadFiles(chromedp.ID("file"), []string{writeTemp(t, "back.jpg", licenceBack(t, aamvatest.Record(10, false)))}))
	b.step("read")
	if got := b.text("read-facts"); !strings.Contains(got, "SAMPLE") || !strings.Contains(got, "MICHAEL JOHN") ||
		!strings.Contains(got, "6 June 1986") || !strings.Contains(got, "T64235789") || !strings.Contains(got, "10 December 2030") {
		t.Errorf("read: %q", got)
	}
	if got := b.text("read-intro"); !strings.Contains(got, "barcode") {
		t.Errorf("read intro: %q", got)
	}
	b.shot("licence-read")
	b.noViolations()
	b.axe("licence-read")
	b.click(`#read-confirm`)
	b.step("review")
	b.shot("licence-review")
	b.axe("licence-review")
	s.wantDocument(id, kyc.DocumentData{DocumentType: "driving_licence", IssuingCountry: "US", DocumentNumber: "T64235789", ExpiryDate: "2030-12-10"})

	// A passport photo page as a phone takes it.
	link, _ = s.create(kyc.WorkflowDocumentOnly, "")
	b.do(chromedp.Navigate(link))
	b.waitFor(`!document.getElementById('step-welcome').hidden`)
	b.click(`label[for=consent]`)
	b.click(`[data-action=consent]`)
	b.step("document")
	b.click(`label[for=doctype-passport]`)
	b.click(`[data-action=document]`)
	b.waitFor(`!document.getElementById('capture-error').hidden && document.getElementById('camera').hidden`)
	b.do(chromedp.SetUploadFiles(chromedp.ID("file"), []string{writeTemp(t, "IMG_0412.jpg", phonePhoto(t, passport))}))
	b.waitFor(`!document.getElementById('step-read').hidden || document.getElementById('capture-error').textContent.indexOf('try 2 of 3') >= 0`)
	b.shot("phone-passport")
	if got := b.text("read-facts"); !strings.Contains(got, "MUSTERMANN") || !strings.Contains(got, "CA000000") {
		t.Errorf("phone-style passport photo not read: read step %q, capture error %q", got, b.text("capture-error"))
	}
	b.axe(fmt.Sprintf("phone-passport-%dpx", 390))
}
