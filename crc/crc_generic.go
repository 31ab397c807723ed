package crc

// This file is the specification every kernel is tested against. It has no
// build constraint, so it is compiled, and compared, on every platform.

// reflectedPoly is the IEEE polynomial, bit-reflected.
const reflectedPoly = 0xEDB88320

// slicing8 holds the slicing-by-8 tables: slicing8[0] is the classic
// byte-at-a-time table, and slicing8[k][b] is the CRC contribution of byte b
// followed by k zero bytes.
var slicing8 = func() (t [8][256]uint32) {
	for b := range 256 {
		c := uint32(b)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ reflectedPoly
			} else {
				c >>= 1
			}
		}
		t[0][b] = c
	}
	for b := range 256 {
		c := t[0][b]
		for k := 1; k < 8; k++ {
			c = t[0][c&0xff] ^ c>>8
			t[k][b] = c
		}
	}
	return t
}()

// updateGeneric is Update in portable Go: eight bytes per step through the
// slicing-by-8 tables, then byte by byte.
func updateGeneric(crc uint32, p []byte) uint32 {
	t := &slicing8
	crc = ^crc
	for len(p) >= 8 {
		crc ^= uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
		crc = t[7][crc&0xff] ^ t[6][crc>>8&0xff] ^ t[5][crc>>16&0xff] ^ t[4][crc>>24] ^
			t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]]
		p = p[8:]
	}
	for _, b := range p {
		crc = t[0][byte(crc)^b] ^ crc>>8
	}
	return ^crc
}
