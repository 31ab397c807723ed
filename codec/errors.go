package codec

import (
	"errors"
	"fmt"
)

// The four kinds of failure. Every error this package returns wraps exactly
// one of them, so callers can sort failures with errors.Is.
var (
	// ErrInvalidCodec: the input names a format this package does not
	// decode, such as #M2M|2| or a TokenNative tokenizer it does not know.
	ErrInvalidCodec = errors.New("codec: invalid codec")
	// ErrMalformed: the input claims a known format but is not well formed:
	// a truncated frame, bad base64, a bad Brotli stream, invalid UTF-8,
	// trailing bytes, a header that does not fit header_len.
	ErrMalformed = errors.New("codec: malformed input")
	// ErrIntegrity: the input is well formed but its checksum (or, in
	// secured frames, its authentication tag) does not match.
	ErrIntegrity = errors.New("codec: integrity check failed")
	// ErrLimit: the input, or what it decompresses to, exceeds a limit.
	ErrLimit = errors.New("codec: limit exceeded")
	// ErrInvalidInput: the text given to an encoder cannot be encoded in
	// the requested format (invalid UTF-8, or JSON the format requires but
	// the text is not).
	ErrInvalidInput = errors.New("codec: invalid input")
)

// An Error says what failed, where, and why.
type Error struct {
	Kind   error  // ErrInvalidCodec, ErrMalformed, ErrIntegrity, ErrLimit or ErrInvalidInput
	Field  string // the part of the input, e.g. "header_len" or "payload"
	Offset int    // byte offset of that part in the input, or -1
	Err    error  // the detail, possibly from another package
}

func (e *Error) Error() string {
	where := e.Field
	if e.Offset >= 0 {
		where = fmt.Sprintf("%s at offset %d", e.Field, e.Offset)
	}
	return fmt.Sprintf("%v: %s: %v", e.Kind, where, e.Err)
}

// Unwrap returns both the kind and the detail, so errors.Is matches either.
func (e *Error) Unwrap() []error { return []error{e.Kind, e.Err} }

func errorf(kind error, field string, offset int, format string, args ...any) *Error {
	return &Error{Kind: kind, Field: field, Offset: offset, Err: fmt.Errorf(format, args...)}
}

func wrap(kind error, field string, offset int, err error) *Error {
	return &Error{Kind: kind, Field: field, Offset: offset, Err: err}
}
