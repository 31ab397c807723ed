package tokenizer

import (
	"math"
	"slices"

	"github.com/pkoukk/tiktoken-go"
)

// bpe is the Tokenizer of every encoding: tiktoken-go's byte-pair encoder
// for encoding, guarded by a UTF-8 and run-length check, and a flat id table
// for decoding.
type bpe struct {
	enc     Encoding
	runs    runRules
	core    *tiktoken.Tiktoken // nil if the ranks are missing: decode only
	vocab   *vocab
	missing error // for an id below NVocab without a token: ErrUnknownID, or ErrLlama3Unavailable
}

func (t *bpe) Encoding() Encoding { return t.enc }

func (t *bpe) AppendEncode(dst []uint32, text []byte) ([]uint32, error) {
	if t.core == nil {
		return dst, ErrLlama3Unavailable
	}
	run, at, err := t.runs.longestRun(text)
	if err != nil {
		return dst, err
	}
	if run > MaxRun {
		return dst, &TextError{Offset: at, Err: ErrPieceTooLong}
	}
	ids := t.core.EncodeOrdinary(string(text))
	dst = slices.Grow(dst, len(ids))
	for _, id := range ids {
		dst = append(dst, uint32(id))
	}
	return dst, nil
}

func (t *bpe) AppendDecode(dst []byte, ids []uint32) ([]byte, error) {
	for i, id := range ids {
		tok := t.vocab.token(id)
		if tok == nil {
			return dst, t.idError(i, id)
		}
		dst = append(dst, tok...)
	}
	return dst, nil
}

func (t *bpe) DecodedLen(ids []uint32) (int, error) {
	// A uint64 cannot overflow even on 32-bit platforms: ids fit in less
	// than 2^48 bytes, and no token is 2^10 bytes long.
	var n uint64
	for i, id := range ids {
		tok := t.vocab.token(id)
		if tok == nil {
			return int(min(n, math.MaxInt)), t.idError(i, id)
		}
		n += uint64(len(tok))
	}
	return int(min(n, math.MaxInt)), nil
}

// idError reports id, at index i of ids, which has no token.
func (t *bpe) idError(i int, id uint32) error {
	err := ErrUnknownID
	if int64(id) < int64(t.enc.NVocab()) {
		err = t.missing
	}
	return &IDError{Index: i, ID: id, Err: err}
}
