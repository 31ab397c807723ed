package codec

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/m2m-go/m2m/tokenizer"
	"github.com/m2m-go/m2m/varint"
)

// Known answers of docs/protocol.md §5.4.
var tokenNativeKATs = []struct {
	text, wire, binary string
	enc                tokenizer.Encoding
}{
	{"Hello, world!", "#TK|C|sk0L/Q4A", "00b24d0bfd0e00", tokenizer.Cl100kBase},
	{"Hello, how are you today?", "#TK|C|sk0L9AmPBPMD6Boe", "", tokenizer.Cl100kBase},
	{`{"model":"gpt-4o","messages":[{"role":"user","content":"Hello!"}]}`, "#TK|C|mieeFIQaRqIDDBNOxxHXggHikASKLoQa8gbHEaoOhBqyTa9HXOxv", "", tokenizer.Cl100kBase},
	{"Hello, world!", "#TK|O|qWcLxxIA", "01a9670bc71200", tokenizer.O200kBase},
	{"Hello, how are you today?", "#TK|O|qWcL1wupBOEDzB8e", "", tokenizer.O200kBase},
}

func TestTokenNativeKnownAnswers(t *testing.T) {
	dec, _ := NewDecoder()
	for _, ka := range tokenNativeKATs {
		enc, _ := NewEncoder(WithTokenizer(ka.enc))
		wire, err := enc.AppendWire(nil, []byte(ka.text), TokenNative)
		if err != nil || string(wire) != ka.wire {
			t.Errorf("%v %q = %s, %v; want %s", ka.enc, ka.text, wire, err, ka.wire)
		}
		if text, alg, err := dec.AppendDecode(nil, []byte(ka.wire)); err != nil || alg != TokenNative || string(text) != ka.text {
			t.Errorf("decode %s = %q, %v, %v", ka.wire, text, alg, err)
		}
		if ka.binary == "" {
			continue
		}
		bin, _ := hex.DecodeString(ka.binary)
		if got, err := enc.AppendTokenNativeBinary(nil, []byte(ka.text)); err != nil || !bytes.Equal(got, bin) {
			t.Errorf("binary %q = %x, %v; want %s", ka.text, got, err, ka.binary)
		}
		if text, err := dec.AppendTokenNativeBinary(nil, bin); err != nil || string(text) != ka.text {
			t.Errorf("decode binary %s = %q, %v", ka.binary, text, err)
		}
	}
}

// TestTokenNativeReference decodes what the reference writes that we do
// not: special-token ids, and L streams tokenized with cl100k.
func TestTokenNativeReference(t *testing.T) {
	dec, _ := NewDecoder()
	for wire, want := range map[string]string{
		"#TK|C|oY8G":     "<|endoftext|>", // cl100k 100257
		"#TK|O|v5oM":     "<|endoftext|>", // o200k 199999
		"#TK|L|sk0L/Q4A": "Hello, world!", // the reference's L is cl100k; these ids coincide
	} {
		if text, _, err := dec.AppendDecode(nil, []byte(wire)); err != nil || string(text) != want {
			t.Errorf("decode %s = %q, %v; want %q", wire, text, err, want)
		}
	}
	// We encode "<|endoftext|>" in text as ordinary text, and it comes back.
	enc, _ := NewEncoder()
	wire, _ := enc.AppendWire(nil, []byte("<|endoftext|>"), TokenNative)
	if string(wire) == "#TK|C|oY8G" {
		t.Error("literal <|endoftext|> encoded as the special token")
	}
	if text, _, err := dec.AppendDecode(nil, wire); err != nil || string(text) != "<|endoftext|>" {
		t.Errorf("round trip of the literal: %q, %v", text, err)
	}
}

