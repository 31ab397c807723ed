package ppm

import (
	"encoding/binary"
	"math/bits"
)

// The match model: the bytes coded so far, and a table from the hash of
// the last matchMin bytes to where they last ended. While the bytes before
// the current position repeat an earlier stretch, the byte that followed
// that stretch is predicted, with a probability learned by the length of
// the match: near-duplicate text (the same prompt with another question,
// an answer with another ending) costs little more than a bit a byte.
const (
	matchMin   = 8
	matchBits  = 20 // the most: smaller for less text
	matchLimit = 65535
)

type matcher struct {
	hist  []byte
	table []uint32 // hash of matchMin bytes -> position after them, +1
	shift uint     // 64 - log2(len(table))
	ptr   int      // position in hist of the predicted byte, while len > 0
	len   int      // length of the current match
	prob  [24]prob // how often a match was right, by bucket of its length
}

// init readies the matcher for capacity bytes, after those of dict, which
// it finds repeats in as in what it has seen.
func (t *matcher) init(dict []byte, capacity int) {
	t.start(append(make([]byte, 0, len(dict)+min(capacity, 1<<20)), dict...), capacity) // grown as needed past that
}

// start readies the matcher for capacity bytes after hist, the history so
// far (a dictionary), which push appends to: an encoder that has its text
// behind hist, in hist's capacity, so keeps no copy of it.
func (t *matcher) start(hist []byte, capacity int) {
	t.hist = hist
	b := min(max(bits.Len(uint(len(hist)+capacity)), 10), matchBits)
	t.table, t.shift = make([]uint32, 1<<b), uint(64-b)
	t.ptr, t.len = 0, 0
	for i := range t.prob {
		t.prob[i] = prob{p: 2048}
	}
	for end := matchMin; end <= len(hist); end++ {
		t.table[hashAt(hist[end-matchMin:], t.shift)] = uint32(end + 1)
	}
}

// hashAt hashes the first matchMin bytes of h to 64-shift bits.
func hashAt(h []byte, shift uint) uint32 {
	return uint32((binary.LittleEndian.Uint64(h) * 0x9E3779B97F4A7C15) >> shift)
}

// push appends b to the history and moves the match on, learning how
// often a match of its length predicts right.
func (t *matcher) push(b byte) {
	if t.hist == nil {
		return
	}
	if t.len > 0 {
		bit := 1
		if t.hist[t.ptr] == b {
			bit = 0
		}
		adapt(&t.prob[t.bucket()], bit)
		if bit == 0 && t.len < matchLimit {
			t.ptr++
			t.len++
		} else {
			t.len = 0
		}
	}
	t.hist = append(t.hist, b)
	if len(t.hist) < matchMin {
		return
	}
	h := hashAt(t.hist[len(t.hist)-matchMin:], t.shift)
	// A new match is looked for at every fourth byte only: each look is a
	// miss in a table larger than the caches, and a repeat of any length
	// worth coding is found at most three bytes late.
	if t.len == 0 && len(t.hist)&3 == 0 {
		if at := t.table[h]; at != 0 {
			t.ptr, t.len = int(at-1), 1
		}
	}
	t.table[h] = uint32(len(t.hist) + 1)
}

func (t *matcher) bucket() int { return min(int(bucket(uint32(t.len))), len(t.prob)-1) }

// matchConfident is how often a match must have been right, at its
// length, to be coded at all: a guess right 63% of the time costs about a
// bit to confirm or refute, more than the context model pays for the byte.
const matchConfident = 4096 * 15 / 16

// matchPredict returns the byte the match predicts and the probability of
// its being right, if the match is long enough to be worth coding.
func (m *model) matchPredict() (byte, uint32, bool) {
	t := &m.match
	if t.len == 0 || t.ptr >= len(t.hist) {
		return 0, 0, false
	}
	p := t.prob[t.bucket()].get()
	return t.hist[t.ptr], p, p >= matchConfident
}
