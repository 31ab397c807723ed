package archive

import (
	"errors"
	"fmt"

	"github.com/m2m-go/m2m/varint"
)

// Block kinds: the first byte of every archive block's body.
const (
	kindRecords   = 'R'
	kindStrings   = 'S'
	kindTemplates = 'T'
	kindDirectory = 'D'
)

// Limits a reader enforces, so that a corrupt or hostile file cannot make
// it allocate without bound.
const (
	// MaxLine is the longest record: the protocol's message limit. A
	// Writer cuts longer lines into records of MaxLine bytes.
	MaxLine = 16 << 20
	// maxFrame is the most a frame may decode to: a store frame closed
	// as its last entry, a whole record, takes it past its size.
	maxFrame = 2*MaxLine + maxStoreFrameMax
)

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

// parseEnds reads the ends of a frame of rawLen bytes holding items items
// from the start of b, and returns how many of the frame's raw bytes hold
// its first need items (need 0 or more than items: all), and the rest of b.
func parseEnds(b []byte, rawLen, items, need int) (prefix int, rest []byte, err error) {
	steps, n, err := varint.Uvarint64(b)
	if err != nil || steps != uint64(rawLen/endStep+1) {
		return 0, nil, corruptf("ends: %d steps for a frame of %d bytes (%v)", steps, rawLen, err)
	}
	b = b[n:]
	if need <= 0 || need > items {
		need = items
	}
	prefix = rawLen
	sum := uint64(0)
	for k := range int(steps) {
		c, n, err := varint.Uvarint64(b)
		if err != nil || c > uint64(items) {
			return 0, nil, corruptf("ends: step %d: %d of %d items (%v)", k, c, items, err)
		}
		b = b[n:]
		if sum < uint64(need) && sum+c >= uint64(need) {
			prefix = min((k+1)*endStep, rawLen)
		}
		sum += c
	}
	if sum != uint64(items) {
		return 0, nil, corruptf("ends: %d items, not %d", sum, items)
	}
	return prefix, b, nil
}
