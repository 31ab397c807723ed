package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/internal/sample"
)

// benchCorpus is the corpus named by M2M_CORPUS, else the embedded sample.
func benchCorpus(b *testing.B) []byte {
	b.Helper()
	path := os.Getenv("M2M_CORPUS")
	if path == "" {
		return sample.JSONL()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// workerCounts are 1, 2, 4 ... up to GOMAXPROCS, and GOMAXPROCS itself.
func workerCounts() []int {
	var n []int
	for w := 1; w < runtime.GOMAXPROCS(0); w *= 2 {
		n = append(n, w)
	}
	return append(n, runtime.GOMAXPROCS(0))
}

// BenchmarkCompress is the whole pipeline over a corpus (M2M_CORPUS, else
// the embedded sample) at each worker count; MB/s are of the JSONL. On a
// machine with fewer cores than GOMAXPROCS the higher counts measure
// nothing new.
func BenchmarkCompress(b *testing.B) {
	data := benchCorpus(b)
	for _, w := range workerCounts() {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			var out countBytes
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				out = 0
				if err := Compress(context.Background(), bytes.NewReader(data), &out, Options{Workers: w}, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data))/float64(out), "ratio")
		})
	}
}

// BenchmarkDecompress decodes the corpus compressed by default.
func BenchmarkDecompress(b *testing.B) {
	data := benchCorpus(b)
	var packed bytes.Buffer
	if err := Compress(context.Background(), bytes.NewReader(data), &packed, Options{}, nil); err != nil {
		b.Fatal(err)
	}
	for _, w := range workerCounts() {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := Decompress(context.Background(), bytes.NewReader(packed.Bytes()), io.Discard, Options{Workers: w}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSealed compresses and decompresses the corpus under each
// security mode at each worker count: what sealing records and
// containers costs. MB/s are of the JSONL.
func BenchmarkSealed(b *testing.B) {
	data := benchCorpus(b)
	for _, sec := range []codec.Security{codec.SecurityNone, codec.SecurityHMAC, codec.SecurityAEAD} {
		o := Options{Security: sec}
		if sec != codec.SecurityNone {
			o.Key = bytes.Repeat([]byte{9}, 32)
		}
		var packed bytes.Buffer
		if err := Compress(context.Background(), bytes.NewReader(data), &packed, o, nil); err != nil {
			b.Fatal(err)
		}
		for _, w := range workerCounts() {
			o.Workers = w
			b.Run(fmt.Sprintf("op=compress/security=%v/workers=%d", sec, w), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if err := Compress(context.Background(), bytes.NewReader(data), io.Discard, o, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("op=decompress/security=%v/workers=%d", sec, w), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if err := Decompress(context.Background(), bytes.NewReader(packed.Bytes()), io.Discard, o, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// countBytes is an io.Writer that counts and discards.
type countBytes int64

func (c *countBytes) Write(p []byte) (int, error) {
	*c += countBytes(len(p))
	return len(p), nil
}
