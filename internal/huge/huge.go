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

import (
	"runtime/metrics"
	"unsafe"
)

// Size is the huge page size advice asks for (x86-64's, and arm64's with
// 4 KiB pages).
const Size = 2 << 20

// Min is the smallest fresh buffer Bytes gives huge pages: a fault on a huge page
// zeroes all 2 MiB of it (~0.1 ms here), as long as ~70 faults of 4 KiB
// pages take on the virtual machines we measure (~1.5 µs each), so a
// buffer of half a huge page is cheaper in one, even if partly used.
const Min = 1 << 20

// Advise asks for huge pages behind s's capacity, if it spans a huge page
// or more. Call it before the memory is first written: pages already
// touched stay as they are. Only whole huge pages of s, aligned, can be
// given: Bytes makes buffers that are. (Advising smaller buffers gains
// nothing, and costs: memory the heap reuses after giving it back to the
// system comes back as huge pages, each zeroed whole; advising those of 1
// MiB made a Reader's decoding of dev100 in a loop 6% slower.)
func Advise[T any](s []T) {
	n := uintptr(cap(s)) * unsafe.Sizeof(*new(T))
	if n < Size {
		return
	}
	advise(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), n))
}

// Bytes returns an empty buffer with room for at least n bytes. Where
// advice is taken, and the heap has no n bytes free that the system still
// backs (so that the buffer is fresh memory, which faults), a buffer of Min
// bytes or more is whole huge pages, aligned and advised; another is
// advised if it spans a huge page (see Advise). Aligned because the heap
// places a large buffer on its own pages of 8 KiB, so that a buffer of 4
// MiB held one aligned huge page and took the other 2 MiB in faults of 4
// KiB (a fresh process reading one record of a GiB archive took 2 thousand
// such faults, half its faults). It costs address space, up to 2 huge
// pages a buffer, and memory past n up to the end of the last huge page
// once any of it is touched. Memory the heap reuses has no faults to save,
// and a larger buffer would cost its zeroing: a Reader's random reads of
// one record after another took 10% longer so.
func Bytes(n int) []byte {
	if n < Min || !advised || resident(n) {
		b := make([]byte, 0, n)
		Advise(b)
		return b
	}
	return aligned(n)
}

// aligned returns an empty buffer of whole huge pages, aligned, with room
// for at least n bytes, advised.
func aligned(n int) []byte {
	m := (n + Size - 1) / Size * Size
	b := make([]byte, 0, m+Size)
	off := int((Size - uintptr(unsafe.Pointer(unsafe.SliceData(b)))%Size) % Size)
	b = b[off : off : off+m]
	Advise(b)
	return b
}

// heapFree is the metric of the heap's memory that is free and still
// backed by the system: pages that have been touched.
const heapFree = "/memory/classes/heap/free:bytes"

// resident reports whether the heap has n bytes free that the system
// still backs, which an allocation of n is likely to take: those pages
// fault no more, and a buffer larger than n (aligned) would only cost
// the zeroing a reused span gets. A process reading records from an
// archive one after another settles there; a fresh one does not.
func resident(n int) bool {
	s := []metrics.Sample{{Name: heapFree}}
	metrics.Read(s)
	return s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() >= uint64(n)
}
