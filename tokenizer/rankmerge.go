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
// finding each merge by scanning all pairs.
func (t *bpeTables) appendScanMerge(dst []uint32, piece []byte) []uint32 {
	var start [smallPiece + 1]uint8 // part i is piece[start[i]:start[i+1]]
	var ids [smallPiece]uint32      // part i is token ids[i]
	var ranks [smallPiece]uint32    // of parts i and i+1 merged
	m := len(piece)                 // parts
	for i := range m + 1 {
		start[i] = uint8(i)
	}
	for i, b := range piece {
		ids[i] = t.byTok[b]
	}
	for i := range m - 1 {
		ranks[i] = t.prefixes[prefixKey(piece[i:])].tok
	}
	for m > 1 {
		best, at := uint32(noRank), -1
		for i, r := range ranks[:m-1] {
			if r < best {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		// Parts at and at+1 become one.
		ids[at] = best
		copy(ids[at+1:], ids[at+2:m])
		copy(start[at+1:], start[at+2:m+1])
		if at+2 < m {
			copy(ranks[at+1:], ranks[at+2:m-1])
		}
		m--
		if at+1 < m {
			ranks[at] = t.rank(piece[start[at]:start[at+2]])
		}
		if at > 0 {
			ranks[at-1] = t.rank(piece[start[at-1]:start[at+1]])
		}
	}
	return append(dst, ids[:m]...)
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
