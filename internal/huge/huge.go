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

// Min is the smallest fresh slice Slice gives huge pages: a fault on a
// huge page zeroes all 2 MiB of it (~0.1 ms here), as long as ~70 faults
// of 4 KiB pages take on the virtual machines we measure (~1.5 µs each),
// so a buffer of half a huge page is cheaper in one, even if partly used.
const Min = 1 << 20

// Advise asks for huge pages behind s's capacity, if it spans a huge page
// or more. Call it before the memory is first written: pages already
// touched stay as they are. Only whole huge pages of s, aligned, can be
// given: Slice makes slices that are. (Advising smaller buffers gains
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

// Bytes returns an empty buffer with room for at least n bytes, in memory
// given huge pages as Slice gives them.
func Bytes(n int) []byte { return Slice[byte](n)[:0] }

// Fresh reports whether Bytes(n) would most likely be memory fresh from
// the system (the heap has not n bytes free that the system still backs,
// as Slice asks): only then does touching it ahead of its use (as a buffer
// made ready while other work goes on) take faults off the path of that
// use. Memory the heap reuses has no faults to take, and is zeroed when
// made: made ahead, it costs that zeroing for nothing where the use would
// have written it anyway (AppendCopy).
func Fresh(n int) bool { return n >= Min && !resident(n) }

// AppendCopy appends src to dst, as append does, growing dst where it
// lacks room into memory as Bytes gives it, but for memory the heap
// reuses: there append's own growth takes it, which, unlike make, does not
// zero what the copy then writes (a Reader's random reads of one record
// copy ~2 MiB of a decoded frame out each).
func AppendCopy(dst, src []byte) []byte {
	n := len(dst) + len(src)
	if cap(dst) >= n || !Fresh(n) {
		return append(dst, src...)
	}
	return append(append(Bytes(n), dst...), src...)
}

// Slice returns n zero Ts. Where advice is taken, and the heap has no room
// for them free that the system still backs (so that the memory is fresh,
// which faults), a slice of Min bytes or more is whole huge pages, aligned
// and advised; another is advised if it spans a huge page (see Advise).
// Aligned because the heap places a large buffer on its own pages of 8
// KiB, so that a buffer of 4 MiB held one aligned huge page and took the
// other 2 MiB in faults of 4 KiB (a fresh process reading one record of a
// GiB archive took 2 thousand such faults, half its faults). It costs
// address space, up to 2 huge pages a slice, and memory up to the end of
// the last huge page once any of it is touched: its capacity reaches
// there. Memory the heap reuses has no faults to save, and a larger buffer
// would cost its zeroing: a Reader's random reads of one record after
// another took 10% longer so.
func Slice[T any](n int) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if size == 0 || n*size < Min || !advised || resident(n*size) {
		s := make([]T, n)
		Advise(s)
		return s
	}
	return aligned[T](n, size)
}

// aligned returns n zero Ts of size bytes each, the first at most size-1
// bytes past a huge page's boundary, and the whole huge pages from there
// that hold them advised.
func aligned[T any](n, size int) []T {
	m := (n*size + Size - 1) / Size * Size
	s := make([]T, (m+Size)/size+1)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	off := (int((Size-start%Size)%Size) + size - 1) / size
	s = s[off : off+n : off+m/size]
	// From the boundary at or before s[0]: memory of the same allocation.
	skip := int((start + uintptr(off*size)) % Size)
	advise(unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s)), -skip)), m))
	return s
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

// Touch writes the zero value over an element in every 4 KiB page of s,
// which must be all zero values (fresh from make or Slice), and returns
// s. Call it on a table that is read before it is written, as a hash
// table's probes read a slot before filling it: a fresh page read first
// maps the system's zero page, and its first write then faults again and
// flushes the TLB of every core the process runs on (a word table's index
// so cost a fresh process reading one record ~1 ms: bench/README.md).
func Touch[T any](s []T) []T {
	size := unsafe.Sizeof(*new(T))
	if size == 0 {
		return s
	}
	step := max(int(4096/size), 1)
	var zero T
	for i := 0; i < len(s); i += step {
		s[i] = zero
	}
	return s
}

// Alloc returns n zero Ts in memory of their own, and the function that
// gives it back, after which s must not be used. T must hold no pointers:
// the collector does not see this memory. Where advice is taken (64-bit
// Linux) and s spans Min bytes or more, the memory is mapped fresh from
// the system, advised huge pages before anything touches it, and given
// back to the system by free at once; elsewhere it is make's, and free
// does nothing. For a large buffer made and dropped again and again, as
// ppm's models are (up to 384 MiB each, a frame): the heap hands the next
// one the memory of the last, zeroed first at every page, those it had
// given back to the system faulting in again 4 KiB at a time (52 of the
// 77 thousand faults of an `m2m-batch --max -T2` of dev.jsonl), where
// fresh memory faults only where the model grows, a huge page at a time
// (bench/README.md, "Model memory mapped fresh").
func Alloc[T any](n int) (s []T, free func()) {
	size := int(unsafe.Sizeof(*new(T)))
	if size == 0 || n*size < Min || !advised {
		return make([]T, n), func() {}
	}
	b, err := mapFresh(n * size)
	if err != nil {
		return make([]T, n), func() {}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n), func() { unmap(b) }
}
