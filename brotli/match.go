package brotli

import (
	"encoding/binary"
	"math/bits"
)

// The match finder: a hash table of the last position of each hash of
// four bytes, chains from each position to the one before with its hash,
// and the last four distances, which the format codes in a few bits.
const (
	hashBits   = 15
	chainBits  = 16 // the chains reach back 64 KiB
	chainDepth = 8  // candidates tried a position, the last distances besides
)

// A match's score: what its bytes save as literals, less what its
// distance costs (about its bits), in units of 1/30 bit.
const (
	scoreBase     = 1920
	scorePerByte  = 135
	scorePerBit   = 30
	scoreLastDist = 15 // the last distance itself: no distance to code
)

// command is an insert of literals and a copy, as the format codes it:
// cmd its insert-and-copy code, made of the insert and copy codes ic and
// cc, dist its distance code (noDistance where cmd implies the last
// distance, or for the final insert).
type command struct {
	insert, copy uint32
	distExtra    uint32
	cmd          uint16
	dist         uint16
	ic, cc       uint8
	distBits     uint8
}

const noDistance = 0xffff

func hash4(v uint32) uint32 { return (v * 0x1E35A7BD) >> (32 - hashBits) }

func log2(x uint32) int { return bits.Len32(x) - 1 }

func load32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }

// matchLen is how many bytes src[a:] and src[b:] share, b > a, not
// reading past end.
func matchLen(src []byte, a, b, end int) int {
	n := 0
	for b+n+8 <= end {
		if x := binary.LittleEndian.Uint64(src[a+n:]) ^ binary.LittleEndian.Uint64(src[b+n:]); x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
		n += 8
	}
	for b+n < end && src[a+n] == src[b+n] {
		n++
	}
	return n
}

// insert adds position i of src to the hash chains.
func (e *Encoder) insert(src []byte, i int) {
	h := hash4(load32(src, i))
	e.prev[i&chainMask] = e.head[h]
	e.head[h] = uint32(i) + e.base
}

const chainMask = 1<<chainBits - 1

// position is the position of this stream that a table entry p holds, or
// -1 for one of an earlier stream (below base). Computed in uint32, so
// that it holds where int is 32 bits too.
func (e *Encoder) position(p uint32) int {
	if p < e.base {
		return -1
	}
	return int(p - e.base)
}

// match is a copy found at a position: its length, distance and score;
// word is set for a dictionary word, whose distance is past the window.
type match struct {
	n, dist, score int
	word           bool
}

// find returns the best copy at position i of src (i+4 <= len(src)), of
// distance at most maxDist, and inserts i into the chains: the last four
// distances first, then the chain, then, if nothing was found and i can
// start a word, the dictionary.
func (e *Encoder) find(src []byte, i, maxDist int) match {
	var m match
	end := len(src)
	maxDist = min(i, maxDist)
	cur := load32(src, i)
	for k, d := range e.dist {
		if d > maxDist || load32(src, i-d) != cur {
			continue
		}
		n := 4 + matchLen(src, i-d+4, i+4, end)
		s := scorePerByte*n + scoreBase
		if k == 0 {
			s += scoreLastDist
		}
		if s > m.score {
			m = match{n: n, dist: d, score: s}
		}
	}
	h := hash4(cur)
	cand := e.position(e.head[h])
	e.prev[i&chainMask] = e.head[h]
	e.head[h] = uint32(i) + e.base
	for depth := chainDepth; depth > 0 && cand >= 0; depth-- {
		d := i - cand
		if d > maxDist {
			break
		}
		next := -1
		if d <= chainMask { // past that, cand's slot holds a later position's link
			next = e.position(e.prev[cand&chainMask])
		}
		// A candidate must share the first four bytes and, to beat the
		// best, the four ending at its length.
		if load32(src, cand) == cur && (m.n == 0 || i+m.n < end && load32(src, cand+m.n-3) == load32(src, i+m.n-3)) {
			n := 4 + matchLen(src, cand+4, i+4, end)
			if s := scorePerByte*n + scoreBase - scorePerBit*log2(uint32(d)); s > m.score {
				m = match{n: n, dist: d, score: s}
			}
		}
		cand = next
	}
	if m.n == 0 && (i == 0 || wordStart[src[i-1]]) {
		if n, num := e.words.longest(src, i, cur); n > 0 {
			m = match{n: n, dist: maxDist + 1 + num, word: true}
		}
	}
	return m
}

