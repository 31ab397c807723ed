package zenc

import (
	"math"
	"math/bits"
)

// Optimal parsing: each block's sequences chosen by their price in bits,
// as zstd's reference encoder does from its level 16 ("btopt"), over the
// same rows the lazy parse searches. A forward pass over the block gives
// each position the cheapest way found to reach it: a literal from the
// position before, or a match, at any of its lengths, from a position
// before (a repeat offset's, or one of the candidates of its row, each
// taken for the lengths no nearer candidate reaches). Prices are those
// of the block before's sequences and literals, the bits their Huffman
// and FSE codes would have taken; a frame's first block, with none
// before it, is parsed lazily for its prices first (on dev's strings'
// first 100 KB, 1.2% smaller than parsed lazily, where zstd's base
// frequencies as prices made it 0.9% larger). A match of Params.Optimal
// bytes or more is taken at once, ending the pass there: a long match's
// middle is rarely a better start, and each position priced costs a
// search. As in the lazy parse, a run of literals is searched less often
// the longer it grows.

// bitCost is a price's unit: a 256th of a bit.
const bitCost = 256

// minMatch is the shortest match the optimal parse prices: a repeat's
// least (repMatch), and a row's (whose hash is of 5 bytes) but where its
// tag collides.
const minMatch = 4

// prices are the costs of a block's codes, from the block before's.
type prices struct {
	lit [256]int32
	ll  [36]int32 // each literal length code's, its extra bits included
	ml  [53]int32 // match length codes', likewise
	of  [32]int32 // offset codes', likewise
}

// node is a position of the optimal parse's pass: the cheapest way found
// to reach it.
type node struct {
	cost int32    // from the pass's start
	ll   int32    // literals since the last match on that way
	ml   int32    // the match that reaches it, 0 for a literal
	off  int32    // that match's offset
	rep  [3]int32 // repeat offsets here, set once the pass is at it
}

// cand is a match the optimal parse prices.
type cand struct {
	ml, off int
}

// step is a match of the way addPath follows.
type step struct {
	at, ml, off int
}

// unreached is the cost of a node not yet reached.
const unreached = math.MaxInt32 / 2

// llPrice is the price of literal length n's code.
func (pr *prices) llPrice(n int32) int32 { return pr.ll[llCode(uint32(n))] }

// mlPrice is the price of match length n's code.
func (pr *prices) mlPrice(n int) int32 { return pr.ml[mlCode(uint32(n-3))] }

// ofPrice is the price of offset code ob (a repeat code 1-3, or an
// offset + 3).
func (pr *prices) ofPrice(ob int) int32 {
	return pr.of[bits.Len(uint(ob))-1]
}

// parseBlock finds the sequences of the block from start to end of e.buf,
// by price where e's parameters ask for it: a frame's first block is
// parsed lazily for its prices first, the tables then set back as they
// were.
func (e *Encoder) parseBlock(start, end int) {
	switch {
	case e.p.Optimal == 0:
		e.parse(start, end)
		return
	case e.fresh > 0:
		e.parse(start, end) // a helper's first, not knowing the repeat offsets
	default:
		if !e.priced {
			e.parse(start, end)
			e.setPrices()
			e.resetTables(e.dict, 0)
		}
		e.parseOpt(start, end)
	}
	e.setPrices()
	e.priced = true
}

// setPrices sets e's prices from the block just parsed: its literals and
// sequences, each symbol priced at the bits of its share (at most limit
// bits, the longest code of its coder, for one not seen).
func (e *Encoder) setPrices() {
	var lit [256]uint32
	for _, b := range e.lits {
		lit[b]++
	}
	var ll [36]uint32
	var ml [53]uint32
	var of [32]uint32
	for _, s := range e.seqs {
		l, m, o := s.codes()
		ll[l]++
		ml[m]++
		of[o]++
	}
	pr := &e.prices
	price(pr.lit[:], lit[:], 11, nil)
	price(pr.ll[:], ll[:], 10, llBits[:])
	price(pr.ml[:], ml[:], 10, mlBits[:])
	price(pr.of[:], of[:], 9, nil)
	for c := range pr.of {
		pr.of[c] += int32(c) * bitCost // an offset code's extra bits are its number
	}
}

// price sets dst[i] to the cost of symbol i of counts: log2 of its share,
// counted once more than seen, at most limit bits, plus extra[i] bits.
func price(dst []int32, counts []uint32, limit float64, extra []uint8) {
	total := float64(len(counts))
	for _, c := range counts {
		total += float64(c)
	}
	for i, c := range counts {
		b := min(math.Log2(total/float64(c+1)), limit)
		dst[i] = int32(b * bitCost)
		if extra != nil {
			dst[i] += int32(extra[i]) * bitCost
		}
	}
}

// offBase returns the offset code (a repeat code 1-3, or off + 3) of a
// match at offset off after ll literals, with repeat offsets r, and the
// repeat offsets after it, as the decoder keeps them (RFC 8878,
// 3.1.2.5).
func offBase(r [3]int32, ll, off int) (int, [3]int32) {
	ob := offCode(&r, int32(ll), off)
	i := ob - 1 // the repeat offset's index: after no literals, one on
	if ll == 0 {
		i++
	}
	switch i {
	case 0:
		return ob, r
	case 1:
		return ob, [3]int32{r[1], r[0], r[2]}
	case 2:
		return ob, [3]int32{r[2], r[0], r[1]}
	}
	return ob, [3]int32{int32(off), r[0], r[1]} // rep[0]-1, or an offset
}

