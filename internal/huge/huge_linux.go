package huge

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// advise applies MADV_HUGEPAGE to the whole pages of b. Errors (a kernel
// without transparent huge pages) change nothing.
func advise(b []byte) {
	page := uintptr(os.Getpagesize())
	skip := int((page - uintptr(unsafe.Pointer(&b[0]))%page) % page)
	if skip < len(b) {
		syscall.Madvise(b[skip:], syscall.MADV_HUGEPAGE)
	}
}

// advised reports whether Bytes aligns large buffers for advise: on 64-bit
// Linux, not where address space is scarce.
const advised = ^uintptr(0)>>32 != 0

// mapFresh maps n bytes of zeros, private to the process, from a huge
// page's boundary (only whole, aligned huge pages can back memory),
// advised huge pages. (x/sys/unix's pointer forms: syscall.Mmap keeps a
// registry of whole mappings, and refuses to unmap a part of one.)
func mapFresh(n int) ([]byte, error) {
	p, err := unix.MmapPtr(-1, 0, nil, uintptr(n+Size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, err
	}
	skip := (Size - uintptr(p)%Size) % Size
	if skip > 0 {
		unix.MunmapPtr(p, skip)
	}
	if tail := Size - skip; tail > 0 {
		unix.MunmapPtr(unsafe.Add(p, skip+uintptr(n)), tail)
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, skip)), n)
	unix.Madvise(b, unix.MADV_HUGEPAGE)
	return b, nil
}

// unmap gives back what mapFresh mapped.
func unmap(b []byte) { unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b))) }
