package varint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/m2m-go/m2m/internal/cpu/cputest"
	"github.com/m2m-go/m2m/internal/testbuf"
)

// The protocol's pinned vectors (docs/protocol.md §3.6) and the
// edges of every encoded length.
var knownAnswers = []struct {
	x   uint32
	enc []byte
}{
	{0, []byte{0x00}},
	{1, []byte{0x01}},
	{127, []byte{0x7f}},
	{128, []byte{0x80, 0x01}},
	{255, []byte{0xff, 0x01}},
	{256, []byte{0x80, 0x02}},
	{300, []byte{0xac, 0x02}},
	{16383, []byte{0xff, 0x7f}},
	{16384, []byte{0x80, 0x80, 0x01}},
	{100000, []byte{0xa0, 0x8d, 0x06}},
	{2097151, []byte{0xff, 0xff, 0x7f}},
	{2097152, []byte{0x80, 0x80, 0x80, 0x01}},
	{1<<28 - 1, []byte{0xff, 0xff, 0xff, 0x7f}},
	{1 << 28, []byte{0x80, 0x80, 0x80, 0x80, 0x01}},
	{math.MaxUint32, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
}

func TestKnownAnswers(t *testing.T) {
	for _, ka := range knownAnswers {
		if got := AppendUvarint(nil, ka.x); !slices.Equal(got, ka.enc) {
			t.Errorf("AppendUvarint(%d) = % x, want % x", ka.x, got, ka.enc)
		}
		if got := Len(ka.x); got != len(ka.enc) {
			t.Errorf("Len(%d) = %d, want %d", ka.x, got, len(ka.enc))
		}
		x, n, err := Uvarint(append(slices.Clone(ka.enc), 0xff))
		if x != ka.x || n != len(ka.enc) || err != nil {
			t.Errorf("Uvarint(% x ff) = %d, %d, %v; want %d, %d, nil", ka.enc, x, n, err, ka.x, len(ka.enc))
		}
	}
}

// TestPolicy pins the decoding policy of doc.go, input by input.
func TestPolicy(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want error
	}{
		{nil, ErrTruncated},
		{[]byte{0x80}, ErrTruncated},
		{[]byte{0xff, 0xff, 0xff, 0xff}, ErrTruncated},
		{[]byte{0x80, 0x00}, ErrNonCanonical},
		{[]byte{0xff, 0x00}, ErrNonCanonical},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x00}, ErrNonCanonical},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x10}, ErrOverflow},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x7f}, ErrOverflow},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80}, ErrOverflow},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, ErrOverflow},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, ErrOverflow},
	} {
		if _, _, err := Uvarint(tc.in); err != tc.want {
			t.Errorf("Uvarint(% x) error = %v, want %v", tc.in, err, tc.want)
		}
		if len(tc.in) == 0 {
			continue // an empty batch is valid
		}
		// In a batch the same error is reported at the varint's offset.
		src := append([]byte{0x05, 0xac, 0x02}, tc.in...)
		got, err := DecodeUvarints(nil, src)
		var e *Error
		if !errors.As(err, &e) || e.Offset != 3 || !errors.Is(err, tc.want) || !slices.Equal(got, []uint32{5, 300}) {
			t.Errorf("DecodeUvarints(% x) = %v, %v; want [5 300], %v at offset 3", src, got, err, tc.want)
		}
	}
}

// TestAgreesWithStdlib checks the canonical encodings against
// encoding/binary on random values of every length.
func TestAgreesWithStdlib(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for range 100000 {
		x := r.Uint32() >> r.IntN(32)
		want := binary.AppendUvarint(nil, uint64(x))
		if got := AppendUvarint(nil, x); !slices.Equal(got, want) {
			t.Fatalf("AppendUvarint(%d) = % x, want % x", x, got, want)
		}
		if y, n, err := Uvarint(want); y != x || n != len(want) || err != nil {
			t.Fatalf("Uvarint(% x) = %d, %d, %v", want, y, n, err)
		}
	}
}

