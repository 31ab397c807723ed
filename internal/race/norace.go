//go:build !race

// Package race tells the race detector about memory that assembly reads and
// writes, since it cannot see inside assembly. Without -race it compiles to
// nothing.
package race

// Enabled reports whether the race detector is on.
const Enabled = false

// ReadSlice reports a read of all of s.
func ReadSlice[T any](s []T) {}

// WriteSlice reports a write of all of s.
func WriteSlice[T any](s []T) {}
