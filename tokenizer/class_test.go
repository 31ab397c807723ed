package tokenizer

import (
	"testing"
	"unicode"
)

// The class table, made from range tables, agrees with package unicode's
// predicates for every character, and so does the table of bytes.
func TestClasses(t *testing.T) {
	tbl := classes()
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := classify(r)
		if got := tbl.of(r); got != want {
			t.Fatalf("U+%04X: table %08b, unicode %08b", r, got, want)
		}
		if r < 0x80 && byteClass[r] != want {
			t.Fatalf("U+%04X: byte table %08b, unicode %08b", r, byteClass[r], want)
		}
		if r >= 0x80 && r < 0x100 && byteClass[r] != clMulti {
			t.Fatalf("byte %#x: class %08b, want clMulti", r, byteClass[r])
		}
	}
}
