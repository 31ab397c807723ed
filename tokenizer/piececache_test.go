package tokenizer

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// pieceWords reads a piece in place where the text has 16 bytes from its
// start, and copies it near the end of the text: both give its bytes,
// zero-padded.
func TestPieceWords(t *testing.T) {
	text := make([]byte, 40)
	for i := range text {
		text[i] = byte(0xa0 + i)
	}
	for i := range text {
		for e := i + 1; e <= min(i+cachePiece, len(text)); e++ {
			var want [16]byte
			copy(want[:], text[i:e])
			lo, hi := pieceWords(text, i, e)
			if lo != binary.LittleEndian.Uint64(want[:]) || hi != binary.LittleEndian.Uint64(want[8:]) {
				t.Fatalf("pieceWords(text, %d, %d) = %#x, %#x; want the bytes %x", i, e, lo, hi, want)
			}
		}
	}
}

// A pieceCache gives the tokens of the merge, when it merges a piece and
// when it has it already, however the pieces share its slots: thousands
// of short pieces, from a small alphabet so that they recur, half of them
// alike in their first eight bytes, into a cache of a thousand slots.
func TestPieceCache(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "ab\x00é日" // bytes, not characters; NUL makes pieces alike but for their length
	for _, tok := range complete(t) {
		tb := tok.(*bpe).tables
		c := new(pieceCache)
		for range 20_000 {
			// A piece at the end of its text, or in the middle.
			piece := make([]byte, 1+r.IntN(cachePiece), cachePiece+8)
			for i := range piece {
				piece[i] = alphabet[r.IntN(len(alphabet))]
			}
			if r.IntN(2) == 0 && len(piece) > 8 {
				copy(piece, "abababab") // pieces that differ only past the first word
			}
			text := piece
			if r.IntN(2) == 0 {
				text = append(piece, "xxxxxxxxxxxxxxxx"...)
			}
			want := tb.appendScanMerge([]uint32{7}, piece)
			if got := c.appendMerged([]uint32{7}, tb, text, 0, len(piece)); !slices.Equal(got, want) {
				t.Fatalf("%v: %q: %v from the cache, %v merged", tok.Encoding(), piece, got[1:], want[1:])
			}
		}
	}
}
