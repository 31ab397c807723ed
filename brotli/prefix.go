package brotli

import (
	"math/bits"
	"slices"
)

// prefixScratch is the memory building a prefix code takes, kept by the
// Encoder so that no call allocates.
type prefixScratch struct {
	used   [commandAlphabet]uint16 // the symbols counted, in order
	keys   [commandAlphabet]uint64 // count<<16 | symbol, the leaves in order
	weight [commandAlphabet]uint64 // the inner nodes' weights, in order
	parent [2 * commandAlphabet]int32
	depth  [2 * commandAlphabet]uint8
	rle    []uint8 // a code's lengths, run-length coded
	extra  []uint8 // the extra bits of each run
}

// codeLengths sets depth to the lengths of a Huffman code for the counts
// of hist, none longer than limit, and returns the symbols used, in
// order. With one symbol or none, every length is 0. A code too deep is
// built again with the smallest counts raised, doubling the floor each
// time.
func (s *prefixScratch) codeLengths(hist []uint32, depth []uint8, limit int) []uint16 {
	clear(depth)
	used := s.used[:0]
	for i, c := range hist {
		if c != 0 {
			used = append(used, uint16(i))
		}
	}
	n := len(used)
	if n <= 1 {
		return used
	}
	for floor := uint32(1); ; floor *= 2 {
		s.sortLeaves(hist, used, floor)
		keys := s.keys[:n]
		// Two queues, leaves (sorted) and inner nodes (made in order of
		// weight): each step joins the two lightest nodes.
		leaf, inner := 0, 0
		for k := range n - 1 {
			var w uint64
			for range 2 {
				if leaf < n && (inner >= k || keys[leaf]>>16 <= s.weight[inner]) {
					w += keys[leaf] >> 16
					s.parent[leaf] = int32(n + k)
					leaf++
				} else {
					w += s.weight[inner]
					s.parent[n+inner] = int32(n + k)
					inner++
				}
			}
			s.weight[k] = w
		}
		root := 2*n - 2
		s.depth[root] = 0
		deepest := uint8(0)
		for x := root - 1; x >= 0; x-- {
			d := s.depth[s.parent[x]] + 1
			s.depth[x] = d
			if x < n {
				deepest = max(deepest, d)
			}
		}
		if int(deepest) <= limit {
			for j, k := range keys {
				depth[k&0xffff] = s.depth[j]
			}
			return used
		}
	}
}

// sortLeaves sets s.keys to count<<16 | symbol of the used symbols, counts
// raised to floor, in order: by insertion for a few symbols, else by a
// pass of counting sort over counts under 64 (most of a record's), the
// rest sorted apart. Fixed costs like this are most of a small record's.
func (s *prefixScratch) sortLeaves(hist []uint32, used []uint16, floor uint32) {
	keys := s.keys[:len(used)]
	if len(used) <= 16 {
		for j, sym := range used {
			k := uint64(max(hist[sym], floor))<<16 | uint64(sym)
			at := j
			for ; at > 0 && keys[at-1] > k; at-- {
				keys[at] = keys[at-1]
			}
			keys[at] = k
		}
		return
	}
	const small = 64
	var at [small + 1]uint16 // where each count's keys go; small for larger
	for _, sym := range used {
		at[min(max(hist[sym], floor), small)]++
	}
	next := uint16(0)
	for c, k := range at {
		at[c] = next
		next += k
	}
	for _, sym := range used {
		c := max(hist[sym], floor)
		keys[at[min(c, small)]] = uint64(c)<<16 | uint64(sym)
		at[min(c, small)]++
	}
	slices.Sort(keys[at[small-1]:])
}

// canonicalCodes sets codes to the canonical code of the lengths in depth
// of the used symbols (section 3.2), bit-reversed, as the writer emits
// from the first bit.
func canonicalCodes(depth []uint8, codes []uint16, used []uint16) {
	var count [16]uint16
	for _, sym := range used {
		count[depth[sym]]++
	}
	count[0] = 0
	var next [16]uint16
	code := uint16(0)
	for b := 1; b < 16; b++ {
		code = (code + count[b-1]) << 1
		next[b] = code
	}
	for _, sym := range used {
		if d := depth[sym]; d != 0 {
			codes[sym] = bits.Reverse16(next[d]) >> (16 - d)
			next[d]++
		}
	}
}

