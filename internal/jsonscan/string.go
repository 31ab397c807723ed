package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// SWAR constants: a byte repeated in every lane of a 64-bit word.
const (
	lanes01 = 0x0101010101010101
	lanes20 = 0x2020202020202020
	lanes22 = 0x2222222222222222 // '"'
	lanes5C = 0x5C5C5C5C5C5C5C5C // '\\'
	lanes80 = 0x8080808080808080
)

// specialMask returns a word with bit 7 set in the lowest byte of w (read
// little-endian) that is a quote, a backslash, a control character
// (< 0x20) or non-ASCII (>= 0x80), and zero if there is none. Bits above
// the lowest flagged byte may be set spuriously: a lane only borrows from
// the next after it underflowed, which makes it a flagged byte itself, and
// a lane that did not borrow gets bit 7 from a subtraction only when its
// byte has bit 7 set, which is flagged anyway.
func specialMask(w uint64) uint64 {
	return ((w - lanes20) | ((w ^ lanes22) - lanes01) | ((w ^ lanes5C) - lanes01) | w) & lanes80
}

// scanString validates the body of the string token whose first byte
// follows the opening quote at src[i-1]. It returns the offset just past
// the closing quote and the number of bytes the escapes save when the body
// is unescaped (so the decoded length is the raw length minus saved). On
// failure it returns the offset of the problem and a non-zero kind.
//
// It reads sixteen bytes at a time as two words and stops only at quotes,
// backslashes, control characters and non-ASCII bytes ([specialMask]);
// UTF-8 is checked only where the latter occur, a sequence at a time.
// This is the generic code; where a kernel is selected, the scanner calls
// window.scanString instead (string_amd64.go), which returns the same for
// every input.
//
// Why not bytes.IndexByte, which is SIMD: strings in LLM traffic are short
// (keys) or have an escape or a non-ASCII rune every few dozen bytes (over
// the development corpus this loop stops about every 26 bytes), so a
// search for the quote must be followed by a second pass over the same
// bytes for the rest, and the calls cost more than they save. Variants
// that searched with IndexByte from the start, or after 64 or 256 clean
// bytes, measured 4 to 15 % slower over the corpus than this loop alone,
// which skips clean ASCII at about 4 GB/s. What pays is not a faster
// search but fewer stops: the AVX2 kernel computes masks of the stops for
// a kilobyte at a time, and a variant that still stopped at every escape
// (the corpus has 237,515 runs of them) took Scan from 1.38 to about 1.85
// GB/s; working out the escapes from the masks, so that \n and \" are
// not stops, took it to 2.3 GB/s.
func scanString(src []byte, i int) (end, saved int, kind errKind) {
	for {
		// Slicing rest rather than indexing src lets the compiler drop
		// the bounds checks from the loop.
		rest := src[i:]
		for len(rest) >= 16 {
			m1 := specialMask(binary.LittleEndian.Uint64(rest))
			m2 := specialMask(binary.LittleEndian.Uint64(rest[8:]))
			if m1|m2 != 0 {
				// The lowest flagged byte of the sixteen, without a
				// branch on which word holds it: t1 is 64 when m1 is 0.
				t1, t2 := bits.TrailingZeros64(m1), bits.TrailingZeros64(m2)
				i = len(src) - len(rest) + t1>>3 + t1>>6*(t2>>3)
				goto found
			}
			rest = rest[16:]
		}
		i = len(src) - len(rest)
		for ; i < len(src); i++ {
			if c := src[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
				goto found
			}
		}
		return len(src), 0, errSyntax // no closing quote

	found:
		if c := src[i]; c == '"' {
			return i + 1, saved, errNone
		} else if c == '\\' {
			// Escapes often come in runs (\r\n, \n\n): take them all.
			for {
				if i+1 >= len(src) {
					return len(src), 0, errSyntax
				}
				switch escapeClass[src[i+1]] {
				case escSimple:
					saved++
					i += 2
				case escUnicode:
					raw, dec, kind := unicodeEscape(src, i)
					if kind != errNone {
						return raw, 0, kind
					}
					saved += raw - dec
					i += raw
				default:
					return i, 0, errSyntax
				}
				if i >= len(src) || src[i] != '\\' {
					break
				}
			}
		} else if c < 0x20 {
			return i, 0, errSyntax
		} else if i, kind = validUTF8(src, i); kind != errNone {
			return i, 0, kind
		}
	}
}

// Classes of the byte after a backslash.
const (
	escInvalid = iota
	escSimple  // one of " \ / b f n r t
	escUnicode // u
)

var escapeClass = func() (t [256]uint8) {
	for _, c := range []byte(`"\/bfnrt`) {
		t[c] = escSimple
	}
	t['u'] = escUnicode
	return t
}()

