package zenc

import (
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// BenchmarkEncode codes the file M2M_ZENC_FILE (or the embedded sample)
// with this package (lazy2, and parsed by price) and with klauspost's
// level 3, for the same bytes, with the file M2M_ZENC_DICT as their raw
// dictionary if set (a strings frame of an archive and its segment's
// first frame, say; its Dict made once).
func BenchmarkEncode(b *testing.B) {
	src := corpus(b)
	var dict []byte
	if name := os.Getenv("M2M_ZENC_DICT"); name != "" {
		var err error
		if dict, err = os.ReadFile(name); err != nil {
			b.Fatal(err)
		}
	}
	opt := DefaultParams
	opt.Optimal = 64
	for _, c := range []struct {
		name string
		p    Params
	}{{"zenc", DefaultParams}, {"zenc-opt", opt}} {
		b.Run("impl="+c.name, func(b *testing.B) {
			e := New(c.p)
			var d *Dict
			if dict != nil {
				d = NewDict(dict, 1, c.p)
			}
			var out []byte
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				out = e.AppendEncode(out[:0], src, d)
			}
			b.ReportMetric(float64(len(src))/float64(len(out)), "ratio")
		})
	}
	b.Run("impl=klauspost-3", func(b *testing.B) {
		opts := []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(16 << 20), zstd.WithLowerEncoderMem(true)}
		if dict != nil {
			opts = append(opts, zstd.WithEncoderDictRaw(1, dict))
		}
		z, err := zstd.NewWriter(nil, opts...)
		if err != nil {
			b.Fatal(err)
		}
		var out []byte
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			out = z.EncodeAll(src, out[:0])
		}
		b.ReportMetric(float64(len(src))/float64(len(out)), "ratio")
	})
}
