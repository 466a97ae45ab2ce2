package main

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"time"
)

// The SBOM is CycloneDX 1.5 JSON, written here from the module list the
// Go linker records in each binary (what `go version -m` prints): exactly
// the modules compiled in, unlike `go list -m all`, which also names test
// and tool dependencies. No network, no outside tool.

type cdxBOM struct {
	BOMFormat    string          `json:"bomFormat"`
	SpecVersion  string          `json:"specVersion"`
	SerialNumber string          `json:"serialNumber"`
	Version      int             `json:"version"`
	Metadata     cdxMetadata     `json:"metadata"`
	Components   []cdxComponent  `json:"components"`
	Dependencies []cdxDependency `json:"dependencies"`
}

type cdxMetadata struct {
	Timestamp  string        `json:"timestamp"`
	Component  cdxComponent  `json:"component"`
	Properties []cdxProperty `json:"properties,omitempty"`
}

type cdxComponent struct {
	Type       string        `json:"type"`
	BOMRef     string        `json:"bom-ref"`
	Name       string        `json:"name"`
	Version    string        `json:"version"`
	PURL       string        `json:"purl"`
	Properties []cdxProperty `json:"properties,omitempty"`
}

type cdxProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type cdxDependency struct {
	Ref       string   `json:"ref"`
	DependsOn []string `json:"dependsOn"`
}

// makeSBOM reads the module list of every binary and writes the union.
func makeSBOM(bins []string, src source) ([]byte, error) {
	var infos []*debug.BuildInfo
	for _, b := range bins {
		bi, err := buildinfo.ReadFile(b)
		if err != nil {
			return nil, fmt.Errorf("read the modules of %s: %w", b, err)
		}
		infos = append(infos, bi)
	}
	return sbomFrom(infos, src)
}

func sbomFrom(infos []*debug.BuildInfo, src source) ([]byte, error) {
	byRef := map[string]cdxComponent{}
	goVersion := ""
	for _, bi := range infos {
		goVersion = bi.GoVersion
		for _, d := range bi.Deps {
			m := d
			if d.Replace != nil {
				m = d.Replace // what was compiled in
			}
			c := cdxComponent{Type: "library", Name: m.Path, Version: m.Version,
				PURL: "pkg:golang/" + m.Path + "@" + m.Version}
			c.BOMRef = c.PURL
			if m.Sum != "" {
				// The go.sum hash (h1:, a SHA-256 over the module's files),
				// which `go mod verify` checks; not a hash of one file, so
				// a property rather than a CycloneDX hash.
				c.Properties = []cdxProperty{{Name: "golang:sum", Value: m.Sum}}
			}
			if d.Replace != nil {
				c.Properties = append(c.Properties, cdxProperty{Name: "golang:replaces", Value: d.Path + "@" + d.Version})
			}
			byRef[c.BOMRef] = c
		}
	}
	refs := make([]string, 0, len(byRef))
	for r := range byRef {
		refs = append(refs, r)
	}
	slices.Sort(refs)
	comps := make([]cdxComponent, 0, len(refs))
	for _, r := range refs {
		comps = append(comps, byRef[r])
	}
	main := cdxComponent{Type: "application", Name: "kycd", Version: src.version,
		PURL: "pkg:golang/kycd@" + src.version, BOMRef: "pkg:golang/kycd@" + src.version,
		Properties: []cdxProperty{{Name: "vcs:commit", Value: src.commit}, {Name: "vcs:modified", Value: fmt.Sprint(src.modified)}}}
	// The serial number must be unique per BOM and the same on a rebuild:
	// a name-based UUID from what the BOM describes.
	seed := sha256.Sum256([]byte("kycd\x00" + src.version + "\x00" + src.commit + "\x00" + fmt.Sprint(src.modified)))
	seed[6] = seed[6]&0x0f | 0x50 // version 5 layout (name-based, SHA hash)
	seed[8] = seed[8]&0x3f | 0x80 // RFC 4122 variant
	bom := cdxBOM{
		BOMFormat:    "CycloneDX",
		SpecVersion:  "1.5",
		SerialNumber: fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", seed[0:4], seed[4:6], seed[6:8], seed[8:10], seed[10:16]),
		Version:      1,
		Metadata: cdxMetadata{
			Timestamp:  src.time.UTC().Format(time.RFC3339),
			Component:  main,
			Properties: []cdxProperty{{Name: "golang:toolchain", Value: goVersion}},
		},
		Components:   comps,
		Dependencies: []cdxDependency{{Ref: main.BOMRef, DependsOn: refs}},
	}
	b, err := json.MarshalIndent(bom, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
