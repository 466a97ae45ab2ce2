package cmd_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// pacedSession answers a camera session step by step, as the page (or a
// script) must: answer gives the frames (JPEG) for each step's movement
// and screen colour (light, which a page shows from the step's second
// frame on), revealed by the server only after the previous step's
// frames arrived,
// or ok false to abandon the session. Then every frame goes with every
// receipt. It returns the final answer's status and body (nil when
// abandoned).
func pacedSession(t *testing.T, portal string, open map[string]any, answer func(step int, move, light string) ([][]byte, bool)) (int, map[string]any) {
	t.Helper()
	url := portal + "/liveness/" + open["id"].(string)
	nonce := open["nonce"].(string)
	move := open["move"].(string)
	light, _ := open["light"].(string)
	var all [][][]byte
	var receipts []string
	for step := 0; move != ""; step++ {
		frames, ok := answer(step, move, light)
		if !ok {
			return 0, nil
		}
		fields := [][2]string{{"nonce", nonce}, {"steps", strings.TrimSuffix(strings.Repeat(strconv.Itoa(step)+",", len(frames)), ",")}}
		if step > 0 {
			fields = append(fields, [2]string{"receipt", receipts[step-1]})
		}
		code, a := postMultipart(t, url+"/step", fields, frames)
		if code != 200 {
			t.Fatalf("step %d (%s): %d %v", step, move, code, a)
		}
		receipts = append(receipts, a["receipt"].(string))
		move, _ = a["move"].(string)
		light, _ = a["light"].(string)
		all = append(all, frames)
	}
	var steps []string
	var frames [][]byte
	for s, fs := range all {
		for _, f := range fs {
			steps = append(steps, strconv.Itoa(s))
			frames = append(frames, f)
		}
	}
	return postMultipart(t, url, [][2]string{{"nonce", nonce}, {"steps", strings.Join(steps, ",")}, {"receipts", strings.Join(receipts, ",")}}, frames)
}

// postMultipart posts fields and frames (parts named frame) to url.
func postMultipart(t *testing.T, url string, fields [][2]string, frames [][]byte) (int, map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		w.WriteField(f[0], f[1])
	}
	for i, f := range frames {
		part, _ := w.CreateFormFile("frame", "frame"+strconv.Itoa(i)+".jpg")
		part.Write(f)
	}
	w.Close()
	res, err := http.Post(url, w.FormDataContentType(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
		t.Fatalf("%s: %d: %v", url, res.StatusCode, err)
	}
	return res.StatusCode, m
}
