package screening

import (
	"slices"
)

// keyIndex maps string keys (folds, one-deletion variants, skeletons) to
// vocabulary ids. It holds 64-bit hashes of the keys in one sorted array
// instead of a map of strings: a list of a million names has millions of
// one-deletion keys, and a map of strings to slices costs ~100 bytes and
// several allocations per key to build and hold, a sorted pair 12 bytes
// and none. A hash collision only adds a candidate part, which tokenSim
// then rejects.
type keyIndex struct {
	keys []uint64 // sorted
	ids  []int32  // ids[i] belongs to keys[i]
	// pending collects pairs until freeze.
	pending []keyPair
}

type keyPair struct {
	key uint64
	id  int32
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// hashKey is FNV-1a of s.
func hashKey(s string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

// hashWithout is hashKey(s[:i] + s[i+1:]) without building that string.
func hashWithout(s string, i int) uint64 {
	h := uint64(fnvOffset)
	for j := 0; j < len(s); j++ {
		if j != i {
			h = (h ^ uint64(s[j])) * fnvPrime
		}
	}
	return h
}

// hashDoubled is hashKey(s[:i+1] + s[i:]): s with its i-th letter
// written twice.
func hashDoubled(s string, i int) uint64 {
	h := uint64(fnvOffset)
	for j := 0; j < len(s); j++ {
		h = (h ^ uint64(s[j])) * fnvPrime
		if j == i {
			h = (h ^ uint64(s[j])) * fnvPrime
		}
	}
	return h
}

func (k *keyIndex) add(key uint64, id int32) {
	k.pending = append(k.pending, keyPair{key, id})
}

// addDeletions adds s with each one byte removed (repeated letters give
// one variant).
func (k *keyIndex) addDeletions(s string, id int32) {
	for i := 0; i < len(s); i++ {
		if i > 0 && s[i] == s[i-1] {
			continue
		}
		k.add(hashWithout(s, i), id)
	}
}

// freeze sorts the pairs added so far into the lookup arrays. Pairs added
// after a freeze are merged in by the next one.
func (k *keyIndex) freeze() {
	if len(k.pending) == 0 {
		return
	}
	all := k.pending
	for i := range k.keys {
		all = append(all, keyPair{k.keys[i], k.ids[i]})
	}
	slices.SortFunc(all, func(a, b keyPair) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return int(a.id - b.id)
	})
	all = slices.Compact(all)
	k.keys, k.ids = make([]uint64, len(all)), make([]int32, len(all))
	for i, p := range all {
		k.keys[i], k.ids[i] = p.key, p.id
	}
	k.pending = nil
}

// get returns the ids stored under key (shared: do not modify).
func (k *keyIndex) get(key uint64) []int32 {
	i, found := slices.BinarySearch(k.keys, key)
	if !found {
		return nil
	}
	j := i + 1
	for j < len(k.keys) && k.keys[j] == key {
		j++
	}
	return k.ids[i:j]
}

func (k *keyIndex) has(key uint64) bool {
	_, found := slices.BinarySearch(k.keys, key)
	return found
}
