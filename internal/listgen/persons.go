package listgen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// syllables build made-up names: pronounceable, unlike any real person's,
// and distinct for each number.
var syllables = []string{"ka", "lo", "mi", "ren", "to", "vas", "zu", "bel", "dor", "fin", "gra", "hul", "jes", "kor", "lin", "mar"}

// PersonName is the made-up name of person i: two words, each spelling i
// in base 16 with syllables, so that no two persons share a name.
func PersonName(i int) string {
	word := func(n int) string {
		var b strings.Builder
		for range 3 {
			b.WriteString(syllables[n%16])
			n /= 16
		}
		return strings.ToUpper(b.String()[:1]) + b.String()[1:]
	}
	return word(i) + " " + word(i/4096+7*i)
}

// FTMPersons writes n persons with the FtM topic (sanction, role.pep, crime
// …) as JSON lines (ids T-0 …, names PersonName(i)), no sample needed:
// imports of a known size for tests (a batch is 10,000 entities).
func FTMPersons(w io.Writer, n int, topic string) error {
	bw := bufio.NewWriter(w)
	for i := range n {
		line, err := json.Marshal(map[string]any{"id": fmt.Sprintf("T-%d", i), "schema": "Person",
			"properties": map[string][]string{"name": {PersonName(i)}, "topics": {topic}, "country": {"ru"}}})
		if err != nil {
			return err
		}
		bw.Write(line)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
