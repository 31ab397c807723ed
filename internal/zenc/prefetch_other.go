//go:build !(amd64 || arm64) || purego

package zenc

// Without assembly the match finder's hints are not given: they change
// only when memory is read, not what is.

func prefetch2(p, q *byte) {}

func prefetchAt(base *byte, offs *int32, n int) {}
