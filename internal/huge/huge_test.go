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

func TestTouch(t *testing.T) {
	type wide [5000]byte
	type slot [2]uint64
	if s := Touch(make([]slot, 10000)); len(s) != 10000 || s[0] != (slot{}) || s[9999] != (slot{}) {
		t.Errorf("Touch changed a fresh slice of slots")
	}
	w := Touch(make([]wide, 3))
	for i := range w {
		if w[i] != (wide{}) {
			t.Errorf("Touch changed element %d of a slice of 5000-byte elements", i)
		}
	}
	if s := Touch(make([]struct{}, 5)); len(s) != 5 {
		t.Errorf("Touch of zero-size elements: len %d", len(s))
	}
	if s := Touch[byte](nil); s != nil {
		t.Errorf("Touch(nil) = %v", s)
	}
}

// AppendCopy appends, whatever room dst has and wherever the memory
// comes from.
func TestAppendCopy(t *testing.T) {
	src := make([]byte, 3*Min+5)
	for i := range src {
		src[i] = byte(i * 7)
	}
	for _, dst := range [][]byte{nil, []byte("head"), make([]byte, 3, 3+len(src)), make([]byte, Min, Min+1)} {
		head := append([]byte(nil), dst...)
		for _, part := range [][]byte{nil, src[:10], src[:Min], src} {
			got := AppendCopy(dst[:len(dst):len(dst)], part)
			if string(got[:len(head)]) != string(head) || string(got[len(head):]) != string(part) {
				t.Fatalf("AppendCopy(%d bytes, %d bytes): wrong bytes", len(head), len(part))
			}
		}
		if got := AppendCopy(dst, src[:2]); cap(dst)-len(dst) >= 2 && &got[0] != &dst[:1][0] {
			t.Fatalf("AppendCopy moved a dst with room")
		}
	}
}

// TestAlloc: Alloc gives n zero elements, small or large, each its own,
// writable until freed; again after a free, zeros again.
func TestAlloc(t *testing.T) {
	for range 2 {
		for _, n := range []int{0, 1, Min/4 - 1, Min / 4, 3*Min + 17} {
			s, free := Alloc[uint32](n)
			if len(s) != n {
				t.Fatalf("Alloc(%d): %d elements", n, len(s))
			}
			for i := range s {
				if s[i] != 0 {
					t.Fatalf("Alloc(%d)[%d] = %d, not zero", n, i, s[i])
				}
				s[i] = uint32(i) * 7
			}
			for i := range s {
				if s[i] != uint32(i)*7 {
					t.Fatalf("Alloc(%d)[%d] = %d", n, i, s[i])
				}
			}
			free()
		}
	}
}
