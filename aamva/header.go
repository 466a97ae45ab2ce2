package aamva

import (
	"strconv"
	"strings"
)

// header is the file header and subfile directory (AAMVA DL/ID
// Annex D.12.3): "@", three separator bytes, "ANSI " (or "AAMVA" in
// early version 01 files), the IIN, the version, the jurisdiction
// version (version 02 on), the number of entries, then for each entry a
// subfile type and its offset and length, four digits each.
type header struct {
	iin        string
	issuer     Issuer
	version    int
	jurVersion int
	entries    []subfileEntry
	size       int // bytes of header and directory
	quirks     []string
}

type subfileEntry struct {
	typ            string
	offset, length int
}

func digits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

func parseHeader(data []byte) (*header, error) {
	s := string(data)
	if len(s) < 4 || s[0] != '@' {
		return nil, refuse("no compliance indicator")
	}
	h := &header{}
	// The three separators are declared by value: LF, RS, CR. Some
	// jurisdictions ship another control character for RS (or none);
	// the element separators are found by value later in any case.
	i := 1
	if s[i] != '\n' {
		return nil, refuse("data element separator 0x%02x", s[i])
	}
	i++
	switch {
	case s[i] == 0x1e && s[i+1] == '\r':
		i += 2
	case s[i] < 0x20 && s[i] != '\r' && i+1 < len(s) && s[i+1] == '\r':
		h.quirks = append(h.quirks, "record separator 0x"+strconv.FormatUint(uint64(s[i]), 16))
		i += 2
	case s[i] == '\r':
		h.quirks = append(h.quirks, "no record separator")
		i++
	default:
		return nil, refuse("separators")
	}
	rest := s[i:]
	switch {
	case strings.HasPrefix(rest, "ANSI "):
	case strings.HasPrefix(rest, "AAMVA"):
		h.quirks = append(h.quirks, `file type "AAMVA"`)
	default:
		return nil, refuse("file type %q", clip(rest))
	}
	i += 5
	need := func(n int) (string, error) {
		if i+n > len(s) {
			return "", refuse("header truncated")
		}
		f := s[i : i+n]
		i += n
		return f, nil
	}
	iin, err := need(6)
	if err != nil {
		return nil, err
	}
	if _, ok := digits(iin); !ok {
		return nil, refuse("IIN %q", iin)
	}
	is, ok := LookupIIN(iin)
	if !ok {
		return nil, refuse("unknown issuer %s", iin)
	}
	h.iin, h.issuer = iin, is
	v, err := need(2)
	if err != nil {
		return nil, err
	}
	if h.version, ok = digits(v); !ok || h.version < 1 || h.version > 10 {
		return nil, refuse("version %q", v)
	}
	if h.version >= 2 {
		jv, err := need(2)
		if err != nil {
			return nil, err
		}
		if h.jurVersion, ok = digits(jv); !ok {
			return nil, refuse("jurisdiction version %q", jv)
		}
	}
	ne, err := need(2)
	if err != nil {
		return nil, err
	}
	n, ok := digits(ne)
	if !ok || n < 1 {
		return nil, refuse("number of entries %q", ne)
	}
	for range n {
		e, err := need(10)
		if err != nil {
			return nil, err
		}
		off, ok1 := digits(e[2:6])
		ln, ok2 := digits(e[6:10])
		if e[0] < 'A' || e[0] > 'Z' || e[1] < 'A' || e[1] > 'Z' || !ok1 || !ok2 {
			return nil, refuse("subfile designator %q", e)
		}
		h.entries = append(h.entries, subfileEntry{e[:2], off, ln})
	}
	h.size = i
	return h, nil
}

// findSubfile returns the body of the DL or ID subfile (after its type)
// and its type. The directory's offset is trusted when the type is found
// there; jurisdictions that count offsets wrongly (from another origin,
// or forgetting a separator) are handled by looking for the type after
// the directory. The body ends at the segment terminator (CR) or at the
// declared length, whichever the data bears out.
func (h *header) findSubfile(data []byte) (string, string, error) {
	s := string(data)
	for _, e := range h.entries {
		if e.typ != "DL" && e.typ != "ID" {
			continue
		}
		start := -1
		if e.offset >= h.size && e.offset+2 <= len(s) && s[e.offset:e.offset+2] == e.typ {
			start = e.offset
		} else {
			// The first occurrence after the directory of the type
			// followed by an element ID.
			for j := h.size; j+5 <= len(s); j++ {
				if s[j:j+2] == e.typ && isElementID(s[j+2:j+5]) {
					start = j
					break
				}
			}
			if start < 0 && e.offset >= h.size && e.offset+3 <= len(s) && isElementID(s[e.offset:e.offset+3]) {
				// Some jurisdictions start the subfile with its first
				// element, leaving out the type the directory names.
				h.quirks = append(h.quirks, "subfile without its type")
				start = e.offset - 2
			} else if start < 0 {
				continue
			} else {
				h.quirks = append(h.quirks, "subfile offset "+strconv.Itoa(e.offset)+", found at "+strconv.Itoa(start))
			}
		}
		body := s[start+2:]
		// The subfile ends at its segment terminator. A CR that is
		// followed by the next element is an element separator (a
		// jurisdiction writing CR for LF), not the terminator.
		end := len(body)
		for j := 0; j < len(body); j++ {
			if body[j] == '\r' && !(j+4 <= len(body) && isElementID(body[j+1:j+4])) &&
				!(j+5 <= len(body) && body[j+1] == '\n' && isElementID(body[j+2:j+5])) {
				end = j
				break
			}
		}
		if want := e.length - 2; end != want && end != want-1 {
			h.quirks = append(h.quirks, "subfile length "+strconv.Itoa(e.length)+", read "+strconv.Itoa(end+2))
		}
		return body[:end], e.typ, nil
	}
	return "", "", refuse("no DL or ID subfile")
}
