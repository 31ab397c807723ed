//go:build unix

package testbuf

import (
	"os"

	"golang.org/x/sys/unix"
)

func guarded(n int, tail bool) ([]byte, func(), bool) {
	page := os.Getpagesize()
	data := (n + page - 1) / page * page
	mem, err := unix.Mmap(-1, 0, data+page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n), func() {}, false
	}
	free := func() { _ = unix.Munmap(mem) }
	if tail {
		if unix.Mprotect(mem[data:], unix.PROT_NONE) != nil {
			free()
			return make([]byte, n), func() {}, false
		}
		return mem[data-n : data : data], free, true
	}
	if unix.Mprotect(mem[:page], unix.PROT_NONE) != nil {
		free()
		return make([]byte, n), func() {}, false
	}
	return mem[page : page+n : page+n], free, true
}
