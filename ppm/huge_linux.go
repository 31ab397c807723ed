package ppm

import (
	"os"
	"syscall"
	"unsafe"
)

// adviseHuge asks Linux to back the model's arena with huge pages: the
// model reads it at random, and with 4 KiB pages nearly every context or
// state it touches misses the TLB. Advice only: an error changes nothing.
func adviseHuge(mem []uint32) {
	if len(mem) == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&mem[0])), len(mem)*4)
	page := uintptr(os.Getpagesize())
	skip := int((page - uintptr(unsafe.Pointer(&b[0]))%page) % page)
	if skip < len(b) {
		syscall.Madvise(b[skip:], syscall.MADV_HUGEPAGE)
	}
}
