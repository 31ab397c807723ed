package archive

import (
	"errors"
	"fmt"
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
