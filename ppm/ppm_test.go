package ppm

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/internal/sample"
)

func roundTrip(t *testing.T, in []byte, o Options) []byte {
	t.Helper()
	packed, err := AppendEncode(nil, in, o)
	if err != nil {
		t.Fatal(err)
	}
	back, err := AppendDecode(nil, packed, len(in), o)
	if err != nil || !bytes.Equal(back, in) {
		t.Fatalf("round trip of %d bytes: %v, %d bytes back", len(in), err, len(back))
	}
	return packed
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 10000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	for name, in := range map[string][]byte{
		"empty":  nil,
		"one":    {7},
		"zeros":  make([]byte, 5000),
		"random": random,
		"text":   bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog. "), 200),
		"sample": sample.JSONL(),
	} {
		for _, o := range []Options{{Memory: 64}, {Order: 2, Memory: 8}, {Order: 4, Memory: 1}, {Order: 64, Memory: 1}} {
			packed := roundTrip(t, in, o)
			if name == "sample" && o.Order == 0 {
				t.Logf("sample: %d -> %d (%.3f bpc)", len(in), len(packed), 8*float64(len(packed))/float64(len(in)))
			}
		}
	}
}

// FuzzRoundTrip encodes any text, once or twice over, at an order, with
// or without words replaced, with a dictionary cut from the input or
// none, in a model of 1 MiB (which some 8 KB of text fill at order 16:
// the frozen model is fuzzed too), and checks that it decodes whole, and
// that its first n bytes decode alone, handed on as prefixes on the way.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("hello, hello, hello"), uint16(5), uint16(3), byte(0))
	f.Add(sample.JSONL()[:8000], uint16(1000), uint16(2500), byte(0x1B))
	f.Add(bytes.Repeat([]byte("The cat and the hat. "), 70), uint16(0), uint16(900), byte(0xF5))
	f.Fuzz(func(t *testing.T, data []byte, cut, n uint16, flags byte) {
		if len(data) > 8<<10 {
			return
		}
		var dict []byte
		if flags&2 != 0 {
			k := int(cut) % (len(data) + 1)
			dict, data = data[:k], data[k:]
		}
		in := bytes.Repeat(data, 1+int(flags>>4&1))
		o := Options{Order: []int{2, 5, 16, 64}[flags>>2&3], Memory: 1, Words: flags&1 != 0, Dict: dict}
		packed, err := AppendEncode(nil, in, o)
		if err != nil {
			t.Fatal(err)
		}
		back, err := AppendDecode(nil, packed, len(in), Options{Dict: dict})
		if err != nil || !bytes.Equal(back, in) {
			t.Fatalf("%d bytes: %v, %d bytes back", len(in), err, len(back))
		}
		want := min(int(n), len(in))
		seen := 0
		d := Options{Dict: dict, Prefix: 1 + int(cut)%64, OnPrefix: func(p []byte) int {
			if len(p) <= seen || !bytes.Equal(p, in[:len(p)]) {
				t.Fatalf("prefix of %d bytes after %d", len(p), seen)
			}
			seen = len(p)
			return len(p) + 1 + int(n)%100
		}}
		part, err := AppendDecodePrefix(nil, packed, want, len(in), d)
		if err != nil || len(part) < want || !bytes.Equal(part, in[:len(part)]) {
			t.Fatalf("the first %d of %d bytes: %v, %d bytes back", want, len(in), err, len(part))
		}
	})
}

// TestFile reports the size of PPM_FILE, for measurements.
func TestFile(t *testing.T) {
	in := benchFile(t)
	if in == nil {
		t.Skip("PPM_FILE not set")
	}
	packed := roundTrip(t, in, Options{})
	t.Logf("%s: %d -> %d (%.3f bpc)", os.Getenv("PPM_FILE"), len(in), len(packed), 8*float64(len(packed))/float64(len(in)))
}

