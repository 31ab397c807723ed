package utf8x

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/m2m-go/m2m/internal/cpu"
	"github.com/m2m-go/m2m/internal/cpu/cputest"
)

func TestKernelsRequired(t *testing.T) { cputest.CheckRequired(t, "utf8x") }

// check fails t if Valid and unicode/utf8 disagree on p.
func check(t *testing.T, p []byte) {
	t.Helper()
	if got, want := Valid(p), utf8.Valid(p); got != want {
		t.Fatalf("Valid(% x) = %v, unicode/utf8 says %v", p, got, want)
	}
}

// edges are the byte values where UTF-8's rules change: ASCII, the bounds
// of continuations and of their narrower ranges after E0, ED, F0 and F4,
// the leads of each length and the bytes UTF-8 never holds.
var edges = []byte{
	0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
	0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFF,
}

// TestShort holds every kernel to unicode/utf8 on every input of one and
// two bytes and every four-byte input of edge values, each placed after
// prefixes of ASCII that put it across the kernel's 16-byte lanes and
// 32-byte blocks, alone, at the end and with bytes after it; and, unless
// -short, on every input of three bytes at the end of 33 bytes of text,
// across the last block and the tail.
func TestShort(t *testing.T) {
	cputest.Run(t, "utf8x", func(t *testing.T) {
		buf := make([]byte, 80)
		for i := range buf {
			buf[i] = 'a'
		}
		at := func(off int, seq ...byte) {
			copy(buf[off:], seq)
			check(t, buf[off:off+len(seq)])       // alone
			check(t, buf[:off+len(seq)])          // at the end
			check(t, buf[:min(len(buf), off+40)]) // followed by ASCII
			copy(buf[off:], "aaaa"[:len(seq)])
		}
		offsets := []int{0, 1, 13, 14, 15, 16, 29, 30, 31, 32, 33}
		for _, off := range offsets {
			for b0 := range 256 {
				at(off, byte(b0))
				for b1 := range 256 {
					at(off, byte(b0), byte(b1))
				}
			}
		}
		three := []int{30}
		if testing.Short() || cpu.Selected("utf8x") == cpu.Generic {
			three = nil // generic is unicode/utf8 itself
		}
		for _, off := range three {
			for b0 := range 256 {
				for b1 := range 256 {
					for b2 := range 256 {
						// Across the last block and into the tail.
						buf[off], buf[off+1], buf[off+2] = byte(b0), byte(b1), byte(b2)
						check(t, buf[:off+3])
					}
				}
			}
			copy(buf[off:], "aaa")
		}
		for _, off := range []int{0, 14, 15, 30, 31} {
			for _, b0 := range edges {
				for _, b1 := range edges {
					for _, b2 := range edges {
						for _, b3 := range edges {
							at(off, b0, b1, b2, b3)
						}
					}
				}
			}
		}
	})
}

// text returns n bytes of UTF-8 mixing ASCII with characters of two, three
// and four bytes, then, unless clean, with one of its bytes changed.
func text(r *rand.Rand, n int, clean bool) []byte {
	p := make([]byte, 0, n+4)
	for len(p) < n {
		switch r.IntN(4) {
		case 0:
			p = append(p, byte(r.IntN(0x80)))
		case 1:
			p = utf8.AppendRune(p, rune(0x80+r.IntN(0x800-0x80)))
		case 2:
			p = utf8.AppendRune(p, rune(0x800+r.IntN(0x10000-0x800))) // surrogates come out as U+FFFD
		default:
			p = utf8.AppendRune(p, rune(0x10000+r.IntN(0x110000-0x10000)))
		}
	}
	p = p[:n] // may cut a character: invalid
	if !clean && n > 0 {
		p[r.IntN(n)] = byte(r.Uint32())
	}
	return p
}

// TestRandom holds every kernel to unicode/utf8 on mixed text of every
// length to 300 and some longer, clean and with a byte changed.
func TestRandom(t *testing.T) {
	cputest.Run(t, "utf8x", func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for n := range 300 {
			for range 40 {
				check(t, text(r, n, true))
				check(t, text(r, n, false))
			}
		}
		for _, n := range []int{1 << 10, 4<<10 + 3, 64<<10 + 17} {
			for range 20 {
				check(t, text(r, n, true))
				check(t, text(r, n, false))
			}
		}
	})
}

func FuzzValid(f *testing.F) {
	f.Add([]byte("héllo, 世界 🌍"))
	f.Add([]byte("\xed\xa0\x80 a surrogate"))
	f.Add([]byte("0123456789abcdef0123456789abcdef\xe4\xb8"))
	f.Fuzz(func(t *testing.T, p []byte) {
		want := utf8.Valid(p)
		cputest.Run(t, "utf8x", func(t *testing.T) {
			if got := Valid(p); got != want {
				t.Fatalf("Valid = %v, unicode/utf8 says %v", got, want)
			}
		})
	})
}
