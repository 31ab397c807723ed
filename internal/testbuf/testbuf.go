// Package testbuf gives tests buffers that sit next to inaccessible memory,
// so that a kernel reading or writing one byte outside its slice faults
// instead of passing by luck (the segmentio/asm guard-page technique).
package testbuf

// Tail returns a zeroed slice of n bytes whose last byte is immediately
// followed by an inaccessible page, and a function that frees it. On
// systems without guard pages it returns an ordinary slice and ok is false.
func Tail(n int) (b []byte, free func(), ok bool) { return guarded(n, true) }

// Head returns a zeroed slice of n bytes whose first byte immediately
// follows an inaccessible page; see Tail.
func Head(n int) (b []byte, free func(), ok bool) { return guarded(n, false) }
