//go:build !linux

package huge

// advise does nothing but on Linux.
func advise([]byte) {}

// advised reports whether Bytes aligns large buffers for advise.
const advised = false
