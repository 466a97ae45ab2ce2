package console

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"kycd/aml"
	"kycd/kyc"
	"kycd/store"
)

// batchHeader is the header a pasted list without one gets: the columns
// in the order the upload page names them.
const batchHeader = "firstName,lastName,dob,country,externalRef\n"

// maxBatchUpload bounds an upload: the API's 10,000 subjects of about a
// hundred bytes each with room for long names.
const maxBatchUpload = 8 << 20

const batchRowsPageSize = 100

type amlBatchesPage struct {
	Batches   []*kyc.AMLBatch
	CanUpload bool
	Max       int
	Pasted    string // what a refused paste sent, to show it again
}

// handleAMLBatches handles "GET /console/{env}/aml-batches": the latest
// batch screenings and, for those who may decide, the upload form.
func (c *console) handleAMLBatches(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	list, err := c.store.RecentAMLBatches(r.Context(), sess.User.OrganizationID, env(r), 50)
	if err != nil {
		return err
	}
	d := amlBatchesPage{Batches: list, CanUpload: sess.User.Can(kyc.PermDecide), Max: kyc.MaxBatchSubjects}
	if formError(r) != nil {
		d.Pasted = r.PostFormValue("rows")
	}
	return c.render(w, r, http.StatusOK, "aml_batches.html", &page{Title: "Batch screening", Section: "aml-batches", Data: d})
}

// handleAMLBatchCreate handles "POST /console/{env}/aml-batches": a CSV
// file, or rows pasted as CSV (with or without the header), checked as
// the API checks them; rows with problems become failed rows, the others
// are screened by the aml.batch job.
func (c *console) handleAMLBatchCreate(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	r.Body = http.MaxBytesReader(w, r.Body, maxBatchUpload+64<<10)
	var data []byte
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		if err := r.ParseMultipartForm(maxBatchUpload + 64<<10); err != nil {
			return kyc.Invalid(kyc.FieldError{Field: "file", Message: fmt.Sprintf("must be at most %d MB", maxBatchUpload>>20)})
		}
		defer func() { _ = r.MultipartForm.RemoveAll() }()
		if f, _, err := r.FormFile("file"); err == nil {
			defer f.Close()
			if data, err = io.ReadAll(f); err != nil {
				return kyc.Invalid(kyc.FieldError{Field: "file", Message: "could not be read"})
			}
		} else if !errors.Is(err, http.ErrMissingFile) {
			return kyc.Invalid(kyc.FieldError{Field: "file", Message: "could not be read"})
		}
	} else if err := r.ParseForm(); err != nil {
		return kyc.Invalid(kyc.FieldError{Field: "rows", Message: fmt.Sprintf("must be at most %d MB", maxBatchUpload>>20)})
	}
	field := "file"
	if len(bytes.TrimSpace(data)) == 0 {
		field, data = "rows", []byte(r.FormValue("rows"))
		if len(bytes.TrimSpace(data)) == 0 {
			return kyc.Invalid(kyc.FieldError{Field: "rows", Message: "choose a CSV file or paste the rows"})
		}
		data = withHeader(data)
	}
	rows, err := aml.BatchRowsFromCSV(data, c.store.Now())
	if ke := kyc.AsError(err); ke != nil && ke.Code == kyc.EValidation {
		// The reader names "body" or "subjects"; here that is the field
		// the user filled in.
		for i := range ke.Details {
			ke.Details[i].Field = field
		}
		return ke
	}
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return kyc.Invalid(kyc.FieldError{Field: field, Message: "holds a header but no subject"})
	}
	monitoring := r.FormValue("monitoring") == "on"
	var b *kyc.AMLBatch
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		b, err = c.aml.CreateBatch(tx, sess.User.OrganizationID, env(r), rows, monitoring)
		return err
	}); err != nil {
		return err
	}
	return redirect(w, r, "/console/"+string(env(r))+"/aml-batches/"+b.ID, "batch")
}

// withHeader puts the default header before pasted rows that have none
// (their first line names no firstName column). Pasted lines may stop
// after any column (a person without a reference or country): each is
// padded to the header's columns. Lines that do not read as CSV are left
// for the reader to refuse, naming the line.
func withHeader(data []byte) []byte {
	first, _, _ := bytes.Cut(bytes.TrimLeft(data, "\xef\xbb\xbf \r\n"), []byte("\n"))
	key := strings.NewReplacer(" ", "", "_", "", "-", "").Replace(strings.ToLower(string(first)))
	if strings.Contains(key, "firstname") {
		return data
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return append([]byte(batchHeader), data...)
	}
	var buf bytes.Buffer
	buf.WriteString(batchHeader)
	w := csv.NewWriter(&buf)
	n := strings.Count(batchHeader, ",") + 1
	for _, rec := range recs {
		for len(rec) < n {
			rec = append(rec, "")
		}
		_ = w.Write(rec) // longer lines stay long: the reader names them
	}
	w.Flush()
	return buf.Bytes()
}

type amlBatchPage struct {
	Batch       *kyc.AMLBatch
	Rows        []kyc.AMLBatchRow
	Total       int
	Page, Pages int
	Status      string // "" (all), failed, screened, pending
	Query       url.Values
	Personal    bool
	Percent     int
}

// handleAMLBatch handles "GET /console/{env}/aml-batches/{id}": progress
// (the page reloads itself until the batch is completed), then the rows
// with their outcome or their errors.
func (c *console) handleAMLBatch(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	b, err := c.store.FindAMLBatch(r.Context(), sess.User.OrganizationID, env(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	q := r.URL.Query()
	d := &amlBatchPage{Batch: b, Page: 1, Query: q, Personal: sess.User.Can(kyc.PermPersonalData)}
	switch st := q.Get("status"); st {
	case "failed", "screened", "pending":
		d.Status = st
	}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 1 && n < 100000 {
		d.Page = n
	}
	if d.Rows, d.Total, err = c.store.FindBatchRows(r.Context(), b.ID, kyc.AMLBatchRowStatus(d.Status), d.Page, batchRowsPageSize); err != nil {
		return err
	}
	d.Pages = max(1, (d.Total+batchRowsPageSize-1)/batchRowsPageSize)
	if b.Total > 0 {
		d.Percent = (b.Screened + b.Failed) * 100 / b.Total
	}
	return c.render(w, r, http.StatusOK, "aml_batch.html", &page{Title: "Batch " + b.ID, Section: "aml-batches", Data: d,
		Refresh: b.Status != kyc.AMLBatchCompleted})
}

// handleAMLBatchExport handles "GET /console/{env}/aml-batches/{id}/export.csv":
// every row with its outcome, as a CSV safe to open in a spreadsheet.
// Within the role's rights: dates of birth and countries are columns only
// for roles that may see personal data.
func (c *console) handleAMLBatchExport(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	b, err := c.store.FindAMLBatch(r.Context(), sess.User.OrganizationID, env(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	rows, _, err := c.store.FindBatchRows(r.Context(), b.ID, "", 1, kyc.MaxBatchSubjects)
	if err != nil {
		return err
	}
	personal := sess.User.Can(kyc.PermPersonalData)
	var buf bytes.Buffer
	if err := aml.WriteBatchCSV(&buf, rows, personal); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+b.ID+`.csv"`)
	_, _ = w.Write(buf.Bytes())
	return nil
}
