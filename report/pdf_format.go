package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// none is printed for an absent value, so a blank is never mistaken for
// a value the report failed to print.
const none = "—"

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return none
	}
	return s
}

func optStr(p *string) string {
	if p == nil {
		return none
	}
	return orNone(*p)
}

func optNum(p *float64, prec int) string {
	if p == nil {
		return none
	}
	return strconv.FormatFloat(*p, 'f', prec, 64)
}

func list(items []string, sep string) string {
	return orNone(strings.Join(items, sep))
}

// hashPrefix is the first 16 hex digits of a SHA-256, enough to match a
// printed page to its report.
func hashPrefix(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return orNone(h)
}

// object turns one element of the decoded signals or reasons into a map.
// The report holds them as decoded JSON, but a caller may pass the
// engine's structs, so anything else goes through JSON once. A value that
// is not an object gives a nil map and the caller prints it as JSON.
func object(v any) (map[string]any, error) {
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil, nil // not an object: printed as its JSON
	}
	return m, nil
}

// field prints a member of a decoded object: strings as they are, numbers
// without noise, anything else as JSON.
func field(m map[string]any, key string) string {
	v, ok := m[key]
	if !ok || v == nil {
		return none
	}
	return orNone(value(v))
}

// value prints any decoded JSON value compactly.
func value(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return none
	}
	if f, ok := number(v); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	b, err := json.Marshal(v)
	if err != nil {
		// Decoded JSON always encodes; anything else is shown by its Go
		// form rather than dropped.
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// fixed prints a decoded number with prec decimals, or the value as it is.
func fixed(m map[string]any, key string, prec int) string {
	if f, ok := number(m[key]); ok {
		return strconv.FormatFloat(f, 'f', prec, 64)
	}
	return field(m, key)
}

// sortedKeys gives map keys in order: output must not depend on Go's map
// iteration order (the PDF is byte-for-byte reproducible).
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// features summarises a match's score explanation (screening.Features as
// decoded JSON): the name score and coverages, each query token with the
// listed token it matched, and the date-of-birth and country factors.
// Members it does not know are listed as key: value so nothing is lost.
func features(f map[string]any) string {
	if len(f) == 0 {
		return none
	}
	known := map[string]bool{"nameScore": true, "queryCoverage": true, "nameCoverage": true, "conflict": true,
		"tokens": true, "dob": true, "dobFactor": true, "country": true, "countryFactor": true}
	var parts []string
	name := "name " + fixed(f, "nameScore", 2) + " (coverage query " + fixed(f, "queryCoverage", 2) +
		", listed " + fixed(f, "nameCoverage", 2) + ")"
	if c, _ := f["conflict"].(bool); c {
		name += ", conflicting parts"
	}
	parts = append(parts, name)
	if toks := tokenPairs(f["tokens"]); len(toks) > 0 {
		parts = append(parts, "tokens: "+strings.Join(toks, ", "))
	}
	parts = append(parts, "dob "+field(f, "dob")+" ×"+fixed(f, "dobFactor", 2),
		"country "+field(f, "country")+" ×"+fixed(f, "countryFactor", 2))
	for _, k := range sortedKeys(f) {
		if !known[k] {
			parts = append(parts, k+": "+field(f, k))
		}
	}
	return strings.Join(parts, "\n")
}

// tokenPairs prints "query→listed similarity" for each token pair, from
// decoded JSON ([]any) or from the screener's own map slice.
func tokenPairs(v any) []string {
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case []map[string]any:
		for _, m := range x {
			items = append(items, m)
		}
	}
	var out []string
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			out = append(out, value(it))
			continue
		}
		out = append(out, field(m, "query")+"→"+field(m, "listed")+" "+fixed(m, "similarity", 2))
	}
	return out
}
