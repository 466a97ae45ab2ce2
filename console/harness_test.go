package console_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/alexedwards/argon2id"
	"github.com/pquerna/otp/totp"

	"kycd/kyc"
	"kycd/seal"
	"kycd/server"
	"kycd/store"
	"kycd/store/storetest"
	"kycd/users"
	"kycd/verification"
)

// cheap keeps tests fast: argon2id with 1 MiB and one pass. The real
// parameters are exercised by TestHashParams.
var cheap = &argon2id.Params{Memory: 1024, Iterations: 1, Parallelism: 1, SaltLength: 16, KeyLength: 32}

// env is kycd with the API, the portal and the console on one real HTTP
// server and a fresh database, an organization with keys, and a clock.
type env struct {
	t      *testing.T
	st     *store.Store
	srv    *httptest.Server
	clock  *storetest.Clock
	org    storetest.Org
	users  *users.Service
	kyc    *verification.Service
	server *server.Server
	box    *seal.Box
}

func newEnv(t *testing.T, setup ...func(*env, *server.Options)) *env {
	t.Helper()
	return newEnvOn(t, storetest.DefaultEngine(), setup...)
}

// newEnvOn is newEnv on the named engine, for tests that run on both.
func newEnvOn(t *testing.T, engine string, setup ...func(*env, *server.Options)) *env {
	t.Helper()
	st := storetest.OpenOn(t, engine)
	clock := &storetest.Clock{}
	st.Now = clock.Now
	unlimited := 0
	e := &env{t: t, st: st, clock: clock, org: storetest.MustOrg(t, st, "acme", &unlimited)}
	mux := http.NewServeMux()
	e.srv = httptest.NewServer(mux)
	t.Cleanup(e.srv.Close)
	box, err := seal.New(bytes.Repeat([]byte{5}, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	e.users = users.New(users.Options{Store: st, Now: clock.Now, ConsoleURL: e.srv.URL + "/console", Params: cheap})
	e.kyc = verification.New(st, nil, e.srv.URL+"/portal", nil)
	opts := server.Options{Store: st, Now: clock.Now, Secrets: box, BaseURL: e.srv.URL, PortalURL: e.srv.URL + "/portal",
		Version: "test", Users: e.users, KYC: e.kyc}
	for _, f := range setup {
		f(e, &opts)
	}
	api, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/", api.Handler())
	e.server, e.box = api, box
	return e
}

// person is a user with their password and, when on, TOTP secret.
type person struct {
	User     *kyc.User
	Password string
	Secret   string
}

// mustUser invites a user and sets their password through the link, as a
// person does.
func (e *env) mustUser(email, name string, role kyc.Role) *person {
	e.t.Helper()
	var link string
	var u *kyc.User
	err := e.st.InTx(e.t.Context(), func(tx *store.Tx) (err error) {
		u, link, err = e.users.Invite(tx, e.org.ID, users.InviteInput{Email: email, Name: name, Role: role}, users.Actor{Type: kyc.ActorSystem, ID: "test"})
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	token := tokenOf(e.t, link)
	pw := passwordOf(email)
	if _, err := e.users.SetPassword(e.t.Context(), token, pw, pw); err != nil {
		e.t.Fatal(err)
	}
	return &person{User: u, Password: pw}
}

// passwordOf is the password mustUser sets for email.
func passwordOf(email string) string {
	return "plover quartz meadow 7391 " + strings.ToUpper(email[:1])
}

// mustInstallationAdmin is mustUser for an admin whose installation-admin
// flag the operator set (kycd users installation-admin).
func (e *env) mustInstallationAdmin(email, name string) *person {
	e.t.Helper()
	p := e.mustUser(email, name, kyc.RoleAdmin)
	if err := e.st.InTx(e.t.Context(), func(tx *store.Tx) (err error) {
		p.User, err = e.users.SetInstallationAdmin(tx, e.org.ID, p.User.ID, true, users.Actor{Type: kyc.ActorSystem, ID: "test"})
		return err
	}); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func tokenOf(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Query().Get("token") == "" {
		t.Fatalf("no token in link %q", link)
	}
	return u.Query().Get("token")
}

// browser is a client with a cookie jar that does not follow redirects,
// so that tests see them.
type browser struct {
	t      *testing.T
	e      *env
	client *http.Client
}

func (e *env) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: e.t, e: e, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

type page struct {
	status int
	header http.Header
	body   string
}

func (b *browser) do(method, path string, form url.Values, header ...string) *page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(b.t.Context(), method, b.e.srv.URL+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return &page{status: res.StatusCode, header: res.Header, body: string(raw)}
}

func (b *browser) get(path string) *page { b.t.Helper(); return b.do("GET", path, nil) }

func (b *browser) post(path string, kv ...string) *page {
	b.t.Helper()
	f := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		f.Add(kv[i], kv[i+1])
	}
	return b.do("POST", path, f)
}

// formFile is a file part of a multipart form.
type formFile struct {
	field, name string
	data        []byte
}

// multipart posts a multipart form as a browser does: the text fields
// (name, value, …) in order, then the files.
func (b *browser) multipart(path string, fields []string, files ...formFile) *page {
	b.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for i := 0; i+1 < len(fields); i += 2 {
		if err := mw.WriteField(fields[i], fields[i+1]); err != nil {
			b.t.Fatal(err)
		}
	}
	for _, f := range files {
		w, err := mw.CreateFormFile(f.field, f.name)
		if err != nil {
			b.t.Fatal(err)
		}
		if _, err := w.Write(f.data); err != nil {
			b.t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		b.t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(b.t.Context(), "POST", b.e.srv.URL+path, &body)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return &page{status: res.StatusCode, header: res.Header, body: string(raw)}
}

// login signs p in (with their second factor when on) and fails unless it
// ends on a full session.
func (b *browser) login(p *person) {
	b.t.Helper()
	res := b.post("/console/login", "email", p.User.Email, "password", p.Password)
	if res.status != http.StatusSeeOther {
		b.t.Fatalf("login %s: %d %s", p.User.Email, res.status, res.body)
	}
	if strings.HasPrefix(res.header.Get("Location"), "/console/login/code") {
		code, err := totp.GenerateCode(p.Secret, b.e.clock.Now())
		if err != nil {
			b.t.Fatal(err)
		}
		if res = b.post("/console/login/code", "code", code); res.status != http.StatusSeeOther {
			b.t.Fatalf("second factor %s: %d %s", p.User.Email, res.status, res.body)
		}
	}
}

// api calls the API with the organization's key for env and decodes the
// answer, failing unless the status is want.
func (e *env) api(key, method, path string, body any, want int) map[string]any {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		e.t.Fatalf("%s %s: %d, want %d: %s", method, path, res.StatusCode, want, raw)
	}
	var m map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			e.t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return m
}

var tagRE = regexp.MustCompile(`<[^>]+>`)

// text is a page's text without tags and with runs of space as one.
func (p *page) text() string {
	return strings.Join(strings.Fields(tagRE.ReplaceAllString(p.body, " ")), " ")
}
