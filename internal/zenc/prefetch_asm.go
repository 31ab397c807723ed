//go:build (amd64 || arm64) && !purego

package zenc

import "unsafe"

// prefetch asks the processor to bring the cache line at p in, and
// returns at once: the match finder's reads are misses of the cache, at
// random, which prefetched a search ahead overlap the work between.
//
//go:noescape
func prefetch(p unsafe.Pointer)
