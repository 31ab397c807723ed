package container

import (
	"errors"
	"fmt"

	"github.com/m2m-go/m2m/varint"
)

// Format constants.
const (
	Version    = 2
	MaxBlock   = 64 << 20 // largest block body a reader accepts
	headerLen  = 12       // without a sealed file's id
	trailerLen = 40       // without a sealed file's MAC
	flagSealed = 0x01     // header flag: the file is sealed
	// maxBlockHeader is a block's type and two uvarints at their longest.
	maxBlockHeader = 1 + 2*varint.MaxLen
)

var (
	magic    = [8]byte{0x89, 'M', '2', 'M', '\r', '\n', 0x1a, '\n'}
	endMagic = [4]byte{'M', '2', 'M', 0x1a}
)

// HasMagic reports whether p starts like a container file.
func HasMagic(p []byte) bool {
	return len(p) >= len(magic) && string(p[:len(magic)]) == string(magic[:])
}

// FirstBlockType returns the type of the first block of the container file
// that starts with head, if head holds it; ok is false if it does not, or
// if the file has no blocks.
func FirstBlockType(head []byte) (typ byte, ok bool) {
	if !HasMagic(head) || len(head) <= headerLen {
		return 0, false
	}
	at := headerLen
	if head[9]&flagSealed != 0 {
		at += IDLen // a sealed file's id follows the header
	}
	if len(head) <= at || head[at] == typeIndex {
		return 0, false
	}
	return head[at], true
}

// IsCutMagic reports whether p, the whole of a file, is a container's
// magic cut short: a container truncated inside its first 8 bytes.
func IsCutMagic(p []byte) bool {
	return len(p) > 0 && len(p) < len(magic) && string(p) == string(magic[:len(p)])
}

// Block types.
const (
	TypeRecords = 0x01
	TypeArchive = 0x02
	typeIndex   = 0xFF
)

// Encoding is how a record holds its line.
type Encoding uint8

// The encodings.
const (
	Raw          Encoding = 0 // the bytes themselves
	M2M          Encoding = 1 // an M2M v1 frame, binary form, prefix included
	Brotli       Encoding = 2 // a Brotli stream
	TokenNative  Encoding = 3 // a TokenNative message, binary mode
	SealedRaw    Encoding = 4 // the bytes, sealed (see codec.Encoder.AppendSealed)
	numEncodings          = 5
)

func (e Encoding) String() string {
	switch e {
	case Raw:
		return "raw"
	case M2M:
		return "m2m"
	case Brotli:
		return "brotli"
	case TokenNative:
		return "tokennative"
	case SealedRaw:
		return "sealed-raw"
	}
	return fmt.Sprintf("encoding(%d)", uint8(e))
}

// Record kind flags.
const (
	flagContinues = 0x40
	flagNoNewline = 0x80
	encodingMask  = 0x0F
)

// Record is one record: a line of the input, or a piece of one.
type Record struct {
	Encoding  Encoding
	Continues bool   // a piece of a line that the next record continues
	NoNewline bool   // not followed by a line feed in the input
	Data      []byte // aliases the block
}

// Errors. Every error this package returns about a file wraps one of them.
var (
	ErrFormat    = errors.New("container: not a container file of a known version")
	ErrCorrupt   = errors.New("container: corrupt")
	ErrTruncated = errors.New("container: truncated")
	// ErrSeal is the error for a file read with a key that is not sealed,
	// or whose MACs do not verify.
	ErrSeal = errors.New("container: bad seal")
)

// An Error says where in the file a problem is.
type Error struct {
	Offset int64 // byte offset of the block or field
	Record int64 // number (from 0) of the first record concerned, or -1
	Err    error // wraps ErrFormat, ErrCorrupt, ErrTruncated or ErrSeal
}

func (e *Error) Error() string {
	if e.Record >= 0 {
		return fmt.Sprintf("%v (record %d, offset %d)", e.Err, e.Record, e.Offset)
	}
	return fmt.Sprintf("%v (offset %d)", e.Err, e.Offset)
}

func (e *Error) Unwrap() error { return e.Err }

func corrupt(offset, record int64, format string, args ...any) *Error {
	return &Error{Offset: offset, Record: record, Err: fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))}
}

// badBlockMAC is the error for a data block whose MAC does not verify.
func badBlockMAC(offset, first int64, records int) *Error {
	what := fmt.Sprintf("record %d", first)
	if records != 1 {
		what = fmt.Sprintf("records %d to %d", first, first+int64(records)-1)
	}
	return &Error{Offset: offset, Record: first, Err: fmt.Errorf("%w: the MAC of the block of %s does not verify", ErrSeal, what)}
}

// notSealed is the error for a file read with a key that is not sealed.
var notSealed = &Error{Offset: 0, Record: -1, Err: fmt.Errorf("%w: the file is not sealed, and a key was given", ErrSeal)}

// parseHeader checks the fixed part of a file's header (its first
// headerLen bytes) and reports whether the file is sealed.
func parseHeader(h []byte) (sealed bool, err error) {
	switch {
	case !HasMagic(h):
		return false, &Error{Offset: 0, Record: -1, Err: ErrFormat}
	case h[8] != Version:
		return false, &Error{Offset: 8, Record: -1, Err: fmt.Errorf("%w: version %d; this reader reads version %d only", ErrFormat, h[8], Version)}
	case h[9]&^flagSealed != 0 || h[10] != 0 || h[11] != 0:
		return false, &Error{Offset: 9, Record: -1, Err: fmt.Errorf("%w: unknown flags in the header (% x)", ErrFormat, h[9:12])}
	}
	return h[9]&flagSealed != 0, nil
}