func TestTokenNativeRejects(t *testing.T) {
	dec, _ := NewDecoder()
	for _, tc := range []struct {
		wire string
		want error
	}{
		{"#TK|X|sk0L/Q4A", ErrInvalidCodec}, // unknown tokenizer: not a silent cl100k
		{"#TK|CC|sk0L/Q4A", ErrMalformed},   // extra characters before '|'
		{"#TK|C", ErrMalformed},             // no '|'
		{"#TK|Csk0L", ErrMalformed},         // no '|'
		{"#TK|C|AQF=", ErrMalformed},        // non-zero trailing bits: non-canonical base64
		{"#TK|C|sk0L/Q4", ErrMalformed},     // missing padding
		{"#TK|C|gAA=", ErrMalformed},        // 80 00: non-canonical varint
		{"#TK|C|gA==", ErrMalformed},        // 80: truncated varint
		{"#TK|C|/////w8=", ErrMalformed},    // id far outside the vocabulary
	} {
		if out, _, err := dec.AppendDecode([]byte("keep"), []byte(tc.wire)); !errors.Is(err, tc.want) || string(out) != "keep" {
			t.Errorf("decode %s: %q, %v; want %v", tc.wire, out, err, tc.want)
		}
	}
	// A token that is a lone byte of a multi-byte character: ids that do not
	// decode to UTF-8 are an error.
	tok, _ := tokenizer.Get(tokenizer.Cl100kBase)
	for id := range uint32(256) {
		if b, err := tok.AppendDecode(nil, []uint32{id}); err == nil && !utf8.Valid(b) {
			wire := "#TK|C|" + base64.StdEncoding.EncodeToString(varint.AppendUvarint(nil, id))
			if _, _, err := dec.AppendDecode(nil, []byte(wire)); !errors.Is(err, ErrMalformed) {
				t.Errorf("id %d (%x) decodes: %v", id, b, err)
			}
			break
		}
	}
	if _, err := dec.AppendTokenNativeBinary(nil, []byte{7, 1}); !errors.Is(err, ErrInvalidCodec) {
		t.Errorf("binary with tokenizer byte 7: %v", err)
	}
	if _, err := dec.AppendTokenNativeBinary(nil, nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("empty binary: %v", err)
	}
	// Long runs, which tiktoken merges in quadratic time, are text like any
	// other.
	enc, _ := NewEncoder()
	for _, text := range []string{strings.Repeat("a", 100_000), "data:" + strings.Repeat("QUJD", 10_000), strings.Repeat(" ", 50_000)} {
		wire, err := enc.AppendWire(nil, []byte(text), TokenNative)
		if back, _, derr := dec.AppendDecode(nil, wire); err != nil || derr != nil || string(back) != text {
			t.Errorf("a run of %d bytes: %v, %v", len(text), err, derr)
		}
	}
}

// FuzzTokenNativeRoundTrip: any UTF-8 text TokenNative accepts comes back
// byte for byte, in both forms.
func FuzzTokenNativeRoundTrip(f *testing.F) {
	for _, ka := range tokenNativeKATs {
		f.Add([]byte(ka.text))
	}
	f.Add([]byte("<|endoftext|> \u007f \u200d👨‍👩‍👧 日本語 \r\n\t"))
	enc, _ := NewEncoder(WithTokenizer(tokenizer.O200kBase))
	dec, _ := NewDecoder()
	f.Fuzz(func(t *testing.T, text []byte) {
		wire, err := enc.AppendTokenNative(nil, text)
		if err != nil {
			return // not UTF-8
		}
		if back, _, err := dec.AppendDecode(nil, wire); err != nil || !bytes.Equal(back, text) {
			t.Fatalf("%q: text form decodes to %q, %v", text, back, err)
		}
		bin, _ := enc.AppendTokenNativeBinary(nil, text)
		if back, err := dec.AppendTokenNativeBinary(nil, bin); err != nil || !bytes.Equal(back, text) {
			t.Fatalf("%q: binary form decodes to %q, %v", text, back, err)
		}
	})
}

// longestToken returns the id of the longest token of enc and its length.
func longestToken(t *testing.T, enc tokenizer.Encoding) (uint32, int) {
	t.Helper()
	tok, err := tokenizer.Get(enc)
	if err != nil {
		t.Fatal(err)
	}
	var best uint32
	n := 0
	for id := range uint32(enc.NVocab()) {
		if m, err := tok.DecodedLen([]uint32{id}); err == nil && m > n {
			best, n = id, m
		}
	}
	return best, n
}

