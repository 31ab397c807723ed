package tokenizer

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/m2m-go/m2m/internal/race"
)

// get returns the tokenizer of enc, failing the test if it cannot load.
func get(t testing.TB, enc Encoding) Tokenizer {
	t.Helper()
	tok, err := Get(enc)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// complete returns every tokenizer that can encode here: cl100k_base,
// o200k_base, and Llama 3 when its ranks are available.
func complete(t testing.TB) []Tokenizer {
	t.Helper()
	toks := []Tokenizer{get(t, Cl100kBase), get(t, O200kBase)}
	if l := llama3(t, false); l != nil {
		toks = append(toks, l)
	}
	return toks
}

// freshEmbedded loads the embedded encoding of s anew, bypassing the cache
// of Get.
func freshEmbedded(t testing.TB, s *spec) Tokenizer {
	t.Helper()
	tok, err := fromEmbedded(s, embedded(s))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func encode(t testing.TB, tok Tokenizer, text string) []uint32 {
	t.Helper()
	ids, err := tok.AppendEncode(nil, []byte(text))
	if err != nil {
		t.Fatalf("%v: encode %q: %v", tok.Encoding(), text, err)
	}
	return ids
}

func decode(t testing.TB, tok Tokenizer, ids []uint32) string {
	t.Helper()
	b, err := tok.AppendDecode(nil, ids)
	if err != nil {
		t.Fatalf("%v: decode %v: %v", tok.Encoding(), ids, err)
	}
	return string(b)
}

func TestEncodingIdentity(t *testing.T) {
	for _, tc := range []struct {
		enc    Encoding
		name   string
		char   byte
		b      byte
		nVocab int
	}{
		{Cl100kBase, "cl100k_base", 'C', 0, 100277},
		{O200kBase, "o200k_base", 'O', 1, 200019},
		{Llama3, "llama3", 'L', 2, 128256},
	} {
		if tc.enc.String() != tc.name || tc.enc.Char() != tc.char || byte(tc.enc) != tc.b || tc.enc.NVocab() != tc.nVocab {
			t.Errorf("%v: got %q %q %d %d, want %q %q %d %d", tc.name, tc.enc, tc.enc.Char(), byte(tc.enc), tc.enc.NVocab(),
				tc.name, tc.char, tc.b, tc.nVocab)
		}
		if e, err := EncodingForChar(tc.char); e != tc.enc || err != nil {
			t.Errorf("EncodingForChar(%q) = %v, %v", tc.char, e, err)
		}
		if e, err := EncodingForByte(tc.b); e != tc.enc || err != nil {
			t.Errorf("EncodingForByte(%d) = %v, %v", tc.b, e, err)
		}
	}
	for _, c := range []byte{0, 'c', 'H', 'X', '|'} {
		if _, err := EncodingForChar(c); !errors.Is(err, ErrUnknownEncoding) {
			t.Errorf("EncodingForChar(%q): %v, want ErrUnknownEncoding", c, err)
		}
	}
	for _, b := range []byte{3, 'C', 255} {
		if _, err := EncodingForByte(b); !errors.Is(err, ErrUnknownEncoding) {
			t.Errorf("EncodingForByte(%d): %v, want ErrUnknownEncoding", b, err)
		}
	}
	bad := Encoding(3)
	if bad.String() != "Encoding(3)" || bad.Char() != 0 || bad.NVocab() != 0 {
		t.Errorf("Encoding(3): %q %q %d", bad, bad.Char(), bad.NVocab())
	}
	if tok, err := Get(bad); tok != nil || !errors.Is(err, ErrUnknownEncoding) {
		t.Errorf("Get(3) = %v, %v", tok, err)
	}
}

// Known answers: the TokenNative KATs of the reference implementation
// (docs/protocol.md §5.4), encoded here as ordinary text.
func TestKnownAnswers(t *testing.T) {
	for _, tc := range []struct {
		enc  Encoding
		text string
		ids  []uint32
	}{
		{Cl100kBase, "Hello, world!", []uint32{9906, 11, 1917, 0}},
		{Cl100kBase, "Hello, how are you today?", []uint32{9906, 11, 1268, 527, 499, 3432, 30}},
		{Cl100kBase, `{"model":"gpt-4o","messages":[{"role":"user","content":"Hello!"}]}`,
			[]uint32{5018, 2590, 3332, 70, 418, 12, 19, 78, 2247, 16727, 67682, 5898, 3332, 882, 2247, 1834, 3332, 9906, 9135, 92, 14316}},
		{O200kBase, "Hello, world!", []uint32{13225, 11, 2375, 0}},
		{O200kBase, "Hello, how are you today?", []uint32{13225, 11, 1495, 553, 481, 4044, 30}},
		{Cl100kBase, "", nil},
		{O200kBase, "", nil},
	} {
		tok := get(t, tc.enc)
		if ids := encode(t, tok, tc.text); !slices.Equal(ids, tc.ids) {
			t.Errorf("%v: encode %q = %v, want %v", tc.enc, tc.text, ids, tc.ids)
		}
		if s := decode(t, tok, tc.ids); s != tc.text {
			t.Errorf("%v: decode %v = %q, want %q", tc.enc, tc.ids, s, tc.text)
		}
	}
}

// Special-token strings in text are ordinary text; special ids (which the
// reference emits for them) still decode to their text.
func TestSpecialTokens(t *testing.T) {
	for _, tc := range []struct {
		enc      Encoding
		specials map[uint32]string
	}{
		{Cl100kBase, cl100kSpec.specials},
		{O200kBase, o200kSpec.specials},
		{Llama3, llama3Spec.specials},
	} {
		tok := get(t, tc.enc) // for Llama 3 possibly decode-only: specials decode all the same
		if len(tc.specials) != map[Encoding]int{Cl100kBase: 5, O200kBase: 2, Llama3: 256}[tc.enc] {
			t.Errorf("%v: %d specials", tc.enc, len(tc.specials))
		}
		for id, text := range tc.specials {
			if s := decode(t, tok, []uint32{id}); s != text {
				t.Errorf("%v: decode special %d = %q, want %q", tc.enc, id, s, text)
			}
			if tc.enc == Llama3 && tok.(*bpe).tables == nil {
				continue
			}
			ids := encode(t, tok, text)
			if len(ids) < 2 || slices.ContainsFunc(ids, func(id uint32) bool { return tc.specials[id] != "" }) {
				t.Errorf("%v: %q encoded as %v, want ordinary ids", tc.enc, text, ids)
			}
			if s := decode(t, tok, ids); s != text {
				t.Errorf("%v: %q round-tripped to %q", tc.enc, text, s)
			}
		}
	}
	// The reference's KATs: "<|endoftext|>" as a special id.
	if s := decode(t, get(t, Cl100kBase), []uint32{9906, 100257}); s != "Hello<|endoftext|>" {
		t.Errorf("cl100k_base: %q", s)
	}
	if s := decode(t, get(t, O200kBase), []uint32{199999, 13225}); s != "<|endoftext|>Hello" {
		t.Errorf("o200k_base: %q", s)
	}
}

func TestDecodeUnknownIDs(t *testing.T) {
	for _, tc := range []struct {
		enc    Encoding
		unused []uint32
	}{
		{Cl100kBase, []uint32{100256, 100261, 100268, 100275, 100277, 100278, 199999, 1 << 31, 1<<32 - 1}},
		{O200kBase, []uint32{199998, 200000, 200010, 200017, 200019, 200020, 1<<32 - 1}},
		{Llama3, []uint32{128256, 128257, 1<<32 - 1}},
	} {
		tok := get(t, tc.enc)
		for _, id := range tc.unused {
			ids := []uint32{9906, 11, id, 0}
			dst, err := tok.AppendDecode([]byte("x"), ids)
			var e *IDError
			if !errors.As(err, &e) || e.Index != 2 || e.ID != id || !errors.Is(err, ErrUnknownID) {
				t.Errorf("%v: decode %v: %v, want IDError{2, %d, ErrUnknownID}", tc.enc, ids, err, id)
				continue
			}
			if want := "x" + decode(t, tok, ids[:2]); string(dst) != want {
				t.Errorf("%v: decode %v returned %q, want %q", tc.enc, ids, dst, want)
			}
			if n, err := tok.DecodedLen(ids); !errors.As(err, &e) || e.Index != 2 || e.ID != id || n != len(dst)-1 {
				t.Errorf("%v: DecodedLen(%v) = %d, %v; want %d and the IDError", tc.enc, ids, n, err, len(dst)-1)
			}
		}
		// The ids next to the unused ones are fine.
		n := uint32(tc.enc.NVocab())
		if _, err := tok.AppendDecode(nil, []uint32{0, n - 1}); err != nil {
			t.Errorf("%v: decode 0 and %d: %v", tc.enc, n-1, err)
		}
	}
}

// Every control character, DEL, and C1 control round-trips as itself (the
// other Go tiktoken port drops U+007F).
func TestControlCharacters(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r < 0xA0; r++ {
		if r >= 0x20 && r < 0x7f {
			continue
		}
		all.WriteRune(r)
		for _, tok := range complete(t) {
			for _, s := range []string{string(r), "a" + string(r) + "b", " " + string(r) + " ", string(r) + string(r) + "x"} {
				if got := decode(t, tok, encode(t, tok, s)); got != s {
					t.Errorf("%v: %q round-tripped to %q", tok.Encoding(), s, got)
				}
			}
		}
	}
	for _, tok := range complete(t) {
		s := all.String()
		if got := decode(t, tok, encode(t, tok, s)); got != s {
			t.Errorf("%v: %q round-tripped to %q", tok.Encoding(), s, got)
		}
	}
	if ids := encode(t, get(t, Cl100kBase), "a\x7fb"); !slices.Equal(ids, []uint32{64, 221, 65}) {
		t.Errorf("cl100k_base: a DEL b = %v, want [64 221 65]", ids)
	}
}

func TestInvalidUTF8(t *testing.T) {
	for _, tc := range []struct {
		text   string
		offset int
	}{
		{"\xff", 0},
		{"abc\x80", 3},
		{"héllo \xc3", 7},
		{"ok \xed\xa0\x80 surrogate", 3},
		{"overlong \xc0\xaf", 9},
		{"\xf4\x90\x80\x80 beyond U+10FFFF", 0},
		{strings.Repeat("a", 5000) + "\xfe", 5000}, // checked before the run length
	} {
		for _, tok := range complete(t) {
			ids, err := tok.AppendEncode([]uint32{7}, []byte(tc.text))
			var e *TextError
			if !errors.As(err, &e) || e.Offset != tc.offset || !errors.Is(err, ErrInvalidUTF8) {
				t.Errorf("%v: encode %q: %v, want TextError{%d, ErrInvalidUTF8}", tok.Encoding(), tc.text, err, tc.offset)
			}
			if !slices.Equal(ids, []uint32{7}) {
				t.Errorf("%v: encode %q changed dst to %v", tok.Encoding(), tc.text, ids)
			}
		}
	}
}

// AppendEncode and AppendDecode append, and leave what dst held alone.
func TestAppend(t *testing.T) {
	for _, tok := range complete(t) {
		text := "Appending: 日本語, العربية, 🏳️‍🌈."
		want := encode(t, tok, text)
		dst := make([]uint32, 3, 4)
		dst[0], dst[1], dst[2] = 1, 2, 3
		got, err := tok.AppendEncode(dst, []byte(text))
		if err != nil || !slices.Equal(got[:3], []uint32{1, 2, 3}) || !slices.Equal(got[3:], want) {
			t.Errorf("%v: AppendEncode = %v, %v; want [1 2 3] + %v", tok.Encoding(), got, err, want)
		}
		b, err := tok.AppendDecode([]byte("> "), want)
		if err != nil || string(b) != "> "+text {
			t.Errorf("%v: AppendDecode = %q, %v", tok.Encoding(), b, err)
		}
	}
}

func TestConcurrent(t *testing.T) {
	texts := []string{"The quick brown fox", "{\"role\": \"user\"}", "数据 données данные", strings.Repeat("ab 12 ", 200)}
	var wg sync.WaitGroup
	for _, tok := range complete(t) {
		for g := range 4 {
			wg.Go(func() {
				for i := range 20 {
					text := texts[(g+i)%len(texts)]
					ids, err := tok.AppendEncode(nil, []byte(text))
					if err != nil {
						t.Error(err)
						return
					}
					if b, err := tok.AppendDecode(nil, ids); err != nil || string(b) != text {
						t.Errorf("%v: %q: %q, %v", tok.Encoding(), text, b, err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
}

// Get returns the same tokenizer every time.
func TestGetCaches(t *testing.T) {
	for _, enc := range []Encoding{Cl100kBase, O200kBase, Llama3} {
		if a, b := get(t, enc), get(t, enc); a != b || a.Encoding() != enc {
			t.Errorf("%v: Get returned %p and %p", enc, a, b)
		}
	}
}

// The vocabularies hold what ecosystem.md says: every rank decodes to a
// non-empty token, and the tokens are distinct (the table finds each one).
func TestVocabulary(t *testing.T) {
	for _, enc := range []Encoding{Cl100kBase, O200kBase} {
		s, b := specOf(enc), get(t, enc).(*bpe)
		if len(b.vocab.locs) != s.enc.NVocab() {
			t.Errorf("%v: %d ids", s.enc, len(b.vocab.locs))
		}
		for id := range uint32(s.nRanks) {
			tok := b.vocab.token(id)
			if got, ok := b.tables.tokens.lookup(tok); !ok || got != id {
				t.Fatalf("%v: id %d = %q is found as %d, %v", s.enc, id, tok, got, ok)
			}
		}
		// DecodedLen counts in a uint64 on the strength of this bound.
		if n := longest(b.vocab); n >= 1<<8 {
			t.Errorf("%v: a token of %d bytes", s.enc, n)
		}
		if s.specials[uint32(s.enc.NVocab()-1)] == "" {
			t.Errorf("%v: the last id is not a special", s.enc)
		}
	}
}

func TestRanksMismatch(t *testing.T) {
	cl, err := cl100kRanks()
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	for id := range 10 {
		file.WriteString(string(cl.vocab.token(uint32(id))) + "\n")
	}
	if _, err := parseRanks(cl100kSpec, file.Bytes()); !errors.Is(err, ErrRanksMismatch) {
		t.Errorf("parseRanks of a wrong file: %v", err)
	}
}

// longest returns the length of the longest token of v.
func longest(v *vocab) int {
	n := 0
	for id := range uint32(len(v.locs)) {
		n = max(n, len(v.token(id)))
	}
	return n
}

// AppendDecode writes ahead into dst's spare capacity, but never past it,
// whatever the capacity.
func TestDecodeNoWritePastCap(t *testing.T) {
	for _, tok := range complete(t) {
		text := "Ünïcode, ids of every length: " + strings.Repeat("=", 40) + " and 日本語."
		ids := encode(t, tok, text)
		for c := range len(text) + 2*decodeWord {
			buf := bytes.Repeat([]byte{0xa5}, c+64)
			got, err := tok.AppendDecode(buf[:0:c], ids)
			if err != nil || string(got) != text {
				t.Fatalf("%v: cap %d: %q, %v", tok.Encoding(), c, got, err)
			}
			if !bytes.Equal(buf[c:], bytes.Repeat([]byte{0xa5}, 64)) {
				t.Fatalf("%v: cap %d: wrote past the capacity: %q", tok.Encoding(), c, buf[c:])
			}
		}
	}
}

// With a reused dst, encoding and decoding allocate nothing, long pieces
// (which take their scratch from a pool) included.
func TestAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector makes sync.Pool drop what it is given")
	}
	texts := map[string][]byte{
		"chat":    benchText(16 << 10),
		"cjk":     bytes.Join(cjkLines(16<<10).lines, []byte("\n")),
		"run":     bytes.Repeat([]byte("ab"), 20_000),
		"unicode": []byte(strings.Repeat("日本語のテキスト", 2000)),
	}
	for _, tok := range complete(t) {
		for name, text := range texts {
			ids := encode(t, tok, string(text))
			dst := make([]byte, 0, len(text)+decodeWord)
			if n := testing.AllocsPerRun(20, func() { ids, _ = tok.AppendEncode(ids[:0], text) }); n != 0 {
				t.Errorf("%v: %s: AppendEncode allocates %v times", tok.Encoding(), name, n)
			}
			if n := testing.AllocsPerRun(20, func() { dst, _ = tok.AppendDecode(dst[:0], ids) }); n != 0 {
				t.Errorf("%v: %s: AppendDecode allocates %v times", tok.Encoding(), name, n)
			}
		}
	}
}
