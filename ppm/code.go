package ppm

import "math/bits"

// Coding a symbol: in each context from the current one down its suffixes,
// first whether the symbol is one the context has seen (and no higher
// order excluded), as a binary decision whose probability adaptive tables
// learn from the context's statistics (secondary escape estimation) and
// from the last bytes, mixed (mix.go); then, if it is, which one, by the
// counts; else the next context, excluding what this one had. Below order
// 0, every symbol not excluded is equally likely.

// see is the first table of the escape decision: probabilities of the
// symbol being among the context's, by seeIndex.
const seeSize = 1 << 19

// seeIndex is the secondary-estimation context of a context c, n of whose
// symbols are not excluded and total their counts: the counts (the one
// symbol's, or how many symbols and their average), the order, how many
// more symbols the shorter context has seen, whether the context is young,
// whether a longer one escaped, whether the last symbol was found at once,
// the class of the last byte, and that of the context's symbol if it has
// one.
func (m *model) seeIndex(c, n, total uint32) uint32 {
	var x uint32
	if n == 1 {
		x = min(total/freqStep, 31)
	} else {
		x = 32 + min(bucket(n), 7)<<3 | min(bucket(total/n/freqStep), 7)
	}
	o := uint32(min(m.order(c), 15)) / 2
	var more uint32
	if suf := m.suffix(c); suf != 0 {
		switch d := m.numStats(suf) - min(m.numStats(suf), m.numStats(c)); {
		case d == 0:
		case d <= 2:
			more = 1
		default:
			more = 2
		}
	}
	var flags uint32
	if m.epochMasked {
		flags |= 1
	}
	if m.lastFirst {
		flags |= 2
	}
	if m.summ(c) < 3*freqStep*m.numStats(c) {
		flags |= 4
	}
	var sc uint32 // the class of a context's one symbol (PPMd's HB2Flag)
	if n == 1 {
		sc = m.classes[m.sym(m.stats(c))]
	}
	return (((((x<<3|o)*3+more)<<3|flags)<<2|m.prevClass)<<2 | sc) & (seeSize - 1)
}

// byteClass sorts bytes in four: letters, digits, space and JSON escapes,
// everything else.
func byteClass(b byte) uint32 {
	switch {
	case b|0x20 >= 'a' && b|0x20 <= 'z' || b >= 0x80:
		return 0
	case b >= '0' && b <= '9':
		return 1
	case b == ' ' || b == '\\' || b == 'n':
		return 2
	}
	return 3
}

// bucket is about the log2 of v: 0 for 0 and 1, then 1 for 2, 2 for
// 3-4, 3 for 5-8, ...
func bucket(v uint32) uint32 { return uint32(bits.Len32(max(v, 1) - 1)) }

// A prob is an adaptive probability of a 0, in 16 bits (of probOne), with
// a count of what it has seen: it learns fast at first (a running mean),
// then at a rate of 1/64. A slower end rate than 1/32 (format version 2)
// codes dev100's strings 0.2% smaller and its skeletons and templates
// 0.6%; 1/48 and 1/96 gain less, 1/128 nothing (bench/README.md). Its
// 16 bits let a decision that is all but certain cost 0.002 bits where
// 12 bits (format version 5) cost 0.011: a byte of JSON's punctuation in
// a context that has only ever seen it, which dev100's skeletons are
// mostly made of, then cost five times what it does in PPMd.
type prob struct {
	p uint16
	n uint16
}

// probOne is a probability of one.
const probOne = 1 << 16

func (q *prob) get() uint32 { return uint32(q.p) }

// adapt moves q toward the bit seen, by the distance over its count plus
// two (rounded toward q, as an integer division would: see recips).
func adapt(q *prob, bit int) {
	if q.n < 62 {
		q.n++
	}
	r, p := uint64(recips[q.n+2]), uint32(q.p)
	if bit == 0 {
		p += uint32(uint64(probOne-p) * r >> 32)
	} else {
		p -= uint32(uint64(p) * r >> 32)
	}
	q.p = uint16(min(max(p, 16), probOne-16))
}

// recips[d] is 2³²/d rounded up, so that x*recips[d]>>32 is x/d for every
// x up to probOne: x/d's fraction is at most 1-1/d, and the error of
// rounding up adds less than x/2³² < 1/d to it. adapt, with a division by
// a count that varies, was 2.4% of the decoder's profile.
var recips = func() (r [65]uint32) {
	for d := 3; d < len(r); d++ {
		r[d] = uint32((1<<32 + uint64(d) - 1) / uint64(d))
	}
	return r
}()

// begin starts the coding of a symbol: nothing excluded, no context
// escaped from yet.
func (m *model) begin() {
	m.epoch++
	m.epochMasked = false
	m.escaped = m.escaped[:0]
}

// exclude takes symbol b out of the contexts still to try for this
// symbol.
func (m *model) exclude(b byte) {
	m.mask[b] = m.epoch
	m.epochMasked = true
}

