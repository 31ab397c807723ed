package codec

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"unicode/utf8"
)

// Algorithm is a wire format, named by the prefix of its messages.
type Algorithm uint8

// The formats. None, M2M, TokenNative and Brotli are the protocol's; the
// legacy formats are decoded for compatibility and never written.
const (
	None        Algorithm = iota // passthrough: the text itself
	M2M                          // #M2M|1|: binary header + Brotli payload
	TokenNative                  // #TK|: BPE token ids
	Brotli                       // #M2M[v3.0]|DATA: base64 of a Brotli stream
	TokenV1                      // #T1|: abbreviated JSON (legacy, decode only)
	Zlib                         // #M2M[v2.0]|DATA: base64 of a zlib stream (legacy, decode only)
	// Hydra is a choice of format, not a format: AppendWire writes the
	// message AppendHydra would, and Detect never returns it.
	Hydra
)

func (a Algorithm) String() string {
	switch a {
	case None:
		return "none"
	case M2M:
		return "m2m"
	case TokenNative:
		return "tokennative"
	case Brotli:
		return "brotli"
	case TokenV1:
		return "token-v1"
	case Zlib:
		return "zlib"
	case Hydra:
		return "hydra"
	}
	return fmt.Sprintf("algorithm(%d)", uint8(a))
}

// The prefixes, and the prefixes of formats nobody can decode: text that
// starts with one of those is an error, not passthrough (the reference
// passes them through, which hides typos and future versions:
// docs/protocol.md §10.6).
const (
	prefixTokenNative = "#TK|"
	prefixBrotli      = "#M2M[v3.0]|DATA:"
	prefixBrotliShort = "#M2M[v3.0]|" // detected as Brotli, then DATA: is required
	prefixTokenV1     = "#T1|"
	prefixZlib        = "#M2M[v2.0]|DATA:"
)

// reserved are prefix families this package recognises but does not
// decode: other M2M versions, the dictionary and M3 codecs of old
// reference versions.
var reserved = []string{"#M2M|", "#M2M[", "#M3|"}

// Detect returns the format of a wire message from its prefix, checked in
// the order of docs/protocol.md §2.2 (#M2M|1| before any other #M2M).
// Text with no prefix is None. It fails with ErrInvalidCodec for a
// reserved prefix it cannot decode, such as #M2M|2|.
func Detect(wire []byte) (Algorithm, error) {
	switch {
	case bytes.HasPrefix(wire, []byte(prefixM2M)):
		return M2M, nil
	case bytes.HasPrefix(wire, []byte(prefixBrotliShort)):
		return Brotli, nil
	case bytes.HasPrefix(wire, []byte(prefixTokenNative)):
		return TokenNative, nil
	case bytes.HasPrefix(wire, []byte(prefixTokenV1)):
		return TokenV1, nil
	case bytes.HasPrefix(wire, []byte(prefixZlib)):
		return Zlib, nil
	}
	for _, p := range reserved {
		if bytes.HasPrefix(wire, []byte(p)) {
			end := min(len(wire), len(p)+8)
			return None, errorf(ErrInvalidCodec, "prefix", 0, "unsupported format %q", wire[:end])
		}
	}
	return None, nil
}

// looksPrefixed reports whether text would be taken for a message of some
// format, so that passing it through would not round-trip.
func looksPrefixed(text []byte) bool {
	a, err := Detect(text)
	return err != nil || a != None
}

// AppendWire appends the wire message of text in the given format: the
// string form for M2M, #M2M[v3.0]|DATA: and base64 for Brotli, the text
// itself for None, #TK| with the Encoder's tokenizer for TokenNative, and
// for Hydra the message of the format AppendHydra chooses. Text
// must be valid UTF-8; for M2M, valid JSON. None fails on text that starts
// like a message of another format, since a decoder would not give it back.
func (e *Encoder) AppendWire(dst, text []byte, alg Algorithm) ([]byte, error) {
	if !utf8.Valid(text) {
		return dst, errorf(ErrInvalidInput, "text", -1, "not valid UTF-8")
	}
	switch alg {
	case None:
		return e.appendPassthrough(dst, text)
	case M2M:
		return e.AppendFrameString(dst, text)
	case Brotli:
		return e.appendBrotliString(dst, text)
	case TokenNative:
		return e.AppendTokenNative(dst, text)
	case Hydra:
		out, _, err := e.AppendHydra(dst, text)
		return out, err
	}
	return dst, errorf(ErrInvalidCodec, "algorithm", -1, "cannot encode %v", alg)
}

// appendPassthrough appends text, valid UTF-8, as a None message.
func (e *Encoder) appendPassthrough(dst, text []byte) ([]byte, error) {
	if looksPrefixed(text) {
		return dst, errorf(ErrInvalidInput, "text", 0, "starts like a message of another format: passthrough would not round-trip")
	}
	if len(text) > e.opts.limits.MaxMessage {
		return dst, errorf(ErrLimit, "text", -1, "%d bytes exceed the %d-byte message limit", len(text), e.opts.limits.MaxMessage)
	}
	return append(dst, text...), nil
}

// appendBrotliString appends text, valid UTF-8, as a Brotli message in
// string form.
func (e *Encoder) appendBrotliString(dst, text []byte) ([]byte, error) {
	e.scratch = e.brotli().appendCompressed(e.scratch[:0], text)
	return appendStringForm(dst, prefixBrotli, e.scratch, e.opts.limits)
}

