package archive

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/m2m-go/m2m/varint"
)

// Block kinds: the first byte of every archive block's body.
const (
	kindRecords   = 'R'
	kindStrings   = 'S'
	kindTemplates = 'T'
	kindPlain     = 'P'
	kindDirectory = 'D'
)

// storeKinds are the kinds of store blocks, by the index Readers use for
// them (0 strings, 1 templates).
var storeKinds = [2]byte{kindStrings, kindTemplates}

// Limits a reader enforces, so that a corrupt or hostile file cannot make
// it allocate without bound.
const (
	// MaxLine is the longest record: the protocol's message limit. A
	// Writer cuts longer lines into records where their values end, or
	// of MaxLine bytes.
	MaxLine = 16 << 20
	// maxFrame is the most a frame may decode to: a store frame closed
	// as its last entry, a whole record, takes it past its size.
	maxFrame = 2*MaxLine + maxStoreFrameMax
)

// Version is the layout of the archives this package writes, the first
// field of their directory. A Reader refuses any other with ErrVersion,
// saying which it found. 14: numcol's columns name the marks their text
// holds, one for numbers, one for ids and one for times, which a reader
// of layout 13 would take for damage.
const Version = 14

// ErrVersion is what the error about an archive of another layout wraps.
var ErrVersion = errors.New("archive: a layout of another version")

// ErrCorrupt is what every error about a damaged archive wraps.
var ErrCorrupt = errors.New("archive: corrupt")

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// endStep is the span of a frame's raw bytes in which its ends count the
// items ending: a zstd block's worth.
const endStep = 128 << 10

// stepEnds counts, for each endStep bytes of a frame's raw bytes, the items
// (a store frame's entries, a records block's skeletons) whose last byte is
// there, so that a read of one item decodes the frame only as far as the
// step it ends in (see frameDecoder.decodePrefix). An item of no bytes at
// the frame's start counts in the first step.
type stepEnds []uint32

// add counts an item ending at end, the offset after its last byte.
func (s *stepEnds) add(end int) {
	k := max(end-1, 0) / endStep
	for len(*s) <= k {
		*s = append(*s, 0)
	}
	(*s)[k]++
}

// appendEnds appends s as the ends of a frame of rawLen bytes:
//
//	ends = uvarint steps | uvarint count * steps
//
// with steps = rawLen/endStep + 1.
func appendEnds(dst []byte, s stepEnds, rawLen int) []byte {
	steps := rawLen/endStep + 1
	dst = varint.AppendUvarint64(dst, uint64(steps))
	for k := range steps {
		c := uint32(0)
		if k < len(s) {
			c = s[k]
		}
		dst = varint.AppendUvarint64(dst, uint64(c))
	}
	return dst
}

// parseEnds reads b, the ends of a frame of rawLen bytes holding items
// items, which end its block. It returns them summed, before each step and
// after the last (len(cum) is steps+1, cum[steps] is items).
func parseEnds(b []byte, rawLen, items int) (cum []uint32, err error) {
	steps, n, err := varint.Uvarint64(b)
	if err != nil || steps != uint64(rawLen/endStep+1) {
		return nil, corruptf("ends: %d steps for a frame of %d bytes (%v)", steps, rawLen, err)
	}
	b = b[n:]
	cum = make([]uint32, 1, steps+1)
	sum := uint64(0)
	for k := range int(steps) {
		c, n, err := varint.Uvarint64(b)
		if err != nil || c > uint64(items) {
			return nil, corruptf("ends: step %d: %d of %d items (%v)", k, c, items, err)
		}
		b = b[n:]
		sum += c
		cum = append(cum, uint32(min(sum, uint64(items)+1)))
	}
	switch {
	case sum != uint64(items):
		return nil, corruptf("ends: %d items, not %d", sum, items)
	case len(b) != 0:
		return nil, corruptf("%d bytes after the ends", len(b))
	}
	return cum, nil
}

// prefixOf is how many raw bytes of a frame of rawLen bytes with ends cum
// hold its first need items (need 0: all).
func prefixOf(cum []uint32, need, rawLen int) int {
	for k := 1; k < len(cum) && need > 0; k++ {
		if int(cum[k]) >= need {
			return min(k*endStep, rawLen)
		}
	}
	return rawLen
}

// endsMatch reports whether cum (see parseEnds) counts n items, item i
// ending at end(i) (the offset after its last byte), where they end: a
// frame read whole checks what a read of one record relies on.
func endsMatch(cum []uint32, n int, end func(i int) int) bool {
	for i := range n {
		k := max(end(i)-1, 0) / endStep
		if k+1 >= len(cum) || i < int(cum[k]) || i >= int(cum[k+1]) {
			return false
		}
	}
	return true
}

