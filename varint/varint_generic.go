package varint

// This file is the specification every kernel is tested against. It has no
// build constraint, so it is compiled, and compared, on every platform.

// decodeGeneric decodes varints from src into dst until src is used up, dst
// is full, or the next varint is malformed or truncated. It returns the
// number of values written and of bytes consumed.
//
// Every kernel has this contract; a kernel may stop earlier (at a block
// boundary) as long as what it wrote is a prefix of what decodeGeneric
// writes, because the dispatcher lets decodeGeneric finish.
func decodeGeneric(dst []uint32, src []byte) (nd, ns int) {
	for nd < len(dst) && ns < len(src) {
		if b := src[ns]; b < 0x80 { // one-byte values skip the general path
			dst[nd] = uint32(b)
			nd, ns = nd+1, ns+1
			continue
		}
		x, n, err := Uvarint(src[ns:])
		if err != nil {
			break
		}
		dst[nd] = x
		nd, ns = nd+1, ns+n
	}
	return nd, ns
}

// encodeGeneric writes the encodings of a prefix of v into dst, stopping
// before the first value that does not fit, and returns the number of bytes
// written and of values consumed. Kernels have the same contract and may
// stop earlier; the dispatcher lets encodeGeneric finish.
func encodeGeneric(dst []byte, v []uint32) (nd, nv int) {
	for _, x := range v {
		if room := len(dst) - nd; room < MaxLen && room < Len(x) {
			break
		}
		for x >= 0x80 {
			dst[nd] = byte(x) | 0x80
			x >>= 7
			nd++
		}
		dst[nd] = byte(x)
		nd, nv = nd+1, nv+1
	}
	return nd, nv
}
