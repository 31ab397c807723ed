//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
)

// lockTemp holds an exclusive lock on a temporary output for as long as
// the file is open, which is as long as the run that writes it lives: a
// temporary file nobody holds locked was left by a run that was killed.
func lockTemp(f *os.File) {
	syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// removeStale removes the temporary outputs of base in dir that a killed
// run left behind (kill -9, a crash, a power cut): regular files named as
// tempPattern names them that no running m2m-batch holds locked. Anything
// else is left alone.
func removeStale(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !isTempName(e.Name(), base) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			// Nobody holds it: remove it, if the name is still this file.
			st, err1 := f.Stat()
			lst, err2 := os.Lstat(path)
			if err1 == nil && err2 == nil && os.SameFile(st, lst) {
				os.Remove(path)
			}
		}
		f.Close()
	}
}
