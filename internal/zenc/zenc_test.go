package zenc

import (
	"bytes"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/m2m-go/m2m/internal/sample"
)

// decode decodes frame with klauspost's decoder, dict as its raw-content
// dictionary 1.
func decode(t testing.TB, frame, dict []byte) []byte {
	t.Helper()
	opts := []zstd.DOption{zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1 << 30)}
	if dict != nil {
		opts = append(opts, zstd.WithDecoderDictRaw(1, dict))
	}
	d, err := zstd.NewReader(nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out, err := d.DecodeAll(frame, nil)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return out
}

func roundTrip(t testing.TB, e *Encoder, src, dict []byte) []byte {
	t.Helper()
	var d *Dict
	if dict != nil {
		d = NewDict(dict, 1, e.p)
	}
	return roundTripDict(t, e, src, d)
}

func roundTripDict(t testing.TB, e *Encoder, src []byte, d *Dict) []byte {
	t.Helper()
	var dict []byte
	if d != nil {
		dict = d.data
	}
	frame := e.AppendEncode(nil, src, d)
	if got := decode(t, frame, dict); !bytes.Equal(got, src) {
		t.Fatalf("%d bytes (dict %d) decode to %d, not the same", len(src), len(dict), len(got))
	}
	return frame
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"the ", "model ", "assistant", "\"role\":", "{", "}", "tool_call ", "résumé ", "0123", "\n"}
	text := func(n int) []byte {
		var b []byte
		for len(b) < n {
			if r.IntN(20) == 0 {
				b = append(b, byte(r.IntN(256)))
			} else {
				b = append(b, words[r.IntN(len(words))]...)
			}
		}
		return b[:n]
	}
	e := New(DefaultParams)
	for _, n := range []int{0, 1, 7, 16, 31, 32, 33, 100, 1023, 1024, 5000, BlockSize - 1, BlockSize, BlockSize + 1, 3*BlockSize + 77, 1 << 20} {
		roundTrip(t, e, text(n), nil)
		d := NewDict(text(50000), 1, e.p)
		roundTripDict(t, e, text(n), d)
		roundTripDict(t, e, text(n), d) // a Dict used again
		noise := make([]byte, n)
		for i := range noise {
			noise[i] = byte(r.Uint32())
		}
		roundTrip(t, e, noise, nil)
		roundTrip(t, e, bytes.Repeat([]byte{'a'}, n), nil)
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("hello hello hello world"), []byte(""))
	f.Add(bytes.Repeat([]byte("abcabd"), 1000), []byte("abcabdabc"))
	e := New(Params{RowLog: 8, Search: 4, Depth: 2, Skip: 8})
	f.Fuzz(func(t *testing.T, src, dict []byte) {
		if len(dict) == 0 {
			dict = nil
		}
		roundTrip(t, e, src, dict)
	})
}

// corpus is the file M2M_ZENC_FILE (a dump of strings frames, say), else
// the embedded sample.
func corpus(tb testing.TB) []byte {
	name := os.Getenv("M2M_ZENC_FILE")
	if name == "" {
		return sample.JSONL()
	}
	src, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return src
}

// TestCorpus: lazy parsing over rows codes the corpus smaller than
// klauspost's level 3, the coder it replaces in the archive.
func TestCorpus(t *testing.T) {
	src := corpus(t)
	frame := roundTrip(t, New(DefaultParams), src, nil)
	z, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(16<<20))
	if err != nil {
		t.Fatal(err)
	}
	k := len(z.EncodeAll(src, nil))
	t.Logf("%d bytes: zenc %d, klauspost level 3 %d", len(src), len(frame), k)
	if len(frame) > k {
		t.Errorf("zenc %d bytes, klauspost's level 3 %d", len(frame), k)
	}
}

// TestParams codes the corpus with a range of parameters and logs sizes
// and speeds: how DefaultParams were chosen (with M2M_ZENC_FILE set).
func TestParams(t *testing.T) {
	if os.Getenv("M2M_ZENC_FILE") == "" {
		t.Skip("M2M_ZENC_FILE not set")
	}
	src := corpus(t)
	for _, p := range []Params{{17, 16, 2, 8}, {18, 8, 2, 8}, {16, 8, 2, 8}, {16, 8, 1, 8}, {15, 8, 2, 8}, {15, 8, 1, 8}, {15, 4, 2, 8}, {15, 4, 1, 8}, {14, 4, 1, 8}, {17, 8, 2, 8}, {16, 16, 2, 8}} {
		e := New(p)
		out := e.AppendEncode(nil, src, nil)
		t0 := time.Now()
		for range 3 {
			out = e.AppendEncode(out[:0], src, nil)
		}
		el := time.Since(t0) / 3
		t.Logf("%+v: %d bytes, %.1f MB/s", p, len(out), float64(len(src))/el.Seconds()/1e6)
	}
}
