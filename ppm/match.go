package ppm

import (
	"encoding/binary"
	"math/bits"
)

// The match model: the bytes coded so far, and a table from the hash of
// the last matchMin bytes to where they last ended. While the bytes before
// the current position repeat an earlier stretch, the byte that followed
// that stretch is predicted, with a probability learned by the length of
// the match and what the context model knows there (matchCtx): near-
// duplicate text (the same prompt with another question, an answer with
// another ending) costs little more than a bit a byte.
const (
	matchMin   = 8
	matchBits  = 20 // the most: smaller for less text
	matchLimit = 65535
	// matchUse is the shortest match whose prediction is coded. Shorter
	// ones the context model, 16 bytes deep, predicts as well, and in
	// structured text (JSON's keys and punctuation around values that
	// vary) a match of 8 that runs into the next value is wrong where it
	// is most confident: coding matches of 8 or more, dev100's skeletons
	// coded 4.5% larger and its templates 2.5%, its text 0.03% smaller.
	matchUse = 32
	// matchCtxs is how many classes of context matchCtx tells apart.
	matchCtxs = 16
)

type matcher struct {
	hist  []byte
	table []uint32             // hash of matchMin bytes -> position after them, +1
	shift uint                 // 64 - log2(len(table))
	ptr   int                  // position in hist of the predicted byte, while len > 0
	len   int                  // length of the current match
	prob  [matchCtxs * 24]prob // how often a match was right, by matchCtx and bucket of its length
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
		t.prob[i] = prob{p: probOne / 2}
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
// often a match of its length predicts right in a context of class ctx.
func (t *matcher) push(b byte, ctx int) {
	if t.hist == nil {
		return
	}
	if t.len > 0 {
		bit := 1
		if t.hist[t.ptr] == b {
			bit = 0
		}
		adapt(&t.prob[t.bucket(ctx)], bit)
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

// bucket is the index in prob of the current match in a context of class
// ctx.
func (t *matcher) bucket(ctx int) int { return ctx*24 + min(int(bucket(uint32(t.len))), 23) }

// matchConfident is how often a match must have been right, at its
// length, to be coded at all: a guess right 63% of the time costs about a
// bit to confirm or refute, more than the context model pays for the byte.
const matchConfident = probOne * 15 / 16

// matchPredict returns the byte the match predicts and the probability of
// its being right, if the match is long enough to be worth coding.
func (m *model) matchPredict() (byte, uint32, bool) {
	t := &m.match
	if t.len < matchUse || t.ptr >= len(t.hist) {
		return 0, 0, false
	}
	p := t.prob[t.bucket(m.matchCtx())].get()
	return t.hist[t.ptr], p, p >= matchConfident
}

// matchCtx is the class of the context the next byte is coded in, for the
// match model: its order in fours, and whether it has no symbol, one other
// than the match's, the match's alone, or several. A match that a
// context of one symbol agrees with is right far more often than one it
// does not (dev100's templates 7% smaller than by length alone).
func (m *model) matchCtx() int {
	t, c := &m.match, m.cur
	if t.len == 0 || t.ptr >= len(t.hist) {
		return 0
	}
	x := 3
	switch m.numStats(c) {
	case 0:
		x = 0
	case 1:
		x = 1
		if m.sym(m.stats(c)) == t.hist[t.ptr] {
			x = 2
		}
	}
	return min(m.order(c), 15)/4*4 + x
}
