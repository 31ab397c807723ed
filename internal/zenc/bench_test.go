package zenc

import (
	"testing"

	"github.com/klauspost/compress/zstd"
)

// BenchmarkEncode codes the file M2M_ZENC_FILE (or the embedded sample) with
// this package and with klauspost's level 3, for the same bytes.
func BenchmarkEncode(b *testing.B) {
	src := corpus(b)
	b.Run("impl=zenc", func(b *testing.B) {
		e := New(DefaultParams)
		var out []byte
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			out = e.AppendEncode(out[:0], src, nil)
		}
		b.ReportMetric(float64(len(src))/float64(len(out)), "ratio")
	})
	b.Run("impl=klauspost-3", func(b *testing.B) {
		z, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(16<<20), zstd.WithLowerEncoderMem(true))
		var out []byte
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			out = z.EncodeAll(src, out[:0])
		}
		b.ReportMetric(float64(len(src))/float64(len(out)), "ratio")
	})
}
