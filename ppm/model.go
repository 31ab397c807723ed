package ppm

// The model: a tree of contexts, each the string of the last k bytes
// (k its order, up to maxOrder), with the bytes seen after it and how
// often. Contexts and their symbol arrays live in an arena of 32-bit
// words, addressed by index (0 is nil), so the model is one allocation of
// the configured size. When it is full the model stops growing (PPMd var.
// I's "freeze"): no context or state is added that needs more room, the
// counts of those there go on learning, and a symbol whose next context
// cannot be made is followed by the longest one there is. On the strings
// of dev100's archive this codes 3-5% smaller than starting afresh, the
// way the model did before (bench/README.md); relearning the last 0.5-2
// MiB of text after starting afresh came between the two, and slower.
//
//	context = numStats | order<<16 ; summFreq ; stats ; suffix
//	state   = symbol | freq<<8 ; successor
//
// A context with one symbol holds its state in place of summFreq and
// stats (PPMd's binary contexts): most symbols are coded in such
// contexts, and so touch one cache line less.
//
// A state's successor is the context of order k+1 that the symbol makes
// of its context, made when first needed; until then, if the symbol has
// been seen there once, the position in the text after it (textTag set):
// the context is made then with the symbol that followed that time, so a
// stretch of text seen once is predicted the second time from its longest
// context on (PPMd's way).
import "github.com/m2m-go/m2m/internal/huge"

const (
	ctxWords   = 4
	stateWords = 2

	maxFreq  = 124 // a symbol's count past which its context's counts are halved
	freqStep = 4   // a symbol's count grows by this when it is seen

	textTag = 1 << 31 // a successor that is a position in the text
)

type model struct {
	mem      []uint32
	unmap    func() // gives mem back (release)
	top      uint32
	free     [9]uint32 // free state arrays by capacity class (1<<i states), linked through their first word
	maxOrder int
	root     uint32
	cur      uint32 // the context the next symbol is coded in

	epoch uint32
	mask  [256]uint32 // symbols seen in a context escaped from, while mask[s] == epoch
	// escaped lists the contexts escaped from while coding a symbol, for
	// the update.
	escaped []uint32
	// left lists the states of the context being decoded in that the
	// contexts escaped from did not exclude.
	left [256]uint32

	see         [seeSize]prob
	epochMasked bool        // a context escaped from while coding this symbol
	lastFirst   bool        // the last symbol was found in the first context tried
	prevClass   uint32      // the class of the last symbol
	classes     [256]uint32 // each symbol's: byteClass, or a word code's (setClasses)
	prefixes    [256]bool   // the first bytes of words' two-byte codes
	afterPrefix bool        // the last symbol was one of them

	match matcher
	mix   mixer // the escape decision's other tables and weights
	full  bool  // an allocation has failed: the model makes no more contexts
}

// newModel makes a model of an arena of the given words, which release
// gives back.
func newModel(words int, maxOrder int) *model {
	// The arena is fresh memory of huge pages, not the heap's: the model
	// reads it at random (with 4 KiB pages nearly every context or state
	// it touches would miss the TLB), and the heap would zero the last
	// model's memory first for the next (see huge.Alloc).
	mem, unmap := huge.Alloc[uint32](words)
	m := &model{mem: mem, unmap: unmap, maxOrder: maxOrder, top: 1}
	m.root = m.allocCtx(0, 0)
	for i := range m.classes {
		m.classes[i] = byteClass(byte(i))
	}
	m.cur = m.root
	for i := range m.see {
		m.see[i] = prob{p: probOne * 3 / 4}
	}
	m.mix.init()
	return m
}

// release gives back the model's arena: the model is not used again.
func (m *model) release() {
	m.mem = nil
	m.unmap()
}

// learn updates the model with symbol b predicted by the match model: as
// if the context coding found it, in the first context that has it.
func (m *model) learn(b byte) {
	for c := m.cur; c != 0; c = m.suffix(c) {
		if s := m.find(c, b); s != 0 {
			m.update(c, s, b)
			return
		}
		m.escaped = append(m.escaped, c)
	}
	m.update(0, 0, b)
}

