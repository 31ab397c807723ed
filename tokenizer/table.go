package tokenizer

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// hashMul is the multiplier of the Fibonacci hashing in both tables: the
// top bits of key·hashMul index the table.
const hashMul = 0x9e3779b97f4a7c15

// tableBits returns the number of index bits of an open-addressing table
// for n entries: at most four fifths full. A filter answers most lookups
// of absent keys, and present keys are found within a few slots: the table
// is denser than the usual half full, which saves memory, cache and the
// time to fault its pages in when it is built.
func tableBits(n int) uint {
	return uint(max(bits.Len(uint(n+n/4)), 4))
}

// Both tables use linear probing without wrap-around: a key is in its home
// slot or a later one, and a table has one empty slot past its last key,
// where every probe ends. Keys in the order of their home slots are laid
// out in one pass that writes memory in sequence; so the tables are built
// by sorting their slots by home (a radix sort of two passes) and then
// placing them, several times faster than inserting keys in id order.

// radixPasses returns the shifts and widths of the two digits of a radix
// sort on b bits (b ≤ 24), least significant first.
func radixPasses(b uint) [2][2]uint {
	lo := b / 2
	return [2][2]uint{{0, lo}, {lo, b - lo}}
}

// A buildScratch holds memory for building tables, used by one table
// after another.
type buildScratch struct {
	slots, slotsTmp []tokenSlot
	keys, keysTmp   []uint64
}

// A tokenTable maps the bytes of every rank to its id. Each slot holds the
// first eight bytes of its token and its length, so that most lookups
// compare a single word and read no other memory.
type tokenTable struct {
	slots []tokenSlot
	shift uint // 64 - index bits
	vocab *vocab
	// filter holds the hashes of the tokens: it answers most lookups of
	// bytes that are no token without touching the slots.
	filter *filter
}

type tokenSlot struct {
	head uint64 // the first eight bytes of the token, little-endian, zero-padded
	id   uint32
	n    uint32 // the token's length; 0 marks an empty slot
}

// head returns the first eight bytes of b, little-endian, zero-padded.
func head(b []byte) uint64 {
	if len(b) >= 8 {
		return binary.LittleEndian.Uint64(b)
	}
	var h uint64
	for i := len(b) - 1; i >= 0; i-- {
		h = h<<8 | uint64(b[i])
	}
	return h
}

// tokenHash hashes a token of length n that starts with the eight bytes h
// and, if longer than eight bytes, ends with tail.
func tokenHash(h uint64, n int, tail uint64) uint64 {
	return (h ^ bits.RotateLeft64(tail*hashMul, 29) ^ uint64(n)<<56) * hashMul
}

// tail returns the last eight bytes of b if it is longer than eight bytes,
// else 0.
func tail(b []byte) uint64 {
	if len(b) <= 8 {
		return 0
	}
	return binary.LittleEndian.Uint64(b[len(b)-8:])
}

// newTokenTable returns the table of ids 0 to n-1 of v.
func newTokenTable(v *vocab, n int, sc *buildScratch) *tokenTable {
	// Half as full as tableBits makes it: most lookups are of pieces that
	// are tokens, and they probe fewer slots.
	b := tableBits(n) + 1
	t := &tokenTable{shift: 64 - b, vocab: v, filter: newFilter(n)}
	// The slots in id order, each with its home slot in n's upper bits.
	sc.slots, sc.slotsTmp = grow(sc.slots, n), grow(sc.slotsTmp, n)
	recs, tmp := sc.slots, sc.slotsTmp
	for id := range recs {
		tok := v.token(uint32(id))
		h := head(tok)
		hash := tokenHash(h, len(tok), tail(tok))
		t.filter.add(hash)
		recs[id] = tokenSlot{head: h, id: uint32(id), n: uint32(hash>>t.shift)<<8 | uint32(len(tok))}
	}
	for _, p := range radixPasses(b) {
		var start [1<<12 + 1]int32
		mask := uint32(1)<<p[1] - 1
		for _, r := range recs {
			start[r.n>>(8+p[0])&mask+1]++
		}
		for k := 1; k < len(start); k++ {
			start[k] += start[k-1]
		}
		for _, r := range recs {
			k := r.n >> (8 + p[0]) & mask
			tmp[start[k]] = r
			start[k]++
		}
		recs, tmp = tmp, recs
	}
	last := -1
	for _, r := range recs {
		last = max(int(r.n>>8), last+1)
	}
	t.slots = make([]tokenSlot, max(1<<b, last+1)+1)
	next := 0
	for _, r := range recs {
		i := max(int(r.n>>8), next)
		r.n &= 0xff
		t.slots[i] = r
		next = i + 1
	}
	return t
}

// lookup returns the id of the token b, if b is one.
func (t *tokenTable) lookup(b []byte) (uint32, bool) {
	h := head(b)
	return t.lookupHash(b, h, tokenHash(h, len(b), tail(b)))
}

