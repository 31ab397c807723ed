package words

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/m2m-go/m2m/internal/wordtext"
)

// noisy returns n bytes of words, capitals, escapes, backslashes, runs of
// base64 and other bytes, at random: cuts fall next to each of them.
func noisy(rng *rand.Rand, n int) []byte {
	parts := []string{"the", "The", "THE", "cat", "Cats", `\n`, `\\`, `\"`, `\u00e9`, "\\", "\"", " ", ", ",
		"\x00", "é", "0", "42", "+", "/", "=", "aGVsbG8gd29ybGQ", "internationalization", "x", "\n"}
	var b []byte
	for len(b) < n {
		if rng.IntN(50) == 0 {
			for range 240 + rng.IntN(40) { // a run of base64 long enough to skip
				b = append(b, "abcXYZ019+/"[rng.IntN(11)])
			}
			continue
		}
		b = append(b, parts[rng.IntN(len(parts))]...)
	}
	return b
}

// TestPieces: coding a text in pieces gives what coding it whole gives,
// for any number of pieces, each cut after a byte that ends no word.
func TestPieces(t *testing.T) {
	defer func(m int) { minPiece = m }(minPiece)
	minPiece = 16
	rng := rand.New(rand.NewPCG(1, 2))
	texts := [][]byte{wordtext.Prose(20000, 3), noisy(rng, 3000), noisy(rng, 20000), []byte(`\\\\\\\\\\\\\\\\"abc"\\\\\\\\\\\\\\\\\`)}
	for _, in := range wordtext.Texts(MaxLen) {
		texts = append(texts, in)
	}
	for ti, in := range texts {
		tb := Choose(in, Codes(in), 2)
		if tb == nil {
			continue
		}
		for n := 2; n <= 7; n++ {
			c := cuts(in, n)
			for _, at := range c {
				if isRunByte(in[at-1]) || in[at-1] == '\\' {
					t.Fatalf("text %d, n %d: cut after %q", ti, n, in[at-1])
				}
			}
			if !slices.IsSorted(c) || len(c) >= n {
				t.Fatalf("text %d, n %d: cuts %v", ti, n, c)
			}
			if got, want := tb.AppendEncodeParallel([]byte("dst"), in, n), tb.AppendEncode([]byte("dst"), in); !bytes.Equal(got, want) {
				t.Fatalf("text %d, n %d (cuts %v): coded in pieces differs", ti, n, c)
			}
		}
	}
}