// wordStart says which bytes a dictionary word may follow: any but
// letters and digits.
var wordStart = func() (t [256]bool) {
	for c := range t {
		t[c] = !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9')
	}
	return t
}()

// parse finds the commands of src[start:end] greedily, into e.cmds.
func (e *Encoder) parse(src []byte, start, end, maxDist int) {
	e.cmds = e.cmds[:0]
	src = src[:end]
	last := end - 4 // the last position with four bytes to hash
	lit := start
	for i := start; i <= last; {
		m := e.find(src, i, maxDist)
		if m.n == 0 {
			i++
			continue
		}
		e.emit(i-lit, m)
		stop := min(i+m.n, last+1)
		for p := i + 1; p < stop; p++ {
			e.insert(src, p)
		}
		i += m.n
		lit = i
	}
	if lit < end {
		// The last literals: the meta-block ends before the copy, whose
		// length and distance are not read.
		ic := insertCode(uint32(end - lit))
		e.cmds = append(e.cmds, command{insert: uint32(end - lit), cmd: commandCode(ic, 0, ic < 8), ic: uint8(ic), dist: noDistance})
	}
}

// emit appends the command of an insert of n literals and the copy m, and
// updates the last distances as the decoder will.
func (e *Encoder) emit(n int, m match) {
	ic, cc := insertCode(uint32(n)), copyCode(uint32(m.n))
	c := command{insert: uint32(n), copy: uint32(m.n), ic: uint8(ic), cc: uint8(cc), dist: noDistance}
	short := -1
	if !m.word {
		short = e.shortCode(m.dist)
	}
	switch {
	case short == 0 && ic < 8 && cc < 16:
		c.cmd = commandCode(ic, cc, true)
	case short >= 0:
		c.cmd = commandCode(ic, cc, false)
		c.dist = uint16(short)
	default:
		c.cmd = commandCode(ic, cc, false)
		x := uint32(m.dist + 3)
		nb := uint32(log2(x)) - 1
		c.dist = uint16(16 + 2*(nb-1) + (x>>nb)&1)
		c.distBits = uint8(nb)
		c.distExtra = x & (1<<nb - 1)
	}
	// Every distance but the last one itself and a dictionary word's
	// becomes the last.
	if short != 0 && !m.word {
		e.dist = [4]int{m.dist, e.dist[0], e.dist[1], e.dist[2]}
	}
	e.cmds = append(e.cmds, c)
}

// shortCode is the distance code of section 4 that says d by the last
// distances, or -1.
func (e *Encoder) shortCode(d int) int {
	r := &e.dist
	for k := range 4 {
		if d == r[k] {
			return k
		}
	}
	if c := nearCode(d - r[0]); c >= 0 {
		return 4 + c
	}
	if c := nearCode(d - r[1]); c >= 0 {
		return 10 + c
	}
	return -1
}

// nearCode is the offset of codes 4-9 (and 10-15) for a distance delta
// from a last distance: -1, +1, -2, +2, -3, +3.
func nearCode(delta int) int {
	switch delta {
	case -1:
		return 0
	case 1:
		return 1
	case -2:
		return 2
	case 2:
		return 3
	case -3:
		return 4
	case 3:
		return 5
	}
	return -1
}

// insertCode and copyCode are the codes of section 5 of an insert and a
// copy length.
func insertCode(n uint32) uint32 {
	switch {
	case n < 6:
		return n
	case n < 130:
		nb := uint32(log2(n-2)) - 1
		return nb<<1 + (n-2)>>nb + 2
	case n < 2114:
		return uint32(log2(n-66)) + 10
	case n < 6210:
		return 21
	case n < 22594:
		return 22
	}
	return 23
}

func copyCode(n uint32) uint32 {
	switch {
	case n < 10:
		return n - 2
	case n < 134:
		nb := uint32(log2(n-6)) - 1
		return nb<<1 + (n-6)>>nb + 4
	case n < 2118:
		return uint32(log2(n-70)) + 12
	}
	return 23
}

// commandCode is the insert-and-copy code of an insert and a copy code;
// lastDist asks for the codes that imply the last distance (insert codes
// below 8 and copy codes below 16 only).
func commandCode(ic, cc uint32, lastDist bool) uint16 {
	low := uint16(cc&7 | (ic&7)<<3)
	if lastDist {
		return low | uint16(cc>>3)<<6
	}
	return commandCell[ic>>3][cc>>3] | low
}
