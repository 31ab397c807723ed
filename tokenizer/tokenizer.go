package tokenizer

import (
	"errors"
	"fmt"
	"strconv"
)

// An Encoding names one of the BPE vocabularies of TokenNative. Its value is
// the encoding's byte in the binary wire form.
type Encoding uint8

// The encodings of TokenNative.
const (
	Cl100kBase Encoding = 0 // OpenAI cl100k_base (GPT-3.5, GPT-4); wire char 'C'
	O200kBase  Encoding = 1 // OpenAI o200k_base (GPT-4o and later); wire char 'O'
	Llama3     Encoding = 2 // Meta Llama 3 (also 3.1, 3.2, 3.3); wire char 'L'
)

var encodings = [...]struct {
	name   string
	char   byte
	nVocab int
}{
	Cl100kBase: {"cl100k_base", 'C', 100_277},
	O200kBase:  {"o200k_base", 'O', 200_019},
	Llama3:     {"llama3", 'L', 128_256},
}

func (e Encoding) valid() bool { return int(e) < len(encodings) }

// String returns the encoding's usual name: "cl100k_base", "o200k_base" or
// "llama3".
func (e Encoding) String() string {
	if !e.valid() {
		return "Encoding(" + strconv.Itoa(int(e)) + ")"
	}
	return encodings[e].name
}

// Char returns the character that names e in the text wire form
// (#TK|<char>|…): 'C', 'O' or 'L'. It returns 0 for an unknown encoding.
func (e Encoding) Char() byte {
	if !e.valid() {
		return 0
	}
	return encodings[e].char
}

// NVocab returns the size of e's id space, its largest id plus one:
// 100,277 for cl100k_base, 200,019 for o200k_base and 128,256 for Llama 3.
// Every valid id is below it, but cl100k_base and o200k_base leave a few ids
// below it unused (see [ErrUnknownID]). It returns 0 for an unknown encoding.
func (e Encoding) NVocab() int {
	if !e.valid() {
		return 0
	}
	return encodings[e].nVocab
}

// EncodingForChar returns the encoding named by c in the text wire form. An
// unknown character is an error wrapping [ErrUnknownEncoding]; the reference
// implementation silently reads it as cl100k_base instead.
func EncodingForChar(c byte) (Encoding, error) {
	for e, v := range encodings {
		if v.char == c {
			return Encoding(e), nil
		}
	}
	return 0, fmt.Errorf("%w: wire char %q", ErrUnknownEncoding, c)
}

// EncodingForByte returns the encoding named by b in the binary wire form. An
// unknown byte is an error wrapping [ErrUnknownEncoding]; the reference
// implementation silently reads it as cl100k_base instead.
func EncodingForByte(b byte) (Encoding, error) {
	if e := Encoding(b); e.valid() {
		return e, nil
	}
	return 0, fmt.Errorf("%w: wire byte %d", ErrUnknownEncoding, b)
}

// A Tokenizer converts text to the token ids of one encoding and back.
// Implementations are safe for concurrent use.
type Tokenizer interface {
	// Encoding reports which vocabulary the ids belong to.
	Encoding() Encoding

	// AppendEncode appends the token ids of text to dst and returns the
	// extended slice. Text is always ordinary text: a special-token string
	// such as "<|endoftext|>" in it is encoded like any other characters,
	// never as a special id. Text that is not valid UTF-8 is refused with a
	// [*TextError] wrapping [ErrInvalidUTF8], and dst is returned
	// unchanged; so is all text, with [ErrLlama3Unavailable], by a Llama 3
	// tokenizer without Meta's ranks. Encoding takes time linear in the
	// length of the text (n log n for Llama 3), whatever the text.
	AppendEncode(dst []uint32, text []byte) ([]uint32, error)

	// AppendDecode appends the bytes of the tokens in ids to dst and returns
	// the extended slice. Special ids decode to their text. An id outside
	// the vocabulary stops decoding with an [*IDError]; the bytes of the ids
	// before it have been appended. The result is the text that was encoded
	// if ids came from AppendEncode, but arbitrary ids may well decode to
	// invalid UTF-8 (a token can be part of a character): callers that need
	// text must check.
	AppendDecode(dst []byte, ids []uint32) ([]byte, error)

	// DecodedLen returns the number of bytes AppendDecode would append for
	// ids, without copying any, so that a caller can check the length
	// against a limit, or size dst, before decoding untrusted ids (one
	// byte of id can stand for a token of a hundred bytes). It fails where
	// AppendDecode does, with the same [*IDError], and then returns the
	// length of the ids before the bad one. A length that does not fit in
	// an int is returned as math.MaxInt.
	DecodedLen(ids []uint32) (int, error)
}

