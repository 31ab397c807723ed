// Package huge asks the operating system to back large buffers with huge
// pages.
//
// A buffer of a few MiB filled once (a decoded frame, a batch of input)
// costs a page fault every 4 KiB the first time it is touched: on the
// machines we measure, the faults of a fresh process archiving 100 MiB
// took as long as a core's share of the work. Linux, where transparent
// huge pages are commonly enabled only for memory that asks for them,
// then backs each 2 MiB of the buffer with one fault. The advice is only
// that: where it is not taken, or on other systems, nothing changes.
package huge

import "unsafe"

// Min is the smallest buffer worth advising: smaller ones rarely hold an
// aligned huge page.
const Min = 2 << 20

// Advise asks for huge pages behind s's capacity, if it spans at least
// Min bytes. Call it before the memory is first written: pages already
// touched stay as they are.
func Advise[T any](s []T) {
	n := uintptr(cap(s)) * unsafe.Sizeof(*new(T))
	if n < Min {
		return
	}
	advise(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), n))
}

// Bytes returns an empty buffer with room for n bytes, advised if it is
// large.
func Bytes(n int) []byte {
	b := make([]byte, 0, n)
	Advise(b)
	return b
}
