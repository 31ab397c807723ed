package brotli

import (
	_ "embed"
	"encoding/binary"
	"sync"
)

// dictionary is the static dictionary of RFC 7932 (Appendix A), 122,784
// bytes: words of 4 to 24 letters, 1<<wordBits[n] of each length n, in
// order of length. A reference to one is a copy from past the window.
//
//go:embed dictionary.bin
var dictionary string

// wordBits is NDBITS of the RFC: the log2 of the count of words of each
// length.
var wordBits = [25]uint8{0, 0, 0, 0, 10, 10, 11, 11, 10, 10, 10, 10, 10, 9, 9, 8, 7, 7, 8, 7, 7, 6, 6, 5, 5}

const (
	minWord, maxWord = 4, 24
	filterBits       = 17 // a bit for each hash of a word's first four bytes: 16 KiB
	bucketBits       = 14
)

// wordIndex finds dictionary words by their first four bytes: first a
// bitmap of their hashes, which most positions of a text miss, then a
// bucket of entries by the same hash, each a word's first eight bytes,
// the longest words first. Words of up to eight bytes are matched without
// reading the dictionary. This is about a tenth of an encoder's time on
// JSON records, a third of what a hash table of chains took.
type wordIndex struct {
	start  [maxWord + 1]int // offset of the words of each length
	filter [1 << (filterBits - 6)]uint64
	bucket [1<<bucketBits + 1]uint16 // where each bucket's entries start
	entry  []wordEntry
}

type wordEntry struct {
	prefix   uint64 // the word's first eight bytes, or all of a shorter one
	n, index uint16 // its length and number among words of that length
}

func wordHash(first4 uint32) uint32 { return first4 * 0x1E35A7BD }

var words = sync.OnceValue(func() *wordIndex {
	x := &wordIndex{}
	off := 0
	for n := minWord; n <= maxWord; n++ {
		x.start[n] = off
		off += n << wordBits[n]
	}
	// Counted by bucket, then placed, the longest first.
	var count [1 << bucketBits]uint16
	for pass := range 2 {
		for n := maxWord; n >= minWord; n-- {
			for i := range 1 << wordBits[n] {
				at := x.start[n] + i*n
				h := wordHash(binary.LittleEndian.Uint32([]byte(dictionary[at : at+4])))
				b := h >> (32 - bucketBits)
				if pass == 0 {
					count[b]++
					f := h >> (32 - filterBits)
					x.filter[f/64] |= 1 << (f % 64)
					continue
				}
				var first8 [8]byte
				copy(first8[:], dictionary[at:at+min(n, 8)])
				x.entry[x.bucket[b]+count[b]] = wordEntry{binary.LittleEndian.Uint64(first8[:]), uint16(n), uint16(i)}
				count[b]++
			}
		}
		if pass == 0 {
			for b, c := range count {
				x.bucket[b+1] = x.bucket[b] + c
			}
			x.entry = make([]wordEntry, x.bucket[len(count)])
			clear(count[:])
		}
	}
	return x
})

// longest returns the length and number of the longest word that src[i:]
// starts with, or 0 if none does; first4 is src[i:i+4].
func (x *wordIndex) longest(src []byte, i int, first4 uint32) (n, index int) {
	h := wordHash(first4)
	if f := h >> (32 - filterBits); x.filter[f/64]&(1<<(f%64)) == 0 {
		return 0, 0
	}
	var first8 uint64 // src[i:i+8], or what there is
	if i+8 <= len(src) {
		first8 = binary.LittleEndian.Uint64(src[i:])
	} else {
		var b [8]byte
		copy(b[:], src[i:])
		first8 = binary.LittleEndian.Uint64(b[:])
	}
	b := h >> (32 - bucketBits)
	for _, w := range x.entry[x.bucket[b]:x.bucket[b+1]] {
		n := int(w.n)
		if (first8^w.prefix)&(^uint64(0)>>(64-8*min(n, 8))) != 0 || i+n > len(src) {
			continue
		}
		at := x.start[n] + int(w.index)*n
		if n <= 8 || string(src[i+8:i+n]) == dictionary[at+8:at+n] {
			return n, int(w.index)
		}
	}
	return 0, 0
}
