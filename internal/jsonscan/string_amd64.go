//go:build !purego

package jsonscan

import (
	"math/bits"

	"github.com/m2m-go/m2m/internal/cpu"
	"github.com/m2m-go/m2m/internal/race"
)

// useAVX2 is the dispatch flag, set by the cpu registry.
var useAVX2 bool

var kernels = []cpu.Kernel{{Name: "avx2", Needs: []cpu.Feature{cpu.AVX2}, Use: &useAVX2}}

// The masks of a 64-byte block, in the order masksAVX2 writes them: bit j
// of a mask is set iff byte j of the block is
const (
	maskQuote     = iota // a quote
	maskBackslash        // a backslash
	maskOther            // a control character or a non-ASCII byte: below 0x20, or 0x80 and above
	maskNotSimple        // none of "\/bfnrt, so not the end of a two-byte escape
	numMasks
)

// winBytes is how many bytes of input a window holds the masks of (four
// bits a byte, so 512 bytes of masks). Windows of 512 to 4,096 bytes made
// Scan over the development corpus (records of 1.4 KB median, 2.6 KB
// mean) run within 2% of each other.
const (
	winBytes  = 1024
	winBlocks = winBytes / 64
)

// A window holds the masks of the bytes of the input from end-winBytes
// (a multiple of 64) to end, as the kernel computed them. Past the end of
// the input the masks are those of zero bytes, control characters, so that
// a string body not closed before the end stops there.
type window struct {
	end   int // offset just past the bytes the masks are of; 0 before the first fill
	masks [winBlocks][numMasks]uint64
}

// reset empties w for a new input.
func (w *window) reset() { w.end = 0 }

// fill computes the masks of the winBytes of src from base, a multiple of
// 64 not beyond len(src). The kernel reads whole blocks only; a last
// partial block is copied into zeros first.
func (w *window) fill(src []byte, base int) {
	w.end = base + winBytes
	rest := src[base:]
	if len(rest) >= winBytes {
		rest = rest[:winBytes]
		race.ReadSlice(rest)
		masksAVX2(rest, nil, w.masks[:])
		return
	}
	n := len(rest) &^ 63
	var tail [64]byte
	copy(tail[:], rest[n:])
	race.ReadSlice(rest[:n])
	masksAVX2(rest[:n], &tail, w.masks[:])
}

// oddBits has the odd bits of a word set.
const oddBits = 0xAAAAAAAAAAAAAAAA

// escapes takes the backslashes of a block and whether the byte before it
// was a backslash that escapes (carry, 0 or 1), and returns which bytes of
// the block are escaped (follow a backslash that escapes) and which
// backslashes escape, the top one of which carries into the next block.
// In a run of backslashes every other one escapes, starting with the
// first; the arithmetic, from simdjson (Langdale and Lemire, "Parsing
// gigabytes of JSON per second", 2019, in its later form without an
// add-with-carry), tells runs that start on even bits from those that
// start on odd ones with one subtraction, without a loop over the runs.
func escapes(backslashes, carry uint64) (escaped, escaping uint64) {
	potential := backslashes &^ carry // a backslash escaped from before escapes nothing
	code := ((potential<<1 | oddBits) - potential) ^ oddBits
	return code ^ (backslashes | carry), code & backslashes
}

// scanString is [scanString] with the kernel's masks when it has been
// selected: the same results for every input. The masks say at once
// where the first quote and the first other stop are; a string whose
// closing quote comes first (most of them: keys and short values) ends
// there, and the rest go to scanBody.
func (w *window) scanString(src []byte, i int) (end, saved int, kind errKind) {
	if !useAVX2 {
		return scanString(src, i)
	}
	k := i - w.end + winBytes
	if uint(k) >= winBytes {
		w.fill(src, i&^63)
		k = i - w.end + winBytes
	}
	m := &w.masks[k>>6]
	q := m[maskQuote] >> (k & 63)
	stops := (m[maskBackslash] | m[maskOther]) >> (k & 63)
	if q&(stops&-stops-1) != 0 { // a quote below the lowest stop
		return i + bits.TrailingZeros64(q) + 1, 0, errNone
	}
	return w.scanBody(src, i)
}

// scanBody is the rest of scanString. It goes through the body a block at
// a time and works out from the backslashes' bits which bytes are escaped,
// so that a two-byte escape is no stop: each saves one byte when
// unescaped, and they are counted a block at a time. The first stop is the
// first of: a quote not escaped (the end), a control or non-ASCII byte,
// and an escaped byte that does not make a two-byte escape (\u, or an
// invalid escape, whose backslash is the byte before). Every escape before
// it is a valid two-byte one, so the generic code, which goes through the
// body in order, finds the same first problem at the same offset. Past the
// end of the input the masks are of zero bytes, which are control
// characters: a body that is not closed, or ends in a backslash, stops
// there.
func (w *window) scanBody(src []byte, i int) (end, saved int, kind errKind) {
	for { // i is in the body, not inside an escape
		k := i - w.end + winBytes
		if uint(k) >= winBytes {
			w.fill(src, i&^63)
			k = i - w.end + winBytes
		}
		b := k >> 6
		from := ^uint64(0) << (k & 63)           // the bytes at i and after
		var carry, quotes, escaped, stops uint64 // carry: the byte at the next block is escaped
		for {
			m := &w.masks[b]
			var escaping uint64
			escaped, escaping = escapes(m[maskBackslash]&from, carry)
			carry = escaping >> 63
			quotes = m[maskQuote] &^ escaped & from
			stops = quotes | m[maskOther]&from | escaped&m[maskNotSimple]
			if stops != 0 {
				break
			}
			saved += bits.OnesCount64(escaped)
			from = ^uint64(0)
			if b++; b == winBlocks {
				w.fill(src, w.end)
				b = 0
			}
		}
		first := stops & -stops
		saved += bits.OnesCount64(escaped & (first - 1))
		p := w.end - winBytes + b*64 + bits.TrailingZeros64(stops)
		switch {
		case first&escaped != 0: // the escape at p-1 is no two-byte one
			i = p - 1
			if p >= len(src) { // a backslash ends the input
				return len(src), 0, errSyntax
			}
			for { // a run of \u escapes, as encoders that escape all non-ASCII write them
				if escapeClass[src[i+1]] != escUnicode {
					return i, 0, errSyntax
				}
				raw, dec, kind := unicodeEscape(src, i)
				if kind != errNone {
					return raw, 0, kind
				}
				saved += raw - dec
				i += raw
				if i+1 >= len(src) || src[i] != '\\' || src[i+1] != 'u' {
					break
				}
			}
		case first&quotes != 0:
			return p + 1, saved, errNone
		case p >= len(src): // no closing quote
			return len(src), 0, errSyntax
		case src[p] < 0x20:
			return p, 0, errSyntax
		default:
			if i, kind = validUTF8(src, p); kind != errNone {
				return i, 0, kind
			}
		}
	}
}
