// Package reviewdata makes the work of a back office through kycd's real
// use cases: KYC requests that an applicant took through the portal steps
// (link, captures, document details, submission) for the decision engine
// to send to review, and a small watch list for AML matches. The console's
// tests, its benchmark and docs/back-office.md's screenshots use it.
package reviewdata

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	_ "image/png" // real document specimens
	"os"
	"path/filepath"
	"strings"
	"time"

	"kycd/aml"
	"kycd/decision"
	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
	"kycd/verification"
)

// Listed is one entity of the test watch list.
type Listed struct {
	Reference, Name, Aliases, DOB, Country, Reason string
}

// ImportList writes rows as an in-house CSV sanctions list named source in
// dir and imports it (a new version when the rows changed). Monitored
// checks are re-screened by the monitor job it queues.
func ImportList(ctx context.Context, st *store.Store, dir, source string, rows []Listed) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"reference", "name", "aliases", "dob", "country", "reason"})
	for _, r := range rows {
		_ = w.Write([]string{r.Reference, r.Name, r.Aliases, r.DOB, r.Country, r.Reason})
	}
	w.Flush()
	path := filepath.Join(dir, source+".csv")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		return err
	}
	_, err := aml.Import(ctx, st, aml.ImportSpec{Source: source, Kind: screening.Sanctions, Format: "csv", Provider: "Test sanctions list",
		Files: []string{path}})
	return err
}

// Person is an applicant to verify, and what their document says.
type Person struct {
	FirstName, LastName, DOB, Country, Email, ExternalRef string
	// Document: an identity card of this number; its MRZ carries these
	// names and this date of birth (empty: the applicant's), so that a
	// test can make the document disagree with the applicant.
	DocNumber, DocGiven, DocSurname, DocDOB string
	IP                                      string // the capturing client's; default 203.0.113.7
	// Front, when set, is a real photo of the document's front (a JPEG or
	// PNG specimen whose MRZ the engine reads); DocType is then its type
	// (default passport, which has no back side).
	Front   []byte
	DocType string
	// Selfie, when set, is a real photo (JPEG or PNG) taken as the selfie.
	Selfie []byte
}

// Submit creates a request for p and takes it through the portal steps to
// submitted: the link, the document's front and back, the selfie (small
// generated JPEGs), the document details with the MRZ, and submission.
// The processing job (the runner) then decides it.
func Submit(ctx context.Context, st *store.Store, svc *verification.Service, orgID string, env kyc.Environment, p Person) (*kyc.KYCRequest, error) {
	in := &kyc.ApplicantInput{FirstName: &p.FirstName, LastName: &p.LastName}
	for _, f := range []struct {
		dst **string
		v   string
	}{{&in.DOB, p.DOB}, {&in.Country, p.Country}, {&in.Email, p.Email}, {&in.ExternalRef, p.ExternalRef}} {
		if f.v != "" {
			v := f.v
			*f.dst = &v
		}
	}
	if p.IP == "" {
		p.IP = "203.0.113.7"
	}
	var req *kyc.KYCRequest
	err := st.InTx(ctx, func(tx *store.Tx) (err error) {
		req, err = svc.Create(tx, orgID, env, verification.Actor{Type: kyc.ActorAPIKey}, verification.CreateInput{Applicant: in})
		if err != nil {
			return err
		}
		token := req.PortalToken
		docType, country := "id_card", p.Country
		if country == "" {
			country = "DE"
		}
		sides := []string{"front", "back", ""}
		if p.Front != nil {
			docType = p.DocType
			if docType == "" {
				docType = "passport"
			}
			if !kyc.DocumentTypes[docType] {
				sides = []string{"front", ""}
			}
		}
		for i, side := range sides {
			kind := "document"
			if side == "" {
				kind = "selfie"
			}
			data, ct, w, h := picture(kind, i, req.ID), "image/jpeg", 320, 200
			real := map[string][]byte{"front": p.Front, "": p.Selfie}[side]
			if real != nil {
				cfg, format, err := image.DecodeConfig(bytes.NewReader(real))
				if err != nil {
					return fmt.Errorf("%s image: %w", kind, err)
				}
				data, ct, w, h = real, "image/"+format, cfg.Width, cfg.Height
			}
			sum := sha256.Sum256(data)
			c := &kyc.Capture{Kind: kind, ContentType: ct, Width: w, Height: h, SHA256: hex.EncodeToString(sum[:]),
				SourceSHA256: hex.EncodeToString(sum[:]), Method: "camera", UserAgent: "reviewdata", IP: p.IP}
			if kind == "document" {
				s := side
				c.Side, c.DocumentType, c.Country = &s, &docType, &country
			}
			if _, err := svc.AddCapture(tx, token, c, data); err != nil {
				return err
			}
		}
		expiry := tx.Now().AddDate(5, 0, 0).Format("2006-01-02")
		doc := &kyc.DocumentData{DocumentType: docType, IssuingCountry: country, DocumentNumber: p.DocNumber, ExpiryDate: expiry,
			MRZ: TD1(p, country, expiry)}
		if _, err := svc.SetDocumentData(tx, token, doc); err != nil {
			return err
		}
		req, err = svc.Submit(tx, token)
		return err
	})
	return req, err
}

