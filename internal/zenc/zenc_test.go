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
	// The frame in halves, the second by a helper: on a goroutine of its
	// own or after the first, the same bytes, which decode to src.
	h := New(e.p)
	split := e.AppendEncodeSplit(nil, src, d, h, true)
	if again := e.AppendEncodeSplit(nil, src, d, h, false); !bytes.Equal(again, split) {
		t.Fatalf("%d bytes (dict %d): split frames differ coded in parallel and not", len(src), len(dict))
	}
	if got := decode(t, split, dict); !bytes.Equal(got, src) {
		t.Fatalf("%d bytes (dict %d), split: decode to %d, not the same", len(src), len(dict), len(got))
	}
	if h.buf != nil {
		t.Fatal("the helper keeps the encoder's buffer")
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

// TestSplitRepeats: a helper coding a frame's second half does not know
// the repeat offsets there, so codes its first offsets explicitly: here
// the first half ends with a match 1000 back, and the second starts with
// a run that a repeat of 1, its own start's, would code.
func TestSplitRepeats(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	noise := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	a := noise(1000)
	src := append(noise(2*BlockSize-2000), a...)
	src = append(src, a...)
	src = append(src, 'b')
	src = append(src, bytes.Repeat([]byte{'a'}, 100)...)
	src = append(src, noise(BlockSize)...)
	roundTrip(t, New(DefaultParams), src, nil)
}

// FuzzRoundTrip: any input, with any dictionary, comes back, under each
// kind of parameters the archive uses (lazy2 and lazy, searched often and
// seldom in a run of literals, parsed by price), with rows few enough that
// they overflow.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("hello hello hello world"), []byte(""), byte(0))
	f.Add(bytes.Repeat([]byte("abcabd"), 1000), []byte("abcabdabc"), byte(1))
	f.Add(bytes.Repeat([]byte("{\"id\":\"a\",\"n\":1}"), 300), []byte(""), byte(2))
	var encoders []*Encoder
	for _, p := range []Params{
		{RowLog: 8, Search: 4, Depth: 2, Skip: 8},
		{RowLog: 8, Search: 16, Depth: 1, Skip: 6},
		{RowLog: 9, Search: 8, Depth: 1, Skip: 4},
		{RowLog: 10, Search: 16, Depth: 2, Skip: 8},
		{RowLog: 8, Search: 16, Depth: 2, Skip: 8, Optimal: 64},
		{RowLog: 9, Search: 8, Depth: 2, Skip: 4, Optimal: 6}, // a match taken at once often
	} {
		encoders = append(encoders, New(p))
	}
	f.Fuzz(func(t *testing.T, src, dict []byte, params byte) {
		if len(dict) == 0 {
			dict = nil
		}
		roundTrip(t, encoders[int(params)%len(encoders)], src, dict)
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
	// In halves, the second half finds what the first holds.
	e := New(DefaultParams)
	split := e.AppendEncodeSplit(nil, src, nil, New(DefaultParams), true)
	t.Logf("in halves %d bytes", len(split))
	if len(split) > len(frame)+len(frame)/200 {
		t.Errorf("in halves %d bytes, whole %d: more than 0.5%% more", len(split), len(frame))
	}
}

// TestParams codes the corpus with a range of parameters and logs sizes
// and speeds: how DefaultParams were chosen (with M2M_ZENC_FILE set).
func TestParams(t *testing.T) {
	if os.Getenv("M2M_ZENC_FILE") == "" {
		t.Skip("M2M_ZENC_FILE not set")
	}
	src := corpus(t)
	for _, p := range []Params{{17, 16, 2, 8, 0}, {18, 8, 2, 8, 0}, {16, 8, 2, 8, 0}, {16, 8, 1, 8, 0}, {15, 8, 2, 8, 0}, {15, 8, 1, 8, 0}, {15, 4, 2, 8, 0}, {15, 4, 1, 8, 0}, {14, 4, 1, 8, 0}, {17, 8, 2, 8, 0}, {16, 16, 2, 8, 0}, {17, 16, 2, 8, 64}, {18, 16, 2, 8, 64}, {17, 16, 2, 8, 32}, {17, 16, 2, 8, 128}} {
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

// TestCodes: the length codes by table and by powers of 2 are codeOf's,
// up to the longest a block holds.
func TestCodes(t *testing.T) {
	for n := uint32(0); n <= 2*BlockSize; n++ {
		if got, want := llCode(n), codeOf(n, llBase[:]); got != want {
			t.Fatalf("llCode(%d) = %d, want %d", n, got, want)
		}
		if got, want := mlCode(n), codeOf(n, mlBase[:]); got != want {
			t.Fatalf("mlCode(%d) = %d, want %d", n, got, want)
		}
	}
}
