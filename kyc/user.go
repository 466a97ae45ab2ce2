package kyc

import "time"

// Role is what a back-office user may do. Every console route names the
// permission it needs, and each role is a fixed set of permissions.
type Role string

// The four roles of the back office.
const (
	RoleAdmin    Role = "admin"    // everything, including people and settings
	RoleReviewer Role = "reviewer" // works cases and AML alerts
	RoleAnalyst  Role = "analyst"  // reads everything, decides nothing
	RoleViewer   Role = "viewer"   // reads, without applicants' personal data beyond names
)

// Roles lists the roles, most powerful first.
var Roles = []Role{RoleAdmin, RoleReviewer, RoleAnalyst, RoleViewer}

// Valid reports whether r is one of the roles.
func (r Role) Valid() bool {
	for _, v := range Roles {
		if v == r {
			return true
		}
	}
	return false
}

// Permission is one thing a console route may need.
type Permission int

// Permissions, from the least to the most privileged.
const (
	// PermRead: queues, cases, alerts and applicants with names, statuses
	// and outcomes.
	PermRead Permission = iota + 1
	// PermPersonalData: applicants' personal data beyond names (dates of
	// birth, contact details, document images and details, reports).
	PermPersonalData
	// PermDecide: claim cases, approve or reject, decide AML matches.
	PermDecide
	// PermAdmin: invite, disable and change users; organization sign-in
	// rules.
	PermAdmin
	// PermInstallation: what every organization of the installation
	// shares (the watch lists). No role has it by itself: an admin whose
	// InstallationAdmin flag the machine's operator set (User.Can).
	PermInstallation
	// PermSenior: the senior queue of escalated KYC cases, deciding and
	// de-escalating them. No role has it by itself: admins, and reviewers
	// whose Senior flag an admin set (User.Can). A flag rather than a fifth
	// role: a senior reviewer can do everything a reviewer can, plus this,
	// so every other rule that names a role stays as it is.
	PermSenior
)

// String names the permission in messages.
func (p Permission) String() string {
	switch p {
	case PermRead:
		return "read"
	case PermPersonalData:
		return "personal data"
	case PermDecide:
		return "decide"
	case PermAdmin:
		return "admin"
	case PermInstallation:
		return "installation admin"
	case PermSenior:
		return "senior review"
	}
	return "none"
}

// Can reports whether a user with role r has permission p.
// PermInstallation and PermSenior are never the role's alone: see
// User.Can.
func (r Role) Can(p Permission) bool {
	if p == PermSenior {
		return false
	}
	switch r {
	case RoleAdmin:
		return p <= PermAdmin
	case RoleReviewer:
		return p <= PermDecide
	case RoleAnalyst:
		return p <= PermPersonalData
	case RoleViewer:
		return p == PermRead
	}
	return false
}

// User is a person who signs in to the back office. It belongs to one
// organization and sees both of its environments.
type User struct {
	ID             string // usr_<ulid>
	OrganizationID string
	Email          string
	Name           string
	Role           Role
	PasswordSet    bool
	TOTPEnabled    bool
	// InstallationAdmin lets an admin change what the whole installation
	// shares (PermInstallation). Only the machine's operator sets it
	// (kycd users installation-admin): an organization's admin must not
	// change the lists every other organization screens against.
	InstallationAdmin bool
	// ReviewAvailable: the user is "in" and takes cases assigned in turn
	// (round-robin), when the organization assigns so. Set by the user.
	ReviewAvailable bool
	// Senior lets a reviewer work escalated cases (PermSenior); an admin
	// sets it. Admins have PermSenior without it.
	Senior      bool
	DisabledAt  *time.Time
	LastLoginAt *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Can reports whether u may do what p allows: their role's permissions,
// and PermInstallation for an admin with the InstallationAdmin flag.
func (u *User) Can(p Permission) bool {
	if p == PermInstallation {
		return u.Role == RoleAdmin && u.InstallationAdmin
	}
	if p == PermSenior {
		return u.Role == RoleAdmin || u.Role == RoleReviewer && u.Senior
	}
	return u.Role.Can(p)
}

// ActorUser is the actor type of what a back-office user did, in the audit
// log. KYC timeline entries keep ActorReviewer with the user's id.
const ActorUser ActorType = "user"

// ValidEmail checks a bare e-mail address the way applicants' are checked.
func ValidEmail(s string) bool { return len(s) <= MaxEmailLen && validEmail(s) }
