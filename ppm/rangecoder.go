package ppm

import "errors"

// The range coder: a 32-bit range and a 64-bit low whose bit 32 is the carry
// out of the bytes already emitted (the cache byte and the run of 0xFF bytes
// after it wait for it), as in LZMA. Frequencies are at most maxTotal, so a
// range divided by a total keeps 8 bits or more of precision.
const (
	topValue = 1 << 24
	maxTotal = 1 << 16
)

type encoder struct {
	low       uint64
	rng       uint32
	cache     byte
	cacheSize int64
	out       []byte
}

func (e *encoder) init(dst []byte) {
	*e = encoder{rng: 0xFFFFFFFF, cacheSize: 1, out: dst}
}

// encode codes the interval [cum, cum+freq) of total.
func (e *encoder) encode(cum, freq, total uint32) {
	r := e.rng / total
	e.low += uint64(r * cum)
	e.rng = r * freq
	for e.rng < topValue {
		e.rng <<= 8
		e.shiftLow()
	}
}

// encodeBit codes bit with probability p/probOne of being 0.
func (e *encoder) encodeBit(p uint32, bit int) {
	bound := (e.rng >> 16) * p
	if bit == 0 {
		e.rng = bound
	} else {
		e.low += uint64(bound)
		e.rng -= bound
	}
	for e.rng < topValue {
		e.rng <<= 8
		e.shiftLow()
	}
}

func (e *encoder) shiftLow() {
	if uint32(e.low) < 0xFF000000 || e.low >= 1<<32 {
		carry := byte(e.low >> 32)
		for {
			e.out = append(e.out, e.cache+carry)
			e.cache = 0xFF
			if e.cacheSize--; e.cacheSize == 0 {
				break
			}
		}
		e.cache = byte(e.low >> 24)
	}
	e.cacheSize++
	e.low = uint64(uint32(e.low) << 8)
}

// finish flushes the coder and returns the output.
func (e *encoder) finish() []byte {
	for range 5 {
		e.shiftLow()
	}
	return e.out
}

// errData reports coded data that no encoder could have made, or that ends
// too early.
var errData = errors.New("ppm: corrupt data")

type decoder struct {
	code uint32
	rng  uint32
	in   []byte
	pos  int
	// over counts the bytes read past the end of in (as zeros): a few are
	// the flush's due; more mean the data was cut short.
	over int
}

func (d *decoder) init(src []byte) error {
	*d = decoder{rng: 0xFFFFFFFF, in: src}
	if len(src) < 5 || src[0] != 0 {
		return errData
	}
	d.pos = 1
	for range 4 {
		d.code = d.code<<8 | uint32(d.next())
	}
	return nil
}

func (d *decoder) next() byte {
	if d.pos < len(d.in) {
		b := d.in[d.pos]
		d.pos++
		return b
	}
	d.over++
	return 0
}

// threshold returns the cumulative frequency the next symbol's interval
// holds, for a total; decode then takes the interval.
func (d *decoder) threshold(total uint32) uint32 {
	d.rng /= total
	v := d.code / d.rng
	if v >= total {
		return total // corrupt: no interval holds it; callers refuse it
	}
	return v
}

func (d *decoder) decode(cum, freq uint32) {
	d.code -= cum * d.rng
	d.rng *= freq
	for d.rng < topValue {
		d.code = d.code<<8 | uint32(d.next())
		d.rng <<= 8
	}
}

// decodeBit decodes a bit coded with probability p/probOne of being 0.
func (d *decoder) decodeBit(p uint32) int {
	bound := (d.rng >> 16) * p
	var bit int
	if d.code < bound {
		d.rng = bound
	} else {
		d.code -= bound
		d.rng -= bound
		bit = 1
	}
	for d.rng < topValue {
		d.code = d.code<<8 | uint32(d.next())
		d.rng <<= 8
	}
	return bit
}
