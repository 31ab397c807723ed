package ppm

import (
	"bytes"
	"os"
	"strconv"
	"testing"

	"github.com/m2m-go/m2m/internal/sample"
)

// benchFile is the contents of PPM_FILE, or nil if it is not set.
func benchFile(tb testing.TB) []byte {
	path := os.Getenv("PPM_FILE")
	if path == "" {
		return nil
	}
	in, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return in
}

// benchInput is PPM_FILE, or the embedded sample.
func benchInput(b *testing.B) []byte {
	if in := benchFile(b); in != nil {
		return in
	}
	return sample.JSONL()
}

// benchOptions are the settings the benchmarks compare: the defaults,
// with and without words replaced.
var benchOptions = []struct {
	name string
	o    Options
}{{"words=off", Options{}}, {"words=on", Options{Words: true}}}

func BenchmarkEncode(b *testing.B) {
	in := benchInput(b)
	for _, bo := range benchOptions {
		b.Run(bo.name, func(b *testing.B) {
			var out []byte
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				var err error
				if out, err = AppendEncode(out[:0], in, bo.o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(8*float64(len(out))/float64(len(in)), "bits/byte")
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	in := benchInput(b)
	for _, bo := range benchOptions {
		b.Run(bo.name, func(b *testing.B) {
			packed, err := AppendEncode(nil, in, bo.o)
			if err != nil {
				b.Fatal(err)
			}
			var out []byte
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if out, err = AppendDecode(out[:0], packed, len(in), bo.o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// framesSetup reads the archive-like setup of BenchmarkFrames from the
// environment: PPM_FILE cut in frames of PPM_FRAME MiB (default 8), each
// with a model of PPM_BPB bytes a byte of its input (default 48, as
// package archive gives) up to PPM_MEM MiB (default 384), each frame after
// the first with the first as its dictionary, words replaced unless
// PPM_WORDS is 0. It skips without PPM_FILE.
func framesSetup(b *testing.B) (frames [][]byte, opts []Options) {
	in := benchFile(b)
	if in == nil {
		b.Skip("PPM_FILE not set")
	}
	env := func(name string, def int) int {
		v, err := strconv.Atoi(os.Getenv(name))
		if err != nil {
			return def
		}
		return v
	}
	size, limit, perByte := env("PPM_FRAME", 8)<<20, env("PPM_MEM", 384), env("PPM_BPB", 48)
	for len(in) > 0 {
		n := min(size, len(in))
		frames, in = append(frames, in[:n]), in[n:]
	}
	for i, f := range frames {
		o := Options{Memory: min(max(len(f)*perByte>>20, 1), limit), MaxMemory: 1024, Words: env("PPM_WORDS", 1) != 0}
		if i > 0 {
			o.Dict = frames[0]
		}
		opts = append(opts, o)
	}
	return frames, opts
}

// BenchmarkFrames codes a file as package archive's max level codes a
// strings stream (framesSetup), one frame after another: its bytes, and
// MB/s of its input both ways.
func BenchmarkFrames(b *testing.B) {
	frames, opts := framesSetup(b)
	var total int
	for _, f := range frames {
		total += len(f)
	}
	packed := make([][]byte, len(frames))
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(total))
		for b.Loop() {
			n := 0
			for i, f := range frames {
				var err error
				if packed[i], err = AppendEncode(packed[i][:0], f, opts[i]); err != nil {
					b.Fatal(err)
				}
				n += len(packed[i])
			}
			b.ReportMetric(float64(n), "bytes")
		}
	})
	b.Run("decode", func(b *testing.B) {
		for i, f := range frames {
			if packed[i] == nil { // encode was not run
				var err error
				if packed[i], err = AppendEncode(nil, f, opts[i]); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.SetBytes(int64(total))
		var out []byte
		for b.Loop() {
			for i, f := range frames {
				var err error
				if out, err = AppendDecode(out[:0], packed[i], len(f), opts[i]); err != nil || !bytes.Equal(out, f) {
					b.Fatalf("frame %d: %v", i, err)
				}
			}
		}
	})
}
