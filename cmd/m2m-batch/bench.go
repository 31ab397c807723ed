package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/m2m-go/m2m/archive"
	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/internal/cpu"
	"github.com/m2m-go/m2m/internal/getopt"
	"github.com/m2m-go/m2m/internal/jsonscan"
	"github.com/m2m-go/m2m/internal/sample"
	"github.com/m2m-go/m2m/pipeline"
	"github.com/m2m-go/m2m/tokenizer"
	"github.com/m2m-go/m2m/utf8x"
	"github.com/m2m-go/m2m/varint"
)

// benchRow is one way of compressing the corpus.
type benchRow struct {
	name string
	opts pipeline.Options
	// zstd, if set, makes the row whole-stream zstd (klauspost/compress)
	// at that level instead of m2m: a general-purpose baseline, for scale.
	zstd zstd.EncoderLevel
}

var benchRows = []benchRow{
	{name: "container, auto (M2M v1 frames)"},
	{name: "container, brotli", opts: pipeline.Options{Algorithm: pipeline.Brotli}},
	{name: "container, tokennative (cl100k)", opts: pipeline.Options{Algorithm: pipeline.TokenNative}},
	{name: "container, hydra", opts: pipeline.Options{Algorithm: pipeline.Hydra}},
	{name: "lines, auto (wire strings)", opts: pipeline.Options{Format: pipeline.FormatLines}},
	{name: "lines, hydra (wire strings)", opts: pipeline.Options{Format: pipeline.FormatLines, Algorithm: pipeline.Hydra}},
	{name: "lines, m2m (wire strings)", opts: pipeline.Options{Format: pipeline.FormatLines, Algorithm: pipeline.M2M}},
	{name: "archive -1", opts: pipeline.Options{Archive: true, ArchiveOptions: archive.Options{Level: 1}}},
	{name: "archive (level 3)", opts: pipeline.Options{Archive: true}},
	{name: "archive -4", opts: pipeline.Options{Archive: true, ArchiveOptions: archive.Options{Level: 4}}},
	{name: "archive --max", opts: pipeline.Options{Archive: true, ArchiveOptions: archive.Options{Level: archive.LevelMax}}},
	{name: "zstd -3 (klauspost, not m2m)", zstd: zstd.SpeedDefault},
	{name: "zstd best (klauspost, not m2m)", zstd: zstd.SpeedBestCompression},
}

// benchCoders returns the compress and decompress functions of a row.
func benchCoders(ctx context.Context, r benchRow) (compress func(dst *bytes.Buffer, src []byte) error, decompress func(dst *bytes.Buffer, src []byte) error, err error) {
	if r.zstd == 0 {
		return func(dst *bytes.Buffer, src []byte) error {
				return pipeline.Compress(ctx, bytes.NewReader(src), dst, r.opts, nil)
			}, func(dst *bytes.Buffer, src []byte) error {
				return pipeline.Decompress(ctx, bytes.NewReader(src), dst, r.opts, nil)
			}, nil
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(r.zstd), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, nil, err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, nil, err
	}
	return func(dst *bytes.Buffer, src []byte) error {
			dst.Write(enc.EncodeAll(src, dst.AvailableBuffer()))
			return nil
		}, func(dst *bytes.Buffer, src []byte) error {
			out, err := dec.DecodeAll(src, dst.AvailableBuffer())
			dst.Write(out)
			return err
		}, nil
}

// benchUsage is the text of "m2m-batch bench --help".
const benchUsage = `Usage: m2m-batch bench [OPTIONS]

Compress a corpus with every format and measure the kernels of this machine.

Options:
      --corpus FILE     JSONL file to measure (default: the embedded sample)
      --time D          time to spend on each measurement, at least 3 runs
                        (default 500ms)
  -T, --threads N       workers for the parallel row (default 0: all cores)
  -h, --help            print this help
`

