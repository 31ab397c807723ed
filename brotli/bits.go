package brotli

import "encoding/binary"

// bitWriter appends bits to a byte slice, the first bit the least
// significant of its byte, as the format reads them.
type bitWriter struct {
	buf []byte
	acc uint64 // bits not yet in buf, from the least significant
	n   uint   // how many
}

// write appends the n low bits of v; n is at most 32, and v holds no
// higher bits.
func (w *bitWriter) write(n uint, v uint64) {
	w.acc |= v << w.n
	w.n += n
	if w.n >= 32 {
		w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(w.acc))
		w.acc >>= 32
		w.n -= 32
	}
}

// flush pads the bits to a byte and appends them.
func (w *bitWriter) flush() {
	for w.n > 0 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.n = uint(max(int(w.n)-8, 0))
	}
	w.acc = 0
}

// bitLen is the length of what has been written, in bits.
func (w *bitWriter) bitLen() int { return len(w.buf)*8 + int(w.n) }