// Context fields.
func (m *model) numStats(c uint32) uint32 { return m.mem[c] & 0xFFFF }
func (m *model) order(c uint32) int       { return int(m.mem[c] >> 16) }

// summ is the total of c's counts.
func (m *model) summ(c uint32) uint32 {
	if m.mem[c]&0xFFFF == 1 {
		return m.mem[c+1] >> 8
	}
	return m.mem[c+1]
}

// stats is the word index of c's first state.
func (m *model) stats(c uint32) uint32 {
	if m.mem[c]&0xFFFF == 1 {
		return c + 1
	}
	return m.mem[c+2]
}

// addSumm adds d to c's total, unless c has one symbol: its total is
// that symbol's count.
func (m *model) addSumm(c, d uint32) {
	if m.mem[c]&0xFFFF != 1 {
		m.mem[c+1] += d
	}
}
func (m *model) suffix(c uint32) uint32 { return m.mem[c+3] }

// State fields: s is a word index into a state array.
func (m *model) sym(s uint32) byte         { return byte(m.mem[s]) }
func (m *model) freq(s uint32) uint32      { return m.mem[s] >> 8 }
func (m *model) successor(s uint32) uint32 { return m.mem[s+1] }

// alloc returns n free words, or 0 if the arena is full.
func (m *model) alloc(n uint32) uint32 {
	if int(m.top)+int(n) > len(m.mem) {
		m.full = true
		return 0
	}
	at := m.top
	m.top += n
	return at
}

// allocCtx makes an empty context, or returns 0 if memory is out.
func (m *model) allocCtx(order int, suffix uint32) uint32 {
	c := m.alloc(ctxWords)
	if c != 0 {
		m.mem[c], m.mem[c+1], m.mem[c+2], m.mem[c+3] = uint32(order)<<16, 0, 0, suffix
	}
	return c
}

// capClass is the capacity class of an array of n states: 1<<class states.
func capClass(n uint32) uint32 {
	c := uint32(0)
	for 1<<c < n {
		c++
	}
	return c
}

// allocStates returns room for 1<<class states, or 0.
func (m *model) allocStates(class uint32) uint32 {
	if s := m.free[class]; s != 0 {
		m.free[class] = m.mem[s]
		return s
	}
	return m.alloc(stateWords << class)
}

func (m *model) freeStates(s, class uint32) {
	m.mem[s] = m.free[class]
	m.free[class] = s
}

// find returns the state of symbol b in context c, or 0.
func (m *model) find(c uint32, b byte) uint32 {
	s := m.stats(c)
	for n := m.numStats(c); n > 0; n-- {
		if byte(m.mem[s]) == b {
			return s
		}
		s += stateWords
	}
	return 0
}

// addState adds symbol b to context c with count f, and returns its state,
// or 0 if memory is out.
func (m *model) addState(c uint32, b byte, f uint32) uint32 {
	n := m.numStats(c)
	if n == 0 {
		// The first symbol: in place.
		m.mem[c+1], m.mem[c+2] = uint32(b)|f<<8, 0
		m.mem[c] |= 1
		return c + 1
	}
	s := m.stats(c)
	if n&(n-1) == 0 {
		// Full at a power of two (one in place): a larger array.
		ns := m.allocStates(capClass(n + 1))
		if ns == 0 {
			return 0
		}
		copy(m.mem[ns:ns+n*stateWords], m.mem[s:s+n*stateWords])
		if n == 1 {
			// A context's first symbol, until now all it had, counts
			// half from here on: PPMd counts a sighting in a context
			// of one symbol as one and doubles it here, where others
			// count four. Left as it was, a context that had shown one
			// symbol for long stayed too sure of it: text 1.3% larger,
			// JSON's templates 0.7%.
			h := max(m.freq(ns)/2, 1)
			m.mem[ns] = m.mem[ns]&0xFF | h<<8
			m.mem[c+1] = h
		} else {
			m.freeStates(s, capClass(n))
		}
		s = ns
		m.mem[c+2] = s
	}
	at := s + n*stateWords
	m.mem[at], m.mem[at+1] = uint32(b)|f<<8, 0
	m.mem[c] = m.mem[c]&^0xFFFF | (n + 1)
	m.mem[c+1] += f
	return at
}

