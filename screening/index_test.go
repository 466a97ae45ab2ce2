package screening

import (
	"slices"
	"testing"
)

// TestIndexTokensMatchNormalize: BuildIndex normalizes names through a
// per-word cache; every name of the real lists must give the tokens
// normalize gives it.
func TestIndexTokensMatchNormalize(t *testing.T) {
	un, err := ParseUN(openShared(t, "lists/un_consolidated_2026-02-27.xml"))
	if err != nil {
		t.Fatal(err)
	}
	ofac, err := ParseOFAC(openShared(t, "lists/ofac_sdn_2021-07.csv"), openShared(t, "lists/ofac_alt_2021-07.csv"), openShared(t, "lists/ofac_add_2021-07.csv"))
	if err != nil {
		t.Fatal(err)
	}
	ents := append(un, ofac...)
	ents = append(ents, testIndex().entities...)
	ix := BuildIndex(ents)
	checked := 0
	for i := range ix.names {
		in := &ix.names[i]
		var got, want []string
		for _, v := range ix.nameTokens(in) {
			got = append(got, ix.vocab[v].text)
		}
		for _, tk := range normalize(ix.entities[in.entity].Names[in.name].Full) {
			want = append(want, tk.text)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: index tokens %v, normalize %v", ix.entities[in.entity].Names[in.name].Full, got, want)
		}
		checked++
	}
	if checked < 20000 {
		t.Errorf("only %d names checked", checked)
	}
}

func TestKeyIndex(t *testing.T) {
	var k keyIndex
	k.add(hashKey("abc"), 1)
	k.add(hashKey("abc"), 2)
	k.add(hashKey("abc"), 1)
	k.addDeletions("abba", 3)
	k.freeze()
	if got := k.get(hashKey("abc")); !slices.Equal(got, []int32{1, 2}) {
		t.Errorf("abc: %v", got)
	}
	for _, d := range []string{"bba", "aba", "abb"} {
		if got := k.get(hashKey(d)); !slices.Equal(got, []int32{3}) {
			t.Errorf("%s: %v", d, got)
		}
	}
	if k.has(hashKey("abba")) || k.get(hashKey("zz")) != nil {
		t.Error("unexpected key")
	}
	k.add(hashKey("zz"), 4)
	k.freeze()
	if !k.has(hashKey("zz")) || !k.has(hashKey("abc")) {
		t.Error("second freeze lost keys")
	}
}
