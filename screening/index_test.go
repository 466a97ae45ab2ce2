package screening

import (
	"math/rand/v2"
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

// TestKeyIndexBuckets: the bucket table finds every key added, with all
// its ids, and nothing for keys not added, at sizes around the bucket
// boundaries and with keys at both ends of the hash range.
func TestKeyIndexBuckets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 3, 4, 5, 17, 1000, 50000} {
		var k keyIndex
		want := map[uint64][]int32{}
		for i := range n {
			key := rng.Uint64()
			switch i % 50 {
			case 0:
				key = 0
			case 1:
				key = ^uint64(0)
			}
			want[key] = append(want[key], int32(i))
			k.add(key, int32(i))
			if i%7 == 0 { // a second id under the same key
				want[key] = append(want[key], int32(i+n))
				k.add(key, int32(i+n))
			}
		}
		k.freeze()
		for key, ids := range want {
			slices.Sort(ids)
			if got := k.get(key); !slices.Equal(got, ids) {
				t.Fatalf("n=%d: get(%x) = %v, want %v", n, key, got, ids)
			}
		}
		for range 1000 {
			if key := rng.Uint64(); want[key] == nil && k.has(key) {
				t.Fatalf("n=%d: has(%x) for a key never added", n, key)
			}
		}
	}
}