// AppendDecode decodes the wire message and appends its text to dst. The
// format comes from the prefix (see Detect); text with no prefix is passed
// through, and must be valid UTF-8. On error dst is returned as it was.
func (d *Decoder) AppendDecode(dst, wire []byte) ([]byte, Algorithm, error) {
	lim := d.opts.limits
	if len(wire) > lim.MaxMessage {
		return dst, None, errorf(ErrLimit, "message", -1, "%d bytes exceed the %d-byte message limit", len(wire), lim.MaxMessage)
	}
	alg, err := Detect(wire)
	if err != nil {
		return dst, None, err
	}
	switch alg {
	case None:
		if !utf8.Valid(wire) {
			return dst, None, errorf(ErrMalformed, "text", 0, "not valid UTF-8")
		}
		if len(wire) > lim.MaxDecompressed {
			return dst, None, errorf(ErrLimit, "text", 0, "%d bytes exceed the %d-byte limit", len(wire), lim.MaxDecompressed)
		}
		return append(dst, wire...), None, nil
	case M2M:
		// Decode the base64 into scratch behind a copy of the prefix, and
		// decode that as a binary frame.
		if d.scratch, err = decodeBase64(append(d.scratch[:0], prefixM2M...), wire, len(prefixM2M)); err != nil {
			return dst, alg, err
		}
		dst, err = d.AppendFrame(dst, nil, d.scratch)
		return dst, alg, err
	case Brotli:
		if !bytes.HasPrefix(wire, []byte(prefixBrotli)) {
			return dst, alg, errorf(ErrMalformed, "prefix", len(prefixBrotliShort), "Brotli message without DATA:")
		}
		if d.scratch, err = decodeBase64(d.scratch[:0], wire, len(prefixBrotli)); err != nil {
			return dst, alg, err
		}
		dst, err = d.appendText(dst, len(prefixBrotli), func(dst []byte) ([]byte, error) {
			return d.d.appendDecompressed(dst, d.scratch, lim.MaxDecompressed)
		})
		return dst, alg, err
	case TokenV1:
		dst, err = d.appendTokenV1(dst, wire[len(prefixTokenV1):])
		return dst, alg, err
	case Zlib:
		if d.scratch, err = decodeBase64(d.scratch[:0], wire, len(prefixZlib)); err != nil {
			return dst, alg, err
		}
		dst, err = d.appendText(dst, len(prefixZlib), func(dst []byte) ([]byte, error) {
			return appendInflated(dst, d.scratch, lim.MaxDecompressed)
		})
		return dst, alg, err
	}
	dst, err = d.appendTokenNative(dst, wire)
	return dst, alg, err
}

// appendText runs a decompression that appends to dst and requires its
// output to be UTF-8, restoring dst on any failure.
func (d *Decoder) appendText(dst []byte, at int, decompress func([]byte) ([]byte, error)) ([]byte, error) {
	start := len(dst)
	dst, err := decompress(dst)
	if err != nil {
		if e, ok := err.(*Error); ok {
			e.Offset = at
		}
		return dst[:start], err
	}
	if !utf8.Valid(dst[start:]) {
		return dst[:start], errorf(ErrMalformed, "payload", at, "decoded text is not valid UTF-8")
	}
	return dst, nil
}

// decodeBase64 appends the standard, padded base64 in wire[at:] to dst,
// strictly: padding and trailing bits must be canonical and no line breaks
// or other bytes are allowed (Go's decoder would skip \r and \n).
func decodeBase64(dst, wire []byte, at int) ([]byte, error) {
	b64 := wire[at:]
	if i := bytes.IndexAny(b64, "\r\n"); i >= 0 {
		return dst, errorf(ErrMalformed, "base64", at+i, "line break in base64")
	}
	out, err := base64.StdEncoding.Strict().AppendDecode(dst, b64)
	if err != nil {
		return dst, wrap(ErrMalformed, "base64", at, err)
	}
	return out, nil
}

// AppendBrotli appends the binary form of the Brotli message of text: the
// Brotli stream itself, without the prefix and base64, for binary-safe
// containers. Text must be valid UTF-8, as in every message.
func (e *Encoder) AppendBrotli(dst, text []byte) ([]byte, error) {
	if !utf8.Valid(text) {
		return dst, errorf(ErrInvalidInput, "text", -1, "not valid UTF-8")
	}
	return e.appendBrotli(dst, text)
}

// appendBrotli appends the Brotli stream of text, valid UTF-8.
func (e *Encoder) appendBrotli(dst, text []byte) ([]byte, error) {
	if len(text) > e.opts.limits.MaxDecompressed {
		return dst, errorf(ErrLimit, "text", -1, "%d bytes exceed the %d-byte limit", len(text), e.opts.limits.MaxDecompressed)
	}
	return e.brotli().appendCompressed(dst, text), nil
}

// AppendBrotli decodes the binary form of a Brotli message (see
// Encoder.AppendBrotli) and appends its text to dst, which it leaves as it
// was on error.
func (d *Decoder) AppendBrotli(dst, stream []byte) ([]byte, error) {
	return d.appendText(dst, 0, func(dst []byte) ([]byte, error) {
		return d.d.appendDecompressed(dst, stream, d.opts.limits.MaxDecompressed)
	})
}

// FrameOfString decodes the base64 of an M2M v1 message in string form and
// appends the binary frame, prefix included, to dst, without decoding the
// payload: for reading headers (see ParseHeader).
func (d *Decoder) FrameOfString(dst, wire []byte) ([]byte, error) {
	if !bytes.HasPrefix(wire, []byte(prefixM2M)) {
		return dst, errorf(ErrInvalidCodec, "prefix", 0, "not an M2M v1 message")
	}
	if len(wire) > d.opts.limits.MaxMessage {
		return dst, errorf(ErrLimit, "message", -1, "%d bytes exceed the %d-byte message limit", len(wire), d.opts.limits.MaxMessage)
	}
	return decodeBase64(append(dst, prefixM2M...), wire, len(prefixM2M))
}
