package console

import (
	"net/http"
	"time"

	"kycd/aml"
	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

// The watch lists page: what every organization of the installation
// screens against, installation admins only (PermInstallation). It reads
// the store; imports and "update now" go through aml, which audits them
// with the user.

type listsPage struct {
	Versions []versionRow
	All      bool     // superseded versions too (?all=1)
	Missing  []string // list kinds without any active list
	Lost     []string // kinds that had a list and have none (aml.Service.LostKinds)
	Updates  *aml.UpdateStatus
	Imports  []importRow // recent browser imports, newest first
	Running  *importRow  // the import running now, if any
	Form     listForm    // the import form's values after an error
	Kinds    []screening.Kind
	Formats  []string
	MaxMiB   int64 // the upload limit
	MaxBytes int64
	Off      bool // uploads refused (serve --list-upload-max 0)
	Now      time.Time
}

// versionRow is a list version and who imported it.
type versionRow struct {
	*store.ListVersion
	By string // from the audit row watch_list.imported; "" when unknown
}

// importRow is a browser import with its state as people should see it
// (a running row whose instance died is interrupted).
type importRow struct {
	*store.ListImport
	Shown string
	By    string
}

type listForm struct {
	Source, Kind, Format, Provider string
	Force, AllowShrink             bool
}

// recentImports is how many browser imports the page lists.
const recentImports = 10

// handleLists handles "GET /console/lists": the active versions (every
// version with ?all=1), the kinds without a list, the automatic updates,
// recent browser imports, and the import form.
func (c *console) handleLists(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	all := r.URL.Query().Get("all") == "1"
	versions, err := c.store.FindListVersions(ctx, !all)
	if err != nil {
		return err
	}
	d := listsPage{All: all, Kinds: screening.Kinds, Formats: aml.Formats, MaxBytes: c.uploadMax, MaxMiB: c.uploadMax >> 20,
		Off: c.uploadMax < 0, Now: c.now()}
	names := map[string]string{} // user id → how the page names them
	has := map[string]bool{}
	for _, v := range versions {
		row := versionRow{ListVersion: v}
		if rows, err := c.store.FindAudit(ctx, v.ID); err == nil {
			for _, a := range rows {
				if a.Action == "watch_list.imported" {
					row.By = c.actorName(r, a.ActorType, a.ActorID, names)
				}
			}
		}
		d.Versions = append(d.Versions, row)
		if v.Active {
			has[v.Kind] = true
		}
	}
	if all { // the kinds come from the active versions only
		active, err := c.store.FindListVersions(ctx, true)
		if err != nil {
			return err
		}
		has = map[string]bool{}
		for _, v := range active {
			has[v.Kind] = true
		}
	}
	for _, k := range screening.Kinds {
		if !has[string(k)] {
			d.Missing = append(d.Missing, human(k))
		}
	}
	for _, k := range c.aml.LostKinds() {
		d.Lost = append(d.Lost, human(k))
	}
	if d.Updates, err = aml.ListUpdateStatus(ctx, c.store); err != nil {
		return err
	}
	imports, err := c.store.FindListImports(ctx, recentImports)
	if err != nil {
		return err
	}
	for _, li := range imports {
		row := importRow{ListImport: li, Shown: li.StateAt(d.Now), By: c.actorName(r, kyc.ActorUser, &li.ActorID, names)}
		d.Imports = append(d.Imports, row)
		if row.Shown == store.ListImportRunning {
			d.Running = &row
		}
	}
	d.Form = listForm{Kind: string(screening.Sanctions), Format: "csv"}
	if formError(r) != nil {
		d.Form = listForm{Source: r.PostFormValue("source"), Kind: r.PostFormValue("kind"), Format: r.PostFormValue("format"),
			Provider: r.PostFormValue("provider"), Force: r.PostFormValue("force") != "", AllowShrink: r.PostFormValue("allow_shrink") != ""}
	}
	return c.render(w, r, http.StatusOK, "lists.html", &page{Title: "Watch lists", Section: "lists", Data: d})
}

// actorName names who did something: a user by name and e-mail (whatever
// their organization: the lists are the installation's), the operator at
// the command line, or the automatic update.
func (c *console) actorName(r *http.Request, t kyc.ActorType, id *string, cache map[string]string) string {
	switch {
	case t == kyc.ActorOperator:
		return "the operator, at the command line"
	case t == kyc.ActorSystem:
		return "the automatic update"
	case t != kyc.ActorUser || id == nil || *id == "":
		return ""
	}
	if n, ok := cache[*id]; ok {
		return n
	}
	n := *id
	if u, err := c.store.FindUserByID(r.Context(), *id); err == nil {
		n = u.Name + " (" + u.Email + ")"
	}
	cache[*id] = n
	return n
}

// handleListsUpdate handles "POST /console/lists/update": one extra run of
// the automatic update (serve --update-lists), due now.
func (c *console) handleListsUpdate(w http.ResponseWriter, r *http.Request) error {
	if err := aml.RequestListUpdate(r.Context(), c.store); err != nil {
		return err
	}
	return redirect(w, r, "/console/lists", "update-queued")
}
