package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/m2m-go/m2m/archive"
	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/manifest"
	"github.com/m2m-go/m2m/pipeline"
)

// A shard manifest (package manifest) lists the shards a distributed run
// (m2m-beam) made of many inputs. -l, -t and --record read every shard it
// lists, as one corpus: records are numbered in manifest order.

// isManifestFile reports whether the regular file f is a shard manifest,
// from its first bytes, leaving its offset where it was.
func isManifestFile(f *os.File) bool {
	var head [32]byte
	n, _ := f.ReadAt(head[:], 0)
	return manifest.IsManifest(head[:n])
}

// manifestRun runs the mode over the shards the manifest f lists.
func (t *tool) manifestRun(ctx context.Context, name string, f *os.File) error {
	if t.cfg.mode == modeDecompress {
		return errors.New("a shard manifest: restore its inputs with m2m-beam decompress --manifest FILE --output DIR (-t, -l and --record read it here)")
	}
	entries, err := manifest.Read(f)
	if err == nil {
		err = manifest.Check(entries)
	}
	if err != nil {
		return err
	}
	switch t.cfg.mode {
	case modeList:
		return t.manifestList(ctx, name, entries)
	case modeTest:
		return t.manifestTest(ctx, name, entries)
	default:
		return t.manifestRecords(ctx, name, entries)
	}
}

