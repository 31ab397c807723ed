package shards

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/manifest"
	"github.com/m2m-go/m2m/pipeline"
)

// ManifestName is the manifest's name in an output directory, and
// ShardDir the directory of the shards in it.
const (
	ManifestName = "manifest.jsonl"
	ShardDir     = "shards"
)

// ManifestPath is where Compress writes the manifest of a run into the
// directory output.
func ManifestPath(output string) string { return join(output, ManifestName) }

// Namespace is the namespace of the runs' Beam counters: shards, records,
// lines, raw (lines stored as raw bytes), bytes_in (of JSONL), bytes_out
// (of shards) and shards_bad.
const Namespace = "m2m"

func init() {
	register.DoFn3x1[context.Context, []byte, func(string), error](&listFn{})
	register.DoFn3x1[context.Context, string, func(Piece), error](&splitFn{})
	register.DoFn3x1[context.Context, Piece, func(string), error](&compressFn{})
	register.DoFn3x1[context.Context, int, func(*string) bool, error](&manifestFn{})
	register.Emitter1[string]()
	register.Emitter1[Piece]()
	register.Iter1[string]()
	beam.RegisterType(reflect.TypeOf((*Piece)(nil)).Elem())
}

// Compress adds to s a run that compresses every file input (a pattern of
// any filesystem Beam has registered: local paths, gs://, s3://) matches
// into shards under output/shards, and writes output/manifest.jsonl last,
// when every shard is complete: input files are listed, each is cut into
// pieces (plain files every PieceSize bytes at line boundaries, a gzip or
// zstd file whole), the pieces are spread over the workers, each is
// compressed into one shard, and the manifest lists them in order.
func Compress(s beam.Scope, input, output string, o Options) {
	s = s.Scope("m2m.Compress")
	files := beam.ParDo(s, &listFn{Pattern: input}, beam.Impulse(s))
	pcs := beam.ParDo(s, &splitFn{PieceSize: o.pieceSize()}, beam.Reshuffle(s, files))
	lines := beam.ParDo(s, &compressFn{Opts: o, Output: output}, beam.Reshuffle(s, pcs))
	beam.ParDo0(s, &manifestFn{Output: output}, beam.GroupByKey(s, beam.AddFixedKey(s, lines)))
}

// listFn lists the files a pattern matches, in order (local paths made
// absolute, so that a shard's name does not depend on how the pattern was
// written). A pattern that matches nothing is an error.
type listFn struct {
	Pattern string
	fs      files
}

func (f *listFn) Teardown() { f.fs.close() }

func (f *listFn) ProcessElement(ctx context.Context, _ []byte, emit func(string)) error {
	fs, err := f.fs.get(ctx, f.Pattern)
	if err != nil {
		return err
	}
	names, err := fs.List(ctx, f.Pattern)
	if err != nil {
		return fmt.Errorf("listing %s: %w", f.Pattern, err)
	}
	var out []string
	for _, name := range names {
		if scheme(name) == "" {
			if st, err := os.Stat(name); err == nil && st.IsDir() {
				continue
			}
			if abs, err := filepath.Abs(name); err == nil {
				name = abs
			}
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return fmt.Errorf("%s matches no file", f.Pattern)
	}
	slices.Sort(out)
	for _, name := range slices.Compact(out) {
		emit(name)
	}
	return nil
}

// splitFn cuts a file into pieces: a gzip, zstd or xz file (by its first
// bytes) is one piece, a plain file one per PieceSize bytes.
type splitFn struct {
	PieceSize int64
	fs        files
}

func (f *splitFn) Teardown() { f.fs.close() }

func (f *splitFn) ProcessElement(ctx context.Context, name string, emit func(Piece)) error {
	fs, err := f.fs.get(ctx, name)
	if err != nil {
		return err
	}
	size, err := fs.Size(ctx, name)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	r, err := fs.OpenRead(ctx, name)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	var head [6]byte
	n, err := io.ReadFull(r, head[:])
	r.Close()
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return fmt.Errorf("%s: %w", name, err)
	}
	for _, p := range pieces(name, size, f.PieceSize, compressedMagic(head[:n])) {
		emit(p)
	}
	return nil
}

