package codec

import (
	"unicode/utf8"

	"github.com/m2m-go/m2m/internal/hydra"
	"github.com/m2m-go/m2m/internal/jsonscan"
)

// hydraFeatures computes the features of text with the Encoder's scratch.
func (e *Encoder) hydraFeatures(f *hydra.Features, text []byte) {
	if e.hx == nil {
		e.hx = new(hydra.Extractor)
	}
	var fields *jsonscan.Fields
	if len(text) <= hydra.ScanLen && jsonscan.Scan(text, e.opts.limits.json(), &e.fields) == nil {
		fields = &e.fields
	}
	e.hx.Extract(f, text, fields)
}

// AppendHydra appends the wire message (string form) of text in the
// format Hydra chooses, and returns that format. Text must be valid UTF-8.
// If the chosen format cannot carry the text (a tokenizer that refuses
// it), it goes in Brotli, which carries any text.
//
// Hydra (the compression spec's compress_with_hydra, §5.5.4) chooses a
// format with a learned model instead of trying them: from features of
// the text taken in one cheap pass (its length, byte classes, an estimate
// of its BPE tokens and of its repetition, its JSON shape), linear models
// fitted offline to an oracle that encodes every record in every format
// predict the size of each format's message, and only the smallest is
// encoded. The objective is the smallest message in the form the caller
// writes (string or binary), ties going to the faster decoder: None, then
// TokenNative, then Brotli. M2M v1 is never chosen, since its frame is
// always a Brotli stream (or, under 100 bytes, the text) behind a header:
// Hydra serves storage, where the routing header is not read. On the
// development corpora Hydra's total is within 0.3% of the oracle's
// (bench/README.md, Hydra); internal/hydra has the features and the
// command that fits the models.
//
// Hydra is a selection, never a wire format: what it writes is one of the
// protocol's messages, so decoders need nothing new. An Encoder that seals
// frames chooses as AppendAuto does, so that no sealed frame is traded for
// an unsealed message; text that starts like a message of another format
// is never passed through.
func (e *Encoder) AppendHydra(dst, text []byte) ([]byte, Algorithm, error) {
	if e.opts.security.mode != SecurityNone {
		return e.AppendAuto(dst, text)
	}
	if !utf8.Valid(text) {
		return dst, None, errorf(ErrInvalidInput, "text", -1, "not valid UTF-8")
	}
	var f hydra.Features
	e.hydraFeatures(&f, text)
	switch hydra.String.Choose(&f, !looksPrefixed(text)) {
	case hydra.None:
		out, err := e.appendPassthrough(dst, text)
		return out, None, err
	case hydra.TokenNative:
		if out, err := e.AppendTokenNative(dst, text); err == nil {
			return out, TokenNative, nil
		}
	}
	out, err := e.appendBrotliString(dst, text)
	return out, Brotli, err
}

// AppendHydraBinary appends the binary form of the message of text in the
// format Hydra chooses for binary-safe containers, and returns that
// format: for None, the text itself (a raw record); for TokenNative, as
// AppendTokenNativeBinary; for Brotli, as AppendBrotli. An Encoder that
// seals frames writes a frame for JSON and returns None, for the caller
// to seal, for anything else (see AppendSealed). Text must be valid UTF-8.
func (e *Encoder) AppendHydraBinary(dst, text []byte) ([]byte, Algorithm, error) {
	if !utf8.Valid(text) {
		return dst, None, errorf(ErrInvalidInput, "text", -1, "not valid UTF-8")
	}
	if e.opts.security.mode != SecurityNone {
		if out, err := e.AppendFrame(dst, text); err == nil {
			return out, M2M, nil
		}
		return append(dst, text...), None, nil
	}
	var f hydra.Features
	e.hydraFeatures(&f, text)
	switch hydra.Binary.Choose(&f, true) {
	case hydra.None:
		return append(dst, text...), None, nil
	case hydra.TokenNative:
		if out, err := e.AppendTokenNativeBinary(dst, text); err == nil {
			return out, TokenNative, nil
		}
	}
	out, err := e.appendBrotli(dst, text)
	return out, Brotli, err
}
