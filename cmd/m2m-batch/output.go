package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// An output is where the result of one input goes: standard output, an
// existing device or FIFO written in place, or a temporary file that
// commit renames over the output's name (a new path, or a regular file
// replaced with -f). Only regular files we created are ever renamed,
// chmodded or removed: a device such as /dev/null is written, never
// replaced.
type output struct {
	w io.Writer
	// name is the output as the user sees it ("" for standard output).
	name string
	// tmp, when not nil, is our temporary file, renamed to path on commit.
	tmp   *os.File
	path  string
	perm  os.FileMode
	force bool
	// inPlace, when not nil, is an existing non-regular file written as
	// it is.
	inPlace *os.File
}

// tempPattern is the name of a temporary output next to base: hidden, and
// ending in digits and ".tmp", so that removeStale knows its own.
func tempPattern(base string) string { return "." + base + ".*.tmp" }

// openOutput prepares the output outName ("" is standard output) for the
// result of inName ("-" is standard input). An existing regular file is
// replaced only with force; an existing device, FIFO or socket is written
// in place, without -f, as zstd does; a symbolic link is followed, so the
// file it points to is the one replaced.
func openOutput(inName, outName string, force bool, stdout io.Writer) (*output, error) {
	if outName == "" {
		return &output{w: stdout}, nil
	}
	if inName != "-" && sameFile(inName, outName) {
		return nil, fmt.Errorf("%s is the input itself", outName)
	}
	o := &output{name: outName, path: outName, perm: 0o644, force: force}
	if inName != "-" {
		if st, err := os.Stat(inName); err == nil && st.Mode().IsRegular() {
			o.perm = st.Mode().Perm()
		}
	}
	st, err := os.Stat(outName)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if _, lerr := os.Lstat(outName); lerr == nil {
			return nil, fmt.Errorf("%s is a symbolic link to nothing; not replaced", outName)
		}
	case err != nil:
		return nil, err
	case st.IsDir():
		return nil, fmt.Errorf("%s is a directory", outName)
	case !st.Mode().IsRegular():
		f, err := os.OpenFile(outName, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		o.inPlace, o.w = f, f
		return o, nil
	case !force:
		return nil, fmt.Errorf("%s already exists; not overwritten (use -f)", outName)
	default:
		if o.path, err = filepath.EvalSymlinks(outName); err != nil {
			return nil, err
		}
	}
	dir, base := filepath.Split(o.path)
	if dir == "" {
		dir = "."
	}
	removeStale(dir, base)
	if o.tmp, err = os.CreateTemp(dir, tempPattern(base)); err != nil {
		return nil, err
	}
	lockTemp(o.tmp)
	o.w = o.tmp
	return o, nil
}

// commit finishes the output: a temporary file gets its permissions and
// its name.
func (o *output) commit() error {
	switch {
	case o.inPlace != nil:
		return o.inPlace.Close()
	case o.tmp == nil:
		return nil
	}
	tmp := o.tmp
	o.tmp = nil
	err := tmp.Chmod(o.perm)
	if err == nil {
		err = o.checkTarget()
	}
	if err == nil && runtime.GOOS != "windows" {
		// Renamed while still open, so it stays locked against removeStale
		// until it has its name.
		err = os.Rename(tmp.Name(), o.path)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil && runtime.GOOS == "windows" {
		err = os.Rename(tmp.Name(), o.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// checkTarget makes sure the rename will not replace anything it may not:
// the output path must still be new, or (with -f) a regular file.
func (o *output) checkTarget() error {
	st, err := os.Lstat(o.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s appeared meanwhile and is not a regular file; not replaced", o.path)
	case !o.force:
		return fmt.Errorf("%s appeared meanwhile; not overwritten (use -f)", o.path)
	}
	return nil
}

// abort gives up the output after an error or an interrupt. A temporary
// file is removed; what was written to standard output or a device stays,
// and abort says so.
func (o *output) abort() (left string) {
	switch {
	case o.tmp != nil:
		o.tmp.Close()
		os.Remove(o.tmp.Name())
		o.tmp = nil
		return "partial output removed"
	case o.inPlace != nil:
		o.inPlace.Close()
		return "the output written to " + o.name + " so far is incomplete"
	}
	return "the output written so far is incomplete"
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

// isTempName reports whether name is a temporary output of base's, as
// os.CreateTemp makes them from tempPattern: the random part is digits.
func isTempName(name, base string) bool {
	prefix, suffix, _ := strings.Cut(tempPattern(base), "*")
	mid, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	if mid, ok = strings.CutSuffix(mid, suffix); !ok || mid == "" {
		return false
	}
	for _, c := range mid {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
