package tokenizer

import (
	"testing"
	"unicode"
)

// The table of the BMP, made from range tables, agrees with package
// unicode's predicates for every character, and so do the ASCII table and
// classify, which the other planes use.
func TestClasses(t *testing.T) {
	bmp := bmpClass()
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := classify(r)
		if r < 1<<16 && bmp[r] != want {
			t.Fatalf("U+%04X: table %08b, unicode %08b", r, bmp[r], want)
		}
		if r < 0x80 && byteClass[r] != want {
			t.Fatalf("U+%04X: byte table %08b, unicode %08b", r, byteClass[r], want)
		}
		if r >= 0x80 && r < 0x100 && byteClass[r] != clMulti {
			t.Fatalf("byte %#x: class %08b, want clMulti", r, byteClass[r])
		}
	}
}