// FuzzDecode decodes anything: no panic, and a bounded result.
func FuzzDecode(f *testing.F) {
	// The last fills its model.
	for _, in := range [][]byte{nil, []byte("hello, hello, hello"), sample.JSONL()[:2000], sample.JSONL()[:60000]} {
		for _, words := range []bool{false, true} {
			p, _ := AppendEncode(nil, in, Options{Memory: 1, Words: words})
			f.Add(p)
		}
	}
	words := bytes.Repeat([]byte("The cat and the hat. "), 70)
	f.Add(appendEncode(nil, words, Options{Memory: 1}, chooseWords(words))) // a word table, short
	f.Add([]byte{version, 16, 0, 5, 0, 0, 0, 0, 0, 1, 2, 3, 4})             // no memory at all
	f.Fuzz(func(t *testing.T, p []byte) {
		out, err := AppendDecode(nil, p, 1<<16, Options{MaxMemory: 4})
		if err == nil && len(out) > 1<<16 {
			t.Fatalf("%d bytes out", len(out))
		}
	})
}

// TestDecodePrefix: the first n bytes decode to the input's first n, with
// the whole input's CRC-32 checked only when n reaches its end.
func TestDecodePrefix(t *testing.T) {
	in := sample.JSONL()[:30000]
	p, err := AppendEncode(nil, in, Options{Memory: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 12345, len(in), len(in) + 1} {
		out, err := AppendDecodePrefix([]byte("x"), p, n, len(in), Options{})
		if want := append([]byte("x"), in[:min(n, len(in))]...); err != nil || !bytes.Equal(out, want) {
			t.Fatalf("n %d: %d bytes, %v", n, len(out)-1, err)
		}
	}
	// A byte of the code changed halfway: decoded whole, an error; its
	// first 100 bytes, which the change comes after, are not checked.
	bad := append([]byte(nil), p...)
	bad[len(bad)/2] ^= 0x10
	if _, err := AppendDecodePrefix(nil, bad, len(in), len(in), Options{}); err == nil {
		t.Fatal("a changed byte, decoded whole: no error")
	}
	if out, err := AppendDecodePrefix(nil, bad, 100, len(in), Options{}); err != nil || !bytes.Equal(out, in[:100]) {
		t.Fatalf("a changed byte after the first 100: %v", err)
	}
}

// TestOnPrefix: a decoder hands over the first Prefix bytes of the text
// as soon as it has them, then each longer prefix OnPrefix asks for, with
// words replaced and without: prefixes that later decoding leaves as they
// are; none longer than it decodes.
func TestOnPrefix(t *testing.T) {
	in := sample.JSONL()[:400000]
	for _, words := range []bool{false, true} {
		p, err := AppendEncode(nil, in, Options{Memory: 8, Words: words})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			prefix, step, n int
			want            []int
		}{
			{1, 0, len(in), []int{1}},
			{1000, 0, len(in), []int{1000}},
			{123457, 100000, len(in), []int{123457, 223457, 323457}},
			{len(in), 1, len(in), []int{len(in)}},
			{len(in) + 1, 0, len(in), nil},
			{5000, 0, 4999, nil},
			{2000, 3000, 5000, []int{2000, 5000}},
			{2000, -1, len(in), []int{2000}}, // asks for a shorter one next: none
		} {
			var seen []int
			o := Options{Prefix: c.prefix, OnPrefix: func(b []byte) int {
				if !bytes.Equal(b, in[:len(b)]) {
					t.Errorf("words %v: a prefix of %d bytes is not the text's start", words, len(b))
				}
				seen = append(seen, len(b))
				return len(b) + c.step
			}}
			out, err := AppendDecodePrefix([]byte("x"), p, c.n, len(in), o)
			if err != nil || !bytes.Equal(out[1:], in[:c.n]) {
				t.Fatalf("words %v, prefix %d of %d: %v", words, c.prefix, c.n, err)
			}
			if fmt.Sprint(seen) != fmt.Sprint(c.want) {
				t.Errorf("words %v, prefix %d, step %d, of %d: prefixes %v, want %v", words, c.prefix, c.step, c.n, seen, c.want)
			}
		}
	}
}

