package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	brrr "github.com/molecule-man/go-brrr"

	m2mbrotli "github.com/m2m-go/m2m/brotli"
	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/internal/cputime"
	"github.com/m2m-go/m2m/internal/sample"
	"github.com/m2m-go/m2m/pipeline"
)

// corpus is the JSONL under test: M2M_CORPUS, else the embedded sample.
var corpus = sync1(func() ([]byte, error) {
	if path := os.Getenv("M2M_CORPUS"); path != "" {
		return os.ReadFile(path)
	}
	return sample.JSONL(), nil
})

// sync1 runs f once, on first use.
func sync1[T any](f func() (T, error)) func(testing.TB) T {
	var (
		done bool
		v    T
		err  error
	)
	return func(tb testing.TB) T {
		tb.Helper()
		if !done {
			v, err = f()
			done = true
		}
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}
}

// records are the corpus' lines without their line feeds, blank ones left
// out: what per-record codecs compress.
func records(tb testing.TB) [][]byte {
	var recs [][]byte
	for l := range bytes.Lines(corpus(tb)) {
		if l = bytes.TrimSuffix(l, []byte{'\n'}); len(l) > 0 {
			recs = append(recs, l)
		}
	}
	return recs
}

// quality and window are the codec's defaults, which the Brotli peers use
// too, so that every Brotli row compresses the same way.
const (
	quality = 5
	window  = 22
)

// A recordCodec compresses and decompresses one record at a time, appending
// to dst.
type recordCodec struct {
	name   string
	encode func(dst, rec []byte) ([]byte, error)
	decode func(dst, packed []byte) ([]byte, error)
}

func recordCodecs(tb testing.TB) []recordCodec {
	enc, err := codec.NewEncoder()
	if err != nil {
		tb.Fatal(err)
	}
	dec, _ := codec.NewDecoder()
	tenc, _ := codec.NewEncoder()
	tdec, _ := codec.NewDecoder()

	// Raw Brotli: what an M2M v1 frame carries, without the frame, with
	// the codec's encoder (package brotli's) and decoder (go-brrr's). The
	// framing tax is m2m against it.
	own := m2mbrotli.NewEncoder()
	// The same with go-brrr's encoder at the reference's quality, one
	// writer reset for each record.
	var sink bytes.Buffer
	pooled, err := brrr.NewWriterOptions(&sink, quality, brrr.WriterOptions{LGWin: window})
	if err != nil {
		tb.Fatal(err)
	}
	pooledDecoder := brrr.NewReader(nil)
	// The same with andybalholm/brotli, the codec's encoder before.
	andy := brotli.NewWriterOptions(&sink, brotli.WriterOptions{Quality: quality, LGWin: window})
	andyDecoder := brotli.NewReader(nil)

	zenc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	zdec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	dict := trainDict(tb)
	zdenc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1), zstd.WithEncoderDict(dict))
	if err != nil {
		tb.Fatal(err)
	}
	zddec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderDicts(dict))
	if err != nil {
		tb.Fatal(err)
	}

	pooledDecode := func(dst, packed []byte) ([]byte, error) {
		pooledDecoder.Reset(bytes.NewReader(packed))
		b := bytes.NewBuffer(dst)
		_, err := b.ReadFrom(pooledDecoder)
		return b.Bytes(), err
	}
	andyDecode := func(dst, packed []byte) ([]byte, error) {
		if err := andyDecoder.Reset(bytes.NewReader(packed)); err != nil {
			return dst, err
		}
		b := bytes.NewBuffer(dst)
		_, err := b.ReadFrom(andyDecoder)
		return b.Bytes(), err
	}
	return []recordCodec{
		{"m2m", enc.AppendFrame, func(dst, p []byte) ([]byte, error) { return dec.AppendFrame(dst, nil, p) }},
		{"m2m-string", enc.AppendFrameString, func(dst, p []byte) ([]byte, error) {
			out, _, err := dec.AppendDecode(dst, p)
			return out, err
		}},
		{"tokennative", tenc.AppendTokenNativeBinary, tdec.AppendTokenNativeBinary},
		{"brotli-m2m", func(dst, rec []byte) ([]byte, error) { return own.AppendEncode(dst, rec), nil }, pooledDecode},
		{"brotli-pooled", func(dst, rec []byte) ([]byte, error) {
			sink.Reset()
			pooled.Reset(&sink)
			if _, err := pooled.Write(rec); err != nil {
				return dst, err
			}
			err := pooled.Close()
			return append(dst, sink.Bytes()...), err
		}, pooledDecode},
		{"brotli-andybalholm", func(dst, rec []byte) ([]byte, error) {
			sink.Reset()
			andy.Reset(&sink)
			if _, err := andy.Write(rec); err != nil {
				return dst, err
			}
			err := andy.Close()
			return append(dst, sink.Bytes()...), err
		}, andyDecode},
		{"brotli-fresh", func(dst, rec []byte) ([]byte, error) {
			// The naive way: a new writer for every record.
			b := bytes.NewBuffer(dst)
			w := brotli.NewWriterOptions(b, brotli.WriterOptions{Quality: quality, LGWin: window})
			if _, err := w.Write(rec); err != nil {
				return dst, err
			}
			err := w.Close()
			return b.Bytes(), err
		}, andyDecode},
		{"zstd", func(dst, rec []byte) ([]byte, error) { return zenc.EncodeAll(rec, dst), nil }, func(dst, p []byte) ([]byte, error) { return zdec.DecodeAll(p, dst) }},
		{"zstd-dict", func(dst, rec []byte) ([]byte, error) { return zdenc.EncodeAll(rec, dst), nil }, func(dst, p []byte) ([]byte, error) { return zddec.DecodeAll(p, dst) }},
	}
}