// bump counts symbol state s of context c once more, halving the
// context's counts past maxFreq, and moves it before its predecessor if it
// is now more frequent, so searches find frequent symbols first. It
// returns where the symbol's state is now.
func (m *model) bump(c, s uint32) uint32 {
	f := m.freq(s) + freqStep
	m.mem[s] = m.mem[s]&0xFF | f<<8
	m.addSumm(c, freqStep)
	if f > maxFreq {
		b := m.sym(s)
		m.rescale(c)
		return m.find(c, b)
	}
	if first := m.stats(c); s > first && m.freq(s-stateWords) < f {
		p := s - stateWords
		m.mem[p], m.mem[s] = m.mem[s], m.mem[p]
		m.mem[p+1], m.mem[s+1] = m.mem[s+1], m.mem[p+1]
		return p
	}
	return s
}

func (m *model) rescale(c uint32) {
	s := m.stats(c)
	n := m.numStats(c)
	var summ uint32
	for i := uint32(0); i < n; i++ {
		w := s + i*stateWords
		f := (m.freq(w) + 1) / 2
		m.mem[w] = m.mem[w]&0xFF | f<<8
		summ += f
	}
	if n == 1 {
		return
	}
	m.mem[c+1] = summ
	// Keep the most frequent first.
	for i := uint32(1); i < n; i++ {
		for j := i; j > 0 && m.freq(s+j*stateWords) > m.freq(s+(j-1)*stateWords); j-- {
			a, b := s+j*stateWords, s+(j-1)*stateWords
			m.mem[a], m.mem[b] = m.mem[b], m.mem[a]
			m.mem[a+1], m.mem[b+1] = m.mem[b+1], m.mem[a+1]
		}
	}
}

// successorOf returns the context that symbol b makes of context c (whose
// state s holds b), making it if need be; 0 if memory is out. Its suffix
// is the context b makes of c's suffix, which holds b too. A context made
// from a text position starts with the symbol found there. ss is b's
// state in c's suffix if the caller has looked it up, else 0.
func (m *model) successorOf(c, s uint32, b byte, ss uint32) uint32 {
	t := m.successor(s)
	if t != 0 && t&textTag == 0 {
		return t
	}
	var suf uint32
	if c == m.root {
		suf = m.root
	} else {
		sc := m.suffix(c)
		if ss == 0 {
			ss = m.find(sc, b)
		}
		if ss == 0 {
			// A context's symbols are its suffix's too, but for one made
			// from the text while memory was out.
			return 0
		}
		if suf = m.successorOf(sc, ss, b, 0); suf == 0 {
			return 0
		}
	}
	n := m.allocCtx(m.order(c)+1, suf)
	if n == 0 {
		return 0
	}
	if t != 0 {
		if at := int(t &^ textTag); at < len(m.match.hist) {
			sym := m.match.hist[at]
			ns := m.addState(n, sym, m.textFreq(suf, sym))
			if ns == 0 {
				return 0
			}
			m.mem[ns+1] = textTag | uint32(at+1)
		}
	}
	m.mem[s+1] = n
	return n
}

