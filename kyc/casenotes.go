package kyc

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// SubjectType names what a tag or comment belongs to: the store's tables
// take the type so that every kind of case shares them.
type SubjectType string

// Subjects of tags and comments.
const (
	SubjectKYCRequest SubjectType = "kyc_request" // a KYC request (a case in the console)
	SubjectAMLCase    SubjectType = "aml_case"    // an AML case (comments only, today)
)

// Tag limits: a tag is 1 to 40 of a-z, 0-9, '-', '_', ':' and '.', after
// lower-casing and trimming; a case has at most MaxTags.
const (
	MaxTagLen = 40
	MaxTags   = 20
)

var tagPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_:.\-]{0,39}$`)

// NormalizeTag lower-cases and trims a tag and checks its shape.
func NormalizeTag(s string) (string, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if !tagPattern.MatchString(t) {
		return "", Invalid(FieldError{Field: "tag", Message: "must be 1 to 40 of a-z, 0-9, '-', '_', ':' and '.', starting with a letter or digit, e.g. high-value"})
	}
	return t, nil
}

// CommentAuthorType is who wrote a comment.
type CommentAuthorType string

// Comment authors.
const (
	CommentByUser   CommentAuthorType = "user"    // a console user
	CommentByAPIKey CommentAuthorType = "api_key" // an API client
)

// MaxCommentLen bounds a comment's body, in characters.
const MaxCommentLen = 4000

// Comment is one comment of a case's thread: a note between colleagues,
// separate from the decision's reason.
type Comment struct {
	ID          string
	SubjectType SubjectType
	SubjectID   string
	AuthorType  CommentAuthorType
	AuthorID    string // a user id or "key_<id>"
	AuthorName  string
	Body        string
	Mentions    []string // ids of the users the comment notified
	CreatedAt   time.Time
}

// CheckCommentBody validates a comment's text.
func CheckCommentBody(body string) (string, error) {
	b := strings.TrimSpace(body)
	switch {
	case b == "":
		return "", Invalid(FieldError{Field: "body", Message: "is required: write the comment"})
	case utf8.RuneCountInString(b) > MaxCommentLen:
		return "", Invalid(FieldError{Field: "body", Message: fmt.Sprintf("must be at most %d characters", MaxCommentLen)})
	}
	if r, bad := InvisibleRune(b); bad {
		return "", Invalid(FieldError{Field: "body", Message: fmt.Sprintf("must not contain invisible or text-direction characters (found U+%04X)", r)})
	}
	return b, nil
}

// Mention is one @mention in a comment: @jane@acme.example (an e-mail
// address) or @[Jane Doe] (a display name, in brackets because names have
// spaces).
type Mention struct {
	Email string // lower-cased
	Name  string
}

var (
	mentionEmail = regexp.MustCompile(`(?:^|[\s(,;])@([A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,})`)
	mentionName  = regexp.MustCompile(`(?:^|[\s(,;])@\[([^\[\]\n]{1,200})\]`)
)

// ParseMentions finds a comment's mentions, each once, in order of kind
// (e-mail addresses, then names).
func ParseMentions(body string) []Mention {
	var out []Mention
	seen := map[Mention]bool{}
	for _, m := range mentionEmail.FindAllStringSubmatch(body, -1) {
		x := Mention{Email: strings.ToLower(strings.TrimRight(m[1], "."))}
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	for _, m := range mentionName.FindAllStringSubmatch(body, -1) {
		x := Mention{Name: strings.TrimSpace(m[1])}
		if x.Name != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
