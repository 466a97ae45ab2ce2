package console

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"kycd/aml"
	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

// uploadTime is how long one upload may take to arrive. The server's
// read and write timeouts (60 s) suit pages, not a list of hundreds of
// megabytes on a slow line; only an installation admin's upload, after
// the guard, gets this much.
const uploadTime = time.Hour

// fieldMax bounds the text fields of the upload form: names, not data.
const fieldMax = 1024

// formSlack is what the multipart framing and the text fields may add to
// the files' bytes before the body is cut off.
const formSlack = 64 << 10

// handleListImport handles "POST /console/lists/imports": a
// multipart/form-data upload (source, kind, format, provider, force, then
// one or more file parts), streamed part by part to a new private
// directory, never held in memory. The fields are checked before any file
// is read; the files together must stay within the upload limit. Then the
// import runs in the background and the answer is 303 to its page. On any
// error nothing is kept: the directory is removed, no import is recorded.
func (c *console) handleListImport(w http.ResponseWriter, r *http.Request) error {
	// The body is read once, below; the page a failed upload comes back
	// to reads the fields from here.
	r.PostForm = url.Values{}
	if c.uploadMax < 0 {
		return kyc.Errorf(kyc.EUnprocessable, "Uploads are off on this server (kycd serve --list-upload-max 0): import the files with kycd lists import on the server.")
	}
	// Refused before the upload rather than after it.
	if recent, err := c.store.FindListImports(r.Context(), 1); err != nil {
		return err
	} else if len(recent) == 1 && recent[0].StateAt(c.now()) == store.ListImportRunning {
		return kyc.Errorf(kyc.EConflict, "Another watch-list import is running (%s, source %s); wait for it to finish: one import runs at a time, for the whole installation.",
			recent[0].ID, recent[0].Source)
	}
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(uploadTime)); err != nil {
		c.log.WarnContext(r.Context(), "list upload: cannot extend the read deadline", "err", err)
	}
	_ = rc.SetWriteDeadline(time.Now().Add(uploadTime + time.Minute))
	r.Body = http.MaxBytesReader(w, r.Body, c.uploadMax+formSlack)
	up, err := c.readUpload(r)
	if err != nil {
		if up.Dir != "" {
			os.RemoveAll(up.Dir)
		}
		return err
	}
	li, err := c.imports.Start(r.Context(), up)
	if err != nil {
		os.RemoveAll(up.Dir)
		return err
	}
	return redirect(w, r, "/console/lists/imports/"+li.ID, "")
}

// readUpload reads the form's parts in order. It returns the upload with
// its directory set as soon as one was made, also with an error.
func (c *console) readUpload(r *http.Request) (aml.ListUpload, error) {
	var up aml.ListUpload
	mr, err := r.MultipartReader()
	if err != nil {
		return up, kyc.Errorf(kyc.EValidation, "The form must be sent as multipart/form-data, with the files.")
	}
	checked := false
	check := func() error {
		checked = true
		f := r.PostForm
		up.Source, up.Kind, up.Format = strings.TrimSpace(f.Get("source")), f.Get("kind"), f.Get("format")
		up.Provider, up.Force = strings.TrimSpace(f.Get("provider")), f.Get("force") != ""
		up.AllowShrink = f.Get("allow_shrink") != ""
		errs := aml.CheckImportFields(up.Source, up.Kind, up.Format)
		if len([]rune(up.Provider)) > 100 {
			errs = append(errs, kyc.FieldError{Field: "provider", Message: "must be at most 100 characters"})
		}
		if len(errs) > 0 {
			return kyc.Invalid(errs...)
		}
		return c.confirmKindChange(r, up)
	}
	var total int64
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return up, c.uploadError(err)
		}
		if part.FormName() != "file" {
			v, err := io.ReadAll(io.LimitReader(part, fieldMax+1))
			if err != nil {
				return up, c.uploadError(err)
			}
			if len(v) > fieldMax {
				return up, kyc.Invalid(kyc.FieldError{Field: part.FormName(), Message: "is too long"})
			}
			r.PostForm.Add(part.FormName(), string(v))
			continue
		}
		if part.FileName() == "" {
			continue // the file input with nothing chosen
		}
		// The file input comes last in the form: its fields are all here,
		// and are checked before a byte of the files is stored.
		if !checked {
			if err := check(); err != nil {
				var ke *kyc.Error
				if errors.As(err, &ke) {
					// A client that sends the files first (curl -F file=@… -F source=…)
					// is told why its fields seem missing.
					ke.Message = "The form has invalid fields (they must come before the files in the form)."
				}
				return up, err
			}
		}
		// One file too many for the format: refused before it is read.
		if n := len(up.Files); n == 3 || n == 1 && up.Format != "ofac-csv" {
			return up, kyc.Invalid(aml.CheckImportFiles(up.Format, append(names(up.Files), part.FileName()))...)
		}
		if up.Dir == "" {
			if up.Dir, err = c.imports.NewUploadDir(); err != nil {
				return up, c.uploadError(err)
			}
		}
		f, err := saveUpload(up.Dir, len(up.Files), part, c.uploadMax-total)
		if err != nil {
			return up, c.uploadError(err)
		}
		total += f.Size
		up.Files = append(up.Files, f)
	}
	if !checked {
		if err := check(); err != nil {
			return up, err
		}
	}
	if errs := aml.CheckImportFiles(up.Format, names(up.Files)); len(errs) > 0 {
		return up, kyc.Invalid(errs...)
	}
	return up, nil
}

