package ppm

import (
	"bytes"
	"fmt"
	"math/bits"
	"testing"

	"github.com/m2m-go/m2m/internal/sample"
	"github.com/m2m-go/m2m/internal/wordtext"
	"github.com/m2m-go/m2m/words"
)

// TestWords: text with and without words to replace comes back whole,
// whatever the codes it leaves free; prose codes smaller with Words.
func TestWords(t *testing.T) {
	for name, in := range wordtext.Texts(words.MaxLen) {
		off := roundTrip(t, in, Options{Memory: 64})
		on := roundTrip(t, in, Options{Memory: 64, Words: true})
		t.Logf("%s: %d bytes, %d without words, %d with", name, len(in), len(off), len(on))
		if name == "sample" && len(on) >= len(off) {
			t.Errorf("%s: %d bytes with words, %d without", name, len(on), len(off))
		}
		if tb := chooseWords(in); (tb == nil) != (name == "random" || name == "empty" || name == "word") {
			t.Errorf("%s: table %v", name, tb != nil)
		}
	}
	if tb := chooseWords(wordtext.Rare()); tb == nil || tb.Len() < 2 {
		t.Errorf("every byte used, some rarely: %+v", tb)
	}
}

// TestWordsDict: a dictionary is coded with the frame's table, whatever
// bytes it holds.
func TestWordsDict(t *testing.T) {
	text := sample.JSONL()
	dict, in := text[:len(text)/2], text[len(text)/2:]
	dict = append([]byte{0x01, 0x02, 0xFE, 0xFF}, dict...)
	in = append(bytes.Clone(dict[1000:101000]), in[:100000]...)
	o := Options{Memory: 16, Dict: dict, Words: true}
	with := roundTrip(t, in, o)
	alone := roundTrip(t, in, Options{Memory: 16, Words: true})
	if len(with) >= len(alone) {
		t.Errorf("with a dictionary: %d bytes, alone %d", len(with), len(alone))
	}
}

// TestWordsSizes: text whose codes are shorter than it by a power of two
// or more, alone and behind a dictionary, comes back: the encoder, which
// has the coded text at hand, sizes its match model as the decoder does,
// by the raw length (sized by the coded one, the tables differed, and
// where their hashes collided, so did the predictions).
func TestWordsSizes(t *testing.T) {
	text := sample.JSONL()
	for _, n := range []int{144 << 10, 288 << 10, 576 << 10} {
		in := text[:min(n, len(text))]
		coded := chooseWords(in).AppendEncode(nil, in)
		if bits.Len(uint(len(coded))) == bits.Len(uint(len(in))) {
			t.Fatalf("%d bytes coded to %d: not a test of the sizes", len(in), len(coded))
		}
		roundTrip(t, in, Options{Memory: 16, Words: true})
		roundTrip(t, in, Options{Memory: 16, Words: true, Dict: text[len(text)-n/2:]})
	}
}

// TestWordsPrefix: any first n bytes come back, codes cut where n falls.
func TestWordsPrefix(t *testing.T) {
	in := wordtext.Prose(minWordsText, 5)
	p, err := AppendEncode(nil, in, Options{Memory: 4, Words: true})
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(in) + 2 {
		if n > 300 && n < len(in)-300 && n%997 != 0 {
			continue
		}
		out, err := AppendDecodePrefix([]byte("x"), p, n, len(in), Options{})
		if want := append([]byte("x"), in[:min(n, len(in))]...); err != nil || !bytes.Equal(out, want) {
			t.Fatalf("n %d: %d bytes, %v", n, len(out)-1, err)
		}
	}
}

// TestWordsHeader: tables no encoder makes are refused.
func TestWordsHeader(t *testing.T) {
	in := wordtext.Prose(minWordsText, 5)
	p, err := AppendEncode(nil, in, Options{Memory: 4, Words: true})
	if err != nil {
		t.Fatal(err)
	}
	head := appendHeader(nil, 16, 4, len(in), 0, nil)
	nWords, codes, one, k, err := words.ReadHeader(p[len(head):])
	if err != nil || nWords == 0 {
		t.Fatalf("no words in the header: %v", err)
	}
	rest := p[len(head)+k:]
	for _, bad := range []struct {
		name         string
		words, one   int
		codes        []byte
		wantRejected bool
	}{
		{"as made", nWords, one, codes, false},
		{"more words than codes hold", one + (len(codes)-1-one)*256 + 1, one, codes, true},
		{"more words than the text has room for", len(in)/2 + 1, one, codes, true},
		{"one-byte codes past the codes", nWords, len(codes), codes, true},
		{"a code twice", nWords, one, append([]byte{codes[1]}, codes[1:]...), true},
		{"one code", nWords, 0, codes[:1], true},
	} {
		q := bytes.Clone(p[:len(head)])
		q = varint64(q, bad.words)
		q = varint64(q, len(bad.codes))
		q = append(q, bad.codes...)
		q = varint64(q, bad.one)
		q = append(q, rest...)
		out, err := AppendDecode(nil, q, len(in), Options{})
		if rejected := err != nil; rejected != bad.wantRejected || !rejected && !bytes.Equal(out, in) {
			t.Errorf("%s: %v", bad.name, err)
		}
	}
}

func varint64(dst []byte, v int) []byte {
	for ; v >= 0x80; v >>= 7 {
		dst = append(dst, byte(v)|0x80)
	}
	return append(dst, byte(v))
}

// FuzzWords: any text comes back whole with its words replaced, the
// table chosen as for a long text whatever the length.
func FuzzWords(f *testing.F) {
	f.Add([]byte("The cat and the hat and The Cat and the cat, and the hat."), 8)
	f.Add(wordtext.Prose(2000, 10), 1)
	f.Add([]byte(`\nThe "cat"\n\n\"hat\" \\nThe\`), 64)
	f.Fuzz(func(t *testing.T, unit []byte, copies int) {
		in := bytes.Repeat(unit, min(max(copies, 1), 64)) // words used often enough
		p := appendEncode(nil, in, Options{Memory: 1}, chooseWords(in))
		back, err := AppendDecode(nil, p, len(in), Options{})
		if err != nil || !bytes.Equal(back, in) {
			t.Fatalf("%v: %s", err, fmt.Sprintf("%q", back))
		}
	})
}
