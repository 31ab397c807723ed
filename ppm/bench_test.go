package ppm

import (
	"os"
	"testing"

	"github.com/m2m-go/m2m/internal/sample"
)

// benchInput is PPM_FILE, or the embedded sample.
func benchInput(b *testing.B) []byte {
	path := os.Getenv("PPM_FILE")
	if path == "" {
		return sample.JSONL()
	}
	in, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return in
}

func BenchmarkEncode(b *testing.B) {
	in := benchInput(b)
	var out []byte
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		var err error
		if out, err = AppendEncode(out[:0], in, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(8*float64(len(out))/float64(len(in)), "bits/byte")
}

func BenchmarkDecode(b *testing.B) {
	in := benchInput(b)
	packed, err := AppendEncode(nil, in, Options{})
	if err != nil {
		b.Fatal(err)
	}
	var out []byte
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if out, err = AppendDecode(out[:0], packed, len(in), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
