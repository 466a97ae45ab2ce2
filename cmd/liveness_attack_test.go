package cmd_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// replayAttack builds the frames a script sends for a challenge: for each
// step (0 is looking straight, then the moves) the frames of that step.
type replayAttack struct {
	name string
	// frames answers one step's movement, revealed by the server only
	// once the previous step's frames arrived.
	frames func(t *testing.T, step int, move string) []image.Image
	// want are the liveness check codes one of which must have refused it.
	want []string
	// detail, when set, must be in the failed checks' details (the
	// session's evidence through the API).
	detail string
}

// TestLivenessReplayAttacksThroughServe runs issue 24's replays of public
// footage through kycd serve and the portal's own endpoints, in live with
// the default policy and lists loaded: the shared head-movement frames as
// they are (one a step), the same with the missing turn faked by
// mirroring the other (two frames a step, the second with sensor-like
// noise so it is no exact copy), and a still photo warped to fake the
// turns (two warps a step). Every session must fail; then the script
// uploads the frame as a selfie claiming a camera capture, with a
// document, and submits: the request must not be approved, and its
// reasons must name the liveness findings.
func TestLivenessReplayAttacksThroughServe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kycd serve with the face models")
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
	key := must("keys", "create", "--db", db, "--org", org, "--env", "live", "--rpm", "0", "--name", "attacks")
	must("lists", "import", "--db", db, "--source", "un", "--kind", "sanctions", "--format", "un-xml", sharedData(t, "lists/un_consolidated_2026-02-27.xml"))
	p := startServe(t, db)

	still := liveImage(t, "live_p2_01_frontal")
	attacks := []replayAttack{
		{"the footage as it is, one frame a step", func(t *testing.T, step int, move string) []image.Image {
			if step == 0 {
				return []image.Image{liveImage(t, "live_p1_03_frontal")}
			}
			return []image.Image{poseFrame(t, move)}
		}, []string{"LIVENESS_DISCONTINUOUS"}, "the page records"},
		{"the other turn mirrored", func(t *testing.T, step int, move string) []image.Image {
			f := liveImage(t, "live_p1_03_frontal")
			switch move {
			case "look_straight":
			case "turn_left":
				f = mirrored(liveImage(t, "live_p1_01_right"))
			case "turn_right":
				f = mirrored(liveImage(t, "live_p1_05_left"))
			default:
				f = poseFrame(t, move)
			}
			return twice(f, uint64(step+1))
		}, []string{"LIVENESS_DISCONTINUOUS"}, "mirrored"},
		{"a still photo warped to fake the turns", func(t *testing.T, step int, move string) []image.Image {
			if step == 0 {
				return []image.Image{still, withNoise(still, 1)}
			}
			return []image.Image{warped(still, move, 0.6), warped(still, move, 1)}
		}, []string{"LIVENESS_MOVEMENT_NOT_SEEN", "LIVENESS_DUPLICATE_FRAMES", "LIVENESS_DIFFERENT_PEOPLE", "LIVENESS_NO_FACE"}, ""},
	}

	status, created := post(t, p.addr, key, "/v1/kyc-requests", `{"applicant":{"firstName":"Anna Maria","lastName":"Eriksson","dob":"1974-08-12","country":"SE"}}`)
	if status != 201 {
		t.Fatalf("create: %d %v", status, created)
	}
	id := created["id"].(string)
	u := created["portalUrl"].(string)
	portal := "http://" + p.addr + "/portal/" + u[strings.LastIndex(u, "/")+1:]
	refused := map[string]int{}
	for _, a := range attacks {
		status, open := portalPost(t, portal+"/liveness", nil, nil)
		if status != 201 {
			t.Fatalf("open: %d %v", status, open)
		}
		var moves []string
		code, v := pacedSession(t, portal, open, func(step int, move, _ string) ([][]byte, bool) {
			moves = append(moves, move)
			time.Sleep(450 * time.Millisecond) // faster than a person is refused on its own
			var out [][]byte
			for _, f := range a.frames(t, step, move) {
				var buf bytes.Buffer
				if err := jpeg.Encode(&buf, f, &jpeg.Options{Quality: 85}); err != nil {
					t.Fatal(err)
				}
				out = append(out, buf.Bytes())
			}
			return out, true
		})
		var codes []string
		for _, f := range v["failed"].([]any) {
			codes = append(codes, f.(map[string]any)["code"].(string))
		}
		t.Logf("%s, challenge %v: %d passed %v, failed %v", a.name, moves, code, v["passed"], codes)
		if code != 200 || v["passed"] != false {
			t.Errorf("%s: %d passed %v", a.name, code, v["passed"])
		}
		if !slices.ContainsFunc(codes, func(c string) bool { return slices.Contains(a.want, c) }) {
			t.Errorf("%s: failed %v, want one of %v", a.name, codes, a.want)
		}
		for _, c := range codes {
			refused[c]++
		}
	}

	// Each session's evidence says what caught it.
	sessions := apiGet(t, p.addr, key, "/v1/kyc-requests/"+id+"/selfies")["livenessSessions"].([]any)
	if len(sessions) != len(attacks) {
		t.Fatalf("%d sessions", len(sessions))
	}
	for i, a := range attacks {
		var details []string
		for _, c := range sessions[i].(map[string]any)["verdict"].(map[string]any)["checks"].([]any) {
			if c := c.(map[string]any); c["passed"] == false {
				details = append(details, c["detail"].(string))
			}
		}
		t.Logf("%s: %s", a.name, strings.Join(details, " | "))
		if !strings.Contains(strings.Join(details, " "), a.detail) {
			t.Errorf("%s: no failed check says %q", a.name, a.detail)
		}
	}

	// The script gives up on the camera and uploads, claiming it.
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, liveImage(t, "live_p1_03_frontal"), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	upload(t, portal, map[string]string{"kind": "selfie", "method": "camera"}, buf.Bytes())
	front := imageFile(t, "doc_td2_uto_icao_specimen.jpg", "top")
	upload(t, portal, map[string]string{"kind": "document", "side": "back", "documentType": "id_card", "country": "SE", "method": "camera"},
		imageFile(t, "doc_td2_uto_icao_specimen.jpg", "bottom"))
	upload(t, portal, map[string]string{"kind": "document", "side": "front", "documentType": "id_card", "country": "SE", "method": "camera"}, front)
	typed := `{"documentType":"id_card","issuingCountry":"SE","documentNumber":"D23145890","expiryDate":"2031-04-15"}`
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
	}
	t.Logf("decided %v (%v); reasons %v", got["status"], got["decisionReason"], codes)
	if got["status"] == "approved" {
		t.Fatalf("approved: %v", got["decisionReason"])
	}
	for _, w := range []string{"SELFIE_NOT_LIVE", "LIVENESS_DISCONTINUOUS"} {
		if !slices.Contains(codes, w) {
			t.Errorf("reasons %v lack %s", codes, w)
		}
	}
}

