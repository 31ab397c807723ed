//go:build !purego

package zenc

// The match finder's prefetch hints (PRFM PLDL1KEEP), written by hand as
// arm64 assembly is here; amd64's are generated (_asm/main.go says why
// there are hints at all).

// prefetch2 asks for the cache lines at p and q: a row's tags and its
// positions.
//
//go:noescape
func prefetch2(p *byte, q *byte)

// prefetchAt asks for the cache lines at base+offs[i], i < n: a search's
// candidates.
//
//go:noescape
func prefetchAt(base *byte, offs *int32, n int)
