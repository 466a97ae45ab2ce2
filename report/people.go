package report

import (
	"context"
	"regexp"
	"strings"

	"kycd/kyc"
	"kycd/store"
)

// Person names who acted in a report: a back-office user by display name
// and e-mail, an API key by its name and id (with the name the API caller
// sent as `reviewer`, when it sent one). Ids alone (usr_…, key_…) mean
// nothing to an auditor reading the filed report years later.
type Person struct {
	Type  string  `json:"type"`  // user or api_key
	ID    string  `json:"id"`    // usr_<ulid> or key_<ulid>
	Name  string  `json:"name"`  // the user's display name, or the name the API caller sent ("" when none)
	Email *string `json:"email"` // the user's e-mail; null for a key
	// Key is the API key's name (null for a user). A user or key that no
	// longer exists keeps its id, with Name and Email empty.
	Key *string `json:"key"`
}

// Text is how the PDF names the person: "Jane Roe <jane@bank.example>",
// "Jane (API key “Backend”, key_…)", "API key “Backend” (key_…)".
func (p *Person) Text() string {
	if p == nil {
		return none
	}
	switch p.Type {
	case "user":
		if p.Name == "" && p.Email == nil {
			return p.ID + " (no longer a user)"
		}
		s := p.Name
		if p.Email != nil {
			s += " <" + *p.Email + ">"
		}
		return strings.TrimSpace(s)
	case "api_key":
		if p.Key == nil {
			if p.Name != "" {
				return p.Name + " (API key " + p.ID + ")"
			}
			return "API key " + p.ID
		}
		if p.Name != "" {
			return p.Name + " (API key “" + *p.Key + "”, " + p.ID + ")"
		}
		return "API key “" + *p.Key + "” (" + p.ID + ")"
	}
	return orNone(p.ID)
}

// Lines is Text for a narrow table column: a user's name and e-mail on
// two lines, so the address is not broken inside.
func (p *Person) Lines() string {
	if p != nil && p.Type == "user" && p.Email != nil {
		return strings.TrimSpace(p.Name + "\n" + *p.Email)
	}
	return p.Text()
}

// keyWithName is how the API records a reviewer who sent a name:
// "<name> (key_<ulid>)".
var keyWithName = regexp.MustCompile(`^(.*) \((key_[0-9A-Za-z]+)\)$`)

// people resolves actor ids to Persons within one organization, each id
// once.
type people struct {
	ctx   context.Context
	st    *store.Store
	orgID string
	seen  map[string]*Person
}

func newPeople(ctx context.Context, st *store.Store, orgID string) *people {
	return &people{ctx: ctx, st: st, orgID: orgID, seen: map[string]*Person{}}
}

// find names the actor recorded as id: a user id, a key id, or the API's
// "<name> (key_…)". It returns nil for an id that names neither (the
// applicant, the system), and an error only when the store fails.
func (pp *people) find(id string) (*Person, error) {
	if p, ok := pp.seen[id]; ok {
		return p, nil
	}
	var p *Person
	var err error
	switch {
	case strings.HasPrefix(id, "usr_"):
		p, err = pp.user(id)
	case strings.HasPrefix(id, "key_"):
		p, err = pp.key(id, "")
	default:
		if m := keyWithName.FindStringSubmatch(id); m != nil {
			p, err = pp.key(m[2], strings.TrimSpace(m[1]))
		}
	}
	if err != nil {
		return nil, err
	}
	pp.seen[id] = p
	return p, nil
}

func (pp *people) user(id string) (*Person, error) {
	p := &Person{Type: "user", ID: id}
	u, err := pp.st.FindUser(pp.ctx, pp.orgID, id)
	switch {
	case kyc.ErrorCode(err) == kyc.ENotFound:
		return p, nil
	case err != nil:
		return nil, err
	}
	p.Name, p.Email = u.Name, &u.Email
	return p, nil
}

func (pp *people) key(id, sentName string) (*Person, error) {
	p := &Person{Type: "api_key", ID: id, Name: sentName}
	k, err := pp.st.FindAPIKey(pp.ctx, strings.TrimPrefix(id, "key_"))
	switch {
	case kyc.ErrorCode(err) == kyc.ENotFound:
		return p, nil
	case err != nil:
		return nil, err
	}
	// Another organization's key is not named: the id is all it shows.
	if k.OrganizationID == pp.orgID {
		p.Key = &k.Name
	}
	return p, nil
}
