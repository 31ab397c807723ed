package archive

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/m2m-go/m2m/internal/sample"
)

// BenchmarkWriter: an archive written whole, Writer made to Close, of one
// record and of the embedded sample (1.2 MB): what a run or a file of a
// run costs beyond its bytes (bench/README.md, "A writer's encoders
// pooled").
func BenchmarkWriter(b *testing.B) {
	in := sample.JSONL()
	inputs := []struct {
		name string
		in   []byte
	}{{"one-record", in[:bytes.IndexByte(in, '\n')+1]}, {"sample", in}}
	for _, c := range inputs {
		for _, workers := range []int{1, 2} {
			b.Run("input="+c.name+"/workers="+string(rune('0'+workers)), func(b *testing.B) {
				b.SetBytes(int64(len(c.in)))
				b.ReportAllocs()
				for b.Loop() {
					w, err := NewWriter(context.Background(), io.Discard, Options{Workers: workers})
					if err != nil {
						b.Fatal(err)
					}
					if _, err := w.Write(c.in); err != nil {
						b.Fatal(err)
					}
					if err := w.Close(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
