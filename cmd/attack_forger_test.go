package cmd_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"

	"kycd/internal/forgery"
	"kycd/internal/relight"
	"kycd/liveness"
	"kycd/mrz"
)

// TestAttackLaptopForger is issue 24's forger with a laptop, end to end,
// as one script: in live with the default policy and real lists, it opens
// a document camera session and posts a drawn passport with the session's
// nonce, then answers the paced liveness session from an indexed library
// of the public head-movement footage (two distinct frames of the asked
// pose where the footage has them, otherwise a frame and a noisy copy;
// a session that asks for a move the library lacks is abandoned and a new
// one opened), then submits. Every attempt must end not approved.
//
// Before the photometric challenge (issue 24, section 2) this forger was
// approved: the "photographed look" forgery (guilloche, 3% perspective
// warp, noise, JPEG) posted into a document camera session passes every
// document authenticity signal, and the liveness session answered from
// the footage library passed its movement and continuity checks (frames
// enlarged 2x with noise; move_closer answered by zooming the straight
// frame): approved, "All checks passed.", risk 15. Now each step also
// asks for a screen colour; the footage shows none, and the forger's
// tint of the whole frame moves the background as much as the face, so
// every session fails LIVENESS_LIGHT_MISMATCH, the selfie falls back to
// an upload, and the request goes to review (SELFIE_NOT_LIVE,
// LIVENESS_LIGHT_MISMATCH beside the document findings).
//
// All ten recipes take long (a server per attempt: about 18 minutes on
// two loaded cores), so by default, and in CI, only the recipe that was
// once approved runs; KYCD_ATTACK_FORGER=1 runs all ten, and
// ATTACK_FOCUS picks recipes by a part of their name.
func TestAttackLaptopForger(t *testing.T) {
	focus := os.Getenv("ATTACK_FOCUS")
	if focus == "" && os.Getenv("KYCD_ATTACK_FORGER") != "1" {
		focus = "guilloche, warp + noise + JPEG (photographed look)"
	}
	if testing.Short() {
		t.Skip("runs kycd serve with the face and MRZ models")
	}
	ocrb, err := os.ReadFile(filepath.Join("..", "tools", "mrztrain", "font", "ocrb-mrz.ttf"))
	if err != nil {
		t.Fatal(err)
	}
	// Each attempt gets its own database and server, so that no attempt
	// is caught as a duplicate of the one before (a forger varies them).
	setup := func(t *testing.T) (*proc, string) { return serveLiveWithLists(t, "attacker") }

	// The portrait is a frame the liveness answers never use, so that it
	// is not the selfie's own photograph.
	portrait := liveImage(t, "live_p1_08_frontal")
	john := func(n string) forgery.Person {
		return forgery.Person{Surname: "SMITH", Given: "JOHN", Number: n, State: "GBR", Birth: "850303", Expiry: "310415", Sex: "M"}
	}
	draw := func(f mrz.Format, n, layout, bg string, ttf []byte, seed uint64) image.Image {
		img, err := forgery.Draw(forgery.Spec{Format: f, Person: john(n), Face: portrait, Layout: layout, Background: bg, Title: "PASSPORT",
			TitleFont: ttf, OCRB: ocrb, Scale: 14, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	photographed := func(img image.Image, seed uint64) image.Image {
		return forgery.JPEG(forgery.Noise(forgery.Warp(img, 0.03, seed), 2, seed), 90)
	}
	attacks := []struct {
		name, number, docType string
		doc                   image.Image
	}{
		{"issue recipe: flat beige, sans title, TD3", "533401381", "passport", draw(mrz.TD3, "533401381", "icao", "flat", goregular.TTF, 21)},
		{"flat + noise + JPEG", "533401382", "passport", forgery.JPEG(forgery.Noise(draw(mrz.TD3, "533401382", "icao", "flat", goregular.TTF, 22), 3, 22), 88)},
		{"guilloche, warp + noise + JPEG (photographed look)", "533401383", "passport", photographed(draw(mrz.TD3, "533401383", "icao", "guilloche", gobold.TTF, 23), 23)},
		{"gradient, warp + noise + JPEG", "533401384", "passport", photographed(draw(mrz.TD3, "533401384", "icao", "gradient", goregular.TTF, 24), 24)},
		{"guilloche photographed look, second forger", "533401387", "passport", photographed(draw(mrz.TD3, "533401387", "icao", "guilloche", gobold.TTF, 27), 27)},
		{"guilloche photographed look, third forger", "533401388", "passport", photographed(draw(mrz.TD3, "533401388", "icao", "guilloche", goregular.TTF, 28), 28)},
		{"guilloche photographed look, fourth forger", "533401389", "passport", photographed(draw(mrz.TD3, "533401389", "icao", "guilloche", gobold.TTF, 29), 29)},
		{"guilloche photographed look, fifth forger", "533401390", "passport", photographed(draw(mrz.TD3, "533401390", "icao", "guilloche", gobold.TTF, 31), 31)},
		{"TD2 card, guilloche, photographed look", "533401385", "id_card", photographed(draw(mrz.TD2, "533401385", "icao", "guilloche", gobold.TTF, 25), 25)},
		{"printed in halftone and photographed", "533401386", "passport", forgery.JPEG(forgery.Noise(forgery.Warp(forgery.Halftone(draw(mrz.TD3, "533401386", "icao", "gradient", goregular.TTF, 26), 5), 0.03, 26), 2, 26), 90)},
	}
	approved := 0
	for _, a := range attacks {
		if focus != "" && !strings.Contains(a.name, focus) {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			p, key := setup(t)
			status, created := post(t, p.addr, key, "/v1/kyc-requests", `{"applicant":{"firstName":"John","lastName":"Smith","dob":"1985-03-03","country":"GB"}}`)
			if status != 201 {
				t.Fatalf("create: %d %v", status, created)
			}
			id := created["id"].(string)
			u := created["portalUrl"].(string)
			portal := "http://" + p.addr + "/portal/" + u[strings.LastIndex(u, "/")+1:]

			// The liveness session, answered from the footage library.
			passed := false
			for try := 1; try <= 8 && !passed; try++ {
				status, open := portalPost(t, portal+"/liveness", nil, nil)
				if status != 201 {
					t.Logf("open liveness session %d: %d %v", try, status, open)
					break
				}
				var moves []string
				code, v := pacedSession(t, portal, open, func(step int, move, light string) ([][]byte, bool) {
					moves = append(moves, move)
					frames := library(t, move)
					if frames == nil {
						return nil, false
					}
					// The forger reads the screen colour the server revealed
					// and relights the step's second frame with it, all over,
					// as an image editor does (no tool here relights only
					// the face, in time).
					if r, g, b, ok := liveness.Light(light).RGB(); ok && light != string(liveness.Neutral) {
						frames[1] = relight.Tint(frames[1], r, g, b, 0.5)
					}
					time.Sleep(1500 * time.Millisecond) // as slow as a person
					var out [][]byte
					for _, f := range frames {
						var buf bytes.Buffer
						if err := jpeg.Encode(&buf, f, &jpeg.Options{Quality: 85}); err != nil {
							t.Fatal(err)
						}
						out = append(out, buf.Bytes())
					}
					return out, true
				})
				if v == nil {
					t.Logf("session %d %v: abandoned (no footage for the move)", try, moves)
					continue
				}
				var codes []string
				if fs, ok := v["failed"].([]any); ok {
					for _, f := range fs {
						codes = append(codes, f.(map[string]any)["code"].(string))
						t.Logf("  failed %v: %v", f.(map[string]any)["code"], f.(map[string]any)["detail"])
					}
				}
				passed = v["passed"] == true
				t.Logf("session %d %v: %d passed %v failed %v", try, moves, code, v["passed"], codes)
			}

			code, body := send(t, "POST", portal+"/document-session", "application/json", strings.NewReader(`{}`))
			var sess struct{ ID, Nonce string }
			if code != 201 || json.Unmarshal([]byte(body), &sess) != nil {
				t.Fatalf("open document session: %d %s", code, body)
			}
			upload(t, portal, map[string]string{"kind": "document", "side": "front", "documentType": a.docType, "country": "GB", "method": "camera",
				"sessionId": sess.ID, "nonce": sess.Nonce}, forgery.Encode(a.doc, 92))
			if a.docType == "id_card" {
				// The card's back: the same drawing, in the same session.
				upload(t, portal, map[string]string{"kind": "document", "side": "back", "documentType": a.docType, "country": "GB", "method": "camera",
					"sessionId": sess.ID, "nonce": sess.Nonce}, forgery.Encode(a.doc, 91))
			}
			if !passed {
				// The forger falls back to an uploaded selfie claiming camera.
				var buf bytes.Buffer
				jpeg.Encode(&buf, library(t, "look_straight")[0], &jpeg.Options{Quality: 90})
				upload(t, portal, map[string]string{"kind": "selfie", "method": "camera"}, buf.Bytes())
			}
			typed := `{"documentType":"` + a.docType + `","issuingCountry":"GB","documentNumber":"` + a.number + `","expiryDate":"2031-04-15"}`
			if code, body := send(t, "POST", portal+"/document", "application/json", strings.NewReader(typed)); code != 200 {
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
				t.Logf("  reason %v: %v", r.(map[string]any)["code"], r.(map[string]any)["message"])
			}
			t.Logf("RESULT %s | liveness passed %v | %v | risk %v | %v | reasons %v", a.name, passed, got["status"], pr["riskScore"], got["decisionReason"], codes)
			// The layer that stops it: every session's face missed the
			// screen colours, named among the reasons.
			if !passed && !slices.Contains(codes, "LIVENESS_LIGHT_MISMATCH") {
				t.Errorf("reasons %v do not name LIVENESS_LIGHT_MISMATCH", codes)
			}
			if got["status"] == "approved" {
				approved++
				t.Errorf("APPROVED a forged identity: %v", got["decisionReason"])
			}
		})
	}
	t.Logf("%d of %d forgeries approved", approved, len(attacks))
}

// library is the forger's index of the public head-movement footage of
// one person (p1): two distinct frames of the asked pose where it has
// them, else a frame and a noisy copy; nil for a move it lacks.
func library(t *testing.T, move string) []image.Image {
	frames := libraryFrames(t, move)
	// The footage is 268 px high: twice that, as a laptop camera's frame,
	// so that the selfie is not too small to count.
	for i, f := range frames {
		b := f.Bounds()
		big := image.NewRGBA(image.Rect(0, 0, 2*b.Dx(), 2*b.Dy()))
		xdraw.CatmullRom.Scale(big, big.Bounds(), f, b, xdraw.Src, nil)
		// Sensor-like noise, so that the enlarged frame is not too soft.
		frames[i] = withNoise(big, uint64(40+i))
	}
	return frames
}

// libraryFrames answers move from the footage at its own size.
func libraryFrames(t *testing.T, move string) []image.Image {
	switch move {
	case "look_straight":
		f := liveImage(t, "live_p1_03_frontal")
		return []image.Image{f, withNoise(f, 7)}
	case "turn_left":
		// live_p1_02_left shows no face the detector finds.
		f := liveImage(t, "live_p1_05_left")
		return []image.Image{f, withNoise(f, 6)}
	case "turn_right":
		return []image.Image{liveImage(t, "live_p1_01_right"), liveImage(t, "live_p1_04_right")}
	case "look_up":
		// live_p1_06_up was taken for a different person in one run; tried anyway (a failed session costs as much as an abandoned one).
		if os.Getenv("ATTACK_NO_LOOK_UP") != "" {
			return nil
		}
		f := liveImage(t, "live_p1_06_up")
		return []image.Image{f, withNoise(f, 8)}
	case "look_down":
		f := liveImage(t, "live_p1_07_down")
		return []image.Image{f, withNoise(f, 9)}
	}
	if os.Getenv("ATTACK_NO_ZOOM") == "" {
		f := liveImage(t, "live_p1_03_frontal")
		return []image.Image{zoomed(f, 1.35), withNoise(zoomed(f, 1.4), 10)}
	}
	return nil
}