// update learns symbol b, found in context found at state s (found 0: in
// no context, at order -1), after escaping from the contexts in
// m.escaped, and moves to the context of the next symbol. With the arena
// full, b is added to the escaped contexts that have room, and the next
// context is the longest there is.
func (m *model) update(found, s uint32, b byte) {
	m.match.push(b, m.matchCtx())
	if m.afterPrefix { // b is the second byte of a word's code
		m.prevClass, m.afterPrefix = byteClass('0'), false
	} else {
		m.prevClass, m.afterPrefix = m.classes[b], m.prefixes[b]
	}
	// The symbol's count where it was found, with this sighting, and
	// that context's total and symbols: what the contexts that lacked it
	// start it with (information inheritance); none below order 0.
	var ff, ft, fn uint32
	var sufState uint32 // b's state in found's suffix, once looked up
	if found != 0 {
		pf := m.freq(s)
		ff, ft, fn = pf+freqStep, m.summ(found)+freqStep, m.numStats(found)
		// A symbol still rare where it was found is counted a little in
		// the shorter context too, which will predict it next time a
		// longer one is new: half a sighting, or one where that context
		// has no other symbol (PPMd's counts there are of sightings).
		if suf := m.suffix(found); pf < maxFreq/4 && suf != 0 {
			ss := m.find(suf, b)
			if sufState = ss; ss != 0 && m.freq(ss) < maxFreq-freqStep {
				d := uint32(freqStep / 2)
				if m.numStats(suf) == 1 {
					d = freqStep
				}
				m.mem[ss] += d << 8
				m.addSumm(suf, d)
			}
		}
		s = m.bump(found, s)
	}
	next := textTag | uint32(len(m.match.hist)) // after b, which push appended
	// Shortest first, stopping where memory runs out: a context that has b
	// is still the suffix of one that has it, or of the current one.
	for i := len(m.escaped) - 1; i >= 0; i-- {
		e := m.escaped[i]
		ns := m.addState(e, b, inherit(m.summ(e), ff, ft, fn))
		if ns == 0 {
			break
		}
		m.mem[ns+1] = next
		if found == 0 {
			found, s = e, ns // the root: everything was escaped
		}
	}
	if found == 0 {
		m.cur = m.root // the root has no room for b
		return
	}
	// (The contexts escaped from are longer than found: adding b to them
	// moved no state of found's suffix.)
	base, bs, hint := found, s, sufState
	if m.order(base) >= m.maxOrder {
		base, bs, hint = m.suffix(base), sufState, 0
		if bs == 0 {
			bs = m.find(base, b)
		}
	}
	// Full, the model makes no more contexts: it moves to the longest
	// there is at once instead of failing to make one first.
	m.cur = 0
	if bs != 0 && !m.full {
		m.cur = m.successorOf(base, bs, b, hint)
	}
	if m.cur == 0 {
		m.cur = m.longest(base, b)
	}
}

// longest returns the longest context that b makes of c or of one of its
// suffixes, for when memory is out: the root if there is none.
func (m *model) longest(c uint32, b byte) uint32 {
	for ; c != 0; c = m.suffix(c) {
		if s := m.find(c, b); s != 0 {
			if t := m.successor(s); t != 0 && t&textTag == 0 {
				return t
			}
		}
	}
	return m.root
}

// inherit is the count a symbol starts with in a context whose counts
// total t, given that it counts ff of ft, over fn symbols, where it was
// found (ff 0: nowhere, one sighting): PPMd's rule, a quarter of a
// sighting to seven quarters by how its share there compares with this
// context's total. A count of its share there, as a share of this
// context (up to two sightings), coded text 0.8% larger. (textFreq is
// PPMd's other rule, for a context made from the text: its one symbol
// starts from the shorter context's counts alone, there being no escape
// to weigh them against.)
func inherit(t, ff, ft, fn uint32) uint32 {
	if ff == 0 {
		return freqStep
	}
	s0 := max(int64(ft)-int64(fn)-int64(ff-1), 1) // the others' counts, about
	cf, sf := 2*int64(ff)*(int64(t)+6), s0+int64(t)
	if cf < 6*sf {
		return 1 + b2u(cf > sf) + b2u(cf >= 4*sf)
	}
	return 4 + b2u(cf >= 9*sf) + b2u(cf >= 12*sf) + b2u(cf >= 15*sf)
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// textFreq is the count a context made from the text starts its one
// symbol, sym, with: how well suf, the context one shorter, predicts it
// (PPMd's way): a symbol certain there starts out near as certain here,
// where the escape decision's tables see its count. Counting 4 for every
// such symbol coded dev100's strings 1.2% larger, its skeletons 0.1%.
func (m *model) textFreq(suf uint32, sym byte) uint32 {
	ss := m.find(suf, sym)
	if ss == 0 {
		return freqStep
	}
	f := m.freq(ss)
	if m.numStats(suf) == 1 {
		return f
	}
	s0 := m.summ(suf) - f // the other symbols' counts
	var r uint32
	switch {
	case s0 == 0:
		r = maxFreq / 4
	case 2*f <= s0: // half the others' or less
		r = freqStep
		if 5*f > s0 {
			r = 2 * freqStep
		}
	default:
		r = freqStep * (2*f + 3*s0 - 1) / (2 * s0)
	}
	return min(max(r, freqStep), maxFreq/2)
}
