package brotli

// Tables of RFC 7932.

// Insert and copy lengths (section 5): each code's first length and its
// count of extra bits.
var (
	insertBase  = [24]uint32{0, 1, 2, 3, 4, 5, 6, 8, 10, 14, 18, 26, 34, 50, 66, 98, 130, 194, 322, 578, 1090, 2114, 6210, 22594}
	insertExtra = [24]uint8{0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 12, 14, 24}
	copyBase    = [24]uint32{2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 18, 22, 30, 38, 54, 70, 102, 134, 198, 326, 582, 1094, 2118}
	copyExtra   = [24]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 24}
)

// commandCell is the first insert-and-copy code of each cell of the
// table of section 5, by insert code / 8 and copy code / 8, where the
// distance is coded (not the last one implied).
var commandCell = [3][3]uint16{{128, 192, 384}, {256, 320, 512}, {448, 576, 640}}

// Code length codes (section 3.5): the order their lengths are stored in,
// and the fixed code those lengths are written with (bits, read from the
// first, and their count) for lengths 0 to 5.
var (
	codeLengthOrder = [18]uint8{1, 2, 3, 4, 0, 5, 17, 6, 16, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	lengthCodeBits  = [6]uint8{0, 7, 3, 2, 1, 15}
	lengthCodeLen   = [6]uint8{2, 4, 3, 2, 2, 4}
)

// Alphabet sizes (section 3): literals, insert-and-copy lengths, and
// distances with NPOSTFIX 0 and NDIRECT 0 (16 short codes and two a bit
// of distance up to 24).
const (
	literalAlphabet  = 256
	commandAlphabet  = 704
	distanceAlphabet = 16 + 2*24
)