// TestUvarint64 checks the 64-bit forms against encoding/binary on random
// values of every length, and the limits.
func TestUvarint64(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for range 100000 {
		x := r.Uint64() >> r.IntN(64)
		want := binary.AppendUvarint(nil, x)
		if got := AppendUvarint64(nil, x); !slices.Equal(got, want) {
			t.Fatalf("AppendUvarint64(%d) = % x, want % x", x, got, want)
		}
		if y, n, err := Uvarint64(want); y != x || n != len(want) || err != nil {
			t.Fatalf("Uvarint64(% x) = %d, %d, %v", want, y, n, err)
		}
	}
	for _, c := range []struct {
		src  []byte
		want error
	}{
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, ErrOverflow64},
		{[]byte{0x80, 0x00}, ErrNonCanonical},
		{[]byte{0x80, 0x80}, ErrTruncated},
		{nil, ErrTruncated},
	} {
		if _, _, err := Uvarint64(c.src); err != c.want {
			t.Errorf("Uvarint64(% x): %v, want %v", c.src, err, c.want)
		}
	}
}

func TestCount(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for n := range 200 {
		src := make([]byte, n)
		want := 0
		for i := range src {
			src[i] = byte(r.Uint32())
			if src[i] < 0x80 {
				want++
			}
		}
		if got := Count(src); got != want {
			t.Fatalf("Count(% x) = %d, want %d", src, got, want)
		}
	}
}

func TestErrorString(t *testing.T) {
	err := error(&Error{Offset: 7, Err: ErrOverflow})
	if got, want := err.Error(), "varint: value overflows uint32 at offset 7"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// decodeRef is the batch decoder written in the most obvious way from
// Uvarint; every kernel must return exactly this.
func decodeRef(src []byte) ([]uint32, error) {
	var out []uint32
	for off := 0; off < len(src); {
		x, n, err := Uvarint(src[off:])
		if err != nil {
			return out, &Error{Offset: off, Err: err}
		}
		out = append(out, x)
		off += n
	}
	return out, nil
}

// checkDecode holds the selected kernel to decodeRef on src, through the
// public API and through the internal contract at every room size that
// matters.
func checkDecode(t *testing.T, src []byte) {
	t.Helper()
	want, wantErr := decodeRef(src)
	got, err := DecodeUvarints(nil, src)
	if !slices.Equal(got, want) || !reflect.DeepEqual(err, wantErr) {
		t.Fatalf("DecodeUvarints(% x)\n got %v, %v\nwant %v, %v", src, got, err, want, wantErr)
	}
	// Appending keeps what dst held.
	got, err = DecodeUvarints([]uint32{42}, src)
	if got[0] != 42 || !slices.Equal(got[1:], want) || !reflect.DeepEqual(err, wantErr) {
		t.Fatalf("DecodeUvarints([42], % x) = %v, %v", src, got, err)
	}
	// decode must stop exactly where decodeGeneric stops, for any room.
	for _, room := range []int{0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, len(want) - 1, len(want), len(want) + 1} {
		if room < 0 {
			continue
		}
		gd := make([]uint32, room)
		kd := make([]uint32, room, room+4)
		kd = append(kd, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef)[:room]
		gn, gs := decodeGeneric(gd, src)
		kn, ks := decode(kd, src)
		if kn != gn || ks != gs || !slices.Equal(kd[:kn], gd[:gn]) {
			t.Fatalf("room %d: decode(% x) = %d, %d, %v; decodeGeneric = %d, %d, %v", room, src, kn, ks, kd[:kn], gn, gs, gd[:gn])
		}
		if slices.ContainsFunc(kd[kn:room], func(x uint32) bool { return x != 0 }) {
			t.Fatalf("room %d: decode wrote past dst[:nd]: %v", room, kd)
		}
		if c := kd[room : room+4]; !slices.Equal(c, []uint32{0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef}) {
			t.Fatalf("room %d: decode wrote past cap(dst): %x", room, c)
		}
	}
}

// checkEncode holds the selected kernel to AppendUvarint on v, through the
// public API and through the internal contract at every room size that
// matters.
func checkEncode(t *testing.T, v []uint32) {
	t.Helper()
	var want []byte
	for _, x := range v {
		want = AppendUvarint(want, x)
	}
	if got := AppendUvarints(nil, v); !slices.Equal(got, want) {
		t.Fatalf("AppendUvarints(%v)\n got % x\nwant % x", v, got, want)
	}
	if got := AppendUvarints([]byte{42}, v); got[0] != 42 || !slices.Equal(got[1:], want) {
		t.Fatalf("AppendUvarints([42], %v) = % x", v, got)
	}
	canary := []byte("CANARY!!")
	for _, room := range []int{0, 1, 4, 5, 7, 8, 9, 39, 40, 41, 63, 64, 65, len(want) - 1, len(want), len(want) + 1, MaxLen * len(v)} {
		if room < 0 {
			continue
		}
		gd := make([]byte, room)
		kd := append(make([]byte, room, room+len(canary)), canary...)[:room]
		gn, gv := encodeGeneric(gd, v)
		kn, kv := encode(kd, v)
		if kn != gn || kv != gv || !slices.Equal(kd[:kn], gd[:gn]) {
			t.Fatalf("room %d: encode(%v) = %d, %d; encodeGeneric = %d, %d", room, v, kn, kv, gn, gv)
		}
		if slices.ContainsFunc(kd[kn:room], func(b byte) bool { return b != 0 }) {
			t.Fatalf("room %d: encode wrote past dst[:nd]: % x", room, kd)
		}
		if c := kd[room : room+len(canary)]; !slices.Equal(c, canary) {
			t.Fatalf("room %d: encode wrote past cap(dst): %q", room, c)
		}
	}
}

// values returns n values whose encoded lengths are drawn from lens.
func values(r *rand.Rand, n int, lens ...int) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		l := lens[r.IntN(len(lens))]
		lo := uint32(0)
		if l > 1 {
			lo = 1 << (7 * (l - 1))
		}
		hi := uint64(math.MaxUint32)
		if l < 5 {
			hi = 1<<(7*l) - 1
		}
		v[i] = lo + uint32(r.Uint64N(hi-uint64(lo)+1))
	}
	return v
}

