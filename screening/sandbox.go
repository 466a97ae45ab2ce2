package screening

import (
	"bytes"
	"embed"
	"fmt"

	"kycd/kyc"
)

// The sandbox test list: a few made-up people, one file per kind, that
// sandbox screenings always see, so integrators can produce every outcome
// without real listed names. docs/screening.md lists them.
//
//go:embed sandbox/*.csv
var sandboxFiles embed.FS

// The sandbox's magic names (first name + last name).
const (
	SandboxSanctionedName = "Sandbox Sanctioned"
	SandboxPEPName        = "Sandbox Politician"
	SandboxAdverseName    = "Sandbox Adverse"
	SandboxEverythingName = "Sandbox Everything"
	// SandboxFailureName makes the sanctions list fail in sandbox, so the
	// check rolls up to failed.
	SandboxFailureName = "Sandbox Failure"
)

func isSandboxFailure(name string) bool {
	toks := normalize(name)
	want := normalize(SandboxFailureName)
	if len(toks) != len(want) {
		return false
	}
	for i := range toks {
		if toks[i].text != want[i].text {
			return false
		}
	}
	return true
}

func sandboxLists() ([]*List, error) {
	var out []*List
	for _, k := range Kinds {
		data, err := sandboxFiles.ReadFile("sandbox/" + string(k) + ".csv")
		if err != nil {
			return nil, fmt.Errorf("sandbox list: %w", err)
		}
		ents, err := ParseCSV(bytes.NewReader(data), k)
		if err != nil {
			return nil, fmt.Errorf("sandbox list %s: %w", k, err)
		}
		out = append(out, &List{Kind: k, Index: BuildIndex(ents), Version: kyc.ListVersionRef{
			ID: "lsv_sandbox_" + string(k), Source: "sandbox-test-list", Provider: "kycd sandbox test list",
			EntityCount: len(ents), ImportedAt: "2026-01-01T00:00:00.000Z",
		}})
	}
	return out, nil
}