// openShard opens the shard of entry e of the manifest at name, and
// returns it with its size.
func openShard(name string, e *manifest.Entry) (*os.File, int64, error) {
	p := manifest.Resolve(name, e.Output)
	if strings.Contains(p, "://") {
		return nil, 0, fmt.Errorf("shard %s: m2m-batch reads local files only (copy the run's output directory here, or run m2m-beam test)", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// shardError names the shard and what it holds.
func shardError(e *manifest.Entry, err error) error {
	return fmt.Errorf("shard %s (%s, bytes %d-%d): %w", e.Output, e.Input, e.Start, e.End, err)
}

// manifestTest decodes and checks every shard, and checks what it restores
// against the manifest: records, lines, bytes and their CRC-32, and the
// shard's size. It goes on after a bad shard, reporting each.
func (t *tool) manifestTest(ctx context.Context, name string, entries []manifest.Entry) error {
	start := time.Now()
	bad := 0
	for i := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := &entries[i]
		if err := t.testShard(ctx, name, e); err != nil {
			bad++
			if t.cfg.verbosity > -2 {
				fmt.Fprintf(t.stderr, "m2m-batch: %s: %v\n", name, shardError(e, err))
			}
			continue
		}
		if t.cfg.verbosity > 0 {
			fmt.Fprintf(t.stderr, "  %s: OK, %d records, %s => %s\n", e.Output, e.Records, mb(e.BytesIn), mb(e.BytesOut))
		}
	}
	tot := manifest.Sum(entries)
	if bad > 0 {
		return fmt.Errorf("%d of %d shards failed", bad, tot.Shards)
	}
	if t.cfg.verbosity >= 0 {
		fmt.Fprintf(t.stderr, "%s: OK, %d shards of %d inputs, %d records, %d lines, %s restored from %s, checked in %.2fs\n",
			name, tot.Shards, tot.Inputs, tot.Records, tot.Lines, mb(tot.BytesIn), mb(tot.BytesOut), time.Since(start).Seconds())
	}
	return nil
}

func (t *tool) testShard(ctx context.Context, name string, e *manifest.Entry) error {
	f, size, err := openShard(name, e)
	if err != nil {
		return err
	}
	defer f.Close()
	var st pipeline.Stats
	var sum crcWriter
	if err := pipeline.TestTo(ctx, f, &sum, t.cfg.opts, &st); err != nil {
		return err
	}
	switch {
	case size != e.BytesOut:
		return fmt.Errorf("%d bytes, the manifest says %d", size, e.BytesOut)
	case st.Records.Load() != e.Records || st.Lines.Load() != e.Lines:
		return fmt.Errorf("%d records and %d lines, the manifest says %d and %d", st.Records.Load(), st.Lines.Load(), e.Records, e.Lines)
	case sum.n != e.BytesIn:
		return fmt.Errorf("restores %d bytes, the manifest says %d", sum.n, e.BytesIn)
	case manifest.CRC(sum.crc) != e.CRC32:
		return fmt.Errorf("restores bytes of CRC-32 %08x, the manifest says %08x", sum.crc, uint32(e.CRC32))
	}
	return nil
}

// crcWriter counts what is written to it and takes its CRC-32 (IEEE, as
// the manifest's).
type crcWriter struct {
	n   int64
	crc uint32
}

func (w *crcWriter) Write(p []byte) (int, error) {
	w.crc = crc.Update(w.crc, p)
	w.n += int64(len(p))
	return len(p), nil
}

// manifestList lists every shard from headers, checks the counts against
// the manifest, and prints them as one corpus (and each shard with -v).
func (t *tool) manifestList(ctx context.Context, name string, entries []manifest.Entry) error {
	total := &pipeline.Listing{Schemas: map[string]int64{}, Models: map[string]int64{}, Secured: map[string]int64{}}
	var lines []string
	for i := range entries {
		e := &entries[i]
		l, err := listShard(ctx, name, e, t.cfg.opts)
		if err != nil {
			return shardError(e, err)
		}
		if i == 0 {
			total.Format = l.Format
		}
		mergeListing(total, l)
		lines = append(lines, fmt.Sprintf("  %s: %d records, %s => %s; %s bytes %d-%d\n",
			e.Output, e.Records, mb(e.BytesIn), mb(e.BytesOut), e.Input, e.Start, e.End))
	}
	tot := manifest.Sum(entries)
	printListing(t.stdout, fmt.Sprintf("%s (manifest: %d shards of %d inputs)", name, tot.Shards, tot.Inputs), total, t.cfg.verbosity)
	if t.cfg.verbosity > 0 {
		for _, l := range lines {
			fmt.Fprint(t.stdout, l)
		}
	}
	return nil
}

func listShard(ctx context.Context, name string, e *manifest.Entry, o pipeline.Options) (*pipeline.Listing, error) {
	f, size, err := openShard(name, e)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l, err := pipeline.List(ctx, f, o)
	switch {
	case err != nil:
		return nil, err
	case size != e.BytesOut:
		return nil, fmt.Errorf("%d bytes, the manifest says %d", size, e.BytesOut)
	case l.Records != e.Records || l.Lines != e.Lines:
		return nil, fmt.Errorf("%d records and %d lines, the manifest says %d and %d", l.Records, l.Lines, e.Records, e.Lines)
	case l.Bytes > 0 && l.Bytes != e.BytesIn:
		return nil, fmt.Errorf("holds %d bytes of input, the manifest says %d", l.Bytes, e.BytesIn)
	}
	return l, nil
}

// mergeListing adds l to dst.
func mergeListing(dst, l *pipeline.Listing) {
	dst.Records += l.Records
	dst.Lines += l.Lines
	dst.Bytes += l.Bytes
	dst.Compressed += l.Compressed
	dst.Archived += l.Archived
	for i := range dst.Encodings {
		dst.Encodings[i] += l.Encodings[i]
	}
	for _, m := range []struct{ dst, src map[string]int64 }{{dst.Schemas, l.Schemas}, {dst.Models, l.Models}, {dst.Secured, l.Secured}} {
		for k, v := range m.src {
			m.dst[k] += v
		}
	}
	if a := l.Archive; a != nil {
		if dst.Archive == nil {
			dst.Archive = &archive.Contents{}
		}
		d := dst.Archive
		d.Records += a.Records
		d.Lines += a.Lines
		d.Bytes += a.Bytes
		d.Strings += a.Strings
		d.Templates += a.Templates
		d.Repeats += a.Repeats
		d.Blocks += a.Blocks
		for i := range d.Streams {
			d.Streams[i].Frames += a.Streams[i].Frames
			d.Streams[i].Raw += a.Streams[i].Raw
			d.Streams[i].Packed += a.Streams[i].Packed
			d.Streams[i].Split += a.Streams[i].Split
			d.Streams[i].Shaped += a.Streams[i].Shaped
			d.Streams[i].Words += a.Streams[i].Words
			d.Streams[i].Numbers += a.Streams[i].Numbers
		}
	}
}

// manifestRecords writes the records --record lists, numbered across the
// manifest's shards in manifest order, each as it was in the input.
func (t *tool) manifestRecords(ctx context.Context, name string, entries []manifest.Entry) error {
	ix := manifest.NewIndex(entries)
	outName := t.cfg.output
	if outName == "-" {
		outName = ""
	}
	out, err := openOutput(name, outName, t.cfg.force, t.stdout)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(out.w)
	cur := -1
	var f *os.File
	var r *pipeline.Reader
	closeShard := func() {
		if r != nil {
			r.Close()
			f.Close()
			r, f = nil, nil
		}
	}
	defer closeShard()
	read := func(n int64, dst []byte) ([]byte, error) {
		s, rec, err := ix.Locate(n)
		if err != nil {
			return dst, err
		}
		if s != cur {
			closeShard()
			var size int64
			if f, size, err = openShard(name, &entries[s]); err != nil {
				return dst, err
			}
			if r, err = pipeline.Open(f, size, t.cfg.opts); err != nil {
				f.Close()
				f = nil
				return dst, shardError(&entries[s], err)
			}
			cur = s
		}
		dst, err = r.AppendRecord(dst, rec)
		if err != nil {
			err = shardError(&entries[s], err)
		}
		return dst, err
	}
	var line []byte
	for _, s := range t.cfg.records {
		for n := s.first; n <= s.last; n++ {
			if err = ctx.Err(); err == nil {
				line, err = read(n, line[:0])
			}
			if err == nil {
				_, err = w.Write(line)
			}
			if err != nil {
				out.abort()
				return err
			}
		}
	}
	if err = w.Flush(); err == nil {
		err = out.commit()
	}
	if err != nil {
		out.abort()
	}
	return err
}
