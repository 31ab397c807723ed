package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/m2m-go/m2m/archive"
	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/pipeline"
)

// Progress: on a terminal, a status line redrawn a few times a second;
// otherwise (a log file, a CI job) a plain log line now and then, so logs
// stay readable. -q turns both off.
const (
	redrawEvery = 200 * time.Millisecond
	logEvery    = 10 * time.Second
)

// progress reports one file's progress until stop.
type progress struct {
	done chan struct{}
	wg   sync.WaitGroup
}

func (p *progress) stop() {
	if p.done != nil {
		close(p.done)
		p.wg.Wait()
	}
}

// startProgress starts reporting on the work of one file whose input has
// size bytes (-1: unknown) and is read through read.
func (t *tool) startProgress(name string, size int64, read *readCounter, st *pipeline.Stats) *progress {
	p := &progress{}
	if t.cfg.verbosity < 0 || t.cfg.mode == modeList {
		return p
	}
	tty := isTerminal(t.stderr)
	every := logEvery
	if tty {
		every = redrawEvery
	}
	p.done = make(chan struct{})
	start := time.Now()
	p.wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-p.done:
				if tty {
					fmt.Fprint(t.stderr, "\r\x1b[K")
				}
				return
			case <-tick.C:
			}
			elapsed := time.Since(start)
			in := read.n.Load()
			if size >= 0 {
				in = min(in, size) // an archive's index is read more than once
			}
			if tty {
				fmt.Fprintf(t.stderr, "\r%s\x1b[K", statusLine(name, in, size, st, elapsed, t.cfg.mode != modeCompress))
				continue
			}
			t.log.Info("progress", "file", name, "read", in, "size", size,
				"records", st.Records.Load(), "bytes_in", st.BytesIn.Load(), "bytes_out", st.BytesOut.Load(),
				"elapsed", elapsed.Round(time.Second))
		}
	})
	return p
}

// statusLine is the terminal status: bytes read (of how many), records,
// speed, ratio and, when the size is known, the time left.
func statusLine(name string, read, size int64, st *pipeline.Stats, elapsed time.Duration, decoding bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", name, mb(read))
	if size >= 0 {
		fmt.Fprintf(&b, " / %s (%d%%)", mb(size), percent(read, size))
	}
	fmt.Fprintf(&b, ", %d records, %.1f MB/s", st.Records.Load(), rate(read, elapsed))
	if in, out := st.BytesIn.Load(), st.BytesOut.Load(); in > 0 && out > 0 {
		if decoding {
			in, out = out, in
		}
		fmt.Fprintf(&b, ", ratio %.2f", ratioOf(in, out))
	}
	if size > 0 && read > 0 && read < size {
		left := time.Duration(float64(elapsed) * float64(size-read) / float64(read))
		fmt.Fprintf(&b, ", ETA %s", left.Round(time.Second))
	}
	return b.String()
}

func percentOf(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func percent(a, b int64) int64 {
	if b <= 0 {
		return 100
	}
	return a * 100 / b
}

// ratioOf is raw bytes over the bytes they were packed into: under 1
// where packing made them larger (records too small for their frames).
func ratioOf(raw, packed int64) float64 {
	if raw == 0 || packed == 0 {
		return 0
	}
	return float64(raw) / float64(packed)
}

func mb(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / 1e6 / d.Seconds()
}

// summary prints the one line that ends each file's work, and with -v the
// counts behind it.
func (t *tool) summary(name, outName string, read *readCounter, st *pipeline.Stats, d time.Duration) {
	if outName == "" {
		outName = "(stdout)"
	}
	in, out := st.BytesIn.Load(), st.BytesOut.Load()
	recs := st.Records.Load()
	w := t.stderr
	switch t.cfg.mode {
	case modeCompress:
		fmt.Fprintf(w, "%s: %s => %s (ratio %.2f), %s; %d records%s in %.2fs, %.1f MB/s\n",
			name, mb(in), mb(out), ratioOf(in, out), outName, recs, rawNote(st), d.Seconds(), rate(in, d))
	case modeDecompress:
		fmt.Fprintf(w, "%s: %s => %s, %s; %d records in %.2fs, %.1f MB/s\n",
			name, mb(read.total()), mb(out), outName, recs, d.Seconds(), rate(out, d))
	case modeTest:
		fmt.Fprintf(w, "%s: OK, %d records, %d lines, %s compressed, checked in %.2fs\n",
			name, recs, st.Lines.Load(), mb(read.total()), d.Seconds())
	}
	if t.cfg.verbosity > 0 {
		fmt.Fprintf(w, "  records by encoding:%s\n", encodingCounts(func(e container.Encoding) int64 { return st.Encodings[e].Load() }))
		if t.cfg.mode == modeCompress {
			fmt.Fprintf(w, "  kept raw: blank %d, not UTF-8 %d, not JSON %d, over a limit %d, not tokenizable %d; passed through as text %d\n",
				st.Blank.Load(), st.NotUTF8.Load(), st.NotJSON.Load(), st.OverLimit.Load(), st.NotTokenizable.Load(), st.Passthrough.Load())
			fmt.Fprintf(w, "  workers %s, kernels %s\n", workersOf(t.cfg.opts), kernels())
		}
	}
}

// rawNote says how many lines were kept raw, and why, if any were.
func rawNote(st *pipeline.Stats) string {
	why := []struct {
		n    int64
		what string
	}{
		{st.Blank.Load(), "blank"},
		{st.NotUTF8.Load(), "not UTF-8"},
		{st.NotJSON.Load(), "not JSON"},
		{st.OverLimit.Load(), "over a limit"},
		{st.NotTokenizable.Load(), "not tokenizable"},
		{st.Kept.Load(), "in an archive, with no value taken out"},
	}
	var parts []string
	var total int64
	for _, w := range why {
		if w.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", w.n, w.what))
			total += w.n
		}
	}
	if total == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d kept raw: %s)", total, strings.Join(parts, ", "))
}

