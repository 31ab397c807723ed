package shards

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/manifest"
	"github.com/m2m-go/m2m/pipeline"
)

func init() {
	register.DoFn3x1[context.Context, []byte, func(string), error](&entriesFn{})
	register.DoFn3x1[context.Context, string, func(string), error](&testFn{})
	register.DoFn3x1[context.Context, int, func(*string) bool, error](&verdictFn{})
}

// Test adds to s a run that checks every shard the manifest at
// manifestPath lists: each is decoded and verified, and what it restores
// must match the manifest (records, lines, bytes and their CRC-32, and
// the shard's own size). The run fails at the end, naming every bad
// shard, if any is.
func Test(s beam.Scope, manifestPath string, o Options) {
	s = s.Scope("m2m.Test")
	entries := beam.ParDo(s, &entriesFn{Manifest: manifestPath}, beam.Impulse(s))
	bad := beam.ParDo(s, &testFn{Manifest: manifestPath, Opts: o}, beam.Reshuffle(s, entries))
	beam.ParDo0(s, &verdictFn{}, beam.GroupByKey(s, beam.AddFixedKey(s, bad)))
}

// entriesFn reads a manifest and emits its entries, one manifest line
// each.
type entriesFn struct {
	Manifest string
	fs       files
}

func (f *entriesFn) Teardown() { f.fs.close() }

func (f *entriesFn) ProcessElement(ctx context.Context, _ []byte, emit func(string)) error {
	entries, err := f.fs.readManifest(ctx, f.Manifest)
	if err != nil {
		return err
	}
	for _, e := range entries {
		emit(string(e.AppendLine(nil)))
	}
	return nil
}

// parseEntry parses one manifest line.
func parseEntry(line string) (*manifest.Entry, error) {
	entries, err := manifest.Read(strings.NewReader(line))
	if err != nil {
		return nil, err
	}
	if len(entries) != 1 {
		return nil, fmt.Errorf("%d manifest entries in one element", len(entries))
	}
	return &entries[0], nil
}

// testFn tests a shard and emits what is wrong with it, if anything.
type testFn struct {
	Manifest string
	Opts     Options
	po       pipeline.Options
	fs       files
}

func (f *testFn) Setup(ctx context.Context) error {
	var err error
	f.po, err = f.Opts.pipelineOptions(ctx)
	return err
}

func (f *testFn) Teardown() { f.fs.close() }

func (f *testFn) ProcessElement(ctx context.Context, line string, emit func(string)) error {
	e, err := parseEntry(line)
	if err != nil {
		return err
	}
	if err := f.test(ctx, e); err != nil {
		if ctx.Err() != nil {
			return err
		}
		counterBad.Inc(ctx, 1)
		emit(shardError(e, err).Error())
		return nil
	}
	counterShards.Inc(ctx, 1)
	counterRecords.Inc(ctx, e.Records)
	counterLines.Inc(ctx, e.Lines)
	counterRaw.Inc(ctx, e.Raw)
	counterBytesIn.Inc(ctx, e.BytesIn)
	counterBytesOut.Inc(ctx, e.BytesOut)
	return nil
}

func (f *testFn) test(ctx context.Context, e *manifest.Entry) error {
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
	if err := pipeline.TestTo(ctx, r, &sum, f.po, &st); err != nil {
		return err
	}
	return sum.check(e, &st)
}

// restored counts the bytes a shard restores and takes their CRC-32
// (IEEE), as the manifest keeps them.
type restored struct {
	n   int64
	crc uint32
}

func (w *restored) Write(p []byte) (int, error) {
	w.crc = crc.Update(w.crc, p)
	w.n += int64(len(p))
	return len(p), nil
}

// check compares what a shard restored with what its entry says.
func (w *restored) check(e *manifest.Entry, st *pipeline.Stats) error {
	switch {
	case st.Records.Load() != e.Records || st.Lines.Load() != e.Lines:
		return fmt.Errorf("%d records and %d lines, the manifest says %d and %d", st.Records.Load(), st.Lines.Load(), e.Records, e.Lines)
	case w.n != e.BytesIn:
		return fmt.Errorf("restores %d bytes, the manifest says %d", w.n, e.BytesIn)
	case manifest.CRC(w.crc) != e.CRC32:
		return fmt.Errorf("restores bytes of CRC-32 %08x, the manifest says %08x", w.crc, uint32(e.CRC32))
	}
	return nil
}

// verdictFn fails the run with the bad shards' errors, in order; it only
// runs if there is one.
type verdictFn struct{}

func (verdictFn) ProcessElement(_ context.Context, _ int, bad func(*string) bool) error {
	var msgs []string
	var m string
	for bad(&m) {
		msgs = append(msgs, m)
	}
	slices.Sort(msgs)
	n := len(msgs)
	const most = 20
	more := ""
	if n > most {
		more = fmt.Sprintf("\n(and %d more)", n-most)
		msgs = msgs[:most]
	}
	return fmt.Errorf("%d bad shards:\n%s%s", n, strings.Join(msgs, "\n"), more)
}
