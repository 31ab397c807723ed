package archive

import "testing"

// TestBufClasses: a class's buffers hold what it is asked for and at most
// a quarter more (but the least size); classes grow with their sizes; a
// buffer given back is taken again for a size its class holds, and for
// none larger than it.
func TestBufClasses(t *testing.T) {
	last := 0
	for c := bufClass(minBuf); c < len(bufs); c++ {
		if size := classSize(c); size <= last || bufClass(size) != c {
			t.Fatalf("class %d: size %d after %d, class of its size %d", c, size, last, bufClass(classSize(c)))
		}
		last = classSize(c)
	}
	for _, n := range []int{0, 1, minBuf - 1, minBuf, minBuf + 1, 100_000, 1 << 20, 1<<20 + 1, 5 << 20, 4<<20 + 4<<18, 1<<30 - 3} {
		size := classSize(bufClass(n))
		if size < n || n > minBuf && size > n+n/4 {
			t.Errorf("%d bytes asked: class size %d", n, size)
		}
	}
	b := getBuf(3 << 20)
	if cap(b) < 3<<20 || len(b) != 0 {
		t.Fatalf("cap %d, len %d", cap(b), len(b))
	}
	putBuf(b[:10])
	if got := getBuf(cap(b) + 1); cap(got) < cap(b)+1 {
		t.Fatalf("a buffer of %d bytes taken for %d", cap(got), cap(b)+1)
	}
	// sync.Pool may drop what it is given at any time (a collection, or
	// under the race detector by design): taken again is all it asks.
	for range 100 {
		putBuf(b)
		if got := getBuf(cap(b) - 1); &got[:1][0] == &b[:1][0] {
			return
		}
	}
	t.Error("a buffer given back was never taken again")
}