// The counters of a run, in Namespace: what its shards hold (as written,
// tested or restored), and the shards a test found bad.
var (
	counterShards   = beam.NewCounter(Namespace, "shards")
	counterRecords  = beam.NewCounter(Namespace, "records")
	counterLines    = beam.NewCounter(Namespace, "lines")
	counterRaw      = beam.NewCounter(Namespace, "raw")
	counterBytesIn  = beam.NewCounter(Namespace, "bytes_in")
	counterBytesOut = beam.NewCounter(Namespace, "bytes_out")
	counterBad      = beam.NewCounter(Namespace, "shards_bad")
)

// compressFn compresses a piece into its shard and emits the shard's
// manifest line.
type compressFn struct {
	Opts   Options
	Output string
	po     pipeline.Options
	fs     files
}

func (f *compressFn) Setup(ctx context.Context) error {
	var err error
	f.po, err = f.Opts.pipelineOptions(ctx)
	return err
}

func (f *compressFn) Teardown() { f.fs.close() }

func (f *compressFn) ProcessElement(ctx context.Context, p Piece, emit func(string)) error {
	e, err := f.compress(ctx, p)
	if err != nil {
		return fmt.Errorf("%s bytes %d-%d: %w", p.Input, p.Start, p.End, err)
	}
	counterShards.Inc(ctx, 1)
	counterRecords.Inc(ctx, e.Records)
	counterLines.Inc(ctx, e.Lines)
	counterRaw.Inc(ctx, e.Raw)
	counterBytesIn.Inc(ctx, e.BytesIn)
	counterBytesOut.Inc(ctx, e.BytesOut)
	emit(string(e.AppendLine(nil)))
	return nil
}

func (f *compressFn) compress(ctx context.Context, p Piece) (*manifest.Entry, error) {
	in, err := f.fs.openAt(ctx, p.Input, p.Start)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	rel := ShardDir + "/" + shardName(p.Input, p.Index)
	e := &manifest.Entry{Input: p.Input, Compression: manifest.Plain, Output: rel, M2M: f.Opts.Version}
	var src io.Reader
	var pr *pieceReader
	var cr *countReader
	if p.Whole {
		input, err := pipeline.OpenInput(in)
		if err != nil {
			return nil, err
		}
		defer input.Close()
		e.Compression = input.Compression.String()
		e.Start, e.End = p.Start, p.End
		cr = &countReader{r: input}
		src = cr
	} else {
		if pr, err = newPieceReader(in, p.Start, p.End); err != nil {
			return nil, err
		}
		src = pr
	}
	out, err := f.fs.create(ctx, join(f.Output, rel))
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	cw := &countWriter{w: bw}
	var st pipeline.Stats
	err = pipeline.Compress(ctx, src, cw, f.po, &st)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = out.commit(ctx)
	} else {
		out.abort()
	}
	if err != nil {
		return nil, err
	}
	if pr != nil {
		e.Start, e.End, e.BytesIn, e.CRC32 = pr.start, pr.start+pr.n, pr.n, manifest.CRC(pr.crc)
	} else {
		e.BytesIn, e.CRC32 = cr.n, manifest.CRC(cr.crc)
	}
	e.Records, e.Lines, e.BytesOut = st.Records.Load(), st.Lines.Load(), cw.n
	e.Raw = st.Encodings[container.Raw].Load() + st.Encodings[container.SealedRaw].Load() + st.Kept.Load()
	return e, nil
}

// countWriter counts the bytes it passes on.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// manifestFn writes the manifest, once every shard is written: the lines
// of all shards, in manifest order, checked to tile their inputs.
type manifestFn struct {
	Output string
	fs     files
}

func (f *manifestFn) Teardown() { f.fs.close() }

func (f *manifestFn) ProcessElement(ctx context.Context, _ int, lines func(*string) bool) error {
	var text string
	var all []string
	for lines(&text) {
		all = append(all, text)
	}
	entries, err := manifest.Read(strings.NewReader(strings.Join(all, "")))
	if err != nil {
		return err
	}
	manifest.Sort(entries)
	if err := manifest.Check(entries); err != nil {
		return err
	}
	var b []byte
	for _, e := range entries {
		b = e.AppendLine(b)
	}
	out, err := f.fs.create(ctx, ManifestPath(f.Output))
	if err != nil {
		return err
	}
	if _, err := out.Write(b); err != nil {
		out.abort()
		return err
	}
	return out.commit(ctx)
}