// TestTokenNativeBomb decodes messages of MaxMessage bytes that repeat the
// id of the longest cl100k token (128 bytes of text for 3 bytes of id), in
// both forms: they must fail on the limit having allocated no more than
// it, where decoding first and checking after allocated 3.5 GB (binary
// form) and 2.8 GB (text form).
func TestTokenNativeBomb(t *testing.T) {
	id, n := longestToken(t, tokenizer.Cl100kBase)
	one := varint.AppendUvarint(nil, id)
	lim := DefaultLimits
	bin := append([]byte{byte(tokenizer.Cl100kBase)}, bytes.Repeat(one, (lim.MaxMessage-1)/len(one))...)
	ids := bytes.Repeat(one, (lim.MaxMessage-6)/4*3/len(one))
	text := []byte("#TK|C|" + base64.StdEncoding.EncodeToString(ids))
	t.Logf("id %d, %d bytes: messages decode to %d MiB", id, n, len(bin)/len(one)*n>>20)
	dec, _ := NewDecoder()
	for _, tc := range []struct {
		form   string
		decode func() ([]byte, error)
	}{
		{"binary", func() ([]byte, error) { return dec.AppendTokenNativeBinary([]byte("keep"), bin) }},
		{"text", func() ([]byte, error) {
			out, _, err := dec.AppendDecode([]byte("keep"), text)
			return out, err
		}},
	} {
		var out []byte
		var err error
		grew := allocated(func() { out, err = tc.decode() })
		if !errors.Is(err, ErrLimit) || string(out) != "keep" {
			t.Errorf("%s form: %.20q, %v; want ErrLimit", tc.form, out, err)
		}
		// The text form decodes its base64 (12 MiB) first; nothing else
		// may grow with the message.
		checkAllocated(t, tc.form+" form", grew, uint64(lim.MaxDecompressed)+1<<20)
	}
	// The limit is exact, in one chunk of ids and in several.
	for _, count := range []int{100, 2 * idChunk / len(one)} {
		small, _ := NewDecoder(WithLimits(Limits{MaxDecompressed: count * n}))
		msg := append([]byte{byte(tokenizer.Cl100kBase)}, bytes.Repeat(one, count)...)
		if out, err := small.AppendTokenNativeBinary(nil, msg); err != nil || len(out) != count*n {
			t.Errorf("%d tokens at a limit of %d bytes: %d bytes, %v", count, count*n, len(out), err)
		}
		msg = append(msg, one...)
		if out, err := small.AppendTokenNativeBinary(nil, msg); !errors.Is(err, ErrLimit) || len(out) != 0 {
			t.Errorf("%d tokens at a limit of %d bytes: %d bytes, %v; want ErrLimit", count+1, count*n, len(out), err)
		}
	}
}

// detokenizeWhole is what detokenize does, without chunks: it decodes every
// varint and every id at once, for FuzzTokenNativeChunks to compare with.
func detokenizeWhole(enc tokenizer.Encoding, b []byte, at int, limit int) ([]byte, error) {
	tok, err := tokenizer.Get(enc)
	if err != nil {
		return nil, err
	}
	ids, verr := varint.DecodeUvarints(nil, b)
	n, err := tok.DecodedLen(ids)
	switch {
	case err != nil:
		return nil, idError(err, ids, 0, at)
	case verr != nil:
		return nil, varintError(verr, 0, at)
	case n > limit:
		return nil, errorf(ErrLimit, "payload", at, "decodes to more than %d bytes", limit)
	}
	text, _ := tok.AppendDecode(nil, ids)
	if !utf8.Valid(text) {
		return nil, errorf(ErrMalformed, "payload", at, "token ids decode to invalid UTF-8")
	}
	return text, nil
}

// TestTokenNativeChunks decodes messages of several chunks of ids, with
// errors on either side of a cut.
func TestTokenNativeChunks(t *testing.T) {
	enc, _ := NewEncoder(WithTokenizer(tokenizer.O200kBase))
	dec, _ := NewDecoder()
	text := []byte(randomWords(15000))
	bin, err := enc.AppendTokenNativeBinary(nil, text)
	if err != nil || len(bin) < 3*idChunk {
		t.Fatalf("%d bytes of ids, %v; want 3 chunks", len(bin), err)
	}
	if back, err := dec.AppendTokenNativeBinary(nil, bin); err != nil || !bytes.Equal(back, text) {
		t.Errorf("binary form: %.40q, %v", back, err)
	}
	wire, _ := enc.AppendTokenNative(nil, text)
	if back, _, err := dec.AppendDecode(nil, wire); err != nil || !bytes.Equal(back, text) {
		t.Errorf("text form: %.40q, %v", back, err)
	}

	zeros := func(n int) []byte { return append([]byte{byte(tokenizer.Cl100kBase)}, make([]byte, n)...) }
	for _, tc := range []struct {
		name   string
		msg    []byte
		offset int // of the error, in msg
		index  int // of the bad id, or -1
	}{
		{"unknown id in the second chunk", append(varint.AppendUvarint(zeros(idChunk+7), 100256), 0), 1 + idChunk + 7, idChunk + 7},
		{"overlong varint across a cut", append(zeros(idChunk-2), 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), 1 + idChunk - 2, -1},
		{"overlong varint at the end of a chunk", append(zeros(idChunk-5), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), 1 + idChunk - 5, -1},
		{"truncated varint after a chunk", append(zeros(idChunk+100), 0x80), 1 + idChunk + 100, -1},
	} {
		out, err := dec.AppendTokenNativeBinary([]byte("keep"), tc.msg)
		var e *Error
		var ie *tokenizer.IDError
		switch {
		case !errors.As(err, &e) || !errors.Is(err, ErrMalformed) || string(out) != "keep":
			t.Errorf("%s: %.20q, %v; want ErrMalformed", tc.name, out, err)
		case e.Offset != tc.offset:
			t.Errorf("%s: error at offset %d, want %d: %v", tc.name, e.Offset, tc.offset, err)
		case tc.index >= 0 && (!errors.As(err, &ie) || ie.Index != tc.index):
			t.Errorf("%s: %v, want the id at index %d", tc.name, err, tc.index)
		}
		if _, want := detokenizeWhole(tokenizer.Cl100kBase, tc.msg[1:], 1, DefaultLimits.MaxDecompressed); fmt.Sprint(err) != fmt.Sprint(want) {
			t.Errorf("%s: %v; decoded whole: %v", tc.name, err, want)
		}
	}
}

