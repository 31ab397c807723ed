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

// bmpClass returns the classes of the Basic Multilingual Plane, made once
// from the tables of package unicode (those regexp2 reads too) on first
// use: 64 KiB, in well under a millisecond.
var bmpClass = sync.OnceValue(func() *[1 << 16]class {
	t := new([1 << 16]class)
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
				t[x] |= c.class
			}
		}
	}
	t['\r'] |= clNewline
	t['\n'] |= clNewline
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

// classOf returns the classes of r, a valid rune of U+0080 or more.
func classOf(bmp *[1 << 16]class, r rune) class {
	if r < 1<<16 {
		return bmp[r]
	}
	return classify(r)
}
