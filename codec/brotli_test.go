package codec

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/m2m-go/m2m/internal/race"
	"github.com/m2m-go/m2m/internal/sample"
)

// brotliInputs are texts for the Brotli cross-checks: every record of the
// embedded sample, and edge cases: empty, tiny, around the reference's
// 100-byte threshold, around the encoder's 64 KiB blocks and its 1 MiB
// size hint, past the 4 MiB window, incompressible.
func brotliInputs(t testing.TB) [][]byte {
	recs := splitLines(sample.JSONL())
	if testing.Short() {
		recs = recs[:min(len(recs), 200)]
	}
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	// text repeats the sample's records (with a few random bytes between
	// them, so that it is not all one long match) to n bytes.
	all := bytes.Join(recs, []byte{'\n'})
	text := func(n int) []byte {
		var b []byte
		for len(b) < n {
			i := rng.IntN(len(all) - 1)
			b = append(b, all[i:min(len(all), i+rng.IntN(4096))]...)
			b = append(b, random(rng.IntN(3))...)
		}
		return b[:n]
	}
	in := [][]byte{{}, {'a'}, []byte("{}"), bytes.Repeat([]byte{0}, 1000)}
	for _, n := range []int{99, 100, 101, 1 << 16, 1<<16 + 1, 3 << 16} {
		in = append(in, text(n), random(n))
	}
	if !testing.Short() {
		in = append(in, text(1<<20+1), text(5<<20), random(1<<20))
	}
	return append(in, recs...)
}

