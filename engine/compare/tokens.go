package compare

import (
	"cmp"
	"hash/maphash"
	"sync"
)

// tokens interns normalized instruction tokens for the whole comparison, so
// that equal tokens of the two sides have equal ids.
//
// A library's two versions spell 100,000 distinct tokens or more (111,221 for the
// libgs pair of bench/compare_binaries.sh, 27 bytes each on average), and the
// table is, with the instructions, most of what a comparison keeps while it
// decodes: a Go map of strings took about 90 bytes a token (the map slot,
// the string header in a list, the string rounded up to its size class, the
// map's growth). Here a token costs its bytes, 4 for its end offset and
// 8 to 16 for its hash slots: every token's bytes one after another in one
// arena, and an open-addressing table of ids.
//
// While both sides are read at once (prefetch), two goroutines intern:
// every use of the table then holds mu. Once decoding is done the table is
// immutable and read without it.
type tokens struct {
	mu    sync.Mutex
	arena []byte   // the tokens' bytes, in id order
	ends  []uint32 // ends[id]: where token id ends in arena (it starts where id-1 ends)
	slots []uint32 // id+1 of the token hashed there, 0 = empty; len is a power of two
	seed  maphash.Seed
	full  bool // more than the limit were asked for (tooManyTokens)
	max   int  // the limit; 0 = maxTokens (tests set it lower)
}

func (t *tokens) count() int { return len(t.ends) }

// isFull reports, under mu, whether an id was refused.
func (t *tokens) isFull() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.full
}

// bytes is token id's spelling. The slice stays valid, and its bytes
// unchanged, for as long as the table lives.
func (t *tokens) bytes(id uint32) []byte {
	start := uint32(0)
	if id > 0 {
		start = t.ends[id-1]
	}
	end := t.ends[id]
	return t.arena[start:end:end]
}

// id interns s (copying it) and returns its id; past the limit it sets full
// and returns 0.
func (t *tokens) id(s string) uint32 {
	if t.slots == nil {
		t.seed = maphash.MakeSeed()
		t.slots = make([]uint32, 1024)
	}
	mask := uint64(len(t.slots) - 1)
	for i := maphash.String(t.seed, s) & mask; ; i = (i + 1) & mask {
		v := t.slots[i]
		if v == 0 {
			if len(t.ends) >= cmp.Or(t.max, maxTokens) || uint64(len(t.arena))+uint64(len(s)) > 1<<32-1 {
				t.full = true
				return 0
			}
			id := uint32(len(t.ends))
			t.arena = append(t.arena, s...)
			t.ends = append(t.ends, uint32(len(t.arena)))
			t.slots[i] = id + 1
			if 2*len(t.ends) > len(t.slots) { // at most half full: short probes
				t.grow()
			}
			return id
		}
		if string(t.bytes(v-1)) == s {
			return v - 1
		}
	}
}

func (t *tokens) grow() {
	slots := make([]uint32, 2*len(t.slots))
	mask := uint64(len(slots) - 1)
	for id := range t.ends {
		i := maphash.Bytes(t.seed, t.bytes(uint32(id))) & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = uint32(id) + 1
	}
	t.slots = slots
}
