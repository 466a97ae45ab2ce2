package portal_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	xdraw "golang.org/x/image/draw"

	"kycd/kyc"
	"kycd/liveness"
)

// TestBrowserLivenessLight is the genuine path of the photometric
// challenge in Chromium. The page's camera is replaced (getUserMedia
// returns a canvas.captureStream()) by a renderer the test injects: it
// paints the shared frame of p1 that shows the movement the page asks
// for (its arrow), and relights the face in it, as a screen adding half
// the room's light would (internal/relight's rule, in JavaScript), by the
// colour the page shows around the camera view at that moment. The page
// runs the paced session as for an applicant: white for each step's
// first frame, the server's colour for the second. A challenge asking
// for a movement the footage lacks (look up) fails and the page offers a
// retry; the test retries until a session passes, and checks that its
// light check passed with the colours the server asked and the page
// reported.
//
// What it proves: the page shows the colours the server draws, at the
// moment it takes the frames, and the server's check sees them on a face
// lit by them and passes the session. What it does not: that a real
// camera in a real room sees the same (daylight, phones' auto exposure,
// screens' brightness); docs/decisions.md says so.
func TestBrowserLivenessLight(t *testing.T) {
	frames := map[string][]fakeFrame{}
	add := func(move string, img image.Image) {
		o, err := liveness.Observe(img, 0)
		if err != nil || o.Face == nil {
			t.Fatalf("%s: no face (%v)", move, err)
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		b := o.Face.Box
		frames[move] = append(frames[move], fakeFrame{PNG: base64.StdEncoding.EncodeToString(buf.Bytes()), Box: [4]float64{b.X, b.Y, b.W, b.H}})
	}
	straight := readImage(t, "images/liveness/live_p1_03_frontal.jpg")
	add("look_straight", straight)
	add("turn_left", readImage(t, "images/liveness/live_p1_05_left.jpg"))
	add("turn_right", readImage(t, "images/liveness/live_p1_01_right.jpg"))
	add("turn_right", readImage(t, "images/liveness/live_p1_04_right.jpg"))
	add("look_down", readImage(t, "images/liveness/live_p1_07_down.jpg"))
	// Closer: the straight frame enlarged 1.35 times about its centre.
	b := straight.Bounds()
	closer := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	src := image.Rect(int(float64(b.Dx())*0.13), int(float64(b.Dy())*0.13), int(float64(b.Dx())*0.87), int(float64(b.Dy())*0.87))
	xdraw.CatmullRom.Scale(closer, closer.Bounds(), straight, src.Add(b.Min), xdraw.Src, nil)
	add("move_closer", closer)
	js, err := json.Marshal(frames)
	if err != nil {
		t.Fatal(err)
	}

	s := newStack(t)
	// Up to 40 sessions of about 8 s each here, and a document flow per
	// request: 15 minutes is the worst case, not the usual (a few sessions).
	tb := newTabFor(t, 15*time.Minute, 390, true)
	if _, err := chromedp.Call(tb.ctx, page.AddScriptToEvaluateOnNewDocument,
		page.AddScriptToEvaluateOnNewDocumentParams{Source: strings.Replace(fakeLitCamera, "FRAMES", string(js), 1)}); err != nil {
		t.Fatal(err)
	}
	// Up to eight requests of five sessions each: the challenge is random.
	// Of the 76, 38 ask to look up and 3 to turn left twice (the footage
	// has neither: they always fail), 24 turn left once (p1's left frame
	// is 0.61 from his straight one under some colours, past 0.60) and 11
	// neither. Measured in 12 runs here: 12 of 35 sessions passed (turn
	// left once: 10 of 13; neither: 2 of 2; one also failed on two
	// identical frames from the fake camera), p about 0.35: 20 sessions
	// all failing is about 1 in 5,500 (1 in 110 at p = 0.21, the low end
	// of what 12 of 35 allows); 40, about 3 in 10^8 (1 in 12,000 at 0.21).
	passed, sessionsRun, lightPassed := false, 0, 0
	for request := 1; request <= 8 && !passed; request++ {
		link, id := s.create(kyc.WorkflowStandard, "")
		tb.do(chromedp.Navigate(link))
		tb.waitFor(`!document.getElementById('step-welcome').hidden`)
		tb.click(`label[for=consent]`)
		tb.click(`[data-action=consent]`)
		tb.step("document")
		tb.click(`label[for=doctype-driving_licence]`)
		tb.click(`[data-action=document]`)
		tb.cameraReady("Front of your driving licence")
		tb.click(`#shoot`)
		tb.cameraReady("Back of your driving licence")
		tb.click(`#shoot`)
		tb.step("details")
		tb.do(chromedp.SendKeys(chromedp.ID("doc-number"), "DL1234567"))
		tb.typeDate("doc-expiry", time.Now().AddDate(3, 0, 0))
		tb.click(`#details-continue`)
		tb.cameraReady("Take a selfie")
		for try := 1; try <= kyc.MaxLivenessSessions && !passed; try++ {
			if try == 1 {
				tb.click(`#shoot`)
			} else {
				tb.click(`#retry`)
			}
			sessionsRun++
			if sessionsRun == 1 {
				// The screen takes a colour around the camera view.
				tb.waitFor(`!document.getElementById('screen-light').hidden &&
	  getComputedStyle(document.getElementById('screen-light')).backgroundColor !== 'rgb(255, 255, 255)'`)
				tb.shot("screen-coloured")
			}
			// The server's verdict, as stored.
			var sessions []kyc.LivenessSession
			for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(500 * time.Millisecond) {
				var err error
				if sessions, err = s.st.FindLivenessSessions(t.Context(), id); err != nil {
					t.Fatal(err)
				}
				if len(sessions) == try && (sessions[try-1].Status == kyc.LivenessPassed || sessions[try-1].Status == kyc.LivenessFailed) {
					break
				}
				if time.Now().After(deadline) {
					tb.shot("no-verdict")
					t.Fatalf("try %d: no verdict after 90 s (%d sessions)", try, len(sessions))
				}
			}
			if sessions[try-1].Status == kyc.LivenessFailed && try < kyc.MaxLivenessSessions {
				tb.waitUpTo(30*time.Second, `!document.getElementById('retry').hidden && document.getElementById('screen-light').hidden`)
			}
			last := sessions[len(sessions)-1]
			var v liveness.Verdict
			if err := json.Unmarshal(last.Verdict, &v); err != nil {
				t.Fatal(err)
			}
			var light *liveness.Check
			for i, c := range v.Checks {
				if c.Name == liveness.CheckLight {
					light = &v.Checks[i]
				}
			}
			var failed []string
			for _, c := range v.Failed() {
				failed = append(failed, c.Name+" "+c.Code+": "+c.Detail)
			}
			t.Logf("session %d %v: %s %v; light %+v", try, last.Challenge, last.Status, failed, light)
			if v.Light != nil {
				t.Logf("  asked %v, page showed %v", v.Light.Asked, v.Light.Shown)
				for _, st := range v.Light.Steps {
					t.Logf("  step %d %s: shift %.3f (face %.3f, background %.3f) cos %.2f passed %v", st.Step, st.Light, st.Shift, st.FaceShift, st.BackgroundShift, st.Cos, st.Passed)
				}
			}
			servable := !strings.Contains(strings.Join(last.Challenge, " "), "look_up") && strings.Count(strings.Join(last.Challenge, " "), "turn_left") < 2
			if servable && (light == nil || !light.Passed) {
				t.Errorf("session %d %v: the footage shows every movement, but the light check did not pass: %+v", try, last.Challenge, light)
			}
			if v.Light == nil || len(v.Light.Shown) != len(v.Light.Asked) {
				t.Errorf("session %d: the page's colours were not recorded: %+v", try, v.Light)
			} else {
				for i := range v.Light.Asked {
					if string(v.Light.Asked[i]) != v.Light.Shown[i] {
						t.Errorf("session %d step %d: asked %s, the page showed %s", try, i, v.Light.Asked[i], v.Light.Shown[i])
					}
				}
			}
			passed = last.Status == kyc.LivenessPassed
			if light != nil && light.Passed {
				lightPassed++
			}
			if passed && (light == nil || !light.Passed) {
				t.Errorf("a session passed without its light check: %+v", light)
			}
		}
	}
	t.Logf("light check passed in %d of %d sessions", lightPassed, sessionsRun)
	if !passed {
		t.Fatalf("no session passed in %d (the challenges are random; about 1 in 3 passes with this footage)", sessionsRun)
	}
	tb.noViolations()
}

// fakeFrame is one frame the fake camera can paint: a PNG and the face
// box the models found in it.
type fakeFrame struct {
	PNG string     `json:"png"`
	Box [4]float64 `json:"box"`
}

// fakeLitCamera replaces getUserMedia with a canvas stream painting the
// frame for the movement on screen, its face relit by the screen colour.
const fakeLitCamera = `(function () {
  var FR = FRAMES;
  var bitmaps = {};
  var ready = Promise.all(Object.keys(FR).map(function (k) {
    return Promise.all(FR[k].map(function (f) {
      var bin = atob(f.png), bytes = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      return createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    })).then(function (bs) { bitmaps[k] = bs; });
  }));
  var ARROWS = { '●': 'look_straight', '←': 'turn_left', '→': 'turn_right', '↑': 'look_up', '↓': 'look_down', '⤢': 'move_closer' };
  var lin = new Float32Array(256);
  for (var i = 0; i < 256; i++) lin[i] = Math.pow(i / 255, 2.2);
  var seen = {}, lastText = '';
  function current() {
    var ch = document.getElementById('challenge');
    if (!ch || ch.hidden) { seen = {}; lastText = ''; return ['look_straight', 0]; }
    var move = ARROWS[document.getElementById('challenge-arrow').textContent] || 'look_straight';
    var text = document.getElementById('challenge-count').textContent;
    if (text !== lastText) { lastText = text; seen[move] = (seen[move] || 0) + 1; }
    return [move, (seen[move] || 1) - 1];
  }
  function colour() {
    var el = document.getElementById('screen-light');
    if (!el || el.hidden) return null;
    var m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(getComputedStyle(el).backgroundColor);
    return m ? [m[1] / 255, m[2] / 255, m[3] / 255] : null;
  }
  navigator.mediaDevices.getUserMedia = function () {
    return ready.then(function () {
      var first = FR.look_straight[0];
      var canvas = document.createElement('canvas');
      canvas.width = bitmaps.look_straight[0].width;
      canvas.height = bitmaps.look_straight[0].height;
      var ctx = canvas.getContext('2d', { willReadFrequently: true });
      function paint() {
        var cur = current();
        var list = FR[cur[0]] ? cur[0] : 'look_straight'; // a movement the footage lacks: the session fails
        var k = Math.min(cur[1], bitmaps[list].length - 1);
        var f = FR[list][k];
        // A sub-pixel shift each time: no two frames are the same picture.
        ctx.drawImage(bitmaps[list][k], Math.random() * 0.6, Math.random() * 0.6);
        var c = colour();
        if (c) {
          var b = f.box, cx = b[0] + b[2] / 2, cy = b[1] + b[3] / 2 + 0.05 * b[3], rx = 0.62 * b[2], ry = 0.75 * b[3];
          var x0 = Math.max(0, Math.floor(cx - rx)), y0 = Math.max(0, Math.floor(cy - ry));
          var x1 = Math.min(canvas.width, Math.ceil(cx + rx)), y1 = Math.min(canvas.height, Math.ceil(cy + ry));
          var img = ctx.getImageData(x0, y0, x1 - x0, y1 - y0), d = img.data;
          for (var y = y0; y < y1; y++) {
            for (var x = x0; x < x1; x++) {
              var dx = (x - cx) / rx, dy = (y - cy) / ry, r = Math.sqrt(dx * dx + dy * dy);
              if (r > 1) continue;
              var w = r > 0.8 ? (1 - r) / 0.2 : 1, p = ((y - y0) * (x1 - x0) + (x - x0)) * 4;
              for (var ch = 0; ch < 3; ch++) {
                var v = lin[d[p + ch]] * (1 + w * 0.5 * c[ch]);
                d[p + ch] = Math.round(255 * Math.pow(Math.min(v, 1), 1 / 2.2));
              }
            }
          }
          ctx.putImageData(img, x0, y0);
        }
        setTimeout(paint, 50);
      }
      paint();
      return canvas.captureStream(20);
    });
  };
})();`