// runBench is "m2m-batch bench": every format on a corpus, one worker each
// (MB/s per core), then the default with every worker, then the kernels of
// this machine one by one.
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var (
		fs      getopt.Set
		corpus  string
		budget  = 500 * time.Millisecond
		workers int
		help    bool
	)
	fs.String(&corpus, "corpus", 0)
	fs.Duration(&budget, "time", 0)
	fs.Int(&workers, "threads", 'T')
	fs.Bool(&help, "help", 'h')
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "m2m-batch bench: %v\n", err)
		return exitUsage
	}
	if help {
		fmt.Fprint(stderr, benchUsage)
		return exitOK
	}
	data, what := sample.JSONL(), "the embedded sample (internal/sample)"
	if corpus != "" {
		var err error
		if data, err = os.ReadFile(corpus); err != nil {
			fmt.Fprintf(stderr, "m2m-batch bench: %v\n", err)
			return exitError
		}
		what = corpus
	}
	w := workers
	if w == 0 {
		w = runtime.GOMAXPROCS(0)
	}
	fmt.Fprintf(stdout, "corpus:  %s: %d bytes, %d lines\n", what, len(data), bytes.Count(data, []byte{'\n'}))
	fmt.Fprintf(stdout, "CPU:     %s, %d logical CPUs, GOMAXPROCS %d\n", cpu.Model(), runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Fprintf(stdout, "         features: %s\n", strings.Join(cpu.Features(), " "))
	fmt.Fprintf(stdout, "build:   %s\n\n", versionLine())

	const rowFormat = "%-34s %7v %6v %14v %16v\n"
	fmt.Fprintf(stdout, rowFormat, "format", "workers", "ratio", "compress MB/s", "decompress MB/s")
	row := func(r benchRow) error {
		name, o := r.name, r.opts
		compress, decompress, err := benchCoders(ctx, r)
		if err != nil {
			return err
		}
		var packed bytes.Buffer
		c, err := measure(ctx, budget, len(data), func() error {
			packed.Reset()
			return compress(&packed, data)
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		var back bytes.Buffer
		d, err := measure(ctx, budget, len(data), func() error {
			back.Reset()
			return decompress(&back, packed.Bytes())
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if !bytes.Equal(back.Bytes(), data) {
			return fmt.Errorf("%s: does not round-trip", name)
		}
		fmt.Fprintf(stdout, rowFormat, name, o.Workers, fmt.Sprintf("%.2f", ratioOf(int64(len(data)), int64(packed.Len()))),
			fmt.Sprintf("%.1f", c), fmt.Sprintf("%.1f", d))
		return nil
	}
	for _, r := range benchRows {
		r.opts.Workers = 1
		if err := row(r); err != nil {
			fmt.Fprintf(stderr, "m2m-batch bench: %v\n", err)
			return exitError
		}
	}
	if w > 1 {
		if err := row(benchRow{name: benchRows[0].name, opts: pipeline.Options{Workers: w}}); err != nil {
			fmt.Fprintf(stderr, "m2m-batch bench: %v\n", err)
			return exitError
		}
	}
	fmt.Fprintln(stdout, "\nMB/s are of the JSONL (uncompressed) bytes; the median of at least 3 runs.")

	fmt.Fprintln(stdout, "\nkernels (* selected; MB/s, median):")
	if err := benchKernels(ctx, stdout, data, budget); err != nil {
		fmt.Fprintf(stderr, "m2m-batch bench: %v\n", err)
		return exitError
	}
	return exitOK
}

// measure runs f at least three times and for at least budget, and returns
// the median speed in MB/s of n bytes a run.
func measure(ctx context.Context, budget time.Duration, n int, f func() error) (float64, error) {
	var runs []time.Duration
	start := time.Now()
	for len(runs) < 3 || time.Since(start) < budget {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		t := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		runs = append(runs, time.Since(t))
	}
	slices.Sort(runs)
	return float64(n) / 1e6 / runs[len(runs)/2].Seconds(), nil
}

// benchKernels times each available kernel of crc (checksums of the
// corpus' lines, as the codec computes them), utf8x (the lines checked as
// UTF-8, as the tokenizer checks its text), jsonscan (the lines validated
// as JSON and their header fields found, as the codec does for every
// frame) and varint (the corpus' cl100k token ids, encoded and decoded),
// restoring the selection after.
func benchKernels(ctx context.Context, w io.Writer, data []byte, budget time.Duration) error {
	lines := bytes.SplitAfter(data, []byte{'\n'})
	var sums []uint32
	err := eachKernel(w, "crc", func() (string, error) {
		s, err := measure(ctx, budget, len(data), func() error {
			sums = crc.AppendChecksums(sums[:0], lines)
			return nil
		})
		return fmt.Sprintf("%.0f", s), err
	})
	if err != nil {
		return err
	}
	err = eachKernel(w, "utf8x", func() (string, error) {
		s, err := measure(ctx, budget, len(data), func() error {
			for _, l := range lines {
				if !utf8x.Valid(l) {
					return errors.New("the corpus is not UTF-8")
				}
			}
			return nil
		})
		return fmt.Sprintf("%.0f", s), err
	})
	if err != nil {
		return err
	}

	var fields jsonscan.Fields
	err = eachKernel(w, "jsonscan", func() (string, error) {
		s, err := measure(ctx, budget, len(data), func() error {
			for _, l := range lines {
				// A line that is not JSON is timed as far as it goes.
				_ = jsonscan.Scan(l, jsonscan.Limits{}, &fields)
			}
			return nil
		})
		return fmt.Sprintf("%.0f", s), err
	})
	if err != nil {
		return err
	}

	tok, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		return err
	}
	text := data[:min(len(data), 256<<10)]
	ids, err := tok.AppendEncode(nil, text)
	if err != nil {
		return err
	}
	var enc []byte
	var dec []uint32
	return eachKernel(w, "varint", func() (string, error) {
		enc = varint.AppendUvarints(enc[:0], ids)
		e, err := measure(ctx, budget, len(enc), func() error {
			enc = varint.AppendUvarints(enc[:0], ids)
			return nil
		})
		if err != nil {
			return "", err
		}
		d, err := measure(ctx, budget, len(enc), func() error {
			dec, err = varint.DecodeUvarints(dec[:0], enc)
			return err
		})
		return fmt.Sprintf("encode %.0f, decode %.0f", e, d), err
	})
}

// eachKernel selects each available kernel of pkg in turn and prints what
// f measures with it.
func eachKernel(w io.Writer, pkg string, f func() (string, error)) error {
	chosen := cpu.Selected(pkg)
	defer cpu.Select(pkg, chosen)
	for _, k := range cpu.List(pkg) {
		mark := " "
		if k.Name == chosen {
			mark = "*"
		}
		if !k.Available {
			fmt.Fprintf(w, "  %-8s %s%-12s not available here\n", pkg, mark, k.Name)
			continue
		}
		if err := cpu.Select(pkg, k.Name); err != nil {
			return err
		}
		s, err := f()
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-8s %s%-12s %s\n", pkg, mark, k.Name, s)
	}
	return nil
}
