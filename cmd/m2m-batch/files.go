package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/m2m-go/m2m/pipeline"
)

// suffix is the name ending of compressed files.
const suffix = ".m2m"

// tool runs the command line's mode over its files.
type tool struct {
	cfg    *config
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
}

// runAll processes every file (or standard input), going on after a failed
// one as zstd does, and returns the exit status.
func (t *tool) runAll(ctx context.Context) int {
	files := t.cfg.files
	if len(files) == 0 {
		files = []string{"-"}
	}
	status := exitOK
	for _, name := range files {
		if ctx.Err() != nil {
			break
		}
		if err := t.one(ctx, name); err != nil {
			if t.cfg.verbosity > -2 {
				fmt.Fprintf(t.stderr, "m2m-batch: %s: %v\n", displayName(name), err)
			}
			status = exitError
		}
	}
	return status
}

func displayName(name string) string {
	if name == "-" {
		return "(stdin)"
	}
	return name
}

// isTerminal reports whether f is a terminal (not merely a character
// device: /dev/null is a fine place for output).
// A variable, so tests can pretend.
var isTerminal = func(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}

// Compressed inputs whose suffix names their compression: the output of
// compressing them is named after what they hold, so a.jsonl.gz gives
// a.jsonl.m2m, which -d turns into a.jsonl.
var compressedSuffixes = map[pipeline.Compression][]string{
	pipeline.Gzip: {".gz"},
	pipeline.Zstd: {".zst", ".zstd"},
}

// outputName is where name's result goes by default: "" for standard
// output. c is how the input to compress was compressed.
func (t *tool) outputName(name string, c pipeline.Compression) (string, error) {
	switch {
	case t.cfg.output != "":
		if t.cfg.output == "-" {
			return "", nil
		}
		return t.cfg.output, nil
	case t.cfg.stdout || name == "-":
		return "", nil
	case t.cfg.mode == modeCompress:
		for _, s := range compressedSuffixes[c] {
			if base, ok := cutSuffixFold(name, s); ok && filepath.Base(base) != "" && !strings.HasSuffix(base, "/") {
				return base + suffix, nil
			}
		}
		return name + suffix, nil
	}
	if !strings.HasSuffix(name, suffix) || len(filepath.Base(name)) == len(suffix) {
		return "", fmt.Errorf("unknown suffix (expected %s); use -c or -o to name the output", suffix)
	}
	return strings.TrimSuffix(name, suffix), nil
}

// cutSuffixFold is strings.CutSuffix with the suffix matched in any case.
func cutSuffixFold(s, suffix string) (string, bool) {
	if len(s) > len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix) {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}

// one processes one input file.
func (t *tool) one(ctx context.Context, name string) error {
	if name == "-" && !t.cfg.force && isTerminal(t.stdin) {
		return errors.New("standard input is a terminal: not reading data typed in (pipe it in, name a FILE, or use -f)")
	}
	in, size, closeIn, err := t.openInput(name)
	if err != nil {
		return err
	}
	defer closeIn()
	if f, ok := in.(*os.File); ok && t.cfg.mode != modeCompress && !t.cfg.opts.CopyUnknown && size >= 0 && isManifestFile(f) {
		return t.manifestRun(ctx, name, f)
	}
	read := readCounter{r: in, size: size}

	switch t.cfg.mode {
	case modeRecord:
		return t.records(ctx, in.(*os.File), size)
	case modeList:
		l, err := pipeline.List(ctx, &read, t.cfg.opts)
		if l != nil {
			// With an error, what is left of a damaged file.
			printListing(t.stdout, displayName(name), l, t.cfg.verbosity)
		}
		return err
	}

	var src io.Reader = &read
	compression := pipeline.Plain
	if t.cfg.mode == modeCompress {
		input, err := pipeline.OpenInput(&read)
		if err != nil {
			return err
		}
		defer input.Close()
		src, compression = input, input.Compression
	}
	var out *output
	outName := ""
	if t.cfg.mode == modeTest {
		out = &output{w: io.Discard}
	} else {
		if outName, err = t.outputName(name, compression); err != nil {
			return err
		}
		if outName == "" && !t.cfg.force && t.cfg.mode == modeCompress &&
			t.cfg.opts.Format == pipeline.FormatContainer && isTerminal(t.stdout) {
			return errors.New("standard output is a terminal: not writing compressed data to it (use -o FILE, a redirect, or -f)")
		}
		if out, err = openOutput(name, outName, t.cfg.force, t.stdout); err != nil {
			return err
		}
	}

	var st pipeline.Stats
	p := t.startProgress(displayName(name), size, &read, &st)
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- t.process(ctx, src, out.w, &st) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		// Interrupted: the pipeline may be blocked reading a pipe that
		// no cancellation reaches, so do not wait for it; remove the
		// partial output and let the program exit.
		err = ctx.Err()
	}
	p.stop()
	if err == nil {
		err = out.commit()
	}
	if err != nil {
		left := out.abort()
		if ctx.Err() != nil {
			if t.cfg.mode == modeTest {
				return errors.New("interrupted")
			}
			return fmt.Errorf("interrupted; %s", left)
		}
		return err
	}
	if t.cfg.verbosity >= 0 {
		t.summary(displayName(name), outName, &read, &st, time.Since(start))
	}
	if t.cfg.rm && name != "-" {
		return removeInput(name)
	}
	return nil
}

