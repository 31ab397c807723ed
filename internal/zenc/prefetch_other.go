//go:build !(amd64 || arm64) || purego

package zenc

import "unsafe"

// prefetch does nothing where there is no assembly for it: it only
// changes when memory is read.
func prefetch(p unsafe.Pointer) {}
