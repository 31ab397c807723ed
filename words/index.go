package words

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/m2m-go/m2m/internal/huge"
)

// An index finds a table's word by its bytes: open addressing over a power
// of two slots, at least twice as many as words (a table's, four times:
// most words of a text are not in it, and a miss ends at a free slot,
// found sooner so; AppendEncode +3%), each keyed by the word's
// first 8 bytes (zero-padded: a word's letters are never 0, so key 0 is a
// free slot) and its length: most words of a text are 8 letters or fewer,
// found by one load and compare, where a Go map of strings hashed the
// whole word, then compared it (AppendEncode 18-25% slower with it, Choose
// 14-17%: BenchmarkEncode, BenchmarkChoose, bench/README.md).
type index struct {
	slots []slot
	shift uint // 64 - log2(len(slots))
}

type slot struct {
	key uint64 // the word's first 8 bytes, little-endian, zero-padded
	num int32  // its number
	n   int32  // its length
}

// newIndex returns the index of words, and false where two are equal.
func newIndex(words [][]byte) (index, bool) {
	x := makeIndex(2 * len(words))
	for i, w := range words {
		k := key(w)
		if x.find(k, w, words) >= 0 {
			return index{}, false
		}
		x.insert(k, len(w), int32(i))
	}
	return x, true
}

// makeIndex returns an empty index with room for n words.
func makeIndex(n int) index {
	size := 8
	for size < 2*n {
		size *= 2
	}
	// Written before it is read: probes read slots (huge.Touch). In huge
	// pages where it is a MiB or more (Choose's, counting a frame's
	// words: 2 MiB for dev's strings, 580 faults of 4 KiB in a fresh
	// process, ~8% of the run's, on the frame's critical path).
	slots := huge.Touch(huge.Slice[slot](size))
	return index{slots: slots, shift: uint(64 - bits.TrailingZeros(uint(size)))}
}

// insert adds word number num, of key k and length n, which x does not
// hold.
func (x *index) insert(k uint64, n int, num int32) {
	h := x.hash(k, n)
	for ; x.slots[h].key != 0; h = (h + 1) & (len(x.slots) - 1) {
	}
	x.slots[h] = slot{key: k, num: num, n: int32(n)}
}

// count returns the distinct words of src, a capitalized one with its
// first letter in lower case, the first limit of them, and how many times
// src holds each.
func count(src []byte, limit int) (words [][]byte, uses []int) {
	// Made at about their size or more (dev's strings hold a distinct
	// word in 191 bytes): grown by append, their copies were fresh
	// memory, 6% of a run's page faults on dev.jsonl (in huge pages from
	// a MiB, ~100 fewer); the index, grown from 4,096 words, was made and
	// filled again five times over.
	n := min(limit, len(src)/128)
	x := makeIndex(max(1<<12, n))
	words, uses = huge.Slice[[]byte](n)[:0], huge.Slice[int](n)[:0]
	var ws wordScan
	for i, j := ws.next(src, 0); i < len(src); i, j = ws.next(src, j) {
		w := src[i:j]
		k := keyAt(src, i, j)
		capital := capitalized(w)
		if capital {
			k |= 0x20 // found as the lower-case word: the same length and letters past the first
		}
		if n := x.find(k, w, words); n >= 0 {
			uses[n]++
			continue
		}
		if len(words) == limit {
			continue
		}
		if capital {
			w = append([]byte{w[0] | 0x20}, w[1:]...)
		}
		if 2*len(words) >= len(x.slots) {
			x = makeIndex(2 * len(words))
			for n, w := range words {
				x.insert(key(w), len(w), int32(n))
			}
		}
		x.insert(k, len(w), int32(len(words)))
		words = append(words, w)
		uses = append(uses, 1)
	}
	return words, uses
}

// key returns the first 8 bytes of w, little-endian, zero-padded.
func key(w []byte) uint64 {
	if len(w) >= 8 {
		return binary.LittleEndian.Uint64(w)
	}
	var k uint64
	for i, c := range w {
		k |= uint64(c) << (8 * i)
	}
	return k
}

// keyAt returns key(src[i:j]), loading 8 bytes of src where it has them
// (never past its length: bytes past it may be another's to write).
func keyAt(src []byte, i, j int) uint64 {
	if i+8 <= len(src) {
		k := binary.LittleEndian.Uint64(src[i:])
		if n := j - i; n < 8 {
			k &= 1<<(8*n) - 1
		}
		return k
	}
	return key(src[i:j])
}

func (x *index) hash(k uint64, n int) int {
	return int(((k ^ uint64(n)<<58) * 0x9E3779B97F4A7C15) >> x.shift)
}

// find returns the number of the word of key k (key(w), or a key for w
// with its first letter in lower case) and w's bytes past the first 8,
// or -1 where there is none.
func (x *index) find(k uint64, w []byte, words [][]byte) int32 {
	mask := len(x.slots) - 1
	for h := x.hash(k, len(w)); ; h = (h + 1) & mask {
		s := &x.slots[h]
		if s.key == 0 {
			return -1
		}
		if s.key == k && int(s.n) == len(w) && (len(w) <= 8 || bytes.Equal(words[s.num][8:], w[8:])) {
			return s.num
		}
	}
}