func liveImage(t *testing.T, name string) image.Image {
	t.Helper()
	f, err := os.Open(sharedData(t, "images/liveness/"+name+".jpg"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// poseFrame is p1's shared frame showing move (a straight frame brought
// closer for move_closer, which p1's footage lacks).
func poseFrame(t *testing.T, move string) image.Image {
	switch move {
	case "turn_left":
		return liveImage(t, "live_p1_05_left")
	case "turn_right":
		return liveImage(t, "live_p1_01_right")
	case "look_up":
		return liveImage(t, "live_p1_06_up")
	case "look_down":
		return liveImage(t, "live_p1_07_down")
	}
	return zoomed(liveImage(t, "live_p1_03_frontal"), 1.4)
}

// twice is a frame and a copy with noise, as two frames of a held pose.
func twice(img image.Image, seed uint64) []image.Image {
	return []image.Image{img, withNoise(img, seed)}
}

func withNoise(img image.Image, seed uint64) image.Image {
	r := rand.New(rand.NewPCG(seed, 24))
	return mapPixels(img, func(x, y int, c color.RGBA) color.RGBA {
		n := func(v uint8) uint8 { return uint8(min(255, max(0, int(v)+r.IntN(9)-4))) }
		return color.RGBA{n(c.R), n(c.G), n(c.B), 255}
	})
}

func mirrored(img image.Image) image.Image {
	b := img.Bounds()
	return sample(img, b.Dx(), b.Dy(), func(x, y float64) (float64, float64) { return float64(b.Dx()-1) - x, y })
}

func zoomed(img image.Image, k float64) image.Image {
	b := img.Bounds()
	cx, cy := float64(b.Dx())/2, float64(b.Dy())/2
	return sample(img, b.Dx(), b.Dy(), func(x, y float64) (float64, float64) { return cx + (x-cx)/k, cy + (y-cy)/k })
}

// warped fakes move on a flat photo: a turn squeezes one side (a card
// turned about its vertical axis), a look squeezes the top or bottom,
// closer enlarges; amount in [0, 1] scales the effect (up to a 45° turn).
func warped(img image.Image, move string, amount float64) image.Image {
	b := img.Bounds()
	w, h := float64(b.Dx()), float64(b.Dy())
	k := 1 - 0.3*amount // the far edge's scale
	switch move {
	case "turn_left", "turn_right":
		return sample(img, b.Dx(), b.Dy(), func(x, y float64) (float64, float64) {
			u := x / w
			if move == "turn_right" {
				u = 1 - u
			}
			s := 1 + (k-1)*u // 1 at the near edge, k at the far one
			return x, h/2 + (y-h/2)/s
		})
	case "look_up", "look_down":
		return sample(img, b.Dx(), b.Dy(), func(x, y float64) (float64, float64) {
			v := y / h
			if move == "look_down" {
				v = 1 - v
			}
			s := 1 + (k-1)*v
			return w/2 + (x-w/2)/s, y
		})
	}
	return zoomed(img, 1+0.4*amount)
}

// sample draws a w×h image whose pixel (x, y) is img's at from(x, y)
// (nearest neighbour; black outside).
func sample(img image.Image, w, h int, from func(x, y float64) (float64, float64)) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			sx, sy := from(float64(x), float64(y))
			ix, iy := int(math.Round(sx))+b.Min.X, int(math.Round(sy))+b.Min.Y
			if image.Pt(ix, iy).In(b) {
				out.Set(x, y, img.At(ix, iy))
			}
		}
	}
	return out
}

func mapPixels(img image.Image, f func(x, y int, c color.RGBA) color.RGBA) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		for x := range b.Dx() {
			c := color.RGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.RGBA)
			out.SetRGBA(x, y, f(x, y, c))
		}
	}
	return out
}
