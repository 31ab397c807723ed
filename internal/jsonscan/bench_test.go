package jsonscan

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"testing"
)

// corpusLines returns the non-empty lines of the JSONL file named by
// M2M_CORPUS and their total length, or skips the test or benchmark when
// the variable is unset or the file cannot be read.
func corpusLines(tb testing.TB) (lines [][]byte, total int) {
	tb.Helper()
	name := os.Getenv("M2M_CORPUS")
	if name == "" {
		tb.Skip("M2M_CORPUS not set")
	}
	data, err := os.ReadFile(name)
	if err != nil {
		tb.Skipf("M2M_CORPUS: %v", err)
	}
	for l := range bytes.Lines(data) {
		l = bytes.TrimRight(l, "\r\n")
		if len(l) == 0 {
			continue
		}
		lines = append(lines, l[:len(l):len(l)])
		total += len(l)
	}
	if len(lines) == 0 {
		tb.Skipf("M2M_CORPUS: %s has no lines", name)
	}
	return lines, total
}

// benchLines runs Scan and encoding/json.Valid over lines, one record per
// call as the codec calls Scan. MB/s counts JSON bytes.
func benchLines(b *testing.B, lines [][]byte, total int) {
	b.Run("impl=jsonscan", func(b *testing.B) {
		var f Fields
		for _, l := range lines { // grow the Fields' buffers first
			if err := Scan(l, Limits{}, &f); err != nil {
				b.Fatal(err)
			}
		}
		b.SetBytes(int64(total))
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				if err := Scan(l, Limits{}, &f); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("impl=encoding-json-valid", func(b *testing.B) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				if !json.Valid(l) {
					b.Fatal("invalid line")
				}
			}
		}
	})
}

// BenchmarkScan measures the corpus named by M2M_CORPUS:
//
//	M2M_CORPUS=$CORPORA/dev.jsonl go test ./internal/jsonscan -run '^$' -bench Scan -count 6
func BenchmarkScan(b *testing.B) {
	lines, total := corpusLines(b)
	benchLines(b, lines, total)
}

// BenchmarkScanGenerated measures the valid records of the test generator,
// which stress extraction more than real traffic; it needs no corpus.
func BenchmarkScanGenerated(b *testing.B) {
	g := gen{r: rand.New(rand.NewPCG(5, 6))}
	var lines [][]byte
	total := 0
	var f Fields
	for total < 4<<20 {
		rec := g.record()
		if Scan(rec, DefaultLimits, &f) == nil && json.Valid(rec) {
			lines = append(lines, rec)
			total += len(rec)
		}
	}
	benchLines(b, lines, total)
}