// writePrefixCode builds a prefix code for the counts of hist over an
// alphabet of len(hist) symbols, writes it (section 3.4 for up to four
// symbols, else 3.5), and leaves its lengths and codes in depth and codes.
func (e *Encoder) writePrefixCode(hist []uint32, depth []uint8, codes []uint16) {
	w := &e.bw
	s := &e.prefix
	used := s.codeLengths(hist, depth, 15)
	canonicalCodes(depth, codes, used)
	if len(used) <= 4 {
		// A simple code: the symbols, ordered by length, of widths
		// known from their count.
		var syms [4]int
		for k, sym := range used {
			syms[k] = int(sym)
		}
		k := max(len(used), 1) // an unused alphabet: symbol 0, never written
		for a := 1; a < k; a++ {
			for b := a; b > 0 && depth[syms[b]] < depth[syms[b-1]]; b-- {
				syms[b], syms[b-1] = syms[b-1], syms[b]
			}
		}
		width := uint(bits.Len(uint(len(hist) - 1)))
		w.write(2, 1)
		w.write(2, uint64(k-1))
		for _, sym := range syms[:k] {
			w.write(width, uint64(sym))
		}
		if k == 4 {
			// Tree select: lengths 1, 2, 3, 3 rather than 2, 2, 2, 2.
			w.write(1, uint64(depth[syms[0]])&1)
		}
		if k == 1 {
			codes[syms[0]] = 0 // of length 0: no bits
		}
		return
	}
	last := len(depth) - 1
	for depth[last] == 0 {
		last--
	}
	s.rle, s.extra = runLengths(depth[:last+1], s.rle[:0], s.extra[:0])
	// The code of the code lengths, at most 5 bits long, and never of
	// one symbol: the format cannot say so.
	var lenHist [18]uint32
	for _, c := range s.rle {
		lenHist[c]++
	}
	var lenDepth [18]uint8
	var lenCodes [18]uint16
	lenUsed := s.codeLengths(lenHist[:], lenDepth[:], 5)
	if len(lenUsed) == 1 {
		if lenHist[0] == 0 {
			lenHist[0] = 1
		} else {
			lenHist[1] = 1
		}
		lenUsed = s.codeLengths(lenHist[:], lenDepth[:], 5)
	}
	skip := 0
	if lenDepth[codeLengthOrder[0]] == 0 && lenDepth[codeLengthOrder[1]] == 0 {
		skip = 2
		if lenDepth[codeLengthOrder[2]] == 0 {
			skip = 3
		}
	}
	stored := len(codeLengthOrder)
	for lenDepth[codeLengthOrder[stored-1]] == 0 {
		stored--
	}
	w.write(2, uint64(skip))
	for _, sym := range codeLengthOrder[skip:stored] {
		l := lenDepth[sym]
		w.write(uint(lengthCodeLen[l]), uint64(lengthCodeBits[l]))
	}
	canonicalCodes(lenDepth[:], lenCodes[:], lenUsed)
	for j, c := range s.rle {
		w.write(uint(lenDepth[c]), uint64(lenCodes[c]))
		switch c {
		case 16:
			w.write(2, uint64(s.extra[j]))
		case 17:
			w.write(3, uint64(s.extra[j]))
		}
	}
}

// runLengths appends to rle and extra the code lengths of depth as
// section 3.5 codes them: a length, or a run of the previous non-zero
// length (16) or of zeros (17), with the run's extra bits. The previous
// non-zero length starts at 8.
func runLengths(depth []uint8, rle, extra []uint8) ([]uint8, []uint8) {
	prev := uint8(8)
	for i := 0; i < len(depth); {
		v := depth[i]
		run := 1
		for i+run < len(depth) && depth[i+run] == v {
			run++
		}
		i += run
		if v != 0 && v != prev {
			rle, extra = append(rle, v), append(extra, 0)
			run--
			prev = v
		}
		if run < 3 {
			for range run {
				rle, extra = append(rle, v), append(extra, 0)
			}
			continue
		}
		// A run of r+3 as repeat codes, each a digit of r in base 4
		// (16) or 8 (17), the most significant first, one less in
		// each but the last.
		code, shift := uint8(16), 2
		if v == 0 {
			code, shift = 17, 3
		}
		start := len(rle)
		for r := run - 3; ; r-- {
			rle, extra = append(rle, code), append(extra, uint8(r&(1<<shift-1)))
			r >>= shift
			if r == 0 {
				break
			}
		}
		slices.Reverse(rle[start:])
		slices.Reverse(extra[start:])
	}
	return rle, extra
}
