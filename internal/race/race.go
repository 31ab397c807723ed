//go:build race

// Package race tells the race detector about memory that assembly reads and
// writes, since it cannot see inside assembly. Without -race it compiles to
// nothing.
package race

import (
	"runtime"
	"unsafe"
)

// Enabled reports whether the race detector is on.
const Enabled = true

// ReadSlice reports a read of all of s.
func ReadSlice[T any](s []T) {
	if len(s) > 0 {
		runtime.RaceReadRange(unsafe.Pointer(unsafe.SliceData(s)), len(s)*int(unsafe.Sizeof(s[0])))
	}
}

// WriteSlice reports a write of all of s.
func WriteSlice[T any](s []T) {
	if len(s) > 0 {
		runtime.RaceWriteRange(unsafe.Pointer(unsafe.SliceData(s)), len(s)*int(unsafe.Sizeof(s[0])))
	}
}