// FuzzTokenNativeChunks decodes binary messages of up to 3 chunks of ids,
// made by repeating the input, and compares with decoding the message
// whole: the cuts between chunks must change neither the text nor the
// error.
func FuzzTokenNativeChunks(f *testing.F) {
	f.Add(byte(0), []byte{0xb2, 0x4d, 0x0b, 0xfd, 0x0e, 0x00}, uint16(3*idChunk))
	f.Add(byte(1), []byte{0xa9, 0x67, 0x0b, 0xc7, 0x12, 0x00}, uint16(idChunk+1))
	f.Add(byte(0), []byte{0xff, 0xff, 0xff, 0x7f}, uint16(2*idChunk))
	f.Add(byte(2), []byte{0x80, 0xe8, 0x07, 0x21}, uint16(2*idChunk+3))
	dec, _ := NewDecoder()
	f.Fuzz(func(t *testing.T, tokByte byte, data []byte, size uint16) {
		if len(data) == 0 {
			return
		}
		enc := tokenizer.Encoding(tokByte % 3)
		msg := []byte{byte(enc)}
		for n := 1 + int(size)%(3*idChunk); len(msg) <= n; {
			msg = append(msg, data[:min(len(data), n+1-len(msg))]...)
		}
		got, err := dec.AppendTokenNativeBinary(nil, msg)
		want, werr := detokenizeWhole(enc, msg[1:], 1, DefaultLimits.MaxDecompressed)
		if fmt.Sprint(err) != fmt.Sprint(werr) || !bytes.Equal(got, want) {
			t.Fatalf("%x: %.40q, %v; decoded whole: %.40q, %v", msg, got, err, want, werr)
		}
	})
}

// TestWithLlama3: the tokenizer WithLlama3 gives is the one Llama 3
// payloads are encoded and decoded with (here o200k's, under the Llama 3
// byte, as no Llama 3 ranks ship with the package).
func TestWithLlama3(t *testing.T) {
	if _, err := NewEncoder(WithLlama3(nil)); err == nil {
		t.Error("WithLlama3(nil) accepted")
	}
	tok, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := NewEncoder(WithTokenizer(tokenizer.Llama3), WithLlama3(tok))
	if err != nil {
		t.Fatal(err)
	}
	text := []byte(randomWords(300))
	bin, err := enc.AppendTokenNativeBinary(nil, text)
	if err != nil || bin[0] != byte(tokenizer.Llama3) {
		t.Fatalf("%v, %.8q", err, bin)
	}
	dec, _ := NewDecoder(WithLlama3(tok))
	if back, err := dec.AppendTokenNativeBinary(nil, bin); err != nil || !bytes.Equal(back, text) {
		t.Errorf("decoded with the same tokenizer: %.40q, %v", back, err)
	}
	other, _ := tokenizer.Get(tokenizer.Cl100kBase)
	dec, _ = NewDecoder(WithLlama3(other))
	if back, err := dec.AppendTokenNativeBinary(nil, bin); err == nil && bytes.Equal(back, text) {
		t.Error("decoded with another tokenizer: the same text")
	}
}
