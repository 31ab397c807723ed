package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestByteDecoder(t *testing.T) {
	m := byteDecoder()
	seen := map[byte]bool{}
	for _, b := range m {
		seen[b] = true
	}
	if len(m) != 256 || len(seen) != 256 {
		t.Fatalf("%d characters for %d bytes, want 256 each", len(m), len(seen))
	}
	for c, b := range map[rune]byte{'Ġ': ' ', 'Ċ': '\n', 'ĉ': '\t', 'Ā': 0, 'ġ': 0x7f, 'Ń': 0xad, 'a': 'a', 'ÿ': 0xff} {
		if m[c] != b {
			t.Errorf("%q = %#x, want %#x", c, m[c], b)
		}
	}
}

func TestConvert(t *testing.T) {
	in := `{"added_tokens":[{"id":3,"content":"<|x|>"}],"model":{"type":"BPE","vocab":{"!":0,"Ġthe":2,"Ċ":1},"merges":[]}}`
	var out bytes.Buffer
	if err := convert(&out, strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	if want := "IQ== 0\nCg== 1\nIHRoZQ== 2\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	for _, bad := range []string{
		`{"model":{"type":"BPE","vocab":{"a":0,"b":2}}}`,
		`{"model":{"type":"BPE","vocab":{"a":0,"b":0}}}`,
		`{"model":{"type":"BPE","vocab":{"a":0,"€":1}}}`,
		`{"model":{"type":"Unigram","vocab":{"a":0}}}`,
		`{"model":`,
	} {
		if err := convert(&out, strings.NewReader(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