// encodingCounts formats nonzero counts by record encoding.
func encodingCounts(count func(container.Encoding) int64) string {
	var b strings.Builder
	for e := container.Raw; e <= container.SealedRaw; e++ {
		if n := count(e); n > 0 {
			fmt.Fprintf(&b, " %v %d", e, n)
		}
	}
	if b.Len() == 0 {
		return " none"
	}
	return b.String()
}

func workersOf(o pipeline.Options) string {
	if o.Workers == 0 {
		return "all cores"
	}
	return fmt.Sprint(o.Workers)
}

// printListing writes what -l found in one file.
func printListing(w io.Writer, name string, l *pipeline.Listing, verbosity int) {
	format := l.Format.String()
	if l.Archive != nil {
		format = "archive"
	}
	fmt.Fprintf(w, "%s: %s, %d records, %d lines", name, format, l.Records, l.Lines)
	if l.Bytes > 0 {
		fmt.Fprintf(w, ", %s => %s (ratio %.2f)", mb(l.Bytes), mb(l.Compressed), ratioOf(l.Bytes, l.Compressed))
	} else {
		fmt.Fprintf(w, ", %s", mb(l.Compressed))
	}
	fmt.Fprintln(w)
	if a := l.Archive; a != nil {
		fmt.Fprintf(w, "  archive: %d records", a.Records)
		if a.Repeats > 0 {
			fmt.Fprintf(w, " (%d repeating one before them)", a.Repeats)
		}
		fmt.Fprintf(w, ", %d strings and %d templates stored once, %d blocks\n", a.Strings, a.Templates, a.Blocks)
		if verbosity > 0 {
			// Where the bytes go.
			fmt.Fprintf(w, "  %-10s %7s %12s %12s %6s %7s\n", "stream", "frames", "raw", "compressed", "ratio", "of file")
			var packed int64
			for i, sc := range a.Streams {
				if sc.Frames == 0 && i == archive.StreamDicts {
					continue // an archive too small for plain copies
				}
				packed += sc.Packed
				fmt.Fprintf(w, "  %-10s %7d %12d %12d %6.2f %6.1f%%\n", archive.StreamNames[i], sc.Frames, sc.Raw, sc.Packed,
					ratioOf(sc.Raw, sc.Packed), percentOf(sc.Packed, l.Compressed))
			}
			fmt.Fprintf(w, "  %-10s %7s %12s %12d %6s %6.1f%%\n", "framing", "", "", l.Compressed-packed, "",
				percentOf(l.Compressed-packed, l.Compressed))
			for i, sc := range a.Streams {
				if sc.Split > 0 || sc.Shaped > 0 {
					fmt.Fprintf(w, "  %s: %d of %d frames with numbers and base64 as columns (%d bytes, %.1f%% of the stream's), %d shaped\n",
						archive.StreamNames[i], sc.Split, sc.Frames, sc.Numbers, percentOf(sc.Numbers, sc.Packed), sc.Shaped)
				}
				if sc.Words > 0 {
					fmt.Fprintf(w, "  %s: %d of %d frames with words as codes\n", archive.StreamNames[i], sc.Words, sc.Frames)
				}
			}
		}
	}
	if l.Archived < l.Records {
		fmt.Fprintf(w, "  encodings:%s\n", encodingCounts(func(e container.Encoding) int64 { return l.Encodings[e] }))
	}
	if len(l.Schemas) > 0 {
		fmt.Fprintf(w, "  schemas:%s\n", counts(l.Schemas, sortedByCount(l.Schemas), 0))
		fmt.Fprintf(w, "  security:%s\n", counts(l.Secured, sortedByCount(l.Secured), 0))
		// The commonest ten; -v a hundred (a log of made-up model names
		// can hold hundreds of thousands); -vv every one.
		limit := 10
		switch {
		case verbosity > 1:
			limit = 0
		case verbosity == 1:
			limit = 100
		}
		fmt.Fprintf(w, "  models:%s\n", counts(l.Models, l.ModelsByCount(), limit))
	}
}

// counts formats name-count pairs in the given order, the first limit of
// them (0: all) and the rest as one "others" count.
func counts(m map[string]int64, order []string, limit int) string {
	var b strings.Builder
	var others, kinds int64
	for i, k := range order {
		if limit > 0 && i >= limit {
			others += m[k]
			kinds++
			continue
		}
		name := k
		if name == "" {
			name = `""`
		}
		fmt.Fprintf(&b, " %s %d", name, m[k])
	}
	if kinds > 0 {
		fmt.Fprintf(&b, " (%d others %d)", kinds, others)
	}
	return b.String()
}

func sortedByCount(m map[string]int64) []string {
	l := pipeline.Listing{Models: m}
	return l.ModelsByCount()
}
