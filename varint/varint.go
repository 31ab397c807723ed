package varint

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/m2m-go/m2m/internal/cpu"
)

// MaxLen is the length of the longest varint of a uint32.
const MaxLen = 5

// The three ways a varint can be malformed; see the package documentation.
var (
	ErrTruncated    = errors.New("varint: truncated")
	ErrOverflow     = errors.New("varint: value overflows uint32")
	ErrNonCanonical = errors.New("varint: non-canonical (overlong) encoding")
)

// An Error reports the first malformed varint of a batch.
type Error struct {
	Offset int   // byte offset in src where the bad varint starts
	Err    error // ErrTruncated, ErrOverflow or ErrNonCanonical
}

func (e *Error) Error() string { return fmt.Sprintf("%v at offset %d", e.Err, e.Offset) }

func (e *Error) Unwrap() error { return e.Err }

// The architecture files. Each build has exactly one of varint_amd64.go,
// varint_arm64.go and varint_other.go (purego, or any other GOARCH), and
// that file defines:
//
//	var kernels []cpu.Kernel                             // what it can dispatch to, best first; registered here
//	func decode(dst []uint32, src []byte) (nd, ns int)   // decodeGeneric's contract (varint_generic.go)
//	func encode(dst []byte, v []uint32) (nd, nv int)     // encodeGeneric's contract
//
// decode and encode pick a kernel by the dispatch flags the registry sets
// (cpu.Kernel.Use) and by size, and fall back to the generic code; the
// kernels' Go declarations are generated with their assembly
// (varint_stubs_amd64.go, by _asm/main.go) or written beside it
// (varint_arm64.go). Tests check every kernel against the generic code.
func init() { cpu.Register("varint", kernels...) }

// Len returns the number of bytes in the encoding of x.
func Len(x uint32) int { return (bits.Len32(x|1) + 6) / 7 }

// AppendUvarint appends the encoding of x to dst.
func AppendUvarint(dst []byte, x uint32) []byte {
	for x >= 0x80 {
		dst = append(dst, byte(x)|0x80)
		x >>= 7
	}
	return append(dst, byte(x))
}

// Uvarint decodes the varint at the start of src and returns its value and
// length. It is the reference for every decoder in this package: err is
// ErrTruncated, ErrOverflow or ErrNonCanonical exactly as the package
// documentation defines them, and then x and n are 0.
func Uvarint(src []byte) (x uint32, n int, err error) {
	for i, b := range src {
		if i == MaxLen-1 && b > 0x0F {
			return 0, 0, ErrOverflow
		}
		x |= uint32(b&0x7F) << (7 * i)
		if b < 0x80 {
			if b == 0 && i > 0 {
				return 0, 0, ErrNonCanonical
			}
			return x, i + 1, nil
		}
	}
	return 0, 0, ErrTruncated
}

// MaxLen64 is the length of the longest varint of a uint64.
const MaxLen64 = 10

// ErrOverflow64 reports a varint whose value does not fit in a uint64.
var ErrOverflow64 = errors.New("varint: value overflows uint64")

// AppendUvarint64 appends the encoding of x to dst: the same encoding as
// [AppendUvarint], for 64-bit values (and [binary.AppendUvarint]'s).
func AppendUvarint64(dst []byte, x uint64) []byte {
	for x >= 0x80 {
		dst = append(dst, byte(x)|0x80)
		x >>= 7
	}
	return append(dst, byte(x))
}

// Uvarint64 decodes the varint at the start of src as [Uvarint] does, for
// 64-bit values. Unlike [binary.Uvarint] it refuses non-canonical
// (overlong) encodings, so every value has exactly one encoding: err is
// ErrTruncated, ErrOverflow64 or ErrNonCanonical, and then x and n are 0.
func Uvarint64(src []byte) (x uint64, n int, err error) {
	for i, b := range src {
		if i == MaxLen64-1 && b > 0x01 {
			return 0, 0, ErrOverflow64
		}
		x |= uint64(b&0x7F) << (7 * i)
		if b < 0x80 {
			if b == 0 && i > 0 {
				return 0, 0, ErrNonCanonical
			}
			return x, i + 1, nil
		}
	}
	return 0, 0, ErrTruncated
}

// Count returns the number of varints in src if src is well formed, and an
// upper bound otherwise: the number of bytes with bit 7 clear. It is cheap
// (eight bytes per step) and is how callers size a dst for [DecodeUvarints].
func Count(src []byte) int {
	n := 0
	for len(src) >= 8 {
		w := uint64(src[0]) | uint64(src[1])<<8 | uint64(src[2])<<16 | uint64(src[3])<<24 |
			uint64(src[4])<<32 | uint64(src[5])<<40 | uint64(src[6])<<48 | uint64(src[7])<<56
		n += bits.OnesCount64(^w & 0x8080808080808080)
		src = src[8:]
	}
	for _, b := range src {
		if b < 0x80 {
			n++
		}
	}
	return n
}

// AppendUvarints appends the encodings of all values in v to dst. It does
// not allocate when dst has room for the result: MaxLen*len(v) bytes always
// suffice, and the sum of [Len] over v is exact.
func AppendUvarints(dst []byte, v []uint32) []byte {
	for len(v) > 0 {
		nd, nv := encode(dst[len(dst):cap(dst)], v)
		dst, v = dst[:len(dst)+nd], v[nv:]
		if len(v) > 0 {
			dst = slices.Grow(dst, MaxLen*len(v))
		}
	}
	return dst
}

// DecodeUvarints decodes every varint in src and appends the values to dst.
// If src holds a malformed varint, it returns dst with the values before it
// appended, and an [*Error]. It does not allocate when dst has room for
// [Count](src) more values.
func DecodeUvarints(dst []uint32, src []byte) ([]uint32, error) {
	if room := cap(dst) - len(dst); room < len(src) {
		if n := Count(src); room < n {
			dst = slices.Grow(dst, n)
		}
	}
	nd, ns := decode(dst[len(dst):cap(dst)], src)
	dst = dst[:len(dst)+nd]
	if ns < len(src) {
		_, _, err := Uvarint(src[ns:])
		return dst, &Error{Offset: ns, Err: err}
	}
	return dst, nil
}