// Errors. Malformed text is reported as a [*TextError] and bad ids as an
// [*IDError]; both wrap one of these, for [errors.Is].
var (
	// ErrInvalidUTF8 means the text to encode is not valid UTF-8. The BPE
	// pre-tokenizer works on characters and would replace invalid bytes
	// with U+FFFD, so encoding such text could not be undone.
	ErrInvalidUTF8 = errors.New("tokenizer: text is not valid UTF-8")

	// ErrUnknownID means a token id is not in the vocabulary: it is at
	// least the encoding's NVocab, or one of the unused ids below it
	// (cl100k_base: 100256 and 100261–100275; o200k_base: 199998 and
	// 200000–200017).
	ErrUnknownID = errors.New("tokenizer: token id not in the vocabulary")

	// ErrLlama3Unavailable means the Llama 3 ranks were not loaded: the
	// Llama 3 tokenizer then cannot encode, and can decode only the ids it
	// shares with cl100k_base (below 100256) and the special ids. See the
	// package documentation for how to supply the ranks.
	ErrLlama3Unavailable = errors.New("tokenizer: Llama 3 ranks not loaded (set " + Llama3Env + ")")

	// ErrUnknownEncoding means a wire char, wire byte or Encoding value
	// names no encoding.
	ErrUnknownEncoding = errors.New("tokenizer: unknown encoding")

	// ErrRanksMismatch means a ranks file is not the expected one: its
	// SHA-256 differs from that of the published file.
	ErrRanksMismatch = errors.New("tokenizer: ranks file has the wrong SHA-256")
)

// A TextError reports text that AppendEncode refuses.
type TextError struct {
	Offset int   // byte offset of the first byte that is not valid UTF-8
	Err    error // ErrInvalidUTF8
}

func (e *TextError) Error() string { return fmt.Sprintf("%v (at byte %d)", e.Err, e.Offset) }

func (e *TextError) Unwrap() error { return e.Err }

// An IDError reports the first id that AppendDecode cannot decode.
type IDError struct {
	Index int    // position of the id in the ids slice
	ID    uint32 // the id
	Err   error  // ErrUnknownID or ErrLlama3Unavailable
}

func (e *IDError) Error() string {
	return fmt.Sprintf("%v: id %d at index %d", e.Err, e.ID, e.Index)
}

func (e *IDError) Unwrap() error { return e.Err }

// Get returns the process-wide tokenizer of enc. The first call for an
// encoding builds its tables from the embedded ranks (about 8-11 ms and 7
// MB for cl100k_base, 13-18 ms and 13 MB for o200k_base), later calls
// return the same tokenizer, and nothing is loaded for an encoding that is
// never asked for.
//
// For Llama3, Get loads the ranks file named by the environment variable
// [Llama3Env] if it is set (an unreadable or wrong file is an error), else
// the ranks built in with the llama3 build tag; without either it returns a
// tokenizer that can only decode, as [ErrLlama3Unavailable] describes. Use
// [LoadLlama3] to load the ranks from a path of your choosing instead.
func Get(enc Encoding) (Tokenizer, error) {
	if !enc.valid() {
		return nil, fmt.Errorf("%w: %v", ErrUnknownEncoding, enc)
	}
	t, err := defaults[enc]()
	if err != nil {
		return nil, err
	}
	return t, nil
}
