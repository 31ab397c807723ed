package brotli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	andy "github.com/andybalholm/brotli"
	brrr "github.com/molecule-man/go-brrr"

	"github.com/m2m-go/m2m/internal/race"
	"github.com/m2m-go/m2m/internal/sample"
)

// decoders are two independent decoders every stream must decode with.
var decoders = []struct {
	name   string
	decode func([]byte) ([]byte, error)
}{
	{"go-brrr", brrr.Decompress},
	{"andybalholm", func(b []byte) ([]byte, error) { return io.ReadAll(andy.NewReader(bytes.NewReader(b))) }},
}

// checkRoundTrip encodes src with e and decodes it with every decoder.
func checkRoundTrip(t *testing.T, e *Encoder, name string, src []byte) []byte {
	t.Helper()
	out := e.AppendEncode([]byte("prefix"), src)
	if !bytes.HasPrefix(out, []byte("prefix")) {
		t.Fatalf("%s: dst's bytes not kept", name)
	}
	stream := out[len("prefix"):]
	for _, d := range decoders {
		got, err := d.decode(stream)
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("%s (%d bytes): %s decodes %d bytes, %v", name, len(src), d.name, len(got), err)
		}
	}
	return stream
}

func lines(tb testing.TB) [][]byte {
	data := sample.JSONL()
	if name := os.Getenv("M2M_CORPUS"); name != "" {
		var err error
		if data, err = os.ReadFile(name); err != nil {
			tb.Fatalf("M2M_CORPUS: %v", err)
		}
	}
	var out [][]byte
	for line := range bytes.Lines(data) {
		out = append(out, bytes.TrimSuffix(line, []byte("\n")))
	}
	return out
}

// random returns n bytes that do not compress, the same each run.
func random(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.NewChaCha8([32]byte{byte(n)}).Read(b)
	return b
}

func TestRoundTrip(t *testing.T) {
	inputs := map[string][]byte{
		"empty":             {},
		"one byte":          {'x'},
		"two":               []byte("ab"),
		"a run of five":     []byte("aaaaa"),
		"random 300 B":      random(300),
		"random 64 KiB":     random(64 << 10),
		"one letter, 1 MiB": bytes.Repeat([]byte{'a'}, 1<<20),
		"words":             []byte(strings.Repeat("the time of the people, and their government; ", 20)),
		"sample":            sample.JSONL(),
	}
	if !testing.Short() {
		// Past a meta-block (16 MiB) and the largest window: text that
		// repeats from afar, then more.
		big := bytes.Repeat(sample.JSONL(), (17<<20)/len(sample.JSONL())+1)
		inputs["17 MiB"] = append(big, random(1<<20)...)
	}
	e := NewEncoder()
	for name, src := range inputs {
		checkRoundTrip(t, e, name, src)
	}
	for i, line := range lines(t) {
		checkRoundTrip(t, e, fmt.Sprintf("line %d", i+1), line)
	}
}

// TestBase: positions are kept in the tables plus a base that grows with
// every stream; entries of streams long past, and a base near the top of
// its range, must not be taken for positions of this one.
func TestBase(t *testing.T) {
	e := NewEncoder()
	text := sample.JSONL()[:64<<10]
	for _, base := range []uint32{1<<31 + 12345, math.MaxUint32 - 100<<10, math.MaxUint32 - 10} {
		checkRoundTrip(t, e, "before", text) // entries below the next base
		e.base = base
		checkRoundTrip(t, e, fmt.Sprintf("base %d", base), text)
	}
}

// TestStored: input that does not compress is stored, a few bytes longer.
func TestStored(t *testing.T) {
	src := random(100 << 10)
	stream := checkRoundTrip(t, NewEncoder(), "random", src)
	if len(stream) > len(src)+8 {
		t.Errorf("random 100 KiB: %d bytes of stream", len(stream))
	}
}

// TestDictionary checks the embedded dictionary: its hash, and that every
// word, alone, is coded as a reference to itself and decodes to itself by
// the decoders' own dictionaries.
func TestDictionary(t *testing.T) {
	sum := sha256.Sum256([]byte(dictionary))
	if got := hex.EncodeToString(sum[:]); got != "20e42eb1b511c21806d4d227d07e5dd06877d8ce7b3a817f378f313653f35c70" {
		t.Fatalf("dictionary of %d bytes, SHA-256 %s", len(dictionary), got)
	}
	e := NewEncoder()
	x := words()
	count := 0
	for n := minWord; n <= maxWord; n++ {
		for i := range 1 << wordBits[n] {
			word := []byte(dictionary[x.start[n]+i*n : x.start[n]+(i+1)*n])
			stream := e.AppendEncode(nil, word)
			if len(e.cmds) != 1 || e.cmds[0].insert != 0 || int(e.cmds[0].copy) != n {
				t.Fatalf("word %d of length %d, %q: not coded as a dictionary word (%+v)", i, n, word, e.cmds)
			}
			for _, d := range decoders {
				if got, err := d.decode(stream); err != nil || !bytes.Equal(got, word) {
					t.Fatalf("word %d of length %d: %s decodes %q, %v; want %q", i, n, d.name, got, err, word)
				}
			}
			count++
		}
	}
	if count != 13504 {
		t.Errorf("%d words", count)
	}
}

func TestAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates")
	}
	ls := lines(t)
	e := NewEncoder()
	var out []byte
	encodeAll := func() {
		for _, l := range ls {
			out = e.AppendEncode(out[:0], l)
		}
	}
	encodeAll()
	if n := testing.AllocsPerRun(2, encodeAll); n != 0 {
		t.Errorf("%.1f allocations a pass over %d lines", n, len(ls))
	}
}

func FuzzEncode(f *testing.F) {
	for _, l := range lines(f)[:20] {
		f.Add(l)
	}
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte("ab"), 1000))
	e := NewEncoder()
	f.Fuzz(func(t *testing.T, src []byte) {
		checkRoundTrip(t, e, "fuzz", src)
	})
}