// hexVal maps a byte to its value as a hexadecimal digit, or to 0xFF.
var hexVal = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for i := byte(0); i < 10; i++ {
		t['0'+i] = i
	}
	for i := byte(0); i < 6; i++ {
		t['a'+i] = 10 + i
		t['A'+i] = 10 + i
	}
	return t
}()

// hex4 decodes the four hexadecimal digits at src[i:], reporting whether
// there are four.
func hex4(src []byte, i int) (rune, bool) {
	if i+4 > len(src) {
		return 0, false
	}
	a, b, c, d := hexVal[src[i]], hexVal[src[i+1]], hexVal[src[i+2]], hexVal[src[i+3]]
	if (a|b|c|d)&0xF0 != 0 {
		return 0, false
	}
	return rune(a)<<12 | rune(b)<<8 | rune(c)<<4 | rune(d), true
}

// unicodeEscape validates the \u escape whose backslash is at src[i], and
// the low-surrogate escape that must follow it if it is a high surrogate,
// as serde_json does: a lone or reversed surrogate is an error. It returns
// the number of raw bytes consumed (6, or 12 for a pair) and the length of
// the code point in UTF-8. On failure it returns the offset of the problem
// and its kind.
func unicodeEscape(src []byte, i int) (raw, dec int, kind errKind) {
	r, ok := hex4(src, i+2)
	switch {
	case !ok:
		return i, 0, errSyntax
	case r < 0x80:
		return 6, 1, errNone
	case r < 0x800:
		return 6, 2, errNone
	case r < 0xD800 || r > 0xDFFF:
		return 6, 3, errNone
	case r >= 0xDC00: // a low surrogate first
		return i, 0, errSurrogate
	}
	// A high surrogate: the next six bytes must be a low-surrogate escape.
	j := i + 6
	switch {
	case j < len(src) && src[j] != '\\', j+1 < len(src) && src[j+1] != 'u':
		return i, 0, errSurrogate
	case j+1 >= len(src):
		return len(src), 0, errSyntax
	}
	r2, ok := hex4(src, j+2)
	switch {
	case !ok:
		return j, 0, errSyntax
	case r2 < 0xDC00 || r2 > 0xDFFF:
		return i, 0, errSurrogate
	}
	return 12, 4, errNone
}

// validUTF8 validates the run of multi-byte UTF-8 sequences starting at
// src[i] (which is >= 0x80) and returns the offset of the first ASCII byte
// after it. It accepts exactly what utf8.Valid accepts: no overlong forms,
// no surrogates (U+D800 to U+DFFF), nothing above U+10FFFF. On failure it
// returns the offset of the first byte of the bad sequence.
func validUTF8(src []byte, i int) (int, errKind) {
	for i < len(src) {
		c := src[i]
		switch {
		case c < 0x80:
			return i, errNone
		case c < 0xC2: // continuation byte, or overlong 2-byte lead
			return i, errUTF8
		case c < 0xE0:
			if i+1 >= len(src) || src[i+1]&0xC0 != 0x80 {
				return i, errUTF8
			}
			i += 2
		case c < 0xF0:
			if i+2 >= len(src) {
				return i, errUTF8
			}
			lo, hi := byte(0x80), byte(0xBF)
			if c == 0xE0 {
				lo = 0xA0 // overlong
			} else if c == 0xED {
				hi = 0x9F // surrogates
			}
			if b := src[i+1]; b < lo || b > hi || src[i+2]&0xC0 != 0x80 {
				return i, errUTF8
			}
			i += 3
		case c < 0xF5:
			if i+3 >= len(src) {
				return i, errUTF8
			}
			lo, hi := byte(0x80), byte(0xBF)
			if c == 0xF0 {
				lo = 0x90 // overlong
			} else if c == 0xF4 {
				hi = 0x8F // above U+10FFFF
			}
			if b := src[i+1]; b < lo || b > hi || src[i+2]&0xC0 != 0x80 || src[i+3]&0xC0 != 0x80 {
				return i, errUTF8
			}
			i += 4
		default:
			return i, errUTF8
		}
	}
	return i, errNone
}

// appendUnescaped appends the decoded form of raw, the body of a string
// that [scanString] accepted, to dst.
func appendUnescaped(dst, raw []byte) []byte {
	for {
		k := 0
		for k < len(raw) && raw[k] != '\\' {
			k++
		}
		dst = append(dst, raw[:k]...)
		if k == len(raw) {
			return dst
		}
		c := raw[k+1]
		raw = raw[k+2:]
		switch c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, _ := hex4(raw, 0)
			raw = raw[4:]
			if r >= 0xD800 && r < 0xDC00 {
				r2, _ := hex4(raw, 2)
				raw = raw[6:]
				r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, c)
		}
	}
}