// lookupIn is lookup of text[i:e] (e > i), a piece, which reads the first
// eight bytes at once when text has them.
func (t *tokenTable) lookupIn(text []byte, i, e int) (uint32, bool) {
	if len(text)-i < 8 {
		return t.lookup(text[i:e])
	}
	n := e - i
	h := binary.LittleEndian.Uint64(text[i:])
	if n < 8 {
		h &= 1<<(8*n) - 1
	}
	return t.probe(text[i:e], h, tokenHash(h, n, tail(text[i:e])))
}

// lookupHash is lookup of b, whose head is h and hash hash.
func (t *tokenTable) lookupHash(b []byte, h, hash uint64) (uint32, bool) {
	if !t.filter.has(hash) {
		return 0, false
	}
	return t.probe(b, h, hash)
}

// probe is lookupHash without the filter, for bytes that are likely a
// token: the pieces of the split pattern.
func (t *tokenTable) probe(b []byte, h, hash uint64) (uint32, bool) {
	n := uint32(len(b))
	for i := hash >> t.shift; ; i++ {
		s := &t.slots[i]
		if s.n == n && s.head == h && (n <= 8 || bytes.Equal(t.vocab.token(s.id)[8:], b[8:])) {
			return s.id, true
		}
		if s.n == 0 {
			return 0, false
		}
	}
}

// A pairTable maps two tokens to the token that BPE merges them into. Ids
// are below 1<<pairIDBits; a slot packs the two ids and the merged id
// plus one, so that an empty slot is 0.
type pairTable struct {
	slots []uint64
	shift uint
	// filter holds the hashes of the pairs, which answers most lookups of
	// absent pairs without touching the slots.
	filter *filter
}

const pairIDBits = 21

func pairKey(a, b uint32) uint64 { return uint64(a)<<pairIDBits | uint64(b) }

// newPairTable returns the table of the splits of the tokens ids: token
// id merges from its split.
func newPairTable(splits splitTable, ids []uint32, sc *buildScratch) *pairTable {
	b := tableBits(len(ids))
	t := &pairTable{shift: 64 - b, filter: newFilter(len(ids))}
	sc.keys, sc.keysTmp = grow(sc.keys, len(ids)), grow(sc.keysTmp, len(ids))
	recs, tmp := sc.keys, sc.keysTmp
	for k, id := range ids {
		key := pairKey(splits.left(id), splits.right(id))
		t.filter.add(key * hashMul)
		recs[k] = key<<pairIDBits | uint64(id+1)
	}
	home := func(r uint64) uint32 { return uint32(r >> pairIDBits * hashMul >> t.shift) }
	for _, p := range radixPasses(b) {
		var start [1<<12 + 1]int32
		mask := uint32(1)<<p[1] - 1
		for _, r := range recs {
			start[home(r)>>p[0]&mask+1]++
		}
		for k := 1; k < len(start); k++ {
			start[k] += start[k-1]
		}
		for _, r := range recs {
			k := home(r) >> p[0] & mask
			tmp[start[k]] = r
			start[k]++
		}
		recs, tmp = tmp, recs
	}
	last := -1
	for _, r := range recs {
		last = max(int(home(r)), last+1)
	}
	t.slots = make([]uint64, max(1<<b, last+1)+1)
	next := 0
	for _, r := range recs {
		i := max(int(home(r)), next)
		t.slots[i] = r
		next = i + 1
	}
	return t
}

// get returns the token a and b merge into, if any.
func (t *pairTable) get(a, b uint32) (uint32, bool) {
	k := pairKey(a, b)
	if !t.filter.has(k * hashMul) {
		return 0, false
	}
	for i := k * hashMul >> t.shift; ; i++ {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		if s>>pairIDBits == k {
			return uint32(s&(1<<pairIDBits-1)) - 1, true
		}
	}
}

// A filter is a blocked Bloom filter of hashes: two bits in one word per
// hash. It answers most lookups of keys that are absent from a table from
// a few hundred kilobytes that stay in cache, where the table would miss.
type filter struct {
	words []uint64
	shift uint
}

// newFilter returns a filter for about n hashes, with a false positive
// rate of a few percent.
func newFilter(n int) *filter {
	b := max(uint(bits.Len(uint(n/4))), 4) // about four hashes, eight bits, a word
	return &filter{words: make([]uint64, 1<<b), shift: 64 - b}
}

func (f *filter) bits(h uint64) uint64 {
	return 1<<(h>>20&63) | 1<<(h>>26&63)
}

func (f *filter) add(h uint64) { f.words[h>>f.shift] |= f.bits(h) }

// has reports whether h may have been added.
func (f *filter) has(h uint64) bool {
	m := f.bits(h)
	return f.words[h>>f.shift]&m == m
}