// removeInput removes an input after success (--rm) if it is a regular
// file: a device, FIFO or symbolic link named as input is left alone, as
// zstd leaves it.
func removeInput(name string) error {
	st, err := os.Lstat(name)
	if err != nil || !st.Mode().IsRegular() {
		return err
	}
	return os.Remove(name)
}

// records writes the records --record lists, each as it was in the input
// (with its line feed if it had one), to standard output or -o.
func (t *tool) records(ctx context.Context, f *os.File, size int64) error {
	if size < 0 {
		return errors.New("--record needs a regular file")
	}
	r, err := pipeline.Open(f, size, t.cfg.opts)
	if err != nil {
		return err
	}
	defer r.Close()
	name := t.cfg.output
	if name == "-" {
		name = ""
	}
	out, err := openOutput(f.Name(), name, t.cfg.force, t.stdout)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(out.w)
	var line []byte
	for _, s := range t.cfg.records {
		for n := s.first; n <= s.last; n++ {
			if err = ctx.Err(); err == nil {
				line, err = r.AppendRecord(line[:0], n)
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
		if cut := r.Cut(); cut != nil {
			// Read whole from a damaged file, as -d writes what it can
			// of one: written to standard output, and the run fails.
			err = fmt.Errorf("the records asked for were read whole, but the file is damaged: %w", cut)
		} else {
			err = out.commit()
		}
	}
	if err != nil {
		out.abort()
	}
	return err
}

// process runs the mode's pipeline from r to w.
func (t *tool) process(ctx context.Context, r io.Reader, w io.Writer, st *pipeline.Stats) error {
	switch t.cfg.mode {
	case modeCompress:
		return pipeline.Compress(ctx, r, w, t.cfg.opts, st)
	case modeDecompress:
		return pipeline.Decompress(ctx, r, w, t.cfg.opts, st)
	default:
		return pipeline.Test(ctx, r, t.cfg.opts, st)
	}
}

// openInput opens name ("-" is standard input) and returns its size, or -1
// when it is unknown.
func (t *tool) openInput(name string) (io.Reader, int64, func(), error) {
	if name == "-" {
		return t.stdin, -1, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, 0, nil, errors.New("is a directory")
	}
	size := int64(-1)
	if st.Mode().IsRegular() {
		size = st.Size()
	}
	return f, size, func() { f.Close() }, nil
}

// readCounter counts the bytes read from the input file itself (before any
// gzip or zstd decompression), for progress and the summary.
type readCounter struct {
	r    io.Reader
	size int64 // the file's, or -1
	n    atomic.Int64
}

// total is the input's size: the file's, when known (an archive is read
// in place, its index more than once), else the bytes read.
func (c *readCounter) total() int64 {
	if c.size >= 0 {
		return c.size
	}
	return c.n.Load()
}

func (c *readCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// ReadAt and Stat let the pipeline read an archive where it is, when the
// input is a regular file, instead of copying it.
func (c *readCounter) ReadAt(p []byte, off int64) (int, error) {
	ra, ok := c.r.(io.ReaderAt)
	if !ok {
		return 0, errors.ErrUnsupported
	}
	n, err := ra.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

func (c *readCounter) Stat() (fs.FileInfo, error) {
	f, ok := c.r.(*os.File)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return f.Stat()
}
