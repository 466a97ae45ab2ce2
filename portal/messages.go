package portal

import (
	"strings"

	"kycd/locale"
)

// scriptKeys are the catalog entries portal.js and camera.js use besides
// those under "js." and "date.": the page hands them over in a JSON block
// (a script element of type application/json, which the policy allows
// because it never runs).
var scriptKeys = []string{"list.sep", "progress", "done.redirect", "review.send", "button.continue",
	"capture.upload_instead", "capture.shoot", "capture.retry", "doc.passport", "doc.id_card", "doc.driving_licence", "doc.residence_permit",
	"read.intro"}

// scriptMessages returns what the page's script says, in c's language.
func scriptMessages(c *locale.Catalog) map[string]locale.Message {
	out := map[string]locale.Message{}
	for _, k := range c.Keys() {
		if strings.HasPrefix(k, "js.") || strings.HasPrefix(k, "date.") {
			out[k], _ = c.Message(k)
		}
	}
	for _, k := range scriptKeys {
		out[k], _ = c.Message(k)
	}
	return out
}
