package huge

import "testing"

func TestBytes(t *testing.T) {
	for _, n := range []int{0, 1, Min - 1, Min, 3*Min + 17} {
		b := Bytes(n)
		if len(b) != 0 || cap(b) < n || n < Min && cap(b) != n {
			t.Fatalf("Bytes(%d): len %d cap %d", n, len(b), cap(b))
		}
		b = b[:n]
		for i := range b {
			b[i] = byte(i)
		}
		for i := range b {
			if b[i] != byte(i) {
				t.Fatalf("Bytes(%d)[%d] = %d", n, i, b[i])
			}
		}
	}
}

// Advise takes any slice: empty, small, not page-aligned, of wider
// elements.
func TestAdviseShapes(t *testing.T) {
	Advise([]byte(nil))
	Advise(make([]byte, 0, 100))
	b := make([]byte, 3*Min)
	Advise(b[1:])
	Advise(b[Min-1 : Min+1 : 2*Min])
	w := make([]uint32, Min/2)
	Advise(w)
	w[len(w)-1] = 7
	if w[len(w)-1] != 7 || b[len(b)-1] != 0 {
		t.Fatal("advised memory changed")
	}
}
