package shards

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/m2m-go/m2m/manifest"
	"github.com/m2m-go/m2m/pipeline"
)

func init() {
	register.DoFn3x1[context.Context, []byte, func(restoreJob), error](&restoreJobsFn{})
	register.DoFn2x1[context.Context, restoreJob, error](&restoreFn{})
	register.Emitter1[restoreJob]()
	beam.RegisterType(reflect.TypeOf((*restoreJob)(nil)).Elem())
}

// Decompress adds to s a run that restores every input of the manifest at
// manifestPath under the directory output (see restoredPaths for where
// each goes), byte for byte: a plain input as it was, a gzip or zstd
// input as the JSONL it held. Each restored file is checked against the
// manifest (records, lines, bytes and CRC-32 of every shard), and appears
// under its name only when complete and correct; a file of that name is
// replaced. Inputs are restored in parallel, the shards of one input in
// order.
func Decompress(s beam.Scope, manifestPath, output string, o Options) {
	s = s.Scope("m2m.Decompress")
	jobs := beam.ParDo(s, &restoreJobsFn{Manifest: manifestPath, Output: output}, beam.Impulse(s))
	beam.ParDo0(s, &restoreFn{Manifest: manifestPath, Opts: o}, beam.Reshuffle(s, jobs))
}

// A restoreJob is one input to restore: the file it goes to, and the
// manifest lines of its shards, in order.
type restoreJob struct {
	Output string
	Shards string
}

// restoreJobsFn reads a manifest and emits a job for each input.
type restoreJobsFn struct {
	Manifest, Output string
	fs               files
}

func (f *restoreJobsFn) Teardown() { f.fs.close() }

func (f *restoreJobsFn) ProcessElement(ctx context.Context, _ []byte, emit func(restoreJob)) error {
	entries, err := f.fs.readManifest(ctx, f.Manifest)
	if err != nil {
		return err
	}
	paths, err := restoredPaths(entries)
	if err != nil {
		return err
	}
	var lines []byte
	for i, e := range entries {
		lines = e.AppendLine(lines)
		if i+1 == len(entries) || entries[i+1].Input != e.Input {
			emit(restoreJob{Output: join(f.Output, paths[e.Input]), Shards: string(lines)})
			lines = nil
		}
	}
	return nil
}

// restoreFn restores one input from its shards.
type restoreFn struct {
	Manifest string
	Opts     Options
	po       pipeline.Options
	fs       files
}

func (f *restoreFn) Setup(ctx context.Context) error {
	var err error
	f.po, err = f.Opts.pipelineOptions(ctx)
	return err
}

func (f *restoreFn) Teardown() { f.fs.close() }

func (f *restoreFn) ProcessElement(ctx context.Context, job restoreJob) error {
	entries, err := manifest.Read(strings.NewReader(job.Shards))
	if err != nil {
		return err
	}
	out, err := f.fs.create(ctx, job.Output)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	for i := range entries {
		e := &entries[i]
		if err = f.restore(ctx, e, bw); err != nil {
			err = shardError(e, err)
			break
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		out.abort()
		return err
	}
	if err := out.commit(ctx); err != nil {
		return err
	}
	for _, e := range entries {
		counterShards.Inc(ctx, 1)
		counterRecords.Inc(ctx, e.Records)
		counterLines.Inc(ctx, e.Lines)
		counterRaw.Inc(ctx, e.Raw)
		counterBytesIn.Inc(ctx, e.BytesIn)
		counterBytesOut.Inc(ctx, e.BytesOut)
	}
	return nil
}

// restore writes what the shard of e restores to w, and checks it against
// e.
func (f *restoreFn) restore(ctx context.Context, e *manifest.Entry, w io.Writer) error {
	r, size, err := f.fs.openShard(ctx, f.Manifest, e)
	if err != nil {
		return err
	}
	defer r.Close()
	if size != e.BytesOut {
		return fmt.Errorf("%d bytes, the manifest says %d", size, e.BytesOut)
	}
	var sum restored
	var st pipeline.Stats
	if err := pipeline.Decompress(ctx, r, io.MultiWriter(w, &sum), f.po, &st); err != nil {
		return err
	}
	return sum.check(e, &st)
}
