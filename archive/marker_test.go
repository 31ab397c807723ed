package archive

import (
	"bytes"
	"testing"
)

// indexMarkerRef is indexMarker's specification.
func indexMarkerRef(p []byte) int {
	for i, c := range p {
		if c <= maxMarker {
			return i
		}
	}
	return len(p)
}

func FuzzIndexMarker(f *testing.F) {
	f.Add([]byte("hello, world: a long enough text"))
	f.Add([]byte("\x03\x03\x03\x03\x03\x03\x03\x02\x01"))
	f.Add([]byte("\xff\x80\x83\x82\x81\x80\x03\x04\x00"))
	f.Add(bytes.Repeat([]byte{0x83}, 20))
	f.Fuzz(func(t *testing.T, p []byte) {
		if got, want := indexMarker(p), indexMarkerRef(p); got != want {
			t.Fatalf("indexMarker(% x) = %d, want %d", p, got, want)
		}
	})
}

func TestIndexMarker(t *testing.T) {
	for n := range 40 {
		for at := range n {
			for _, c := range []byte{0, 1, 2} {
				for _, fill := range []byte{3, 0x80, 0x83, 0xff, 'a'} {
					p := bytes.Repeat([]byte{fill}, n)
					p[at] = c
					if got := indexMarker(p); got != at {
						t.Fatalf("indexMarker(% x) = %d, want %d", p, got, at)
					}
				}
			}
		}
	}
}