// TestLimits: the decoder refuses memory over its limit and lengths over
// the caller's, before allocating either.
func TestLimits(t *testing.T) {
	p, err := AppendEncode(nil, []byte("some text"), Options{Memory: 64})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AppendDecode(nil, p, 100, Options{MaxMemory: 32}); err != ErrMemory {
		t.Errorf("memory over the limit: %v", err)
	}
	if _, err := AppendDecode(nil, p, 5, Options{}); err == nil {
		t.Error("length over the limit accepted")
	}
	// Data of an earlier model (its first byte the format's version).
	old := append([]byte{version - 1}, p[1:]...)
	if _, err := AppendDecode(nil, old, 100, Options{}); !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), fmt.Sprintf("%d, not %d", version-1, version)) {
		t.Errorf("another version: %v", err)
	}
	for i := range p {
		bad := bytes.Clone(p)
		bad[i] ^= 0x40
		if out, err := AppendDecode(nil, bad, 100, Options{MaxMemory: 64}); err == nil && string(out) != "some text" {
			t.Fatalf("byte %d flipped: %q, no error", i, out)
		}
	}
}

// TestDict: a dictionary's repeats are found, and data made with one
// decodes only with the same.
func TestDict(t *testing.T) {
	text := sample.JSONL()
	dict, in := text[:len(text)/2], text[len(text)/2:]
	in = append(bytes.Clone(dict[1000:21000]), in[:20000]...)
	alone, err := AppendEncode(nil, in, Options{Memory: 8})
	if err != nil {
		t.Fatal(err)
	}
	with := roundTrip(t, in, Options{Memory: 8, Dict: dict})
	if len(with)*10 > len(alone)*7 {
		t.Errorf("with a dictionary it holds: %d bytes, alone %d", len(with), len(alone))
	}
	for _, other := range [][]byte{nil, dict[1:], append(bytes.Clone(dict[:len(dict)-1]), 'x')} {
		if _, err := AppendDecode(nil, with, len(in), Options{Dict: other}); err != ErrDict {
			t.Errorf("another dictionary (%d bytes): %v", len(other), err)
		}
	}
	if _, err := AppendDecode(nil, alone, len(in), Options{Dict: dict}); err != ErrDict {
		t.Errorf("a dictionary for data made without: %v", err)
	}
}

// TestFull: a model that fills its memory stops growing and goes on
// coding, both sides alike, not much worse than one with room. On the
// sample (1.2 MB), 8 MiB code 10% larger than 64 (6% in format version 5,
// whose 12-bit probabilities gained less from deep contexts; 17% when
// the model started afresh), 1 MiB 43% (37%, 48%).
func TestFull(t *testing.T) {
	in := sample.JSONL()
	roomy := roundTrip(t, in, Options{Memory: 64})
	roundTrip(t, in, Options{Memory: 1})
	if full := roundTrip(t, in, Options{Memory: 8}); len(full) > len(roomy)*12/10 {
		t.Errorf("8 MiB: %d bytes, 64 MiB: %d", len(full), len(roomy))
	}
}

// TestAdapt checks adapt's reciprocals against the division they stand
// for, at every probability and count.
func TestAdapt(t *testing.T) {
	for n := uint16(0); n <= 62; n++ {
		for p := 16; p <= probOne-16; p++ {
			for bit := range 2 {
				target := int32(0)
				if bit == 0 {
					target = probOne
				}
				nn := min(n+1, 62)
				want := min(max(int32(p)+(target-int32(p))/int32(nn+2), 16), probOne-16)
				q := prob{p: uint16(p), n: n}
				if adapt(&q, bit); int32(q.p) != want || q.n != nn {
					t.Fatalf("p %d n %d bit %d: %d, want %d", p, n, bit, q.p, want)
				}
			}
		}
	}
}