// lengths are the input sizes around every block size and slack in the
// kernels: all sizes to 130, then each side of the vector widths.
func lengths() []int {
	var ls []int
	for n := range 131 {
		ls = append(ls, n)
	}
	for _, w := range []int{144, 192, 200, 256, 320, 512, 1024, 4096} {
		ls = append(ls, w-1, w, w+1)
	}
	return ls
}

var lengthMixes = [][]int{{1}, {2}, {3}, {4}, {5}, {1, 2, 3}, {1, 2, 3, 4, 5}, {4, 5}, {1, 5}}

func TestKernelsRequired(t *testing.T) { cputest.CheckRequired(t, "varint") }

func TestKernelsRoundTrip(t *testing.T) {
	cputest.Run(t, "varint", func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 3))
		for _, mix := range lengthMixes {
			for _, n := range lengths() {
				v := values(r, n, mix...)
				checkEncode(t, v)
				src := AppendUvarints(nil, v)
				checkDecode(t, src)
			}
		}
	})
}

// TestKernelsMalformed decodes valid streams of every length with a
// byte-sized problem at every position: each error, and the truncations.
func TestKernelsMalformed(t *testing.T) {
	cputest.Run(t, "varint", func(t *testing.T) {
		r := rand.New(rand.NewPCG(4, 4))
		bad := [][]byte{
			{0x80, 0x00}, {0xff, 0x80, 0x00}, {0x80, 0x80, 0x80, 0x80, 0x00},
			{0xff, 0xff, 0xff, 0xff, 0x10}, {0xff, 0xff, 0xff, 0xff, 0x8f, 0x01},
			{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
			{0xff, 0xff, 0xff, 0xff}, {0x80},
		}
		for _, mix := range [][]int{{1}, {2, 3}, {1, 2, 3, 4, 5}} {
			for _, n := range []int{0, 1, 5, 13, 15, 16, 17, 30, 31, 32, 33, 40, 63, 64, 65, 70, 71, 72, 73, 100, 140} {
				good := AppendUvarints(nil, values(r, n, mix...))
				for _, b := range bad {
					for cut := 0; cut <= len(good); cut += 1 + cut/16 {
						src := slices.Concat(good[:cut], b, good[cut:])
						checkDecode(t, src)
					}
				}
				// Every truncation point of a valid stream.
				for cut := range len(good) {
					checkDecode(t, good[:cut])
				}
			}
		}
	})
}

// TestKernelsTwoBitPatterns decodes 1<<a | 1<<b for every a > b, alone and
// followed by 0xff padding, which a kernel that reads past a varint would
// fold into the value (aclements/go-misc/varint).
func TestKernelsTwoBitPatterns(t *testing.T) {
	cputest.Run(t, "varint", func(t *testing.T) {
		var v []uint32
		for a := range 32 {
			for b := range a {
				v = append(v, 1<<a|1<<b)
			}
		}
		src := AppendUvarints(nil, v)
		checkEncode(t, v)
		checkDecode(t, src)
		for _, pad := range []int{1, 7, 8, 63, 64} {
			padded := append(slices.Clone(src), slices.Repeat([]byte{0xff}, pad)...)
			got, err := DecodeUvarints(nil, padded)
			var e *Error
			if !slices.Equal(got, v) || !errors.As(err, &e) || e.Offset != len(src) {
				t.Fatalf("pad %d: got %d values, err %v", pad, len(got), err)
			}
		}
	})
}

// TestKernelsGuardPages puts src, and dst, right against inaccessible
// memory: any read or write outside the slices faults.
func TestKernelsGuardPages(t *testing.T) {
	if _, free, ok := testbuf.Tail(1); !ok {
		t.Skip("no guard pages on this system")
	} else {
		free()
	}
	r := rand.New(rand.NewPCG(5, 5))
	var inputs [][]uint32
	for _, n := range []int{0, 1, 2, 15, 16, 17, 31, 33, 63, 64, 65, 71, 72, 73, 127, 129, 1000} {
		inputs = append(inputs, values(r, n, 1, 2, 3, 4, 5))
	}
	// One-byte varints with a two-byte one every 50: no window is all
	// one-byte values, and many end with a varint that starts on their
	// last byte.
	for n := range 300 {
		v := values(r, n, 1)
		for i := 0; i < n; i += 50 {
			v[i] = 300
		}
		inputs = append(inputs, v)
	}
	cputest.Run(t, "varint", func(t *testing.T) {
		for _, v := range inputs {
			enc := AppendUvarints(nil, v)
			for _, guard := range []func(int) ([]byte, func(), bool){testbuf.Tail, testbuf.Head} {
				src, freeSrc, _ := guard(len(enc))
				copy(src, enc)
				dstBytes, freeDst, _ := guard(4 * len(v))
				got, err := DecodeUvarints(asUint32s(dstBytes)[:0], src)
				if err != nil || !slices.Equal(got, v) {
					t.Fatalf("%d values: decode = %v, %v", len(v), got, err)
				}
				out, freeOut, _ := guard(len(enc))
				if got := AppendUvarints(out[:0], v); !slices.Equal(got, enc) || (len(got) > 0 && &got[0] != &out[0]) {
					t.Fatalf("%d values: encode = % x", len(v), got)
				}
				vals, freeVals, _ := guard(4 * len(v))
				vv := asUint32s(vals)
				copy(vv, v)
				if got := AppendUvarints(nil, vv); !slices.Equal(got, enc) {
					t.Fatalf("%d values: encode of guarded values = % x", len(v), got)
				}
				freeSrc()
				freeDst()
				freeOut()
				freeVals()
			}
		}
	})
}

// asUint32s views b, which must be 4-byte aligned, as uint32s.
func asUint32s(b []byte) []uint32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}

func TestKernelsAllocs(t *testing.T) {
	cputest.Run(t, "varint", func(t *testing.T) {
		r := rand.New(rand.NewPCG(6, 6))
		v := values(r, 4096, 1, 2, 3)
		src := AppendUvarints(nil, v)
		dst := make([]uint32, 0, len(v))
		out := make([]byte, 0, len(src)) // exact size, not MaxLen*len(v)
		if a := testing.AllocsPerRun(100, func() { _, _ = DecodeUvarints(dst, src) }); a != 0 {
			t.Errorf("DecodeUvarints with room: %v allocs", a)
		}
		if a := testing.AllocsPerRun(100, func() { _ = AppendUvarints(out, v) }); a != 0 {
			t.Errorf("AppendUvarints with room: %v allocs", a)
		}
	})
}

func ExampleDecodeUvarints() {
	ids, err := DecodeUvarints(nil, []byte{0xb2, 0x4d, 0x0b, 0xfd, 0x0e, 0x00})
	fmt.Println(ids, err)
	_, err = DecodeUvarints(nil, []byte{0x0b, 0x80, 0x00})
	fmt.Println(err)
	// Output:
	// [9906 11 1917 0] <nil>
	// varint: non-canonical (overlong) encoding at offset 1
}