// picture is a small JPEG: a card-like image for a document side, a face-
// coloured one for a selfie, different per request so that no two
// requests share an image.
func picture(kind string, i int, seed string) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 320, 200))
	h := sha256.Sum256([]byte(seed))
	bg := color.RGBA{200 + h[0]%50, 210 + h[1]%40, 220 + h[2]%30, 255}
	if kind == "selfie" {
		bg = color.RGBA{90 + h[0]%40, 110 + h[1]%40, 140 + h[2]%40, 255}
	}
	draw.Draw(img, img.Bounds(), &image.Uniform{bg}, image.Point{}, draw.Src)
	fg := color.RGBA{40 + h[3]%60, 60, 90 + uint8(i*30), 255}
	if kind == "selfie" {
		draw.Draw(img, image.Rect(110, 40, 210, 170), &image.Uniform{color.RGBA{224, 172, 140, 255}}, image.Point{}, draw.Src)
	} else {
		draw.Draw(img, image.Rect(20, 40, 110, 160), &image.Uniform{fg}, image.Point{}, draw.Src)
		for y := 50; y < 150; y += 20 {
			draw.Draw(img, image.Rect(130, y, 300-int(h[y%32]%60), y+8), &image.Uniform{color.RGBA{60, 60, 60, 255}}, image.Point{}, draw.Src)
		}
	}
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 70})
	return buf.Bytes()
}

// TD1 writes the three-line MRZ of an identity card (ICAO 9303) for p,
// with every check digit right.
func TD1(p Person, country, expiry string) string {
	given, surname, dob := p.DocGiven, p.DocSurname, p.DocDOB
	if given == "" {
		given = p.FirstName
	}
	if surname == "" {
		surname = p.LastName
	}
	if dob == "" {
		dob = p.DOB
	}
	code := alpha3[country]
	if code == "" {
		code = "D<<"
	}
	num := pad(strings.ToUpper(p.DocNumber), 9)
	ymd := func(d string) string {
		t, err := time.Parse("2006-01-02", d)
		if err != nil {
			return "<<<<<<"
		}
		return t.Format("060102")
	}
	b, e := ymd(dob), ymd(expiry)
	l1 := "I<" + code + num + check(num)
	l1 = pad(l1, 30)
	l2 := b + check(b) + "<" + e + check(e) + code + "<<<<<<<<<<<"
	composite := l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29]
	l2 += check(composite)
	l3 := pad(mrzName(surname)+"<<"+strings.ReplaceAll(mrzName(given), " ", "<"), 30)
	return l1 + "\n" + l2 + "\n" + l3[:30]
}

var alpha3 = map[string]string{"DE": "D<<", "GB": "GBR", "FR": "FRA", "AT": "AUT", "NL": "NLD", "IT": "ITA", "ES": "ESP", "PL": "POL", "US": "USA"}

func mrzName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		switch {
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		case r == ' ' || r == '-':
			b.WriteRune('<')
		}
	}
	return b.String()
}

func pad(s string, n int) string {
	if len(s) >= n {
		return s[:n]
	}
	return s + strings.Repeat("<", n-len(s))
}

// check is the ICAO 9303 check digit of s.
func check(s string) string {
	weights := []int{7, 3, 1}
	sum := 0
	for i, r := range s {
		v := 0
		switch {
		case r >= '0' && r <= '9':
			v = int(r - '0')
		case r >= 'A' && r <= 'Z':
			v = int(r-'A') + 10
		}
		sum += v * weights[i%3]
	}
	return fmt.Sprint(sum % 10)
}

// Engine imports rows as the sanctions list source into st and returns the
// AML service that screens with it and the automated engine that decides
// with it, under each organization's policy and without the image models
// (set ImageSignals for those): the engine of the console's tests, its
// benchmark and the policy dry-run tests.
func Engine(ctx context.Context, st *store.Store, dir, source string, rows []Listed, now func() time.Time) (*aml.Service, *decision.Auto, error) {
	sc, err := screening.NewScreener()
	if err != nil {
		return nil, nil, err
	}
	svc := aml.New(st, sc, nil)
	if err := ImportList(ctx, st, dir, source, rows); err != nil {
		return nil, nil, err
	}
	if err := svc.Refresh(ctx); err != nil {
		return nil, nil, err
	}
	return svc, &decision.Auto{Store: st, Screen: svc.ScreenPerson, Policy: decision.StorePolicy(st), Now: now}, nil
}
