package tokenizer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRoundTrip checks that every encoding gives back valid UTF-8 byte for
// byte, refuses invalid UTF-8 exactly, and encodes no special ids.
func FuzzRoundTrip(f *testing.F) {
	for _, text := range goldenTexts(f) {
		f.Add([]byte(text))
	}
	for _, s := range []string{
		"a\x7fb", "\xff", "ok\xc3", "\xed\xa0\x80", "<|endoftext|><|begin_of_text|>",
		"e\u0301\u0301\u0301", "!\n/\n/", "x'LL'S", strings.Repeat("ab ", 50), strings.Repeat("-", 5000),
	} {
		f.Add([]byte(s))
	}
	toks := complete(f)
	f.Fuzz(func(t *testing.T, text []byte) {
		valid := utf8.Valid(text)
		for _, tok := range toks {
			ids, err := tok.AppendEncode(nil, text)
			if !valid {
				if !errors.Is(err, ErrInvalidUTF8) {
					t.Fatalf("%v: encode %q: %v, want ErrInvalidUTF8", tok.Encoding(), text, err)
				}
				continue
			}
			s := specOf(tok.Encoding())
			if err != nil {
				t.Fatalf("%v: encode %q: %v", tok.Encoding(), text, err)
			}
			for _, id := range ids {
				if s.specials[id] != "" || id >= uint32(s.nRanks) {
					t.Fatalf("%v: encode %q: id %d is not a rank", tok.Encoding(), text, id)
				}
			}
			got, err := tok.AppendDecode(nil, ids)
			if err != nil || string(got) != string(text) {
				t.Fatalf("%v: %q encoded to %v, which decodes to %q, %v", tok.Encoding(), text, ids, got, err)
			}
		}
	})
}

// fuzzIDs makes ids from data, four bytes each, mostly near the
// vocabularies so that many are valid.
func fuzzIDs(data []byte) []uint32 {
	var ids []uint32
	for ; len(data) >= 4; data = data[4:] {
		v := binary.LittleEndian.Uint32(data)
		if v&(1<<31) == 0 {
			v %= 1 << 18
		}
		ids = append(ids, v)
	}
	return ids
}

// FuzzDecode decodes arbitrary ids with every tokenizer, the decode-only
// Llama 3 included: it must not panic, must stop at the first id that is
// not in the vocabulary, and must give the bytes of the ids one by one;
// DecodedLen must count those bytes and fail the same way.
func FuzzDecode(f *testing.F) {
	le := func(ids ...uint32) []byte {
		var b []byte
		for _, id := range ids {
			b = binary.LittleEndian.AppendUint32(b, id)
		}
		return b
	}
	f.Add(le(9906, 11, 1917, 0))
	f.Add(le(100256, 100257, 100261, 100276, 100277))
	f.Add(le(199997, 199998, 199999, 200000, 200018, 200019))
	f.Add(le(127999, 128000, 128255, 128256, 1<<31, 1<<32-1))
	f.Add([]byte{1, 2, 3})
	toks := append(complete(f), decodeOnly(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		ids := fuzzIDs(data)
		for _, tok := range toks {
			got, err := tok.AppendDecode([]byte("^"), ids)
			want := []byte("^")
			bad := -1
			for i, id := range ids {
				b, err := tok.AppendDecode(nil, []uint32{id})
				if err != nil {
					bad = i
					break
				}
				want = append(want, b...)
			}
			var e *IDError
			switch {
			case bad < 0 && err != nil:
				t.Fatalf("%v: decode %v: %v", tok.Encoding(), ids, err)
			case bad >= 0 && (!errors.As(err, &e) || e.Index != bad || e.ID != ids[bad]):
				t.Fatalf("%v: decode %v: %v, want an IDError at index %d", tok.Encoding(), ids, err, bad)
			case !slices.Equal(got, want):
				t.Fatalf("%v: decode %v = %q, want %q", tok.Encoding(), ids, got, want)
			}
			if n, lerr := tok.DecodedLen(ids); n != len(want)-1 || fmt.Sprint(lerr) != fmt.Sprint(err) {
				t.Fatalf("%v: DecodedLen(%v) = %d, %v; want %d, %v", tok.Encoding(), ids, n, lerr, len(want)-1, err)
			}
		}
	})
}
