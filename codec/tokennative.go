package codec

import (
	"encoding/base64"
	"errors"
	"slices"
	"unicode/utf8"

	"github.com/m2m-go/m2m/tokenizer"
	"github.com/m2m-go/m2m/varint"
)

// TokenNative (docs/protocol.md §5) sends the BPE token ids of
// a text instead of the text:
//
//	text form:   "#TK|" tokenizer-char "|" base64(varint(id)...)
//	binary form: tokenizer-byte varint(id)...
//
// with C/0 = cl100k_base, O/1 = o200k_base, L/2 = Llama 3. Encoders
// tokenize ordinary text: "<|endoftext|>" in a payload is text, not a
// special token. Decoders accept what the reference writes (special ids
// included) and are strict where it is lax: an unknown tokenizer is an
// error, not cl100k; so are anything between the tokenizer char and the
// '|', ids outside the vocabulary, non-canonical base64 and varints, and
// ids that do not decode to UTF-8. The reference tokenizes L as cl100k;
// its L streams still decode here, since the first 100,256 Llama 3 ids are
// cl100k's (package tokenizer explains the special ids).

// WithTokenizer sets the tokenizer TokenNative messages are encoded with;
// the default is cl100k_base, the protocol's canonical fallback.
func WithTokenizer(enc tokenizer.Encoding) Option {
	return func(o *options) error {
		if _, err := tokenizer.EncodingForByte(byte(enc)); err != nil {
			return err
		}
		o.tokenizer = enc
		return nil
	}
}

// WithLlama3 gives the Llama 3 tokenizer (from tokenizer.LoadLlama3) that
// encoders and decoders use for Llama 3 payloads, instead of the one
// tokenizer.Get finds (tokenizer.Llama3Env, or embedded ranks).
func WithLlama3(tok tokenizer.Tokenizer) Option {
	return func(o *options) error {
		if tok == nil {
			return errors.New("codec: WithLlama3(nil)")
		}
		o.llama3 = tok
		return nil
	}
}

// tokenize appends the token ids of text to e.ids.
func (e *Encoder) tokenize(text []byte) error {
	tok, err := e.opts.tokenizerFor(e.opts.tokenizer)
	if err != nil {
		return wrap(ErrInvalidCodec, "tokenizer", -1, err)
	}
	if e.ids, err = tok.AppendEncode(e.ids[:0], text); err != nil {
		return wrap(ErrInvalidInput, "text", -1, err)
	}
	return nil
}

// AppendTokenNative appends the text form of the TokenNative message of
// text. It fails with ErrInvalidInput for text that is not UTF-8.
func (e *Encoder) AppendTokenNative(dst, text []byte) ([]byte, error) {
	if err := e.tokenize(text); err != nil {
		return dst, err
	}
	e.scratch = varint.AppendUvarints(e.scratch[:0], e.ids)
	prefix := prefixTokenNative + string(e.opts.tokenizer.Char()) + "|"
	return appendStringForm(dst, prefix, e.scratch, e.opts.limits)
}

// AppendTokenNativeBinary appends the binary form: the tokenizer byte and
// the varints.
func (e *Encoder) AppendTokenNativeBinary(dst, text []byte) ([]byte, error) {
	if err := e.tokenize(text); err != nil {
		return dst, err
	}
	start := len(dst)
	dst = varint.AppendUvarints(append(dst, byte(e.opts.tokenizer)), e.ids)
	if n := len(dst) - start; n > e.opts.limits.MaxMessage {
		return dst[:start], errorf(ErrLimit, "message", -1, "%d bytes exceed the %d-byte message limit", n, e.opts.limits.MaxMessage)
	}
	return dst, nil
}

// appendTokenNative decodes the text form.
func (d *Decoder) appendTokenNative(dst, wire []byte) ([]byte, error) {
	at := len(prefixTokenNative)
	rest := wire[at:]
	if len(rest) < 2 || rest[1] != '|' {
		return dst, errorf(ErrMalformed, "tokenizer", at, "want one tokenizer character and '|'")
	}
	enc, err := tokenizer.EncodingForChar(rest[0])
	if err != nil {
		return dst, wrap(ErrInvalidCodec, "tokenizer", at, err)
	}
	if d.scratch, err = decodeBase64(d.scratch[:0], wire, at+2); err != nil {
		return dst, err
	}
	return d.detokenize(dst, enc, d.scratch, at+2)
}

