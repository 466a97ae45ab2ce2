package cmd

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"kycd/aml"
	"kycd/kyc"
	"kycd/screening"
)

// ListsCmd groups the watch list commands.
type ListsCmd struct {
	Import ListsImportCmd `cmd:"" help:"Import a watch list from files; it replaces the source's active version (a running server picks it up within seconds)."`
	List   ListsListCmd   `cmd:"" help:"List imported list versions."`
	Update ListsUpdateCmd `cmd:"" help:"Download the official OFAC and UN sanctions lists (and the --opensanctions datasets) and import them (needs internet access)."`
}

// ListsImportCmd imports one list from local files.
type ListsImportCmd struct {
	dbFlag
	masterKeyFlag
	Source   string `required:"" env:"KYCD_LIST_SOURCE" help:"Your name for the list, e.g. ofac-sdn or vendor-pep; importing again under the same name replaces its active version."`
	Kind     string `required:"" enum:"sanctions,pep,adverse_media" env:"KYCD_LIST_KIND" help:"What the list is for: sanctions, pep or adverse_media."`
	Format   string `required:"" enum:"ofac-csv,un-xml,ftm,senzing,csv" env:"KYCD_LIST_FORMAT" help:"File format: ofac-csv (sdn.csv [alt.csv] [add.csv], or the cons_*.csv trio), un-xml (UN consolidated XML), ftm or senzing (OpenSanctions JSON lines), csv (in-house CSV with a header row: name,aliases,dob,country,kind,reference,reason,schema)."`
	Provider string `env:"KYCD_LIST_PROVIDER" help:"Provider name shown in AML results (default: from the format, e.g. OFAC)."`
	Force    bool   `env:"KYCD_LIST_FORCE" help:"Import even when the files are the same as the active version's."`
	// No environment variable on purpose: a confirmation left set in the
	// environment would confirm every later import.
	AllowShrink bool     `name:"allow-shrink" help:"Confirm a version that changes the source's kind, or has more than --max-shrink fewer entities than the active one (refused otherwise)."`
	MaxShrink   float64  `name:"max-shrink" default:"0.2" help:"Share of the source's entities a new version may lose without --allow-shrink (0 < share < 1)."`
	Files       []string `arg:"" name:"FILE" type:"existingfile" help:"List file(s). For ofac-csv, files with alt or add in their names are the alias and address files."`
}

