package store_test

import (
	"errors"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// TestListImports: one import runs at a time in the installation; its
// progress and end are recorded; a running row whose heartbeat is older
// than 30 s counts as interrupted, lets a new import start, and the old
// runner learns that its row was taken.
func TestListImports(t *testing.T) {
	st := storetest.Open(t)
	clock := &storetest.Clock{}
	st.Now = clock.Now
	org := storetest.MustOrg(t, st, "alpha", nil)
	var u *kyc.User
	if err := st.InTx(t.Context(), func(tx *store.Tx) (err error) {
		u, err = tx.CreateUser(org.ID, "ada@alpha.example", "Ada", kyc.RoleAdmin)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	create := func(source string) (*store.ListImport, error) {
		li := &store.ListImport{Source: source, Kind: "sanctions", Format: "csv", ActorID: u.ID, Total: 30,
			Files: []store.ListImportFile{{Name: "list.csv", Size: 30}}}
		err := st.InTx(t.Context(), func(tx *store.Tx) error { return tx.CreateListImport(li) })
		return li, err
	}
	a, err := create("vendor-a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := create("vendor-b"); kyc.ErrorCode(err) != kyc.EConflict {
		t.Fatalf("second import while one runs: %v, want CONFLICT", err)
	}
	clock.Advance(time.Second)
	p := store.ListImportProgress{Phase: "importing", Bytes: 20, Total: 30, Entities: 10000}
	if err := st.UpdateListImportProgress(t.Context(), a.ID, p); err != nil {
		t.Fatal(err)
	}
	got, err := st.FindListImport(t.Context(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != store.ListImportRunning || got.Phase != "importing" || got.Bytes != 20 || got.Entities != 10000 ||
		!got.UpdatedAt.Equal(clock.Now()) || got.ActorID != u.ID || len(got.Files) != 1 || got.Files[0].Name != "list.csv" {
		t.Fatalf("after progress: %+v", got)
	}
	if s := got.StateAt(clock.Now().Add(store.ListImportStale)); s != store.ListImportRunning {
		t.Errorf("30 s after the heartbeat: %s, want running", s)
	}
	// The instance running it dies: 31 s without a heartbeat.
	clock.Advance(31 * time.Second)
	if s := got.StateAt(clock.Now()); s != store.ListImportInterrupted {
		t.Errorf("31 s after the heartbeat: %s, want interrupted", s)
	}
	b, err := create("vendor-b")
	if err != nil {
		t.Fatalf("an import after a stale one: %v", err)
	}
	if got, _ := st.FindListImport(t.Context(), a.ID); got.State != store.ListImportInterrupted || got.Error == "" || got.FinishedAt == nil {
		t.Errorf("the stale import: %+v", got)
	}
	if err := st.UpdateListImportProgress(t.Context(), a.ID, p); !errors.Is(err, store.ErrListImportTaken) {
		t.Errorf("progress of the taken import: %v, want ErrListImportTaken", err)
	}
	// b ends with a new version; then another can start.
	v := &store.ListVersion{Source: "vendor-b", Kind: "sanctions", Format: "csv", Provider: "vendor-b", SHA256: "ab"}
	if err := st.InTx(t.Context(), func(tx *store.Tx) error {
		if err := tx.BeginListImport(v); err != nil {
			return err
		}
		_, err := tx.CompleteListImport(v, 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	done := store.ListImportProgress{Phase: "done", Bytes: 30, Total: 30, Entities: 3}
	if err := st.FinishListImport(t.Context(), b.ID, store.ListImportImported, v.ID, "", done); err != nil {
		t.Fatal(err)
	}
	if _, err := create("vendor-c"); err != nil {
		t.Fatalf("an import after a finished one: %v", err)
	}
	list, err := st.FindListImports(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].Source != "vendor-c" || list[1].State != store.ListImportImported || list[1].VersionID != v.ID ||
		list[1].Entities != 3 || list[1].FinishedAt == nil || list[2].State != store.ListImportInterrupted {
		t.Errorf("imports, newest first: %+v %+v %+v", list[0], list[1], list[2])
	}
	if _, err := st.FindListImport(t.Context(), "lim_nope"); kyc.ErrorCode(err) != kyc.ENotFound {
		t.Errorf("unknown import: %v", err)
	}
	rows, err := st.FindAudit(t.Context(), b.ID)
	if err != nil || len(rows) != 1 || rows[0].Action != "watch_list.import_started" {
		t.Errorf("audit of the import: %+v %v", rows, err)
	}
}

// TestInstallationAdmin: only an admin can have the flag; a user made
// anything but admin loses it, and does not get it back by becoming an
// admin again.
func TestInstallationAdmin(t *testing.T) {
	st := storetest.Open(t)
	org := storetest.MustOrg(t, st, "alpha", nil)
	var admin, reviewer *kyc.User
	if err := st.InTx(t.Context(), func(tx *store.Tx) (err error) {
		if admin, err = tx.CreateUser(org.ID, "ada@alpha.example", "Ada", kyc.RoleAdmin); err != nil {
			return err
		}
		reviewer, err = tx.CreateUser(org.ID, "rev@alpha.example", "Rev", kyc.RoleReviewer)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	set := func(id string, on bool) error {
		return st.InTx(t.Context(), func(tx *store.Tx) error { _, err := tx.SetInstallationAdmin(org.ID, id, on); return err })
	}
	if err := set(reviewer.ID, true); kyc.ErrorCode(err) != kyc.EUnprocessable {
		t.Errorf("a reviewer made installation admin: %v", err)
	}
	if err := set(admin.ID, true); err != nil {
		t.Fatal(err)
	}
	if u, err := st.FindUserByID(t.Context(), admin.ID); err != nil || !u.InstallationAdmin || !u.Can(kyc.PermInstallation) {
		t.Fatalf("after the grant: %+v %v", u, err)
	}
	role := kyc.RoleReviewer
	if err := st.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := tx.UpdateUser(org.ID, admin.ID, store.UserUpdate{Role: &role})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	role = kyc.RoleAdmin
	if err := st.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := tx.UpdateUser(org.ID, admin.ID, store.UserUpdate{Role: &role})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if u, _ := st.FindUser(t.Context(), org.ID, admin.ID); u.InstallationAdmin {
		t.Errorf("demoted and promoted again, still installation admin")
	}
	if _, err := st.FindUserByID(t.Context(), "usr_nope"); kyc.ErrorCode(err) != kyc.ENotFound {
		t.Errorf("unknown user: %v", err)
	}
}
