package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
)

// The bench's HTTP client: the API with the organization's key, the
// portal as the applicant's page from the applicant's address.

type answer struct {
	status int
	body   []byte
}

// do sends one request; the portal's come from the applicant's address
// (ip, through the trusted proxy).
func (b *bench) do(method, url, contentType string, body io.Reader, ip string) (answer, error) {
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return answer{}, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if ip != "" {
		req.Header.Set("X-Forwarded-For", ip)
	}
	if strings.HasPrefix(url, b.base+"/v1/") {
		req.Header.Set("Authorization", "Bearer "+b.key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	return answer{res.StatusCode, data}, err
}

// post sends body and decodes the JSON answer into out unless the status
// is not want.
func (b *bench) post(p prepared, url, contentType string, body io.Reader, want int, out any) error {
	r, err := b.do("POST", url, contentType, body, p.ip)
	if err != nil {
		return err
	}
	if r.status != want {
		return fmt.Errorf("POST %s: %d %s", url, r.status, r.body)
	}
	if out != nil {
		return json.Unmarshal(r.body, out)
	}
	return nil
}

func (b *bench) api(method, path, body string, want int, out any) error {
	var rd io.Reader
	ct := ""
	if body != "" {
		rd, ct = strings.NewReader(body), "application/json"
	}
	r, err := b.do(method, b.base+path, ct, rd, "")
	if err != nil {
		return err
	}
	if r.status != want {
		return fmt.Errorf("%s %s: %d %s", method, path, r.status, r.body)
	}
	return json.Unmarshal(r.body, out)
}

// form is a multipart body of fields and files (each named file).
func form(fields [][2]string, file string, files [][]byte) (io.Reader, string) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		w.WriteField(f[0], f[1])
	}
	for i, data := range files {
		part, _ := w.CreateFormFile(file, file+strconv.Itoa(i)+".jpg")
		part.Write(data)
	}
	w.Close()
	return &buf, w.FormDataContentType()
}
