package cmd_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	_ "image/jpeg"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestReadTheDocumentEndToEnd runs the cases of issue 10 through kycd
// serve, in live, with real lists loaded (the UN consolidated list, the
// OFAC SDN files and a PEP list), as an integrator and an applicant's
// browser reach it: the API creates the request, the portal's own
// endpoints take the photos (the shared document and face photos), the
// typed details and the submission, and the processing job decides. No
// case may be approved: each is someone else's document, an expired or
// forged one, or a selfie that is not the applicant's live face.
//
// The positive case (the right person, a valid document, a matching face)
// cannot be run here: no real selfie of a specimen's holder exists, and
// every specimen has expired. decision.TestDocumentDecisions builds it at
// the engine level: the real document read from its real photo, with the
// clock where it was valid and the face-match outcome as recorded input.
func TestReadTheDocumentEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kycd serve with the face and MRZ models")
	}
	db := newDB(t)
	must := func(args ...string) string {
		code, out, errOut := run(t, args...)
		if code != 0 {
			t.Fatalf("kycd %v: %d %s %s", args, code, out, errOut)
		}
		return strings.TrimSpace(out)
	}
	org := must("orgs", "create", "--db", db, "--name", "Acme Ltd", "--email", "kyc@acme.example")
	key := must("keys", "create", "--db", db, "--org", org, "--env", "live", "--rpm", "0", "--name", "e2e")
	must("lists", "import", "--db", db, "--source", "un", "--kind", "sanctions", "--format", "un-xml", sharedData(t, "lists/un_consolidated_2026-02-27.xml"))
	must("lists", "import", "--db", db, "--source", "ofac-sdn", "--kind", "sanctions", "--format", "ofac-csv",
		sharedData(t, "lists/ofac_sdn_2021-07.csv"), sharedData(t, "lists/ofac_alt_2021-07.csv"), sharedData(t, "lists/ofac_add_2021-07.csv"))
	must("lists", "import", "--db", db, "--source", "us-congress", "--kind", "pep", "--format", "senzing", sharedData(t, "lists/opensanctions_us_congress_peps_senzing.jsonl"))
	must("lists", "import", "--db", db, "--source", "ftm-sample", "--kind", "adverse_media", "--format", "ftm", sharedData(t, "lists/opensanctions_ftm_sample.jsonl"))
	p := startServe(t, db)

	anna := `{"firstName":"Anna Maria","lastName":"Eriksson","dob":"1974-08-12","country":"SE"}`
	for _, c := range []struct {
		name, applicant   string
		docType, docImage string
		back              string // the back's photo: "top" and "bottom" cut one picture of both sides
		selfie            string
		typed             string // the details the applicant types, as the portal's form sends them
		status            string
		want              []string // reason codes that must be among the reasons
	}{
		{
			// The issue: Bob Smith with Eriksson's papers (her specimen
			// identity card, both sides), a made-up expiry typed, and a
			// photo of her specimen passport page as the selfie.
			name: "someone else's document", applicant: `{"firstName":"Bob","lastName":"Smith","dob":"1985-03-03","country":"GB"}`,
			docType: "id_card", docImage: "doc_td2_uto_icao_specimen.jpg", back: "bottom", selfie: "doc_td3_uto_icao_specimen.jpg",
			typed:  `{"documentType":"id_card","issuingCountry":"SE","documentNumber":"D23145890","expiryDate":"2031-04-15"}`,
			status: "rejected", want: []string{"DOCUMENT_EXPIRED", "NAME_MISMATCH", "DOB_MISMATCH", "SELFIE_IS_DOCUMENT"},
		},
		{
			name: "the right person, an expired document", applicant: anna,
			docType: "id_card", docImage: "doc_td2_uto_icao_specimen.jpg", back: "bottom", selfie: "face_eileencollins_01.png",
			typed:  `{"documentType":"id_card","issuingCountry":"SE","documentNumber":"D23145890","expiryDate":"2031-04-15"}`,
			status: "rejected", want: []string{"DOCUMENT_EXPIRED"},
		},
		{
			name: "a wrong check digit", applicant: `{"firstName":"Mandy","lastName":"Spiteri","dob":"1973-09-25","country":"MT"}`,
			docType: "id_card", docImage: "doc_td1_mlt_id_specimen_BAD_checkdigit.png", back: "bottom", selfie: "face_eileencollins_01.png",
			typed:  `{"documentType":"id_card","issuingCountry":"MT","documentNumber":"9999999","expiryDate":"2031-10-24"}`,
			status: "rejected", want: []string{"MRZ_CHECKSUM_FAILED"},
		},
		{
			name: "the document as the selfie", applicant: anna,
			docType: "passport", docImage: "doc_td2_uto_icao_specimen.jpg", selfie: "doc_td2_uto_icao_specimen.jpg",
			typed:  `{"documentType":"passport","issuingCountry":"SE","documentNumber":"D23145890","expiryDate":"2031-04-15"}`,
			status: "rejected", want: []string{"DOCUMENT_EXPIRED", "SELFIE_IS_DOCUMENT", "SAME_IMAGE_REUSED"},
		},
		{
			name: "someone else's face", applicant: anna,
			docType: "passport", docImage: "doc_td2_uto_icao_specimen.jpg", selfie: "face_chrispratt_01.jpg",
			typed:  `{"documentType":"passport","issuingCountry":"SE","documentNumber":"D23145890","expiryDate":"2031-04-15"}`,
			status: "rejected", want: []string{"DOCUMENT_EXPIRED", "FACE_MISMATCH"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, created := post(t, p.addr, key, "/v1/kyc-requests", `{"applicant":`+c.applicant+`}`)
			if status != 201 {
				t.Fatalf("create: %d %v", status, created)
			}
			id := created["id"].(string)
			u := created["portalUrl"].(string)
			portal := "http://" + p.addr + "/portal/" + u[strings.LastIndex(u, "/")+1:]
			front := imageFile(t, c.docImage, "")
			if c.back != "" {
				front = imageFile(t, c.docImage, "top")
				upload(t, portal, map[string]string{"kind": "document", "side": "back", "documentType": c.docType, "country": "SE", "method": "camera"},
					imageFile(t, c.docImage, c.back))
			}
			upload(t, portal, map[string]string{"kind": "document", "side": "front", "documentType": c.docType, "country": "SE", "method": "camera"}, front)
			selfie := imageFile(t, c.selfie, "")
			upload(t, portal, map[string]string{"kind": "selfie", "method": "camera"}, selfie)
			if code, body := send(t, "POST", portal+"/document", "application/json", strings.NewReader(c.typed)); code != 200 {
				t.Fatalf("document details: %d %s", code, body)
			}
			if code, body := send(t, "POST", portal+"/submit", "application/json", strings.NewReader(`{}`)); code != 200 && code != 202 {
				t.Fatalf("submit: %d %s", code, body)
			}
			got := waitDecided(t, p.addr, key, id)
			var codes []string
			pr, _ := got["processingResult"].(map[string]any)
			reasons, _ := pr["reasons"].([]any)
			for _, r := range reasons {
				codes = append(codes, r.(map[string]any)["code"].(string))
			}
			t.Logf("%s: %v (%v); reasons %v", c.name, got["status"], got["decisionReason"], codes)
			if got["status"] == "approved" || got["status"] != c.status {
				t.Errorf("status %v, want %s", got["status"], c.status)
			}
			for _, w := range c.want {
				if !slices.Contains(codes, w) {
					t.Errorf("reasons %v lack %s", codes, w)
				}
			}
		})
	}
}

