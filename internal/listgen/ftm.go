// Package listgen writes large synthetic watch-list files in the shapes of
// real ones, for import tests and benchmarks: an OpenSanctions "default"
// export is several gigabytes, far more than a repository should hold.
package listgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// ReadFTM reads the entities of an FtM JSON-lines sample.
func ReadFTM(r io.Reader) ([]map[string]any, error) {
	var out []map[string]any
	dec := json.NewDecoder(r)
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("ftm sample: %w", err)
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("ftm sample: no entities")
	}
	return out, nil
}

// FTM writes FtM JSON lines of at least size bytes: the sample's entities
// over and over, each copy with its own id and its caption's last word
// swapped for another entity's, so names vary as in a real list while
// every other property keeps the sample's shape (schemas, topics, dates,
// scripts, line lengths). It returns the number of lines written.
func FTM(w io.Writer, sample []map[string]any, size int64, seed uint64) (int, error) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var words []string
	for _, e := range sample {
		if c, _ := e["caption"].(string); c != "" {
			words = append(words, strings.Fields(c)...)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var buf bytes.Buffer
	var written int64
	n := 0
	for written < size {
		src := sample[n%len(sample)]
		e := make(map[string]any, len(src))
		for k, v := range src {
			e[k] = v
		}
		e["id"] = fmt.Sprintf("%v-g%d", src["id"], n)
		if c, _ := src["caption"].(string); c != "" && len(words) > 0 {
			f := strings.Fields(c)
			f[len(f)-1] = words[rng.IntN(len(words))]
			e["caption"] = strings.Join(f, " ")
		}
		buf.Reset()
		if err := json.NewEncoder(&buf).Encode(e); err != nil { // Encode ends the line
			return n, err
		}
		k, err := bw.Write(buf.Bytes())
		if err != nil {
			return n, err
		}
		written += int64(k)
		n++
	}
	return n, bw.Flush()
}
