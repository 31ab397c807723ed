package archive

import (
	"encoding/binary"
	"math/bits"
)

// indexMarker returns the index of the first marker byte (0x00-0x02) in
// p, or len(p). Valid JSON holds none, so this runs over long stretches of
// text: it looks at eight bytes a step.
func indexMarker(p []byte) int {
	const lo, hi = 0x0303030303030303, 0x8080808080808080 // maxMarker+1 in every byte
	i := 0
	for ; i+8 <= len(p); i += 8 {
		w := binary.LittleEndian.Uint64(p[i:])
		// A byte below 3 borrows, and had its top bit clear: exact for the
		// first such byte (later ones may be false alarms, never missed).
		if m := (w - lo) &^ w & hi; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(p); i++ {
		if p[i] <= maxMarker {
			return i
		}
	}
	return len(p)
}
