package codec

import (
	"encoding/base64"
	"errors"
	"unicode/utf8"

	"github.com/m2m-go/m2m/tokenizer"
	"github.com/m2m-go/m2m/varint"
)

// TokenNative (reference-implementation.md §4) sends the BPE token ids of
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

// tokenize appends the token ids of text to e.ids.
func (e *Encoder) tokenize(text []byte) error {
	tok, err := tokenizer.Get(e.opts.tokenizer)
	if err != nil {
		return wrap(ErrInvalidCodec, "tokenizer", -1, err)
	}
	if e.ids, err = tok.AppendEncode(e.ids[:0], text); err != nil {
		return wrap(ErrInvalidInput, "text", -1, err)
	}
	return nil
}

// AppendTokenNative appends the text form of the TokenNative message of
// text. It fails with ErrInvalidInput for text that is not UTF-8, or that
// holds a run the tokenizer refuses as too costly (tokenizer.MaxRun).
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

// detokenize decodes the varints in b, at offset at of the message, with
// enc, and appends the text, which must be UTF-8 and within the limit.
func (d *Decoder) detokenize(dst []byte, enc tokenizer.Encoding, b []byte, at int) ([]byte, error) {
	var err error
	if d.ids, err = varint.DecodeUvarints(d.ids[:0], b); err != nil {
		var ve *varint.Error
		if errors.As(err, &ve) {
			return dst, wrap(ErrMalformed, "token ids", at+ve.Offset, err)
		}
		return dst, wrap(ErrMalformed, "token ids", at, err)
	}
	tok, err := tokenizer.Get(enc)
	if err != nil {
		return dst, wrap(ErrInvalidCodec, "tokenizer", at, err)
	}
	start := len(dst)
	if dst, err = tok.AppendDecode(dst, d.ids); err != nil {
		return dst[:start], wrap(ErrMalformed, "token ids", at, err)
	}
	switch {
	case len(dst)-start > d.opts.limits.MaxDecompressed:
		return dst[:start], errorf(ErrLimit, "payload", at, "decodes to more than %d bytes", d.opts.limits.MaxDecompressed)
	case !utf8.Valid(dst[start:]):
		return dst[:start], errorf(ErrMalformed, "payload", at, "token ids decode to invalid UTF-8")
	}
	return dst, nil
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