// Run imports the files and prints the new version, or that nothing
// changed.
func (c *ListsImportCmd) Run(e *env) error {
	kind, err := screening.ParseKind(c.Kind)
	if err != nil {
		return err
	}
	if c.MaxShrink <= 0 || c.MaxShrink >= 1 {
		return fmt.Errorf("--max-shrink must be between 0 and 1 (a share: 0.2 is 20%%), not %g", c.MaxShrink)
	}
	s, err := c.openAudited(e, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	start := time.Now()
	p := newProgressPrinter(e.stderr)
	res, err := aml.Import(e.ctx, s, aml.ImportSpec{Source: c.Source, Kind: kind, Format: c.Format, Provider: c.Provider,
		Files: c.Files, Force: c.Force, AllowShrink: c.AllowShrink, MaxShrink: c.MaxShrink, Progress: p.print})
	p.done()
	if err != nil {
		return fmt.Errorf("import %s (%s): %w", c.Source, c.Format, err)
	}
	fmt.Fprintln(e.stdout, importLine(res, time.Since(start)))
	for _, k := range res.LostKinds {
		fmt.Fprintf(e.stderr, "warning: no %s list is left; live checks of organizations that screen %s answer error until one is imported (audited per organization)\n", k, k)
	}
	return nil
}

// importLine is the one-line summary of an import.
func importLine(res *aml.ImportResult, took time.Duration) string {
	v := res.Version
	if res.Unchanged {
		return fmt.Sprintf("unchanged (same files as version %s)", v.ID)
	}
	return fmt.Sprintf("imported %s: source %s, kind %s, %d entities, %d names in %s", v.ID, v.Source, v.Kind,
		v.EntityCount, res.Names, took.Round(time.Millisecond))
}

// ListsListCmd lists list versions.
type ListsListCmd struct {
	dbFlag
	All bool `env:"KYCD_LIST_ALL" help:"Also list superseded versions (AML results cite them)."`
}

// Run prints one version per line, newest first.
func (c *ListsListCmd) Run(e *env) error {
	s, err := openStore(e.ctx, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	vs, err := s.FindListVersions(e.ctx, !c.All)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSOURCE\tKIND\tFORMAT\tPROVIDER\tENTITIES\tIMPORTED\tSHA256\tACTIVE")
	for _, v := range vs {
		active := "no"
		if v.Active {
			active = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", v.ID, v.Source, v.Kind, v.Format, v.Provider, v.EntityCount,
			kyc.FormatTime(v.ImportedAt), v.SHA256[:min(12, len(v.SHA256))], active)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(vs) == 0 {
		fmt.Fprintln(e.stderr, "no lists imported yet: use 'kycd lists update' for the official OFAC and UN lists, or 'kycd lists import' for files")
	}
	return nil
}

// listURLFlags point the list download at the publishers or a mirror; serve
// --update-lists and lists update share them.
type listURLFlags struct {
	OFACBaseURL string `name:"ofac-base-url" env:"KYCD_OFAC_BASE_URL" group:"lists" placeholder:"URL" help:"Where OFAC's sdn.csv, alt.csv, add.csv and consolidated/cons_{prim,alt,add}.csv are downloaded from (default https://www.treasury.gov/ofac/downloads)."`
	UNURL       string `name:"un-url" env:"KYCD_UN_URL" group:"lists" placeholder:"URL" help:"The UN Security Council consolidated list XML (default https://scsanctions.un.org/resources/xml/en/consolidated.xml)."`
	// OpenSanctions: opt-in, because its licence (CC BY-NC 4.0) does not
	// cover business use without a licence from OpenSanctions.
	OpenSanctions        []string `name:"opensanctions" env:"KYCD_OPENSANCTIONS" group:"lists" placeholder:"DATASET" help:"Also download these OpenSanctions datasets: sanctions, peps, crime, debarment (crime and debarment are imported as adverse_media). OpenSanctions data is licensed CC BY-NC 4.0: non-commercial use only; business use needs a licence from OpenSanctions."`
	OpenSanctionsBaseURL string   `name:"opensanctions-base-url" env:"KYCD_OPENSANCTIONS_BASE_URL" group:"lists" placeholder:"URL" help:"Where the OpenSanctions datasets are downloaded from, as <URL>/<dataset>/entities.ftm.json (default https://data.opensanctions.org/datasets/latest)."`
	OpenSanctionsAPIKey  string   `name:"opensanctions-api-key" env:"KYCD_OPENSANCTIONS_API_KEY" group:"lists" placeholder:"KEY" help:"OpenSanctions API key, sent as 'Authorization: ApiKey <key>' (licensed delivery); prefer the environment variable."`
}

// sources returns the official sources named in only (all when empty),
// after checking the URLs.
func (f listURLFlags) sources(only []string) ([]aml.RemoteSource, error) {
	for flag, v := range map[string]string{"--ofac-base-url": f.OFACBaseURL, "--un-url": f.UNURL, "--opensanctions-base-url": f.OpenSanctionsBaseURL} {
		if v == "" {
			continue
		}
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%s %q must be an absolute http(s) URL", flag, v)
		}
	}
	// An OpenSanctions dataset named with --source is wanted even when
	// --opensanctions does not list it.
	datasets := slices.Clone(f.OpenSanctions)
	for _, s := range only {
		if d, ok := strings.CutPrefix(s, "opensanctions-"); ok && !slices.Contains(datasets, d) {
			datasets = append(datasets, d)
		}
	}
	openSanctions, err := aml.OpenSanctionsSources(f.OpenSanctionsBaseURL, f.OpenSanctionsAPIKey, datasets)
	if err != nil {
		return nil, err
	}
	var out []aml.RemoteSource
	for _, src := range append(aml.OfficialSources(f.OFACBaseURL, f.UNURL), openSanctions...) {
		if len(only) == 0 || slices.Contains(only, src.Source) {
			out = append(out, src)
		}
	}
	return out, nil
}

// ListsUpdateCmd downloads and imports the official lists.
type ListsUpdateCmd struct {
	dbFlag
	masterKeyFlag
	Sources []string `name:"source" enum:"ofac-sdn,ofac-consolidated,un,opensanctions-sanctions,opensanctions-peps,opensanctions-crime,opensanctions-debarment" env:"KYCD_LIST_SOURCES" placeholder:"NAME" help:"Only this list: ofac-sdn, ofac-consolidated, un, or opensanctions-sanctions, -peps, -crime, -debarment (repeat or separate with commas; default the three official lists and the --opensanctions datasets)."`
	listURLFlags
	AllowShrink bool `name:"allow-shrink" help:"Confirm a downloaded version with over 20% fewer entities than the active one (refused otherwise; the previous version stays)."`
}

// Run updates each list and prints one line per list. A list that fails
// keeps its previous version; the command then exits non-zero.
func (c *ListsUpdateCmd) Run(e *env) error {
	srcs, err := c.sources(c.Sources)
	if err != nil {
		return err
	}
	for i := range srcs {
		srcs[i].AllowShrink = c.AllowShrink
	}
	s, err := c.openAudited(e, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	outs, err := aml.Update(e.ctx, s, nil, srcs, nil)
	for _, o := range outs {
		if o.Err == nil {
			fmt.Fprintf(e.stdout, "%s: %s\n", o.Source, importLine(o.Result, o.Elapsed))
		}
	}
	if err != nil {
		failed := 0
		for _, o := range outs {
			if o.Err != nil {
				failed++
			}
		}
		return fmt.Errorf("%d of %d lists not updated (each keeps its previous version):\n%w", failed, len(outs), err)
	}
	return nil
}
