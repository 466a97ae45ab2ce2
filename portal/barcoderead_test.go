package portal_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"strings"
	"testing"

	"kycd/aamva/aamvatest"
	"kycd/kyc"
	"kycd/pdf417/pdf417test"
)

// licenceBack renders the back of a card: a light card with text's PDF417
// barcode on it, as a JPEG, the way a flat scan of a licence looks.
func licenceBack(t *testing.T, text string) []byte {
	t.Helper()
	code := pdf417test.Render([]byte(text), 10, 3, 3)
	card := image.NewRGBA(image.Rect(0, 0, code.Bounds().Dx()+160, code.Bounds().Dy()+300))
	draw.Draw(card, card.Bounds(), &image.Uniform{color.RGBA{232, 236, 240, 255}}, image.Point{}, draw.Src)
	draw.Draw(card, code.Bounds().Add(image.Pt(80, 200)), code, image.Point{}, draw.Src)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, card, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func licence(side, docType, country string) map[string]string {
	return map[string]string{"kind": "document", "side": side, "documentType": docType, "country": country, "method": "upload"}
}

type barcodeAnswer struct {
	ID      string
	MRZ     *struct{ Status string }
	Barcode *struct{ Status, Hint, Surname, GivenNames, DocumentNumber, BirthDate, ExpiryDate string }
}

func (e *env) uploadLicence(t *testing.T, token string, fields map[string]string, img []byte) barcodeAnswer {
	t.Helper()
	r := e.upload(token, fields, img)
	var got barcodeAnswer
	if r.status != 201 || json.Unmarshal([]byte(r.body), &got) != nil {
		t.Fatalf("upload %v: %d %s", fields, r.status, r.body)
	}
	return got
}

// TestLicenceFromRead: the back of a US or Canadian licence or identity
// card is read at upload (its AAMVA barcode) and answers what it says;
// confirming it stores the number and expiry read, whatever the page
// sends; a back with no barcode, or with one that is no licence, asks
// for a retake with a hint and cannot be confirmed; other sides and
// countries are not read for a barcode at all.
func TestLicenceFromRead(t *testing.T) {
	e := newEnv(t)
	token, req := e.create(kyc.WorkflowStandard, "")
	got := e.uploadLicence(t, token, licence("back", "driving_licence", "US"), licenceBack(t, aamvatest.Record(10, false)))
	b := got.Barcode
	if b == nil || b.Status != "read" || b.Hint != "" || b.Surname != "SAMPLE" || b.GivenNames != "MICHAEL JOHN" ||
		b.DocumentNumber != "T64235789" || b.BirthDate != "1986-06-06" || b.ExpiryDate != "2030-12-10" {
		t.Fatalf("read at upload: %+v", b)
	}
	r := e.document(token, `{"documentType":"driving_licence","issuingCountry":"US","documentNumber":"X1","expiryDate":"2031-04-15","captureId":"`+got.ID+`"}`)
	if r.status != 200 || !strings.Contains(r.body, `"fromDocument":true`) || !strings.Contains(r.body, `"hasMrz":false`) {
		t.Fatalf("confirm: %d %s", r.status, r.body)
	}
	if d := e.request(req.ID).DocumentData; d == nil || d.DocumentNumber != "T64235789" || d.ExpiryDate != "2030-12-10" || d.MRZ != "" {
		t.Fatalf("stored: %+v", d)
	}

	// A Canadian identity card's back, version 08.
	ca := e.uploadLicence(t, token, licence("back", "id_card", "CA"), licenceBack(t, aamvatest.Record(8, true)))
	if ca.Barcode == nil || ca.Barcode.Status != "read" || ca.Barcode.Surname != "TREMBLAY" || ca.Barcode.ExpiryDate != "2026-02-28" {
		t.Errorf("Canadian card: %+v", ca.Barcode)
	}

	for _, c := range []struct {
		name         string
		fields       map[string]string
		img          []byte
		status, hint string
	}{
		{"no barcode", licence("back", "driving_licence", "US"), photo(t, 900, 560), "not_found", "not_found"},
		{"a barcode that is no licence", licence("back", "driving_licence", "CA"),
			licenceBack(t, "ANSI 636000100002DL00410278ZV03190008DLDAQ"), "unreadable", "unclear"},
	} {
		got := e.uploadLicence(t, token, c.fields, c.img)
		if got.Barcode == nil || got.Barcode.Status != c.status || got.Barcode.Hint != c.hint || got.Barcode.DocumentNumber != "" {
			t.Errorf("%s: %+v", c.name, got.Barcode)
			continue
		}
		r := e.document(token, `{"documentType":"driving_licence","issuingCountry":"US","captureId":"`+got.ID+`"}`)
		if r.status != 400 || !strings.Contains(r.body, `"captureId"`) {
			t.Errorf("%s: confirm answered %d %s", c.name, r.status, r.body)
		}
	}

	// Where no barcode is read: the front, and a licence from elsewhere.
	for _, f := range []map[string]string{licence("front", "driving_licence", "US"), licence("back", "driving_licence", "DE"),
		licence("back", "residence_permit", "US")} {
		if got := e.uploadLicence(t, token, f, licenceBack(t, aamvatest.Record(10, false))); got.Barcode != nil {
			t.Errorf("%v: read a barcode: %+v", f, got.Barcode)
		}
	}
}
