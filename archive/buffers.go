package archive

import (
	"math/bits"
	"sync"

	"github.com/m2m-go/m2m/internal/huge"
)

// Buffers of the writer's batches, frames and blocks, a few MiB each, are
// recycled, and advised to huge pages when made: fresh ones cost page
// faults, and the system time they take matched the user time of a run.
// They are pooled by size class, four a doubling (sizes 1, 1.25, 1.5 and
// 1.75 times a power of two), so that a buffer is made a quarter larger
// at most than asked for, and a small one in the pool is not taken, and
// dropped, where a larger one was asked for: with one pool, a writer of
// one record made some 11 MB of frame buffers anew (BenchmarkWriter).
// Classes stop where a size no longer fits an int (at 2^31 on 32-bit
// hosts).
var bufs [4 * min(48, bits.UintSize-1)]sync.Pool // *[]byte, by class

// minBuf is the least size a buffer is made with, and pooled from.
const minBuf = 64 << 10

// bufClass returns the smallest class whose buffers hold n bytes.
func bufClass(n int) int {
	n = max(n, minBuf)
	k := bits.Len(uint(n-1)) - 1 // 2^k < n <= 2^(k+1)
	return 4*k + (n-1-1<<k)/(1<<k>>2) + 1
}

// classSize is the size of class c's buffers, for the classes of bufs
// from minBuf's on (a quarter of the power of two is taken before it is
// scaled, so that no class of bufs overflows).
func classSize(c int) int { return 1 << (c / 4) >> 2 * (4 + c%4) }

// getBuf returns an empty buffer with room for n bytes: one of its class,
// or of the next three (up to twice n), else a new one of its class's
// size.
func getBuf(n int) []byte {
	c := bufClass(n)
	if c >= len(bufs) {
		return huge.Bytes(n)
	}
	for i := c; i < min(c+4, len(bufs)); i++ {
		if p, ok := bufs[i].Get().(*[]byte); ok {
			return (*p)[:0]
		}
	}
	return huge.Bytes(classSize(c))
}

// putBuf gives b back for reuse, in the largest class it holds; nothing
// may use it after.
func putBuf(b []byte) {
	if cap(b) < minBuf {
		return
	}
	c := bufClass(cap(b))
	if classSize(c) > cap(b) {
		c--
	}
	if c < len(bufs) {
		b = b[:0]
		bufs[c].Put(&b)
	}
}

var batches = sync.Pool{New: func() any { return new(batch) }}

func getBatch(n int) *batch {
	b := batches.Get().(*batch)
	if cap(b.buf) < n {
		b.buf = huge.Bytes(n)
	}
	b.buf, b.recs = b.buf[:0], b.recs[:0]
	return b
}

func putBatch(b *batch) { batches.Put(b) }
