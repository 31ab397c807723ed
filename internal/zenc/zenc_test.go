package zenc

import (
	"bytes"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"
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

// TestCorpus compresses the file M2M_ZENC_FILE (a dump of strings frames)
// and says how big, against klauspost's level 3.
func TestCorpus(t *testing.T) {
	name := os.Getenv("M2M_ZENC_FILE")
	if name == "" {
		t.Skip("M2M_ZENC_FILE not set")
	}
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	frame := roundTrip(t, New(DefaultParams), src, nil)
	z, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(16<<20))
	t.Logf("%d bytes: zenc %d, klauspost level 3 %d", len(src), len(frame), len(z.EncodeAll(src, nil)))
}
