//go:build unix

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/m2m-go/m2m/internal/sample"
)

// fifo makes a FIFO in dir and starts reading it; the returned function,
// called once the command writing it has exited, returns what it wrote.
func fifo(t *testing.T, dir, name string) (path string, got func() []byte) {
	t.Helper()
	path = filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan []byte, 1)
	go func() {
		f, err := os.Open(path) // waits for a writer
		if err != nil {
			done <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		done <- b
	}()
	return path, func() []byte {
		// If the command never opened the FIFO, the reader still waits for
		// a writer: be one, for nothing.
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		return <-done
	}
}

// isFIFO fails the test unless path is still a FIFO.
func isFIFO(t *testing.T, path string) {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("%s is no longer a FIFO: %v, %v", path, st.Mode(), err)
	}
}

// TestDeviceOutput: an existing device or FIFO is written in place, with or
// without -f, and never replaced, chmodded or removed, even on error.
func TestDeviceOutput(t *testing.T) {
	dir := t.TempDir()
	data := sample.JSONL()
	write(t, filepath.Join(dir, "s.jsonl"), data)
	ok(t, dir, nil, "-q", "s.jsonl")
	packed := read(t, filepath.Join(dir, "s.jsonl.m2m"))

	for _, args := range [][]string{{"-q", "-d", "-o"}, {"-q", "-d", "-f", "-o"}} {
		path, got := fifo(t, dir, "out.fifo")
		ok(t, dir, nil, append(args, path, "s.jsonl.m2m")...)
		if b := got(); !bytes.Equal(b, data) {
			t.Errorf("%v FIFO: read %d bytes, want %d", args, len(b), len(data))
		}
		isFIFO(t, path)
		st, _ := os.Stat(path)
		if st.Mode().Perm() != 0o600 {
			t.Errorf("the FIFO's mode changed to %v", st.Mode())
		}
		os.Remove(path)
	}
	// Compression into a FIFO.
	path, got := fifo(t, dir, "c.fifo")
	ok(t, dir, nil, "-q", "-f", "-o", path, "s.jsonl")
	if b := got(); !bytes.Equal(b, packed) {
		t.Errorf("compressing into a FIFO: %d bytes, want %d", len(b), len(packed))
	}
	isFIFO(t, path)
	os.Remove(path)

	// An error half way: the FIFO stays, and the message does not claim
	// the partial output was removed.
	bad := bytes.Clone(packed)
	bad[len(bad)/2] ^= 1
	write(t, filepath.Join(dir, "bad.m2m"), bad)
	path, got = fifo(t, dir, "e.fifo")
	msg := fails(t, dir, exitError, nil, "-d", "-f", "-o", path, "bad.m2m")
	got()
	isFIFO(t, path)
	if strings.Contains(msg, "removed") {
		t.Errorf("error into a FIFO: %q", msg)
	}
	noTemporaries(t, dir)
}

// TestSymlinkOutput: -f replaces the regular file a link points to, and
// keeps the link; a dangling link is not replaced.
func TestSymlinkOutput(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.jsonl"), []byte("{}\n"))
	write(t, filepath.Join(dir, "target"), []byte("old"))
	os.Symlink("target", filepath.Join(dir, "link"))
	fails(t, dir, exitError, nil, "-q", "-o", "link", "a.jsonl")
	ok(t, dir, nil, "-q", "-f", "-o", "link", "a.jsonl")
	if st, err := os.Lstat(filepath.Join(dir, "link")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st.Mode(), err)
	}
	if r := ok(t, dir, nil, "-dc", "target"); r.stdout != "{}\n" {
		t.Errorf("the link's target holds %q", r.stdout)
	}
	os.Symlink("nowhere", filepath.Join(dir, "dangling"))
	fails(t, dir, exitError, nil, "-q", "-f", "-o", "dangling", "a.jsonl")
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); !os.IsNotExist(err) {
		t.Error("a dangling link was written through")
	}
	noTemporaries(t, dir)
}