// TestBrotliEncodersAgree checks that the codec's encoder writes, at the
// reference's quality 5 and window 22 and at quality 6, the same bytes as
// andybalholm/brotli for every input under 1 MiB, and for every record of
// the corpus M2M_CORPUS names, if set. Both write the bytes of C brotli
// 1.0.9's BrotliEncoderCompress (checked with bench/cbrotli on all 8,179
// records of dev.jsonl and, at quality 5, 40,452 of dev100.jsonl; see
// doc.go). From 1 MiB on, where C brotli switches to another hasher, and
// at quality 4, the three write different streams.
func TestBrotliEncodersAgree(t *testing.T) {
	inputs := brotliInputs(t)
	if os.Getenv("M2M_CORPUS") != "" {
		inputs = append(inputs, corpusLines(t)...)
	}
	for _, q := range []int{5, 6} {
		ours := newCompressor(q, defaultWindow)
		var theirs brotliEncoder
		for _, e := range brotliEncoders {
			if e.name == "andybalholm" {
				theirs = e.new(q, defaultWindow)
			}
		}
		for i, text := range inputs {
			if len(text) >= 1<<20 {
				continue
			}
			got, want := ours.appendCompressed(nil, text), theirs(nil, text)
			if !bytes.Equal(got, want) {
				t.Errorf("q%d: input %d (%d bytes): %d bytes of Brotli, andybalholm/brotli wrote %d (first difference at %d)",
					q, i, len(text), len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

// TestBrotliAllocs checks that encoding and decoding a record, Brotli
// alone and whole frames, allocates nothing once the buffers have grown to
// the largest record.
func TestBrotliAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates")
	}
	recs := splitLines(sample.JSONL())[:50]
	c, d := newCompressor(defaultQuality, defaultWindow), newDecompressor()
	enc, _ := NewEncoder()
	dec, _ := NewDecoder()
	var out, back []byte
	var err error
	run := func() {
		for _, r := range recs {
			out = c.appendCompressed(out[:0], r)
			if back, err = d.appendDecompressed(back[:0], out, len(r)); err != nil {
				t.Fatal(err)
			}
			if out, err = enc.AppendFrame(out[:0], r); err != nil {
				t.Fatal(err)
			}
			if back, err = dec.AppendFrame(back[:0], nil, out); err != nil {
				t.Fatal(err)
			}
		}
	}
	run()
	if n := testing.AllocsPerRun(10, run); n != 0 {
		t.Errorf("%v allocations per pass over %d records", n, len(recs))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestBrotliCrossDecode decodes every encoder's output, at several
// qualities and windows, with every decoder, the codec's among them.
func TestBrotliCrossDecode(t *testing.T) {
	inputs := brotliInputs(t)
	decoders := make([]brotliDecoder, len(brotliDecoders))
	for i, d := range brotliDecoders {
		decoders[i] = d.new()
	}
	for _, e := range brotliEncoders {
		for _, p := range []struct{ q, w int }{{5, 22}, {0, 10}, {1, 16}, {4, 22}, {6, 24}, {9, 18}} {
			if testing.Short() && p.q != 5 {
				continue
			}
			enc := e.new(p.q, p.w)
			for i, text := range inputs {
				if p.q >= 9 && len(text) > 1<<20 {
					continue // slow, and nothing new
				}
				stream := enc(nil, text)
				for j, dec := range decoders {
					got, err := dec(nil, stream, len(text))
					if err != nil || !bytes.Equal(got, text) {
						t.Fatalf("%s q%d lgwin %d, input %d (%d bytes): %s decodes %d bytes, %v",
							e.name, p.q, p.w, i, len(text), brotliDecoders[j].name, len(got), err)
					}
					// One byte under the size: over the limit.
					if len(text) > 0 {
						if got, err := dec([]byte("x"), stream, len(text)-1); err == nil || string(got) != "x" {
							t.Fatalf("%s q%d, input %d: %s at a limit of size-1: %d bytes, %v",
								e.name, p.q, i, brotliDecoders[j].name, len(got), err)
						}
					}
				}
			}
		}
	}
}

// TestBrotliDecodersReject checks that every decoder refuses what the
// codec's refuses among damaged streams (truncated, bytes appended,
// single bits flipped), and that where they accept, they agree.
func TestBrotliDecodersReject(t *testing.T) {
	enc := newCompressor(defaultQuality, defaultWindow)
	decoders := make([]brotliDecoder, len(brotliDecoders))
	for i, d := range brotliDecoders {
		decoders[i] = d.new()
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i, text := range brotliInputs(t)[:40] {
		stream := enc.appendCompressed(nil, text)
		var damaged [][]byte
		for n := range len(stream) {
			// Every cut of short streams; of long ones the first and last
			// 256 and a sample of those between.
			if n < 256 || n >= len(stream)-256 || rng.IntN(len(stream)/64) == 0 {
				damaged = append(damaged, stream[:n])
			}
		}
		damaged = append(damaged, append(bytes.Clone(stream), 0), append(bytes.Clone(stream), stream...))
		for range 64 {
			d := bytes.Clone(stream)
			d[rng.IntN(len(d))] ^= 1 << rng.IntN(8)
			damaged = append(damaged, d)
		}
		for k, d := range damaged {
			if err := decodersAgree(decoders, d, 4<<20); err != nil {
				t.Fatalf("input %d, damaged stream %d (%d bytes): %v", i, k, len(d), err)
			}
		}
	}
}

// decodersAgree decodes stream with every decoder, and reports an error
// unless they all fail, with no output, or all give the same output.
func decodersAgree(decoders []brotliDecoder, stream []byte, limit int) error {
	var outs [][]byte
	var errs []error
	for j, dec := range decoders {
		got, err := dec(nil, stream, limit)
		if err != nil && len(got) != 0 {
			return fmt.Errorf("%s failed (%v) with %d bytes of output", brotliDecoders[j].name, err, len(got))
		}
		outs, errs = append(outs, got), append(errs, err)
	}
	for j := 1; j < len(decoders); j++ {
		if (errs[j] == nil) != (errs[0] == nil) || errs[0] == nil && !bytes.Equal(outs[j], outs[0]) {
			return fmt.Errorf("%s: %d bytes, %v; %s: %d bytes, %v",
				brotliDecoders[0].name, len(outs[0]), errs[0], brotliDecoders[j].name, len(outs[j]), errs[j])
		}
	}
	return nil
}

// FuzzBrotli checks the encoders and decoders against one another: data
// compressed by every encoder decodes back with every decoder, and data
// read as a stream is refused by every decoder or decoded by all to the
// same bytes. The quality and window come from the fuzzer too.
func FuzzBrotli(f *testing.F) {
	f.Add([]byte(testRequest), uint8(5), uint8(22))
	f.Add([]byte(testResponse), uint8(0), uint8(10))
	f.Add(must(hex.DecodeString("1b43f61c1ba600000424994bd94bed988c1c3f20e8e454ef7e2bb01650d23c4a2ce4b42d708e35433588f836fef9b23fcee63b6296a79be61e514919c4ed97b44e8c63a0f2010e63eae35dc697b90af55116f79d8cafd7359991379dbf6a27e0d0b597abf14dd657b115bbe0dfab8ce930bf8c6ff7cb9cd8d40395fdf8352cd9aec48741fe")), uint8(5), uint8(22))
	f.Add([]byte{0x3b}, uint8(1), uint8(16)) // an empty stream
	decoders := make([]brotliDecoder, len(brotliDecoders))
	for i, d := range brotliDecoders {
		decoders[i] = d.new()
	}
	encoders := map[[2]int][]brotliEncoder{}
	f.Fuzz(func(t *testing.T, data []byte, q, w uint8) {
		if err := decodersAgree(decoders, data, 1<<20); err != nil {
			t.Fatalf("as a stream: %v", err)
		}
		p := [2]int{int(q % 10), 10 + int(w%15)} // q10-11 are too slow to fuzz
		if encoders[p] == nil {
			for _, e := range brotliEncoders {
				encoders[p] = append(encoders[p], e.new(p[0], p[1]))
			}
		}
		for i, enc := range encoders[p] {
			stream := enc(nil, data)
			for j, dec := range decoders {
				if got, err := dec(nil, stream, len(data)); err != nil || !bytes.Equal(got, data) {
					t.Fatalf("%s q%d lgwin %d: %s decodes %d bytes, %v", brotliEncoders[i].name, p[0], p[1], brotliDecoders[j].name, len(got), err)
				}
			}
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestEncoderReset: an Encoder reset to other options writes what a new
// Encoder with those options writes, whichever Brotli encoder each asks
// for; one that only reads headers makes none.
func TestEncoderReset(t *testing.T) {
	rec := splitLines(sample.JSONL())[3]
	frame := func(e *Encoder) []byte {
		t.Helper()
		out, err := e.AppendFrame(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	e, err := NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Header(rec); err != nil || e.c != nil {
		t.Fatalf("Header: %v; a Brotli encoder made: %v", err, e.c != nil)
	}
	for _, opts := range [][]Option{nil, {WithQuality(5), WithWindow(22)}, {WithQuality(5), WithWindow(22)}, {WithQuality(4)}, {WithQuality(4), WithWindow(18)}, nil, {WithQuality(6)}} {
		fresh, err := NewEncoder(opts...)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Reset(opts...); err != nil {
			t.Fatal(err)
		}
		if got, want := frame(e), frame(fresh); !bytes.Equal(got, want) {
			t.Fatalf("reset to %d options: a frame of %d bytes, a new Encoder's %d", len(opts), len(got), len(want))
		}
	}
}