// trainDict builds a zstd dictionary from the first tenth of the records
// (at most 1,000): their text as history, up to 110 KB, as zstd's own
// trainer defaults to, and their statistics for the entropy tables.
func trainDict(tb testing.TB) []byte {
	recs := records(tb)
	train := recs[:max(1, min(len(recs)/10, 1000))]
	var hist []byte
	for i := len(train) - 1; i >= 0 && len(hist) < 110<<10; i-- {
		hist = append(hist, train[i]...)
	}
	dict, err := zstd.BuildDict(zstd.BuildDictOptions{
		ID: 1, Contents: train, History: hist[:min(len(hist), 110<<10)],
		Offsets: [3]int{1, 4, 8}, Level: zstd.SpeedDefault,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return dict
}

// BenchmarkRecords compresses and decompresses every record of the corpus
// one at a time with each codec: the codec's formats and the peers a user
// would pick. MB/s are of JSON; ratio is JSON bytes over compressed bytes.
func BenchmarkRecords(b *testing.B) {
	recs := records(b)
	total := 0
	for _, r := range recs {
		total += len(r)
	}
	for _, c := range recordCodecs(b) {
		// A record a codec refuses is kept raw, as m2m-batch does: its
		// bytes count in the ratio, the attempt in the encode time.
		packed := make([][]byte, len(recs))
		raw := make([]bool, len(recs))
		size, refused := 0, 0
		for i, r := range recs {
			p, err := c.encode(nil, r)
			if err != nil {
				p, raw[i] = r, true
				refused++
			}
			packed[i], size = p, size+len(p)
		}
		b.Run("codec="+c.name+"/op=encode", func(b *testing.B) {
			b.SetBytes(int64(total))
			b.ReportAllocs()
			var dst []byte
			var err error
			cpu0 := cputime.Now()
			for b.Loop() {
				for i, r := range recs {
					if dst, err = c.encode(dst[:0], r); err != nil && !raw[i] {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(total)/float64(size), "ratio")
			b.ReportMetric(float64(refused), "raw-records")
			reportCPU(b, total, cpu0)
			reportRecords(b, len(recs))
		})
		b.Run("codec="+c.name+"/op=decode", func(b *testing.B) {
			b.SetBytes(int64(total))
			b.ReportAllocs()
			var dst []byte
			var err error
			cpu0 := cputime.Now()
			for b.Loop() {
				for i, p := range packed {
					if raw[i] {
						continue
					}
					if dst, err = c.decode(dst[:0], p); err != nil {
						b.Fatal(err)
					}
					if len(dst) != len(recs[i]) {
						b.Fatalf("record %d: %d bytes back, want %d", i, len(dst), len(recs[i]))
					}
				}
			}
			reportCPU(b, total, cpu0)
			reportRecords(b, len(recs))
		})
	}
}

// reportRecords reports records/s for a benchmark that handles n records
// per iteration.
func reportRecords(b *testing.B, n int) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/s, "records/s")
	}
}

// reportCPU reports cpu-MB/s: the n bytes of each iteration over the CPU
// time the process has used since cpu0 (see package cputime), the speed
// on cores of its own, where MB/s is that on cores shared with whatever
// else runs.
func reportCPU(b *testing.B, n int, cpu0 time.Duration) {
	if cpu := cputime.Since(cpu0); cpu > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
}

// BenchmarkStream compresses the corpus as one stream, as zstd and gzip
// users do with whole log files: the ratio per-record formats give up
// for random access and readable headers.
func BenchmarkStream(b *testing.B) {
	data := corpus(b)
	n := bytes.Count(data, []byte{'\n'})
	streams := []struct {
		name  string
		write func(io.Writer) (io.WriteCloser, error)
	}{
		{"zstd-3", func(w io.Writer) (io.WriteCloser, error) {
			return zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
		}},
		{"gzip-6", func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriterLevel(w, 6) }},
	}
	for _, s := range streams {
		b.Run("codec="+s.name+"/op=encode", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				w, err := s.write(&out)
				if err != nil {
					b.Fatal(err)
				}
				w.Write(data)
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data))/float64(out.Len()), "ratio")
			reportRecords(b, n)
		})
	}
}

