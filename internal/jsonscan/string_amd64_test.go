//go:build !purego

package jsonscan

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/internal/cpu"
)

// masksTwin is the kernel's pure-Go twin: the masks of one block, a byte
// at a time.
func masksTwin(block []byte) (m [numMasks]uint64) {
	for j, c := range block[:64] {
		bit := uint64(1) << j
		if c == '"' {
			m[maskQuote] |= bit
		}
		if c == '\\' {
			m[maskBackslash] |= bit
		}
		if c < 0x20 || c >= 0x80 {
			m[maskOther] |= bit
		}
		if !strings.ContainsRune(`"\/bfnrt`, rune(c)) {
			m[maskNotSimple] |= bit
		}
	}
	return m
}

func needAVX2(tb testing.TB) {
	if !cpu.Has(cpu.AVX2) {
		tb.Skip("no AVX2 here")
	}
}

// checkFill fails t unless filling a window at every 64-byte boundary of
// src gives the twin's masks for each block, those of the last partial
// block as if zeros followed it, and those of a block of zeros where
// src ends on a boundary.
func checkFill(t *testing.T, src []byte) {
	t.Helper()
	padded := make([]byte, len(src)&^63+64)
	copy(padded, src)
	want := make([][numMasks]uint64, len(padded)/64)
	for b := range want {
		want[b] = masksTwin(padded[64*b:])
	}
	var w window
	for base := 0; base <= len(src); base += 64 {
		w.fill(src, base)
		if w.end != base+winBytes {
			t.Fatalf("len %d: fill at %d ends the window at %d", len(src), base, w.end)
		}
		for b := base / 64; b < len(want) && b < base/64+winBlocks; b++ {
			if got := w.masks[b-base/64]; got != want[b] {
				t.Fatalf("len %d: block at %d: kernel %x, twin %x\n% x", len(src), 64*b, got, want[b], padded[64*b:64*b+64])
			}
		}
	}
}

// TestMasks holds the kernel to its twin on every byte value at every
// offset of a block of each of several fillers, on random blocks, and
// through fill on inputs of every length to a few windows (the last
// partial block, the end on a block boundary, windows one after another).
func TestMasks(t *testing.T) {
	needAVX2(t)
	var masks [1][numMasks]uint64
	for _, fill := range []byte{'a', ' ', '"', '\\', 'n', 'u', 0x00, 0x1f, 0x7f, 0x80, 0xff} {
		var block [64]byte
		for j := range block {
			block[j] = fill
		}
		for j := range block {
			for c := range 256 {
				block[j] = byte(c)
				masksAVX2(block[:], nil, masks[:])
				if want := masksTwin(block[:]); masks[0] != want {
					t.Fatalf("kernel %x, twin %x\n% x", masks[0], want, block)
				}
			}
			block[j] = fill
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var block [64]byte
		for j := range block {
			block[j] = byte(r.Uint32())
		}
		// One block from p and one from tail: both must be right.
		var two [2][numMasks]uint64
		var tail [64]byte
		copy(tail[:], block[:])
		tail[r.IntN(64)] = byte(r.Uint32())
		masksAVX2(block[:], &tail, two[:])
		if want := masksTwin(block[:]); two[0] != want {
			t.Fatalf("kernel %x, twin %x\n% x", two[0], want, block)
		}
		if want := masksTwin(tail[:]); two[1] != want {
			t.Fatalf("tail: kernel %x, twin %x\n% x", two[1], want, tail)
		}
	}
	for n := range 3*winBytes + 70 {
		src := make([]byte, n)
		for j := range src {
			src[j] = "\"\\ab/u\x00\x1f\x80\xff"[r.IntN(10)]
		}
		checkFill(t, src)
	}
}

// FuzzMasks holds the kernel, through fill, to its twin.
func FuzzMasks(f *testing.F) {
	f.Add([]byte(`{"a":"b\"c\\\\d\u00e9é","e":"` + "\x01\x7f\x80\xff" + `"}`))
	f.Add([]byte(strings.Repeat(`\`, 200)))
	f.Add([]byte(strings.Repeat(`x"\`, 700)))
	f.Fuzz(func(t *testing.T, src []byte) {
		needAVX2(t)
		checkFill(t, src)
	})
}

// escapesTwin is escapes a bit at a time.
func escapesTwin(backslashes uint64, carry bool) (escaped uint64, next bool) {
	for j := range 64 {
		if carry {
			escaped |= 1 << j
			carry = false
		} else if backslashes>>j&1 != 0 {
			carry = true
		}
	}
	return escaped, carry
}

// TestEscapes holds escapes to its twin on random words of backslashes,
// sparse and dense, three in a row so that runs carry from one into the
// next, and on runs of every length at every offset.
func TestEscapes(t *testing.T) {
	check := func(words []uint64) {
		t.Helper()
		var carry uint64
		twinCarry := false
		for _, w := range words {
			got, escaping := escapes(w, carry)
			want, next := escapesTwin(w, twinCarry)
			if got != want || (escaping>>63 != 0) != next {
				t.Fatalf("words %x: escapes(%x, %d) = %x, carry %d; twin %x, carry %v",
					words, w, carry, got, escaping>>63, want, next)
			}
			carry, twinCarry = escaping>>63, next
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		words := make([]uint64, 3)
		for j := range words {
			switch r.IntN(3) {
			case 0:
				words[j] = r.Uint64() & r.Uint64() & r.Uint64()
			case 1:
				words[j] = r.Uint64()
			default:
				words[j] = r.Uint64() | r.Uint64()
			}
		}
		check(words)
	}
	for off := range 64 {
		for n := 1; n <= 130; n++ {
			var words [3]uint64
			for j := off; j < off+n && j < 192; j++ {
				words[j/64] |= 1 << (j % 64)
			}
			check(words[:])
		}
	}
}
