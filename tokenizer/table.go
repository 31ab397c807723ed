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
// where every probe ends. Keys taken in the order of their home slots are
// laid out in one pass that writes memory in sequence (placing each in the
// first free slot from its home), several times faster than inserting keys
// in id order. That order is an [order]: the embedded ranks store it, so
// that loading them sorts nothing, and homeOrder finds it for other ranks.

// An order lists ids, three bytes each, little-endian, in the order of
// their home slots in a table; ids with the same home are in increasing
// order.
type order []byte

func (o order) len() int { return len(o) / 3 }

func (o order) at(k int) uint32 {
	i := 3 * k
	return uint32(o[i]) | uint32(o[i+1])<<8 | uint32(o[i+2])<<16
}

// homeOrder returns the order of keys, each home<<32 | id with home below
// 1<<b (b ≤ 24): a radix sort of two passes on the homes, which keeps ids
// of one home in the order of keys. It sorts keys in place.
func homeOrder(keys []uint64, b uint) order {
	tmp := make([]uint64, len(keys))
	lo := b / 2
	for _, p := range [2][2]uint{{0, lo}, {lo, b - lo}} {
		var start [1<<12 + 1]int32
		mask := uint64(1)<<p[1] - 1
		for _, k := range keys {
			start[k>>(32+p[0])&mask+1]++
		}
		for d := 1; d < len(start); d++ {
			start[d] += start[d-1]
		}
		for _, k := range keys {
			d := k >> (32 + p[0]) & mask
			tmp[start[d]] = k
			start[d]++
		}
		keys, tmp = tmp, keys
	}
	o := make(order, 0, 3*len(keys))
	for _, k := range keys {
		o = append(o, byte(k), byte(k>>8), byte(k>>16))
	}
	return o
}

// A placer lays out the keys of a table in their order, checking that the
// order is one: every id below n at most once, homes in increasing order.
type placer struct {
	seen []uint64 // a bit per id
	n    uint32
	home uint64 // of the last key
	next int    // the first slot past the last key
}

func newPlacer(n int) placer { return placer{seen: make([]uint64, n/64+1), n: uint32(n)} }

// place returns the slot of id, of home slot home, or false if the order
// breaks off there.
func (p *placer) place(id uint32, home uint64) (int, bool) {
	if id >= p.n || p.seen[id/64]&(1<<(id%64)) != 0 || home < p.home {
		return 0, false
	}
	p.seen[id/64] |= 1 << (id % 64)
	p.home = home
	i := max(int(home), p.next)
	p.next = i + 1
	return i, true
}