// confirmKindChange refuses, before a byte of the files is stored, an
// upload that would change its source's kind without the confirmation box
// ticked, naming the list it would replace. (A shrink of more than 20%
// can only be known once the files are counted: the import refuses it
// then, naming both counts, and the upload is sent again with the box.)
func (c *console) confirmKindChange(r *http.Request, up aml.ListUpload) error {
	if up.AllowShrink {
		return nil
	}
	active, err := c.store.FindListVersions(r.Context(), true)
	if err != nil {
		return err
	}
	for _, v := range active {
		if v.Source == up.Source && v.Kind != up.Kind {
			return kyc.Invalid(kyc.FieldError{Field: "allow_shrink", Message: fmt.Sprintf(
				"must be ticked to confirm: %s is now a %s list of %s entities, and this upload would replace it with a list of kind %s. Or import it under another source name.",
				v.Source, human(screening.Kind(v.Kind)), thousands(v.EntityCount), human(screening.Kind(up.Kind)))})
		}
	}
	return nil
}

func names(files []aml.UploadedFile) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Name
	}
	return out
}

// errTooBig is an upload over the limit.
var errTooBig = errors.New("upload over the limit")

// saveUpload writes one file part to dir/<i>/<its name> (its own folder
// keeps the name as sent: ofac-csv tells files apart by name), refusing
// more than room bytes.
func saveUpload(dir string, i int, part *multipart.Part, room int64) (aml.UploadedFile, error) {
	name := cleanFileName(part.FileName())
	sub := filepath.Join(dir, strconv.Itoa(i))
	if err := os.Mkdir(sub, 0o700); err != nil {
		return aml.UploadedFile{}, err
	}
	path := filepath.Join(sub, name)
	out, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return aml.UploadedFile{}, err
	}
	// One byte over the room is enough to know the upload is too big.
	n, err := io.Copy(out, io.LimitReader(part, room+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > room {
		err = errTooBig
	}
	return aml.UploadedFile{Path: path, Name: name, Size: n}, err
}

// cleanFileName keeps the base name a browser sent, without path parts or
// control characters, at most 200 characters.
func cleanFileName(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, `\`, "/"))
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '/' {
			return -1
		}
		return r
	}, name)
	if r := []rune(name); len(r) > 200 {
		name = string(r[len(r)-200:])
	}
	if name == "" || name == "." || name == ".." {
		return "file"
	}
	return name
}

// uploadError says what went wrong with an upload, at the file field when
// the person can do something about it.
func (c *console) uploadError(err error) error {
	var mb *http.MaxBytesError
	switch {
	case errors.Is(err, errTooBig) || errors.As(err, &mb):
		return kyc.Invalid(kyc.FieldError{Field: "file", Message: fmt.Sprintf(
			"is larger than the upload limit of %d MiB for all files together (kycd serve --list-upload-max); import bigger files with kycd lists import on the server", c.uploadMax>>20)})
	case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT):
		c.log.Error("list upload: the temporary directory's disk is full", "err", err)
		return kyc.Invalid(kyc.FieldError{Field: "file", Message: "could not be stored: the server's temporary disk is full (the operator can point TMPDIR at a bigger disk)"})
	}
	var perr *os.PathError
	if errors.As(err, &perr) {
		return fmt.Errorf("store the upload: %w", err) // the server's problem: logged, a generic page
	}
	return kyc.Invalid(kyc.FieldError{Field: "file", Message: "could not be read: the upload was cut off or malformed; try again"})
}
