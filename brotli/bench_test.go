package brotli

import (
	"testing"

	brrr "github.com/molecule-man/go-brrr"
)

// appendWriter is an io.Writer appending to a slice.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// BenchmarkEncode encodes the sample's lines (or M2M_CORPUS's) one at a
// time: this package's encoder against go-brrr's at quality 4 and 5,
// window 22 (the M2M v1 payload's parameters), reused, as the codec
// used it. Compare with benchstat -col /impl; ratio is input over output.
func BenchmarkEncode(b *testing.B) {
	ls := lines(b)
	in := 0
	for _, l := range ls {
		in += len(l)
	}
	var sink appendWriter
	impls := []struct {
		name string
		new  func() func(dst, src []byte) []byte
	}{
		{"m2m", func() func(dst, src []byte) []byte { return NewEncoder().AppendEncode }},
		{"brrr-q5", func() func(dst, src []byte) []byte { return brrrEncoder(&sink, 5) }},
		{"brrr-q4", func() func(dst, src []byte) []byte { return brrrEncoder(&sink, 4) }},
	}
	for _, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			encode := impl.new()
			var out []byte
			b.SetBytes(int64(in))
			packed := 0
			for b.Loop() {
				packed = 0
				for _, l := range ls {
					out = encode(out[:0], l)
					packed += len(out)
				}
			}
			b.ReportMetric(float64(in)/float64(packed), "ratio")
		})
	}
}

func brrrEncoder(sink *appendWriter, q int) func(dst, src []byte) []byte {
	w, err := brrr.NewWriterOptions(sink, q, brrr.WriterOptions{LGWin: 22})
	if err != nil {
		panic(err)
	}
	return func(dst, src []byte) []byte {
		sink.b = dst
		w.Reset(sink)
		_, _ = w.Write(src)
		_ = w.Close()
		return sink.b
	}
}
