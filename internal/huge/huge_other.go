//go:build !linux

package huge

import "errors"

// advise does nothing but on Linux.
func advise([]byte) {}

// advised reports whether Bytes aligns large buffers for advise.
const advised = false

// mapFresh is not used where advise does nothing (Alloc makes memory).
func mapFresh(int) ([]byte, error) { return nil, errNotMapped }

func unmap([]byte) {}

var errNotMapped = errors.New("huge: no mapping on this system")