// offCode is offBase's code alone.
func offCode(r *[3]int32, ll int32, off int) int {
	o := int32(off)
	if ll > 0 {
		switch o {
		case r[0]:
			return 1
		case r[1]:
			return 2
		case r[2]:
			return 3
		}
		return off + 3
	}
	switch o {
	case r[1]:
		return 1
	case r[2]:
		return 2
	case r[0] - 1:
		return 3
	}
	return off + 3
}

// parseOpt finds the sequences of the block from start to end of e.buf by
// their prices, and the literals between them.
func (e *Encoder) parseOpt(start, end int) {
	e.clearBlock(end - start)
	if len(e.nodes) < end-start+1 {
		e.nodes = make([]node, BlockSize+1)
	}
	nodes := e.nodes[:end-start+1]
	pr := &e.prices
	limit := min(end, len(e.buf)-8) // hashing reads 8 bytes
	anchor := start
	for s := start; s < end; {
		// A pass from s, after the literals from anchor.
		nodes[s-start] = node{ll: int32(s - anchor), rep: e.rep}
		reach := s  // the last node set
		search := s // the next position searched
		p := s
		for ; p < end; p++ {
			nd := &nodes[p-start]
			if p > s {
				if nd.ml > 0 {
					prev := &nodes[p-int(nd.ml)-start]
					_, nd.rep = offBase(prev.rep, int(prev.ll), int(nd.off))
				} else {
					nd.rep = nodes[p-1-start].rep
				}
			}
			if reach == p {
				reach++
				nodes[reach-start].cost = unreached
			}
			c := nd.cost + pr.lit[e.buf[p]] + pr.llPrice(nd.ll+1) - pr.llPrice(nd.ll)
			if next := &nodes[p+1-start]; c < next.cost {
				next.cost, next.ll, next.ml = c, nd.ll+1, 0
			}
			if p >= limit || p < search {
				continue
			}
			// The repeat offsets' matches, then the rows'.
			cands := e.cands[:0]
			reps := nd.rep
			if nd.ll == 0 {
				reps = [3]int32{nd.rep[1], nd.rep[2], nd.rep[0] - 1}
			}
			covered := minMatch - 1 // the lengths a cheaper match reaches
			for _, off := range reps {
				if off == 0 {
					continue // rep[0]-1 where rep[0] is 1
				}
				if n := e.repMatch(p, int(off), end); n > 0 {
					cands = append(cands, cand{n, int(off)})
					covered = max(covered, n)
				}
			}
			nreps := len(cands)
			e.search(p, end, &cands)
			e.cands = cands
			if len(cands) == 0 {
				// In a run of literals, searched less often, as the lazy
				// parse does.
				search = p + 1 + int(nd.ll)>>e.p.Skip
				continue
			}
			long := cands[0]
			for _, c := range cands[1:] {
				if c.ml > long.ml {
					long = c
				}
			}
			if long.ml >= e.p.Optimal {
				// Taken at once: the way to p, then it.
				anchor = e.addPath(nodes, start, s, p, anchor)
				e.addSeq(anchor, p, long.ml, long.off)
				anchor = p + long.ml
				e.skip(anchor)
				break
			}
			base := nd.cost + pr.llPrice(0) // the next sequence's literals
			for i, c := range cands {
				from := minMatch
				if i >= nreps {
					// A row's, where it is longer than the repeats' and
					// the nearer rows'.
					from = max(from, covered+1)
				}
				if c.ml < from {
					continue
				}
				op := base + pr.ofPrice(offCode(&nd.rep, nd.ll, c.off))
				for reach < p+c.ml {
					reach++
					nodes[reach-start].cost = unreached
				}
				for l := from; l <= c.ml; l++ {
					q := &nodes[p+l-start]
					if cost := op + pr.mlPrice(l); cost < q.cost {
						q.cost, q.ll, q.ml, q.off = cost, 0, int32(l), int32(c.off)
					}
				}
				if i >= nreps {
					covered = c.ml
				}
			}
		}
		if p == end {
			anchor = e.addPath(nodes, start, s, end, anchor)
		}
		s = max(p, anchor)
	}
	e.lits = append(e.lits, e.buf[anchor:end]...)
}

// addPath adds the sequences of the cheapest way from s to t, after the
// literals from anchor, and returns the new anchor: the end of its last
// match.
func (e *Encoder) addPath(nodes []node, start, s, t, anchor int) int {
	e.path = e.path[:0]
	for q := t; q > s; {
		nd := &nodes[q-start]
		if nd.ml == 0 {
			q--
			continue
		}
		q -= int(nd.ml)
		e.path = append(e.path, step{q, int(nd.ml), int(nd.off)})
	}
	for i := len(e.path) - 1; i >= 0; i-- {
		m := e.path[i]
		e.addSeq(anchor, m.at, m.ml, m.off)
		anchor = m.at + m.ml
	}
	return anchor
}
