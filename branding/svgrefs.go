package branding

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// refNode is a kept element as far as references go: its id, the ids it
// draws again (href="#id", url(#id) in any value) and its children.
type refNode struct {
	id       string
	refs     []string
	children []*refNode
	// state of the walk in checkReferences
	visiting, done bool
	cost, depth    int
}

// localRef finds the ids of url(#id) references in a value.
var localRef = regexp.MustCompile(`(?i)url\(\s*['"]?#([A-Za-z_][\w.\-:]*)['"]?\s*\)`)

func newRefNode(attrs [][2]string) *refNode {
	n := &refNode{}
	for _, a := range attrs {
		switch {
		case a[0] == "id":
			n.id = a[1]
		case a[0] == "href":
			n.refs = append(n.refs, strings.TrimPrefix(a[1], "#"))
		default:
			for _, m := range localRef.FindAllStringSubmatch(a[1], -1) {
				n.refs = append(n.refs, m[1])
			}
		}
	}
	return n
}

var errRefCycle = errors.New("too complex: its references form a cycle (an element draws itself through <use> or url(#…))")

// checkReferences refuses a document whose references nest deeper than
// maxRefDepth, form a cycle, or, every reference expanded into what it
// draws, make more than maxExpanded elements. Costs are memoized per
// element, so the walk is linear in the document however large the
// expansion would be; counts saturate above the limit.
func checkReferences(root *refNode) error {
	if root == nil {
		return nil
	}
	ids := map[string]*refNode{}
	var index func(n *refNode)
	index = func(n *refNode) {
		if n.id != "" {
			if _, dup := ids[n.id]; !dup {
				ids[n.id] = n // the first element with an id is the one a reference finds
			}
		}
		for _, c := range n.children {
			index(c)
		}
	}
	index(root)
	var walk func(n *refNode) error
	walk = func(n *refNode) error {
		if n.done {
			return nil
		}
		if n.visiting {
			return errRefCycle
		}
		n.visiting = true
		n.cost = 1
		for _, c := range n.children {
			if err := walk(c); err != nil {
				return err
			}
			n.cost = min(n.cost+c.cost, maxExpanded+1)
			n.depth = max(n.depth, c.depth)
		}
		for _, id := range n.refs {
			t := ids[id]
			if t == nil {
				continue // a reference to nothing draws nothing
			}
			if err := walk(t); err != nil {
				return err
			}
			n.cost = min(n.cost+t.cost, maxExpanded+1)
			n.depth = max(n.depth, t.depth+1)
		}
		n.visiting, n.done = false, true
		if n.depth > maxRefDepth {
			return fmt.Errorf("too complex: references (<use>, url(#…)) nest more than %d deep", maxRefDepth)
		}
		if n.cost > maxExpanded {
			return fmt.Errorf("too complex: with its references (<use>, url(#…)) expanded it draws more than %d elements", maxExpanded)
		}
		return nil
	}
	return walk(root)
}