// TestStaleTemporary: a temporary output left by a killed run is removed
// by the next run writing the same output; one a live run holds is not,
// and neither is any other file.
func TestStaleTemporary(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.jsonl"), []byte("{}\n"))
	stale := filepath.Join(dir, ".a.jsonl.m2m.123456.tmp")
	held := filepath.Join(dir, ".a.jsonl.m2m.654321.tmp")
	// Names that end as a temporary output does but do not start as
	// one: a user's own files.
	others := []string{".a.jsonl.m2m.12x.tmp", ".a.jsonl.m2m..tmp", ".b.jsonl.m2m.1.tmp", ".a.jsonl.m2m.1.tmp.d", "123456.tmp", "a.jsonl.m2m.7.tmp"}
	for _, p := range append([]string{stale, held}, others...) {
		write(t, filepath.Join(dir, filepath.Base(p)), []byte("x"))
	}
	os.Mkdir(filepath.Join(dir, ".a.jsonl.m2m.77.tmp"), 0o755)
	f, err := os.Open(held)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, nil, "-q", "a.jsonl")
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file is still there: %v", err)
	}
	for _, p := range append([]string{held, ".a.jsonl.m2m.77.tmp"}, others...) {
		if _, err := os.Lstat(filepath.Join(dir, filepath.Base(p))); err != nil {
			t.Errorf("%s was removed", filepath.Base(p))
		}
	}
}

// TestSignals: SIGINT, SIGHUP and SIGTERM stop a run writing a file: the
// temporary output is removed, the status is 128 + the signal. Writing to
// standard output (a redirect), the output cannot be removed, and the
// message says it is incomplete.
func TestSignals(t *testing.T) {
	for _, c := range []struct {
		sig    syscall.Signal
		stdout bool
	}{{syscall.SIGINT, false}, {syscall.SIGHUP, false}, {syscall.SIGTERM, false}, {syscall.SIGINT, true}} {
		dir := t.TempDir()
		args := []string{"-o", "out.m2m"}
		if c.stdout {
			args = []string{"-c"}
		}
		cmd := command(args...)
		cmd.Dir = dir
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		redirect, err := os.Create(filepath.Join(dir, "redirect"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout = redirect
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		in.Write(sample.JSONL())
		// Wait until the tool is under way.
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			tmp, _ := filepath.Glob(filepath.Join(dir, ".out.m2m.*.tmp"))
			st, _ := redirect.Stat()
			if len(tmp) > 0 || st.Size() > 0 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cmd.Process.Signal(c.sig)
		err = cmd.Wait()
		in.Close()
		redirect.Close()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 128+int(c.sig) {
			t.Fatalf("after %v: %v, want exit %d\n%s", c.sig, err, 128+int(c.sig), stderr.String())
		}
		msg := stderr.String()
		switch {
		case c.stdout && (strings.Contains(msg, "removed") || !strings.Contains(msg, "incomplete")):
			t.Errorf("%v writing stdout: %q", c.sig, msg)
		case !c.stdout && !strings.Contains(msg, "partial output removed"):
			t.Errorf("%v writing a file: %q", c.sig, msg)
		}
		if _, err := os.Stat(filepath.Join(dir, "out.m2m")); !os.IsNotExist(err) {
			t.Errorf("%v: output exists after the signal: %v", c.sig, err)
		}
		noTemporaries(t, dir)
	}
}

// TestRemoveOnlyRegular: --rm never removes an input that is not a regular
// file (zstd leaves it too).
func TestRemoveOnlyRegular(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err == nil {
			io.WriteString(f, "{}\n")
			f.Close()
		}
	}()
	ok(t, dir, nil, "-q", "--rm", "in.fifo")
	isFIFO(t, path)
	if r := ok(t, dir, nil, "-dc", "in.fifo.m2m"); r.stdout != "{}\n" {
		t.Errorf("compressed %q", r.stdout)
	}
}
