package tokenizer

import "math"

// tiktoken's own merge, for vocabularies that backtracking cannot serve.
//
// appendBPE (merge.go) needs every token to be merged from two tokens of
// lower rank. cl100k_base and o200k_base are so (TestSplitsExact), but the
// 28,000 tokens Meta added to make Llama 3 are not all: BPE makes ".:.:"
// (rank 100421) from ".:." (rank 105051) and ":". For such a vocabulary
// the pieces that are not tokens are merged as tiktoken merges them:
// repeatedly the adjacent pair whose bytes are the token of lowest rank,
// the leftmost on a tie. Short pieces scan their pairs, as tiktoken does;
// longer ones keep the pairs in a heap, so that the cost grows as
// n log n, not n².

// smallPiece is the length of the longest piece merged by scanning.
const smallPiece = 32

// noRank is the rank of a pair whose bytes are no token.
const noRank = math.MaxUint32

// rank returns the id of the token b, or noRank.
func (t *bpeTables) rank(b []byte) uint32 {
	if len(b) > maxTokenLen {
		return noRank
	}
	if id, ok := t.tokens.lookup(b); ok {
		return id
	}
	return noRank
}

// mergeScratch is the memory of appendHeapMerge, kept between calls.
type mergeScratch struct {
	next  []int32  // by position: where the part that starts there ends
	prev  []int32  // by position: where the part before it starts
	ranks []uint32 // by position: the rank of the part there merged with the next, or noRank
	ids   []uint32 // by position: the id of the part that starts there
	heap  []uint64 // rank<<32 | position of pairs, lowest first
}

// appendScanMerge appends the tokens of a piece of 2 to smallPiece bytes,
// finding each merge by scanning all pairs. A part is known by the offset
// where it starts; the parts stay in place, linked, and merging one into
// the part before it only marks it dead (noRank), so nothing is moved.
func (t *bpeTables) appendScanMerge(dst []uint32, piece []byte) []uint32 {
	n := len(piece)
	var (
		next, prev [smallPiece]uint8  // by part: where the next part, and the one before, start
		ids        [smallPiece]uint32 // by part: its token
		ranks      [smallPiece]uint32 // by part: of it merged with the next; noRank if none, or dead
	)
	for i, b := range piece {
		next[i], prev[i], ids[i], ranks[i] = uint8(i+1), uint8(i-1), t.byTok[b], noRank
	}
	for i := range n - 1 {
		ranks[i] = t.prefixes[prefixKey(piece[i:])].tok
	}
	for {
		// The lowest rank, the leftmost of equals, without branches.
		low := uint64(noRank) << 8
		for i, r := range ranks[:n-1] {
			low = min(low, uint64(r)<<8|uint64(i))
		}
		best, at := uint32(low>>8), int(low&0xff)
		if best == noRank {
			break
		}
		// The part at takes in the next one, j; k follows.
		j := int(next[at])
		k := int(next[j])
		ids[at], next[at], ranks[j], ranks[at] = best, uint8(k), noRank, noRank
		if k < n {
			prev[k] = uint8(at)
			ranks[at] = t.mergeRank(piece, at, int(next[k]), best, ids[k])
		}
		if at > 0 {
			p := int(prev[at])
			ranks[p] = t.mergeRank(piece, p, k, ids[p], best)
		}
	}
	for i := 0; i < n; i = int(next[i]) {
		dst = append(dst, ids[i])
	}
	return dst
}

// mergeRank returns the rank of the tokens a, b merged, which are
// piece[i:k]: the token of their bytes, as tiktoken has it. Where
// backtracking is possible, BPE merges two tokens only into a token whose
// split they are (TestSplitsExact checks the premise), so the pair table
// answers, mostly from its filter, without hashing bytes.
func (t *bpeTables) mergeRank(piece []byte, i, k int, a, b uint32) uint32 {
	if t.pairs != nil {
		if m, ok := t.pairs.get(a, b); ok {
			return m
		}
		return noRank
	}
	return t.rank(piece[i:k])
}

// appendHeapMerge appends the tokens of a piece (not empty), merged with a
// heap of its pairs by rank and then position; a pair whose parts have
// changed since it was pushed is dropped when it comes up.
func (t *bpeTables) appendHeapMerge(dst []uint32, piece []byte, s *mergeScratch) []uint32 {
	n := len(piece)
	s.next = grow(s.next, n)
	s.prev = grow(s.prev, n)
	s.ranks = grow(s.ranks, n)
	s.ids = grow(s.ids, n)
	s.heap = s.heap[:0]
	for i := range n {
		s.next[i], s.prev[i] = int32(i+1), int32(i-1)
		s.ids[i] = t.byTok[piece[i]]
		s.ranks[i] = noRank
		if i+1 < n {
			if r := t.prefixes[prefixKey(piece[i:])].tok; r != noRank {
				s.ranks[i] = r
				s.heap = append(s.heap, uint64(r)<<32|uint64(i))
			}
		}
	}
	for i := len(s.heap)/2 - 1; i >= 0; i-- {
		siftDown(s.heap, i)
	}
	for len(s.heap) > 0 {
		e := s.heap[0]
		last := len(s.heap) - 1
		s.heap[0] = s.heap[last]
		if s.heap = s.heap[:last]; last > 0 {
			siftDown(s.heap, 0)
		}
		r, i := uint32(e>>32), int32(e)
		if s.ranks[i] != r {
			continue // stale
		}
		// The part at i takes in the next one, j; then k follows it.
		j := s.next[i]
		k := s.next[j]
		s.next[i], s.ids[i], s.ranks[j] = k, r, noRank
		s.ranks[i] = noRank
		if int(k) < n {
			s.prev[k] = i
			if r := t.rank(piece[i:s.next[k]]); r != noRank {
				s.ranks[i] = r
				s.heap = push(s.heap, uint64(r)<<32|uint64(i))
			}
		}
		if p := s.prev[i]; p >= 0 {
			s.ranks[p] = t.rank(piece[p:k])
			if s.ranks[p] != noRank {
				s.heap = push(s.heap, uint64(s.ranks[p])<<32|uint64(p))
			}
		}
	}
	for i := int32(0); int(i) < n; i = s.next[i] {
		dst = append(dst, s.ids[i])
	}
	return dst
}

// grow returns s with length n, reallocated if it is too short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// push adds e to the min-heap h.
func push(h []uint64, e uint64) []uint64 {
	h = append(h, e)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h[p] <= e {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
	return h
}

// siftDown restores the min-heap h below i, one of its elements.
func siftDown(h []uint64, i int) {
	e := h[i]
	for {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1] < h[c] {
			c++
		}
		if e <= h[c] {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = e
}