// recordsHead is a records block's body, its parts found:
//
//	records = 'R' | uvarint records | frame(crcs) | frame(index) | frame(skeletons) | ends
type recordsHead struct {
	n         int
	crcs      frame // the records' CRC-32s (see appendCRCs)
	index     frame
	skel      frame
	ends      []byte // what follows the skeleton frame
	crcsSize  int    // bytes of the CRC-32s' frame
	indexSize int    // bytes of the index's frame
	skelSize  int    // bytes of the skeleton frame and the ends
}

// parseRecords finds the parts of body, that of block b, which holds
// records records by the container's index.
func parseRecords(body []byte, records, b int) (recordsHead, error) {
	var h recordsHead
	if len(body) == 0 || body[0] != kindRecords {
		return h, corruptf("not a records block")
	}
	n, k, err := varint.Uvarint64(body[1:])
	if err != nil || n != uint64(records) {
		return h, corruptf("records count")
	}
	h.n = int(n)
	rest := body[1+k:]
	after := rest
	if h.crcs, after, err = parseFrame(after, b); err != nil {
		return h, err
	}
	h.crcsSize = len(rest) - len(after)
	if h.index, after, err = parseFrame(after, b); err != nil {
		return h, err
	}
	h.indexSize, h.skelSize = len(rest)-len(after)-h.crcsSize, len(after)
	if h.crcs.dict >= 0 || h.index.dict >= 0 || h.crcs.rawLen > 4*h.n || h.index.rawLen < h.n {
		return h, corruptf("bad frames")
	}
	if h.skel, h.ends, err = parseFrame(after, b); err != nil {
		return h, corruptf("bad skeleton frame: %v", err)
	}
	return h, nil
}

// A records block's CRC-32s are two columns: its index frame starts with
// n uvarints, one a record, and its CRC-32s frame holds the CRC-32s the
// zeros among them stand for, 4 bytes each, little-endian:
//
//	index = uvarint back * n | the index's other columns
//	crcs  = crc32 * (backs that are 0)
//
// A back of 0 is a CRC-32 of its own, the next of those listed; back k,
// the CRC-32 of the record k before it in the block: for a repeat
// (flagRepeat), the record whose bytes it has. Records that recur whole
// (a stream's chunks that say the same thing: 41% of bench/traffic's log
// of them) so take a byte or two each, where a CRC-32 is 4 bytes of noise
// to a coder; every record still has its CRC-32, checked as before.

// crcSlots is the size of a crcTable.
const crcSlots = 1 << 12

// A crcTable holds, for each value of a CRC-32's low bits, the last
// record of a block so far whose CRC-32 had them, and that CRC-32: the
// writer's way to the record a back names.
type crcTable [crcSlots]struct {
	rec int32 // 1 + its number in the block; 0: none
	crc uint32
}

// last returns the number of the last record before record i whose
// CRC-32 is c, if it is still in t (else -1), and puts record i there.
func (t *crcTable) last(i int, c uint32) int {
	s := &t[c%crcSlots]
	j := int(s.rec) - 1
	if s.crc != c {
		j = -1
	}
	s.rec, s.crc = int32(i+1), c
	return j
}

// appendCRCs appends the backs of a records block's records, one a
// record, to backs, and to own their CRC-32s (crcs: 4 bytes a record,
// little-endian) where the back is 0.
func appendCRCs(backs, own, crcs []byte, recBacks []uint32) ([]byte, []byte) {
	for i, back := range recBacks {
		backs = varint.AppendUvarint64(backs, uint64(back))
		if back == 0 {
			own = append(own, crcs[4*i:4*i+4]...)
		}
	}
	return backs, own
}

// setCRCs sets the CRC-32s of recs, a records block's, from the start of
// its index frame, p, and own, its CRC-32s frame (see appendCRCs); it
// returns the rest of p.
func setCRCs(recs []recIndex, p, own []byte) ([]byte, error) {
	n := 0
	for i := range recs {
		back, k, err := varint.Uvarint64(p)
		if err != nil || back > uint64(i) {
			return nil, corruptf("CRC-32 of record %d: a reference out of range", i)
		}
		p = p[k:]
		if back == 0 {
			n++
		}
		recs[i].src = i - int(back)
	}
	if len(own) != 4*n {
		return nil, corruptf("%d bytes of CRC-32s for %d", len(own), n)
	}
	for i := range recs {
		if j := recs[i].src; j < i {
			recs[i].crc = recs[j].crc
		} else {
			recs[i].crc, own = binary.LittleEndian.Uint32(own), own[4:]
		}
	}
	return p, nil
}
