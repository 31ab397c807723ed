package codec

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/m2m-go/m2m/tokenizer"
	"github.com/m2m-go/m2m/varint"
)

// Known answers of reference-implementation.md §4.6.
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
	enc, _ := NewEncoder()
	if _, err := enc.AppendWire(nil, []byte(strings.Repeat("a", tokenizer.MaxRun+1)), TokenNative); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("a run over MaxRun: %v", err)
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
			return // not UTF-8, or a run over MaxRun
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
