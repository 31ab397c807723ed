package huge

import (
	"os"
	"syscall"
	"unsafe"
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