// escape records an escape from context c, whose n states start at s:
// its symbols are excluded from the shorter contexts tried next.
func (m *model) escape(c, s, n uint32) {
	for i := uint32(0); i < n; i++ {
		m.mask[byte(m.mem[s+i*stateWords])] = m.epoch
	}
	m.epochMasked = true
	m.escaped = append(m.escaped, c)
}

// encodeSymbol codes b in the model's current context and learns it.
func (m *model) encodeSymbol(e *encoder, b byte) {
	m.begin()
	if pred, p, ok := m.matchPredict(); ok {
		if b == pred {
			e.encodeBit(p, 0)
			m.learn(b)
			return
		}
		e.encodeBit(p, 1)
		m.exclude(pred)
	}
	first := true
	for c := m.cur; c != 0; c = m.suffix(c) {
		n := m.numStats(c)
		if n == 0 {
			m.escaped = append(m.escaped, c)
			continue
		}
		// Totals over the symbols not excluded by higher orders: with
		// none excluded, the context's own total, and the search stops at
		// b.
		var total, cum, unmasked uint32
		found := uint32(0)
		s := m.stats(c)
		if !m.epochMasked {
			total, unmasked = m.summ(c), n
			for i := uint32(0); i < n; i++ {
				w := s + i*stateWords
				if byte(m.mem[w]) == b {
					found = w
					break
				}
				cum += m.mem[w] >> 8
			}
		} else {
			for i := uint32(0); i < n; i++ {
				w := s + i*stateWords
				sym := byte(m.mem[w])
				if m.mask[sym] == m.epoch {
					continue
				}
				f := m.mem[w] >> 8
				if sym == b {
					found, cum = w, total
				}
				total += f
				unmasked++
			}
		}
		if unmasked == 0 {
			m.escaped = append(m.escaped, c)
			continue
		}
		p := m.escapeP(c, unmasked, total)
		if found != 0 {
			e.encodeBit(p, 0)
			m.escapeLearn(0)
			if unmasked > 1 {
				e.encode(cum, m.freq(found), total)
			}
			m.lastFirst = first
			m.update(c, found, b)
			return
		}
		e.encodeBit(p, 1)
		m.escapeLearn(1)
		m.escape(c, s, n)
		first = false
	}
	// Order -1: every symbol not excluded, equally likely.
	var cum, total uint32
	for i := range 256 {
		if m.mask[i] == m.epoch {
			continue
		}
		if byte(i) == b {
			cum = total
		}
		total++
	}
	e.encode(cum, 1, total)
	m.lastFirst = false
	m.update(0, 0, b)
}

// decodeSymbol decodes a symbol in the model's current context and learns
// it; ok is false for data no encoder made.
func (m *model) decodeSymbol(d *decoder) (byte, bool) {
	m.begin()
	if pred, p, ok := m.matchPredict(); ok {
		if d.decodeBit(p) == 0 {
			m.learn(pred)
			return pred, true
		}
		m.exclude(pred)
	}
	first := true
	for c := m.cur; c != 0; c = m.suffix(c) {
		n := m.numStats(c)
		if n == 0 {
			m.escaped = append(m.escaped, c)
			continue
		}
		// The symbols not excluded by higher orders, and their total:
		// with none excluded, the context's own; else those left, listed
		// in m.left for the search below.
		var total, unmasked uint32
		s := m.stats(c)
		masked := m.epochMasked
		if !masked {
			total, unmasked = m.summ(c), n
		} else {
			for i := uint32(0); i < n; i++ {
				w := s + i*stateWords
				if m.mask[byte(m.mem[w])] == m.epoch {
					continue
				}
				total += m.mem[w] >> 8
				m.left[unmasked] = w
				unmasked++
			}
		}
		if unmasked == 0 {
			m.escaped = append(m.escaped, c)
			continue
		}
		p := m.escapeP(c, unmasked, total)
		if d.decodeBit(p) == 0 {
			m.escapeLearn(0)
			m.lastFirst = first
			if unmasked == 1 {
				w := s
				if masked {
					w = m.left[0]
				}
				sym := byte(m.mem[w])
				m.update(c, w, sym)
				return sym, true
			}
			v := d.threshold(total)
			var cum uint32
			for i := uint32(0); i < unmasked; i++ {
				w := s + i*stateWords
				if masked {
					w = m.left[i]
				}
				f := m.mem[w] >> 8
				if v < cum+f {
					d.decode(cum, f)
					sym := byte(m.mem[w])
					m.update(c, w, sym)
					return sym, true
				}
				cum += f
			}
			return 0, false
		}
		m.escapeLearn(1)
		m.escape(c, s, n)
		first = false
	}
	var total uint32
	for i := range 256 {
		if m.mask[i] != m.epoch {
			total++
		}
	}
	if total == 0 {
		return 0, false
	}
	v := d.threshold(total)
	if v >= total {
		return 0, false
	}
	var cum uint32
	for i := range 256 {
		if m.mask[i] == m.epoch {
			continue
		}
		if cum == v {
			d.decode(cum, 1)
			m.lastFirst = false
			m.update(0, 0, byte(i))
			return byte(i), true
		}
		cum++
	}
	return 0, false
}
