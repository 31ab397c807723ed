package tokenizer

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// llama3 returns the complete Llama 3 tokenizer of Get, whose ranks come
// from M2M_LLAMA3_TOKENIZER (made by testdata/llama3.sh) or the llama3 build
// tag. Without them it returns nil, or skips the test if required.
func llama3(t testing.TB, required bool) Tokenizer {
	t.Helper()
	tok := get(t, Llama3)
	if tok.(*bpe).tables == nil {
		if required {
			t.Skipf("no Llama 3 ranks: set %s to the file that tokenizer/testdata/llama3.sh prints", Llama3Env)
		}
		return nil
	}
	return tok
}

func decodeOnly(t testing.TB) Tokenizer {
	t.Helper()
	tok, err := llama3DecodeOnly()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// Without Meta's ranks, Llama 3 decodes the ids it shares with cl100k_base
// and the special ids, and refuses the rest.
func TestLlama3DecodeOnly(t *testing.T) {
	tok := decodeOnly(t)
	if tok.Encoding() != Llama3 {
		t.Errorf("Encoding() = %v", tok.Encoding())
	}
	if ids, err := tok.AppendEncode([]uint32{1}, []byte("hi")); !errors.Is(err, ErrLlama3Unavailable) || !slices.Equal(ids, []uint32{1}) {
		t.Errorf("encode: %v, %v; want ErrLlama3Unavailable", ids, err)
	}
	cl := get(t, Cl100kBase)
	for _, id := range []uint32{0, 1, 255, 9906, 100255} {
		if got, want := decode(t, tok, []uint32{id}), decode(t, cl, []uint32{id}); got != want {
			t.Errorf("id %d = %q, want %q as in cl100k_base", id, got, want)
		}
	}
	for _, tc := range []struct {
		id  uint32
		err error
	}{
		{100256, ErrLlama3Unavailable},
		{100257, ErrLlama3Unavailable},
		{127999, ErrLlama3Unavailable},
		{128256, ErrUnknownID},
		{1<<32 - 1, ErrUnknownID},
	} {
		_, err := tok.AppendDecode(nil, []uint32{9906, tc.id})
		var e *IDError
		if !errors.As(err, &e) || e.Index != 1 || e.ID != tc.id || !errors.Is(err, tc.err) {
			t.Errorf("decode %d: %v, want IDError{1, %d, %v}", tc.id, err, tc.id, tc.err)
		}
	}
	if s := decode(t, tok, []uint32{128000, 9906, 128009}); s != "<|begin_of_text|>Hello<|eot_id|>" {
		t.Errorf("specials: %q", s)
	}
}

// The reference implementation writes cl100k_base ids under "L". Those
// below 100256 mean the same tokens in Llama 3, so such streams decode to
// the same text with or without Meta's ranks. The special ids it emits for
// special-token strings do not: see TestReferenceLlamaSpecials.
func TestReferenceLlamaStreams(t *testing.T) {
	cl := get(t, Cl100kBase)
	llamas := []Tokenizer{decodeOnly(t)}
	if l := llama3(t, false); l != nil {
		llamas = append(llamas, l)
	}
	for _, text := range goldenTexts(t) {
		ids := encode(t, cl, text)
		for _, l := range llamas {
			if got := decode(t, l, ids); got != text {
				t.Errorf("reference L stream of %q decoded to %q", text, got)
			}
		}
	}
}

// A reference "L" stream for text holding "<|endoftext|>" carries cl100k's
// special id 100257. In Llama 3, 100257 is an ordinary token of Meta's, so
// the stream decodes to different text with the ranks, and to
// ErrLlama3Unavailable without them; no decoder can tell the two meanings
// apart.
func TestReferenceLlamaSpecials(t *testing.T) {
	stream := []uint32{13347, 100257} // the reference's "Hi<|endoftext|>" under L
	if s := decode(t, get(t, Cl100kBase), stream); s != "Hi<|endoftext|>" {
		t.Fatalf("cl100k_base: %q", s)
	}
	if _, err := decodeOnly(t).AppendDecode(nil, stream); !errors.Is(err, ErrLlama3Unavailable) {
		t.Errorf("decode-only Llama 3: %v, want ErrLlama3Unavailable", err)
	}
	l := llama3(t, true)
	if s := decode(t, l, stream); s != "Hi"+llama3Token100257 {
		t.Errorf("Llama 3: %q, want %q", s, "Hi"+llama3Token100257)
	}
	for id, text := range cl100kSpec.specials {
		if s := decode(t, l, []uint32{id}); s == text {
			t.Errorf("Llama 3 id %d decodes to cl100k's special %q", id, text)
		}
	}
}

// llama3Token100257 is Llama 3's token 100257, one of Meta's: "ا" (U+0627)
// and the first byte of another Arabic letter, so not valid UTF-8 by itself.
const llama3Token100257 = "\xd8\xa7\xd9"

// Llama 3's ranks begin with the whole of cl100k_base's, id for id.
func TestLlama3SharesCl100k(t *testing.T) {
	l := llama3(t, true).(*bpe)
	cl, err := cl100kRanks()
	if err != nil {
		t.Fatal(err)
	}
	for id := range uint32(sharedIDs) {
		if a, b := l.vocab.token(id), cl.vocab.token(id); string(a) != string(b) {
			t.Fatalf("id %d: Llama 3 %q, cl100k_base %q", id, a, b)
		}
	}
	for id := uint32(sharedIDs); id < uint32(Llama3.NVocab()); id++ {
		if l.vocab.token(id) == nil {
			t.Fatalf("Llama 3 id %d is empty", id)
		}
	}
}

func TestLoadLlama3Errors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.model")
	if _, err := LoadLlama3(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	wrong := filepath.Join(dir, "wrong.model")
	if err := os.WriteFile(wrong, []byte("IQ== 0\nIg== 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadLlama3(wrong); !errors.Is(err, ErrRanksMismatch) {
		t.Errorf("wrong file: %v", err)
	}
	t.Setenv(Llama3Env, wrong)
	if _, err := defaultLlama3(); !errors.Is(err, ErrRanksMismatch) {
		t.Errorf("%s=%s: %v", Llama3Env, wrong, err)
	}
	t.Setenv(Llama3Env, "")
	if tok, err := defaultLlama3(); err != nil || (tok.tables == nil) != (llama3Model == nil) {
		t.Errorf("default without %s: %v, %v", Llama3Env, tok, err)
	}
}

func TestLoadLlama3(t *testing.T) {
	llama3(t, true)
	path := os.Getenv(Llama3Env)
	if path == "" {
		t.Skip("Llama 3 ranks are embedded; no file to load")
	}
	tok, err := LoadLlama3(path)
	if err != nil {
		t.Fatal(err)
	}
	if ids := encode(t, tok, "Hello, world!"); !slices.Equal(ids, []uint32{9906, 11, 1917, 0}) {
		t.Errorf("Hello, world! = %v", ids)
	}
}

// With the llama3 build tag, the notice and licence come with the ranks.
func TestEmbeddedLlama3(t *testing.T) {
	notice, license, ok := EmbeddedLlama3()
	if ok != (llama3Model != nil) || ok != (license != "") || ok != strings.Contains(notice, "Meta Llama 3") {
		t.Errorf("EmbeddedLlama3() = %q, %d bytes, %v", notice, len(license), ok)
	}
}