// AppendTokenNativeBinary decodes the binary form and appends the text.
func (d *Decoder) AppendTokenNativeBinary(dst, msg []byte) ([]byte, error) {
	if len(msg) == 0 {
		return dst, errorf(ErrMalformed, "tokenizer", 0, "empty message")
	}
	if len(msg) > d.opts.limits.MaxMessage {
		return dst, errorf(ErrLimit, "message", -1, "%d bytes exceed the %d-byte message limit", len(msg), d.opts.limits.MaxMessage)
	}
	enc, err := tokenizer.EncodingForByte(msg[0])
	if err != nil {
		return dst, wrap(ErrInvalidCodec, "tokenizer", 0, err)
	}
	return d.detokenize(dst, enc, msg[1:], 1)
}

// idChunk is the most bytes of varints detokenize decodes at a time, so
// that its id buffer stays small (16 KiB) whatever the message.
const idChunk = 4 << 10

// detokenize decodes the varints in b, at offset at of the message, with
// enc, and appends the text, which must be UTF-8 and within the limit.
// Three bytes of id can stand for 128 bytes of text, so it measures the
// text before writing any of it: it never holds more than the limit and a
// chunk of ids. A message of more than one chunk has its varints decoded
// twice, once to measure and once to write.
func (d *Decoder) detokenize(dst []byte, enc tokenizer.Encoding, b []byte, at int) ([]byte, error) {
	tok, err := d.opts.tokenizerFor(enc)
	if err != nil {
		return dst, wrap(ErrInvalidCodec, "tokenizer", at, err)
	}
	limit := d.opts.limits.MaxDecompressed
	d.ids = d.ids[:0]
	size, count := 0, 0 // bytes of text and ids so far
	for off := 0; off < len(b); {
		chunk := cutIDs(b[off:])
		var verr error
		d.ids, verr = varint.DecodeUvarints(d.ids[:0], chunk)
		// d.ids holds the ids before a bad varint: a bad one among them
		// comes first.
		n, err := tok.DecodedLen(d.ids)
		switch {
		case err != nil:
			return dst, idError(err, d.ids, count, at+off)
		case verr != nil:
			return dst, varintError(verr, off, at)
		}
		if size += n; size > limit {
			return dst, errorf(ErrLimit, "payload", at, "decodes to more than %d bytes", limit)
		}
		off, count = off+len(chunk), count+len(d.ids)
	}
	start := len(dst)
	dst = slices.Grow(dst, size)
	if len(b) <= idChunk {
		dst, _ = tok.AppendDecode(dst, d.ids) // the one chunk, checked above
	} else {
		for off := 0; off < len(b); {
			chunk := cutIDs(b[off:])
			d.ids, _ = varint.DecodeUvarints(d.ids[:0], chunk) // checked above
			dst, _ = tok.AppendDecode(dst, d.ids)
			off += len(chunk)
		}
	}
	if !utf8.Valid(dst[start:]) {
		return dst[:start], errorf(ErrMalformed, "payload", at, "token ids decode to invalid UTF-8")
	}
	return dst, nil
}

// cutIDs returns the first chunk of the varints in b: all of b if that is
// at most idChunk bytes, else its first idChunk bytes cut after the last
// varint that ends in them. If none ends in their last varint.MaxLen
// bytes, a varint there is too long to be valid and the chunk is left
// whole, for decoding to report it as it would in all of b.
func cutIDs(b []byte) []byte {
	if len(b) <= idChunk {
		return b
	}
	for i := idChunk - 1; i >= idChunk-varint.MaxLen; i-- {
		if b[i] < 0x80 {
			return b[:i+1]
		}
	}
	return b[:idChunk]
}

// varintError reports a bad varint of a chunk of ids that starts off
// bytes into the ids, which start at offset at of the message: the offsets
// become those of the bad varint in the ids and in the message.
func varintError(err error, off, at int) *Error {
	var ve *varint.Error
	if errors.As(err, &ve) {
		ve.Offset += off
		at += ve.Offset
	}
	return wrap(ErrMalformed, "token ids", at, err)
}

// idError reports the bad id of a chunk of ids that starts at offset at of
// the message, after count ids: the offset becomes that of the bad id's
// varint, and the tokenizer's index the id's index in the message.
func idError(err error, ids []uint32, count, at int) *Error {
	var ie *tokenizer.IDError
	if errors.As(err, &ie) {
		for _, id := range ids[:ie.Index] {
			at += varint.Len(id)
		}
		ie.Index += count
	}
	return wrap(ErrMalformed, "token ids", at, err)
}

// tokenNativeLen returns the length of the text form of ids, to compare
// formats without building the message.
func tokenNativeLen(ids []uint32) int {
	n := 0
	for _, id := range ids {
		n += varint.Len(id)
	}
	return len(prefixTokenNative) + 2 + base64.StdEncoding.EncodedLen(n)
}