// BenchmarkPipeline is m2m-batch's work without the files: the whole
// corpus through pipeline.Compress and Decompress at each worker count
// from 1 to GOMAXPROCS.
func BenchmarkPipeline(b *testing.B) {
	data := corpus(b)
	n := bytes.Count(data, []byte{'\n'})
	var packed bytes.Buffer
	if err := pipeline.Compress(context.Background(), bytes.NewReader(data), &packed, pipeline.Options{}, nil); err != nil {
		b.Fatal(err)
	}
	for w := 1; w <= runtime.GOMAXPROCS(0); w++ {
		b.Run(fmt.Sprintf("op=compress/workers=%d", w), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var out bytes.Buffer
			cpu0 := cputime.Now()
			for b.Loop() {
				out.Reset()
				if err := pipeline.Compress(context.Background(), bytes.NewReader(data), &out, pipeline.Options{Workers: w}, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data))/float64(out.Len()), "ratio")
			reportCPU(b, len(data), cpu0)
			reportRecords(b, n)
		})
		b.Run(fmt.Sprintf("op=decompress/workers=%d", w), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			cpu0 := cputime.Now()
			for b.Loop() {
				if err := pipeline.Decompress(context.Background(), bytes.NewReader(packed.Bytes()), io.Discard, pipeline.Options{Workers: w}, nil); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, len(data), cpu0)
			reportRecords(b, n)
		})
	}
}

// TestRecordCodecsRoundTrip checks that every codec the benchmarks time
// gives back each record, so that no row of the table is measuring a
// broken codec.
func TestRecordCodecsRoundTrip(t *testing.T) {
	recs := records(t)
	if testing.Short() {
		recs = recs[:min(len(recs), 50)]
	}
	start := time.Now()
	for _, c := range recordCodecs(t) {
		for i, r := range recs {
			p, err := c.encode(nil, r)
			if err != nil {
				t.Fatalf("%s: record %d: %v", c.name, i, err)
			}
			back, err := c.decode(nil, p)
			if err != nil || !bytes.Equal(back, r) {
				t.Fatalf("%s: record %d does not round-trip: %v", c.name, i, err)
			}
		}
	}
	t.Logf("%d records, %d codecs, %v", len(recs), len(recordCodecs(t)), time.Since(start))
}

// BenchmarkArchive times archive mode (m2m-batch --archive) through the
// pipeline: compression with every core, as compare.sh times it from the
// command line, and decompression at each worker count.
func BenchmarkArchive(b *testing.B) {
	data := corpus(b)
	n := bytes.Count(data, []byte{'\n'})
	o := pipeline.Options{Archive: true}
	var packed bytes.Buffer
	if err := pipeline.Compress(context.Background(), bytes.NewReader(data), &packed, o, nil); err != nil {
		b.Fatal(err)
	}
	b.Run("op=compress", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		var out bytes.Buffer
		for b.Loop() {
			out.Reset()
			if err := pipeline.Compress(context.Background(), bytes.NewReader(data), &out, o, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(data))/float64(out.Len()), "ratio")
		reportRecords(b, n)
	})
	for w := 1; w <= runtime.GOMAXPROCS(0); w++ {
		b.Run(fmt.Sprintf("op=decompress/workers=%d", w), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			o := o
			o.Workers = w
			for b.Loop() {
				if err := pipeline.Decompress(context.Background(), bytes.NewReader(packed.Bytes()), io.Discard, o, nil); err != nil {
					b.Fatal(err)
				}
			}
			reportRecords(b, n)
		})
	}
}

// BenchmarkArchiveRecord times reading one record, chosen at random, from
// an archive: M2M_ARCHIVE (a file m2m-batch --archive wrote; see
// README.md for the 1 GiB one), else the corpus archived in memory.
// open=once keeps one pipeline.Reader, and so its cache of decoded frames
// (the dictionaries among them), across reads; open=each opens the file
// for every read, as a command that prints one record would.
func BenchmarkArchiveRecord(b *testing.B) {
	var ra interface {
		io.ReaderAt
		Size() int64
	}
	if path := os.Getenv("M2M_ARCHIVE"); path != "" {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			b.Fatal(err)
		}
		ra = io.NewSectionReader(f, 0, fi.Size())
	} else {
		var packed bytes.Buffer
		if err := pipeline.Compress(context.Background(), bytes.NewReader(corpus(b)), &packed, pipeline.Options{Archive: true}, nil); err != nil {
			b.Fatal(err)
		}
		ra = bytes.NewReader(packed.Bytes())
	}
	r, err := pipeline.Open(ra, ra.Size(), pipeline.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d bytes, %d records", ra.Size(), r.Records())
	for _, each := range []bool{false, true} {
		name := "open=once"
		if each {
			name = "open=each"
		}
		b.Run(name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			var line []byte
			for b.Loop() {
				if each {
					r.Close()
					if r, err = pipeline.Open(ra, ra.Size(), pipeline.Options{}); err != nil {
						b.Fatal(err)
					}
				}
				if line, err = r.AppendRecord(line[:0], rng.Int64N(r.Records())); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