// slotsFor returns s, or s grown, with room for one empty slot past slot i.
func slotsFor[T any](s []T, i int) []T {
	for len(s) <= i+1 {
		var zero T
		s = append(s, zero)
	}
	return s
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

// tokenBits returns the number of index bits of the token table of n
// tokens: half as full as tableBits makes it, since most lookups are of
// pieces that are tokens, and they probe fewer slots.
func tokenBits(n int) uint { return tableBits(n) + 1 }

// headHash returns the head of tok and its hash.
func headHash(tok []byte) (h, hash uint64) {
	h = head(tok)
	return h, tokenHash(h, len(tok), tail(tok))
}

// tokenOrder returns the order of ids 0 to n-1 of v in their table.
func tokenOrder(v *vocab, n int) order {
	b := tokenBits(n)
	keys := make([]uint64, n)
	for id := range keys {
		_, hash := headHash(v.token(uint32(id)))
		keys[id] = hash>>(64-b)<<32 | uint64(id)
	}
	return homeOrder(keys, b)
}

// newTokenTable returns the table of ids 0 to n-1 of v, laid out in ord,
// or false if ord is not their order. If lengths is not nil, the tokens
// lie in v.data in the order ord, from its start, with these lengths: the
// table reads them in sequence, where looking up each id's would miss the
// cache.
func newTokenTable(v *vocab, n int, ord order, lengths []byte) (*tokenTable, bool) {
	if ord.len() != n {
		return nil, false
	}
	b := tokenBits(n)
	t := &tokenTable{shift: 64 - b, vocab: v, filter: newFilter(n)}
	slots := make([]tokenSlot, 1<<b+1, 1<<b+64)
	p := newPlacer(n)
	start := 0
	for k := range n {
		id := ord.at(k)
		var tok []byte
		if lengths != nil {
			tok = v.data[start : start+int(lengths[k])]
			start += len(tok)
		} else {
			tok = v.token(id)
		}
		h, hash := headHash(tok)
		i, ok := p.place(id, hash>>t.shift)
		if !ok {
			return nil, false
		}
		t.filter.add(hash)
		slots = slotsFor(slots, i)
		slots[i] = tokenSlot{head: h, id: id, n: uint32(len(tok))}
	}
	t.slots = slots
	return t, true
}

// lookup returns the id of the token b, if b is one.
func (t *tokenTable) lookup(b []byte) (uint32, bool) {
	h := head(b)
	return t.lookupHash(b, h, tokenHash(h, len(b), tail(b)))
}

// lookupIn is lookup of text[i:e] (e > i), a piece, which reads the first
// eight bytes at once when text has them. Most pieces of prose and code
// are tokens, but most of random text (base64, hex) are not, and the
// filter answers those from memory that stays in cache, where a probe of
// the table misses it on each: the worst case takes a third less time, for
// a few per cent more on prose.
func (t *tokenTable) lookupIn(text []byte, i, e int) (uint32, bool) {
	if len(text)-i < 8 {
		return t.lookup(text[i:e])
	}
	n := e - i
	h := binary.LittleEndian.Uint64(text[i:])
	if n < 8 {
		h &= 1<<(8*n) - 1
	}
	return t.lookupHash(text[i:e], h, tokenHash(h, n, tail(text[i:e])))
}

// lookupHash is lookup of b, whose head is h and hash hash.
func (t *tokenTable) lookupHash(b []byte, h, hash uint64) (uint32, bool) {
	if !t.filter.has(hash) {
		return 0, false
	}
	return t.probe(b, h, hash)
}

// probe is lookupHash without the filter, for bytes that are likely a
// token (see reachable).
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

// pairHash returns the hash of the key of the pair a, b.
func pairHash(a, b uint32) uint64 { return pairKey(a, b) * hashMul }

// newPairTable returns the table of the splits of the tokens in ord, the
// order of the tokens below n that splits merges (of lower-ranked parts):
// token id merges from its split. It returns false if ord is not that
// order or some token in it is not merged so.
func newPairTable(splits splitTable, n int, ord order) (*pairTable, bool) {
	m := ord.len()
	b := tableBits(m)
	t := &pairTable{shift: 64 - b, filter: newFilter(m)}
	slots := make([]uint64, 1<<b+1, 1<<b+64)
	p := newPlacer(n)
	for k := range m {
		id := ord.at(k)
		if int(id) >= n {
			return nil, false
		}
		l, r := splits.left(id), splits.right(id)
		hash := pairHash(l, r)
		i, ok := p.place(id, hash>>t.shift)
		if !ok || l >= id || r >= id {
			return nil, false
		}
		t.filter.add(hash)
		slots = slotsFor(slots, i)
		slots[i] = pairKey(l, r)<<pairIDBits | uint64(id+1)
	}
	t.slots = slots
	return t, true
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

// A wordTable maps words of two to four characters of three bytes to the
// ids of the tokens they are, by wordKey: a word is found in its home slot
// or a later one, and one empty slot follows the last.
type wordTable struct {
	slots []wordSlot
	shift uint
}

type wordSlot struct {
	key uint64 // as wordKey returns it
	id  uint32
	n   uint32 // the number of characters; 0 marks an empty slot
}

// wordKey returns the keys (charKey) of the characters of b[:l], 16 bits
// each, the first lowest, and their number, if b[:l] is two to four
// characters of three bytes.
func wordKey(b []byte, l int) (key uint64, n int, ok bool) {
	if l%3 != 0 || l < 6 || l > 12 {
		return 0, 0, false
	}
	for j := 0; j < l; j += 3 {
		if !isChar3(b[j:]) {
			return 0, 0, false
		}
		key |= uint64(charKey(b[j:])) << (16 * (j / 3))
	}
	return key, l / 3, true
}

// wordHash returns the hash of the word of n characters key.
func wordHash(key uint64, n int) uint64 { return (key ^ uint64(n)<<62) * hashMul }

// newWordTable returns the table of words.
func newWordTable(words []wordSlot) *wordTable {
	b := tableBits(len(words))
	t := &wordTable{shift: 64 - b, slots: make([]wordSlot, 1<<b+1)}
	for _, w := range words {
		i := int(wordHash(w.key, int(w.n)) >> t.shift)
		for t.slots[i].n != 0 {
			i++
			t.slots = slotsFor(t.slots, i)
		}
		t.slots[i] = w
	}
	return t
}

// get returns the id of the word of n characters key, if it is a token.
func (t *wordTable) get(key uint64, n int) (uint32, bool) {
	for i := wordHash(key, n) >> t.shift; ; i++ {
		s := &t.slots[i]
		if s.key == key && s.n == uint32(n) {
			return s.id, true
		}
		if s.n == 0 {
			return 0, false
		}
	}
}
