package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"kycd/kyc"
	"kycd/store"
)

// importView is a browser import as its page and its JSON show it.
type importView struct {
	*store.ListImport
	Shown     string // the state now (a running row whose instance died is interrupted)
	Done      bool
	By        string
	PhaseText string
	Detail    string
	Percent   int // -1: no measure (loading the lists)
	Summary   string
	Version   *store.ListVersion // the version made or matched
}

var phaseTexts = map[string]string{
	"checking":  "Checking the files",
	"importing": "Importing the entities",
	"loading":   "Loading the new version into screening",
	"done":      "Finished",
}

// viewImport reads an import and says where it is.
func (c *console) viewImport(r *http.Request) (*importView, error) {
	li, err := c.store.FindListImport(r.Context(), r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	v := &importView{ListImport: li, Shown: li.StateAt(c.now()), PhaseText: phaseTexts[li.Phase]}
	v.Done = v.Shown != store.ListImportRunning
	v.Percent = 0
	if li.Total > 0 {
		v.Percent = int(min(li.Bytes, li.Total) * 100 / li.Total)
	}
	if li.Phase == "loading" {
		v.Percent = -1
	}
	v.Detail = fmt.Sprintf("%s of %s read · %s entities stored", size(li.Bytes), size(li.Total), thousands(li.Entities))
	if li.VersionID != "" {
		versions, err := c.store.FindListVersions(r.Context(), false)
		if err != nil {
			return nil, err
		}
		for _, ver := range versions {
			if ver.ID == li.VersionID {
				v.Version = ver
			}
		}
	}
	switch v.Shown {
	case store.ListImportImported:
		v.Summary = fmt.Sprintf("Imported: version %s of %s, %s entities, is now active. Monitored AML checks are re-screened against it.",
			li.VersionID, li.Source, thousands(li.Entities))
	case store.ListImportUnchanged:
		v.Summary = fmt.Sprintf("Unchanged: these are the same files as version %s of %s, which stays active. To import them anyway, tick “Import even if unchanged”.",
			li.VersionID, li.Source)
	case store.ListImportFailed:
		v.Summary = "Failed: " + strings.TrimSuffix(li.Error, ".") + ". The list's previous version stays active."
	case store.ListImportInterrupted:
		msg := li.Error
		if li.State == store.ListImportRunning { // its instance died: nothing recorded it
			msg = "The kycd instance running it stopped sending progress (it was shut down or died)."
		}
		v.Summary = "Interrupted: " + msg + " The list's previous version stays active; import the files again."
	}
	return v, nil
}

// handleListImportPage handles "GET /console/lists/imports/{id}": the
// import's progress bar, then its result. Without JavaScript the page
// reloads itself every 2 s while the import runs; console.js polls the
// JSON form instead.
func (c *console) handleListImportPage(w http.ResponseWriter, r *http.Request) error {
	v, err := c.viewImport(r)
	if err != nil {
		return err
	}
	v.By = c.actorName(r, kyc.ActorUser, &v.ActorID, map[string]string{})
	return c.render(w, r, http.StatusOK, "list_import.html", &page{Title: "Import of " + v.Source, Section: "lists", Refresh: !v.Done, Data: v})
}

// importJSON is the JSON form of an import's state, polled by console.js.
type importJSON struct {
	ID        string `json:"id"`
	State     string `json:"state"`
	Done      bool   `json:"done"`
	Phase     string `json:"phase"`
	PhaseText string `json:"phaseText"`
	Bytes     int64  `json:"bytes"`
	Total     int64  `json:"total"`
	Entities  int    `json:"entities"`
	Percent   int    `json:"percent"` // -1: no measure
	Detail    string `json:"detail"`
	Summary   string `json:"summary"`
	VersionID string `json:"versionId,omitempty"`
}

// handleListImportJSON handles "GET /console/lists/imports/{id}/progress.json".
func (c *console) handleListImportJSON(w http.ResponseWriter, r *http.Request) error {
	v, err := c.viewImport(r)
	if err != nil {
		return err
	}
	body, err := json.Marshal(importJSON{ID: v.ID, State: v.Shown, Done: v.Done, Phase: v.Phase, PhaseText: v.PhaseText, Bytes: v.Bytes,
		Total: v.Total, Entities: v.Entities, Percent: v.Percent, Detail: v.Detail, Summary: v.Summary, VersionID: v.VersionID})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write(body)
	return err
}

// size shows a number of bytes in bytes, KiB or MiB (one decimal).
func size(n int64) string {
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " bytes"
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}

// thousands writes n with thousands separators: 25,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
