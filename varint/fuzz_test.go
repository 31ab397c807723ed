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
