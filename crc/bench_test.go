package crc

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/m2m-go/m2m/internal/cpu/cputest"
)

var benchSizes = []int{1, 4, 8, 15, 16, 32, 64, 128, 192, 256, 384, 512, 768, 1000, 1 << 10, 4 << 10, 64 << 10, 1 << 20}

func sizeName(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// BenchmarkChecksum measures Checksum per kernel and size on one input
// (CRC has no data-dependent branches, so repeating it flatters nothing).
func BenchmarkChecksum(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	buf := make([]byte, benchSizes[len(benchSizes)-1])
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	sizes := func(b *testing.B, checksum func([]byte) uint32) {
		for _, n := range benchSizes {
			b.Run("size="+sizeName(n), func(b *testing.B) {
				p := buf[:n]
				b.SetBytes(int64(n))
				var sum uint32
				for b.Loop() {
					sum += checksum(p)
				}
				if sum == 1 {
					b.Log(sum) // keep sum alive
				}
			})
		}
	}
	// The baseline: hash/crc32 itself, which the stdlib kernel uses only
	// where it is faster than ours.
	b.Run("impl=hash-crc32", func(b *testing.B) { sizes(b, crc32.ChecksumIEEE) })
	cputest.Bench(b, "crc", func(b *testing.B) { sizes(b, Checksum) })
}

// corpusRecords returns the lines of the corpus named by M2M_CORPUS, or nil.
func corpusRecords(tb testing.TB) [][]byte {
	name := os.Getenv("M2M_CORPUS")
	if name == "" {
		return nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		tb.Fatalf("M2M_CORPUS: %v", err)
	}
	var recs [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		recs = append(recs, bytes.Clone(sc.Bytes()))
	}
	return recs
}

// batchRecords is how many records a batch benchmark checksums per op: a
// pipeline batch, about 650 KB, which stays in cache as it would right
// after being read.
const batchRecords = 256

// BenchmarkChecksumBatch checksums a batch of records: every 32nd line of
// the corpus named by M2M_CORPUS, or else records drawn from its size
// distribution.
func BenchmarkChecksumBatch(b *testing.B) {
	recs := corpusRecords(b)
	if recs == nil {
		recs = syntheticRecords()
	}
	if step := len(recs) / batchRecords; step > 1 {
		var sample [][]byte
		for i := 0; i < len(recs) && len(sample) < batchRecords; i += step {
			sample = append(sample, recs[i])
		}
		recs = sample
	}
	total := 0
	for _, r := range recs {
		total += len(r)
	}
	run := func(b *testing.B, body func(dst []uint32) []uint32) {
		b.SetBytes(int64(total))
		dst := make([]uint32, 0, len(recs))
		for b.Loop() {
			dst = body(dst[:0])
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(recs)), "ns/record")
	}
	b.Run("impl=crc32-loop", func(b *testing.B) {
		run(b, func(dst []uint32) []uint32 {
			for _, r := range recs {
				dst = append(dst, crc32.ChecksumIEEE(r))
			}
			return dst
		})
	})
	cputest.Bench(b, "crc", func(b *testing.B) {
		run(b, func(dst []uint32) []uint32 { return AppendChecksums(dst, recs) })
	})
}

// syntheticRecords draws record sizes from a log-normal fitted to the dev
// corpus (p10 315 B, median 1.4 KB, p90 5.3 KB, max 58 KB).
func syntheticRecords() [][]byte {
	r := rand.New(rand.NewPCG(2, 2))
	recs := make([][]byte, batchRecords)
	for i := range recs {
		n := int(1400 * math.Exp(1.1*r.NormFloat64()))
		n = min(max(n, 60), 58<<10)
		p := make([]byte, n)
		for j := range p {
			p[j] = byte(r.Uint32())
		}
		recs[i] = p
	}
	return recs
}
