package archive

import (
	"fmt"
	"hash/maphash"
)

// A store is the writer's: the entries of an archive that can still be
// referred to, the exact text of JSON values numbered from 0 in the order
// they were made, in two generations, and an index of them by hash. At
// the start of each block, if the current generation holds genCap bytes
// of text or more, the older generation is forgotten and a new one
// begins. The sequential reader (Expander) keeps the same generations by
// the same rule, so memory is bounded (see maxHeld) and a writer never
// refers to an entry a reader has let go.
type store struct {
	genCap int
	first  uint32 // id of the oldest entry held (the old generation's first)
	cur    uint32 // id of the current generation's first entry
	old    gen
	now    gen
	index  map[uint64]uint32 // entry ids by hash of their text
	seed   maphash.Seed
}

// gen is one generation: its entries' text, end to end.
type gen struct {
	text []byte
	ends []uint32 // end offset of each entry in text
	hash []uint64 // each entry's hash
}

func (g *gen) reset() {
	g.text, g.ends, g.hash = g.text[:0], g.ends[:0], g.hash[:0]
}

func (g *gen) entry(i uint32) []byte {
	start := uint32(0)
	if i > 0 {
		start = g.ends[i-1]
	}
	return g.text[start:g.ends[i]]
}

func newStore(genCap int) *store {
	return &store{genCap: genCap, index: map[uint64]uint32{}, seed: maphash.MakeSeed()}
}

// next returns the id the next entry will get.
func (s *store) next() uint32 { return s.cur + uint32(len(s.now.ends)) }

// maxHeld is the most entry text a generation may hold: genCap, plus what
// one block may add past it before the next block starts a generation.
func (s *store) maxHeld() int { return 2 * s.genCap }

// beginBlock starts a block, forgetting the old generation if the current
// one is full.
func (s *store) beginBlock() {
	if len(s.now.text) < s.genCap {
		return
	}
	for i, h := range s.old.hash {
		if id, ok := s.index[h]; ok && id == s.first+uint32(i) {
			delete(s.index, h)
		}
	}
	s.old, s.now = s.now, s.old
	s.now.reset()
	s.first, s.cur = s.cur, s.cur+uint32(len(s.old.ends))
}

// get returns the text of entry id, if it is held.
func (s *store) get(id uint32) ([]byte, bool) {
	switch {
	case id < s.first:
		return nil, false
	case id < s.cur:
		return s.old.entry(id - s.first), true
	case id < s.next():
		return s.now.entry(id - s.cur), true
	}
	return nil, false
}

// room reports whether an entry of n bytes fits in the current generation.
func (s *store) room(n int) bool { return len(s.now.text)+n <= s.maxHeld() }

// add appends an entry and returns its id. The caller has checked room.
func (s *store) add(text []byte, h uint64) uint32 {
	id := s.next()
	s.now.text = append(s.now.text, text...)
	s.now.ends = append(s.now.ends, uint32(len(s.now.text)))
	s.now.hash = append(s.now.hash, h)
	s.index[h] = id // a hash collision leaves the older entry unfindable, not wrong
	return id
}

// find returns the id of an entry whose text is text, if one is held.
func (s *store) find(text []byte) (id uint32, h uint64, ok bool) {
	h = maphash.Bytes(s.seed, text)
	id, ok = s.index[h]
	if ok {
		t, held := s.get(id)
		ok = held && string(t) == string(text)
	}
	return id, h, ok
}

// errForgotten is the error for a reference to an entry not held.
func errForgotten(id, first, next uint32) error {
	return fmt.Errorf("reference to entry %d, outside the %d..%d held", id, first, next)
}
