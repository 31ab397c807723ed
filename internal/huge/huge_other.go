//go:build !linux

package huge

// advise does nothing but on Linux.
func advise([]byte) {}
