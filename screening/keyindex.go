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
	// starts[b] is the first i with keys[i]>>shift >= b: a lookup
	// searches only its bucket of a few keys instead of binary-searching
	// millions, most of whose steps miss the CPU caches.
	starts []uint32
	shift  uint
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
	k.buildStarts()
}

// keysPerBucket is the mean bucket size of starts: about one uint32 of
// table per four keys.
const keysPerBucket = 4

func (k *keyIndex) buildStarts() {
	bits := uint(1)
	for len(k.keys)>>bits > keysPerBucket && bits < 32 {
		bits++
	}
	k.shift = 64 - bits
	k.starts = make([]uint32, 1<<bits+1)
	i := 0
	for b := range k.starts {
		for i < len(k.keys) && k.keys[i]>>k.shift < uint64(b) {
			i++
		}
		k.starts[b] = uint32(i)
	}
}

// bucket returns the part of keys where key would be.
func (k *keyIndex) bucket(key uint64) (lo, hi int) {
	if k.starts == nil {
		return 0, 0
	}
	b := key >> k.shift
	return int(k.starts[b]), int(k.starts[b+1])
}

// get returns the ids stored under key (shared: do not modify).
func (k *keyIndex) get(key uint64) []int32 {
	lo, hi := k.bucket(key)
	i := lo
	for i < hi && k.keys[i] < key {
		i++
	}
	j := i
	for j < hi && k.keys[j] == key {
		j++
	}
	if i == j {
		return nil
	}
	return k.ids[i:j]
}

func (k *keyIndex) has(key uint64) bool {
	return len(k.get(key)) > 0
}
