package tokenizer

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// A class holds what the split patterns ask of a character, as bits.
type class uint8

const (
	clLetter  class = 1 << iota // \p{L}
	clNumber                    // \p{N}
	clSpace                     // \s, which for regexp2 (and tiktoken) is unicode.IsSpace
	clMark                      // \p{M}
	clUpper                     // o200k_base's [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	clLower                     // o200k_base's [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	clNewline                   // \r or \n
	clMulti                     // a byte of U+0080 or above: decode the character
)

// byteClass holds the classes of the ASCII characters, which most text is
// made of, and clMulti for the other bytes.
var byteClass = func() (t [256]class) {
	for b := range len(t) {
		t[b] = clMulti
		if b < utf8.RuneSelf {
			t[b] = classify(rune(b))
		}
	}
	return t
}()

// A classTable holds the classes of every character, in blocks of 256
// characters, each distinct block once: about 80 KiB.
type classTable struct {
	index  [(unicode.MaxRune + 1) >> 8]uint16 // character>>8 to its block
	blocks []class
}

// of returns the classes of r, a valid rune.
func (t *classTable) of(r rune) class {
	return t.blocks[int(t.index[r>>8])<<8|int(r&0xff)]
}

// classes returns the class table, made once from the range tables of
// package unicode (those regexp2 reads too) on first use, in about a
// millisecond.
var classes = sync.OnceValue(func() *classTable {
	all := make([]class, unicode.MaxRune+1)
	for _, c := range []struct {
		table *unicode.RangeTable
		class class
	}{
		{unicode.Lu, clLetter | clUpper},
		{unicode.Lt, clLetter | clUpper},
		{unicode.Ll, clLetter | clLower},
		{unicode.Lm, clLetter | clUpper | clLower},
		{unicode.Lo, clLetter | clUpper | clLower},
		{unicode.M, clMark | clUpper | clLower},
		{unicode.N, clNumber},
		{unicode.White_Space, clSpace},
	} {
		for _, r := range c.table.R16 {
			for x := uint32(r.Lo); x <= uint32(r.Hi); x += uint32(r.Stride) {
				all[x] |= c.class
			}
		}
		for _, r := range c.table.R32 {
			for x := r.Lo; x <= r.Hi; x += r.Stride {
				all[x] |= c.class
			}
		}
	}
	all['\r'] |= clNewline
	all['\n'] |= clNewline
	t := new(classTable)
	seen := map[string]uint16{}
	for i := range t.index {
		block := all[i<<8 : (i+1)<<8]
		k, ok := seen[string(block)]
		if !ok {
			k = uint16(len(t.blocks) >> 8)
			seen[string(block)] = k
			t.blocks = append(t.blocks, block...)
		}
		t.index[i] = k
	}
	return t
})

// classify returns the classes of r from package unicode.
func classify(r rune) class {
	var c class
	if unicode.IsLetter(r) {
		c |= clLetter
		switch {
		case unicode.Is(unicode.Lu, r) || unicode.Is(unicode.Lt, r):
			c |= clUpper
		case unicode.Is(unicode.Ll, r):
			c |= clLower
		default: // Lm, Lo
			c |= clUpper | clLower
		}
	}
	if unicode.IsMark(r) {
		c |= clMark | clUpper | clLower
	}
	if unicode.IsNumber(r) {
		c |= clNumber
	}
	if unicode.IsSpace(r) {
		c |= clSpace
	}
	if r == '\r' || r == '\n' {
		c |= clNewline
	}
	return c
}
