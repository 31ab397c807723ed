package archive

import (
	"sync"

	"github.com/m2m-go/m2m/internal/huge"
)

// Buffers of the writer's batches, frames and blocks, a few MiB each, are
// recycled, and advised to huge pages when made: fresh ones cost page
// faults, and the system time they take matched the user time of a run.
var bufs sync.Pool // *[]byte

// getBuf returns an empty buffer with room for n bytes.
func getBuf(n int) []byte {
	if p, ok := bufs.Get().(*[]byte); ok && cap(*p) >= n {
		return (*p)[:0]
	}
	return huge.Bytes(n)
}

// putBuf gives b back for reuse; nothing may use it after.
func putBuf(b []byte) {
	if cap(b) >= 64<<10 {
		b = b[:0]
		bufs.Put(&b)
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
