package varint

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/m2m-go/m2m/internal/cpu"
	"github.com/m2m-go/m2m/internal/cpu/cputest"
)

// eachKernel runs f with every kernel available here selected in turn.
func eachKernel(t *testing.T, f func()) {
	t.Cleanup(func() { cpu.Reset("varint") })
	for _, name := range cputest.Kernels("varint") {
		if err := cpu.Select("varint", name); err != nil {
			t.Fatal(err)
		}
		f()
	}
}

func addSeeds(f *testing.F) {
	for _, ka := range knownAnswers {
		f.Add(ka.enc)
	}
	f.Add([]byte{0x80, 0x00})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x10})
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
	r := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{16, 70, 200} {
		f.Add(AppendUvarints(nil, values(r, n, 1, 2, 3, 4, 5)))
		f.Add(AppendUvarints(nil, values(r, n, 2, 3)))
	}
}

// FuzzDecode holds every kernel to the reference decoder, value for value
// and error for error, at every room size that matters; a stream that
// decodes must re-encode to itself, since only canonical forms decode.
func FuzzDecode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		eachKernel(t, func() { checkDecode(t, src) })
		if v, err := decodeRef(src); err == nil {
			if enc := AppendUvarints(nil, v); !slices.Equal(enc, src) {
				t.Fatalf("decoded % x to %v, which encodes to % x", src, v, enc)
			}
		}
	})
}

// FuzzEncode holds every kernel's encoder to AppendUvarint, on values of
// every length made from the input, and decodes the result back.
func FuzzEncode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var v []uint32
		for ; len(data) >= 5; data = data[5:] {
			v = append(v, binary.LittleEndian.Uint32(data)>>(data[4]&31))
		}
		eachKernel(t, func() {
			checkEncode(t, v)
			got, err := DecodeUvarints(nil, AppendUvarints(nil, v))
			if err != nil || !slices.Equal(got, v) {
				t.Fatalf("round trip of %v: %v, %v", v, got, err)
			}
		})
	})
}

// FuzzUvarint64 holds Uvarint64 to encoding/binary on every input: where
// binary.Uvarint reads a value, Uvarint64 reads the same one unless the
// encoding is overlong, and what it reads re-encodes to itself.
func FuzzUvarint64(f *testing.F) {
	addSeeds(f)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00})
	f.Fuzz(func(t *testing.T, src []byte) {
		x, n, err := Uvarint64(src)
		want, wn := binary.Uvarint(src)
		switch {
		case err == nil:
			if x != want || n != wn {
				t.Fatalf("Uvarint64(% x) = %d, %d; binary.Uvarint: %d, %d", src, x, n, want, wn)
			}
			if enc := AppendUvarint64(nil, x); !slices.Equal(enc, src[:n]) {
				t.Fatalf("Uvarint64(% x) = %d, which encodes to % x", src, x, enc)
			}
		case wn > 0:
			// binary reads it: it must be overlong.
			if err != ErrNonCanonical || len(binary.AppendUvarint(nil, want)) == wn {
				t.Fatalf("Uvarint64(% x): %v; binary.Uvarint reads %d in %d bytes", src, err, want, wn)
			}
		case wn == 0 && err != ErrTruncated && (err != ErrOverflow64 || len(src) < MaxLen64 || src[MaxLen64-1] <= 1):
			// binary.Uvarint reads on to the end of src; Uvarint64 stops at
			// a tenth byte that cannot end a uint64.
			t.Fatalf("Uvarint64(% x): %v, want ErrTruncated", src, err)
		case wn < 0 && err != ErrOverflow64 && err != ErrNonCanonical:
			t.Fatalf("Uvarint64(% x): %v, want ErrOverflow64", src, err)
		}
	})
}
