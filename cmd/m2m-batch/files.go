package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
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
			if ctx.Err() != nil {
				err = errors.New("interrupted; partial output removed")
			}
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

// isTerminal reports whether w is a terminal (not merely a character
// device: /dev/null is a fine place for output).
// A variable, so tests can pretend.
var isTerminal = func(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// outputName is where name's result goes by default: "" for standard
// output.
func (t *tool) outputName(name string) (string, error) {
	switch {
	case t.cfg.output != "":
		if t.cfg.output == "-" {
			return "", nil
		}
		return t.cfg.output, nil
	case t.cfg.stdout || name == "-":
		return "", nil
	case t.cfg.mode == modeCompress:
		return name + suffix, nil
	}
	if !strings.HasSuffix(name, suffix) || len(name) == len(suffix) {
		return "", fmt.Errorf("unknown suffix (expected %s); use -c or -o to name the output", suffix)
	}
	return strings.TrimSuffix(name, suffix), nil
}

// one processes one input file.
func (t *tool) one(ctx context.Context, name string) error {
	in, size, closeIn, err := t.openInput(name)
	if err != nil {
		return err
	}
	defer closeIn()
	var read readCounter
	read.r = in

	if t.cfg.mode == modeRecord {
		return t.records(ctx, in.(*os.File), size)
	}
	if t.cfg.mode == modeList {
		l, err := pipeline.List(ctx, &read)
		if err != nil {
			return err
		}
		printListing(t.stdout, displayName(name), l, t.cfg.verbosity)
		return nil
	}

	var st pipeline.Stats
	outName := ""
	if t.cfg.mode != modeTest {
		if outName, err = t.outputName(name); err != nil {
			return err
		}
	}
	out, commit, abort, err := t.createOutput(name, outName)
	if err != nil {
		return err
	}
	p := t.startProgress(displayName(name), size, &read, &st)
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- t.process(ctx, &read, out, &st) }()
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
		err = commit()
	}
	if err != nil {
		abort()
		return err
	}
	if t.cfg.verbosity >= 0 {
		t.summary(displayName(name), outName, &read, &st, time.Since(start))
	}
	if t.cfg.rm && name != "-" {
		if err := os.Remove(name); err != nil {
			return err
		}
	}
	return nil
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
	out, commit, abort, err := t.createOutput(f.Name(), t.cfg.output)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(out)
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
				abort()
				return err
			}
		}
	}
	if err = w.Flush(); err == nil {
		err = commit()
	}
	if err != nil {
		abort()
	}
	return err
}

// process runs the mode's pipeline from r to w.
func (t *tool) process(ctx context.Context, r io.Reader, w io.Writer, st *pipeline.Stats) error {
	switch t.cfg.mode {
	case modeCompress:
		in, release, err := pipeline.OpenInput(r)
		if err != nil {
			return err
		}
		defer release()
		return pipeline.Compress(ctx, in, w, t.cfg.opts, st)
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

// createOutput opens the output: standard output when outName is "" (or
// nothing at all in test mode), else a temporary file next to outName that
// commit renames into place and abort removes.
func (t *tool) createOutput(inName, outName string) (w io.Writer, commit func() error, abort func(), err error) {
	nop := func() error { return nil }
	if t.cfg.mode == modeTest {
		return io.Discard, nop, func() {}, nil
	}
	if outName == "" {
		binary := t.cfg.mode == modeCompress && t.cfg.opts.Format == pipeline.FormatContainer
		if binary && !t.cfg.force && isTerminal(t.stdout) {
			return nil, nil, nil, errors.New("standard output is a terminal: not writing compressed data to it (use -o FILE, a redirect, or -f)")
		}
		return t.stdout, nop, func() {}, nil
	}
	if inName != "-" && sameFile(inName, outName) {
		return nil, nil, nil, fmt.Errorf("%s is the input itself", outName)
	}
	if _, err := os.Lstat(outName); err == nil && !t.cfg.force {
		return nil, nil, nil, fmt.Errorf("%s already exists; not overwritten (use -f)", outName)
	}
	perm := os.FileMode(0o644)
	if inName != "-" {
		if st, err := os.Stat(inName); err == nil {
			perm = st.Mode().Perm()
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(outName), "."+filepath.Base(outName)+".*.tmp")
	if err != nil {
		return nil, nil, nil, err
	}
	abort = func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}
	commit = func() error {
		if err := tmp.Chmod(perm); err != nil {
			return err
		}
		if err := tmp.Close(); err != nil {
			return err
		}
		return os.Rename(tmp.Name(), outName)
	}
	return tmp, commit, abort, nil
}

// sameFile reports whether two names are one existing file.
func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// readCounter counts the bytes read from the input file itself (before any
// gzip or zstd decompression), for progress and the summary.
type readCounter struct {
	r io.Reader
	n atomic.Int64
}

func (c *readCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