// imageFile is a shared image's bytes, or its top or bottom half (a
// specimen photographed with both sides one above the other) as PNG.
func imageFile(t *testing.T, name, half string) []byte {
	t.Helper()
	data, err := os.ReadFile(sharedData(t, "images/"+name))
	if err != nil {
		t.Fatal(err)
	}
	if half == "" {
		return data
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	r := image.Rect(b.Min.X, b.Min.Y, b.Max.X, b.Min.Y+b.Dy()/2)
	if half == "bottom" {
		r = image.Rect(b.Min.X, b.Min.Y+b.Dy()/2, b.Max.X, b.Max.Y)
	}
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), img, r.Min, draw.Src)
	var buf bytes.Buffer
	if err := png.Encode(&buf, out); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// upload posts one photo to the portal as the page does.
func upload(t *testing.T, portal string, fields map[string]string, data []byte) {
	t.Helper()
	image := "photo"
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	fw, _ := w.CreateFormFile("image", image)
	fw.Write(data)
	w.Close()
	if code, b := send(t, "POST", portal+"/captures", w.FormDataContentType(), &body); code != 201 {
		t.Fatalf("upload %s: %d %s", image, code, b)
	}
}

func send(t *testing.T, method, url, contentType string, body io.Reader) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, body)
	req.Header.Set("Content-Type", contentType)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// waitDecided polls the request until the processing job has decided it.
func waitDecided(t *testing.T, addr, key, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		req, _ := http.NewRequest("GET", "http://"+addr+"/v1/kyc-requests/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.NewDecoder(res.Body).Decode(&m)
		res.Body.Close()
		switch m["status"] {
		case "approved", "rejected", "awaiting_review", "failed":
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("not decided: %v", m)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

var _ = fmt.Sprint
