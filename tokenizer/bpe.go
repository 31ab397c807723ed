package tokenizer

import (
	"math"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/m2m-go/m2m/utf8x"
)

// bpe is the Tokenizer of every encoding: the split pattern by hand
// (splitter), a table lookup for pieces that are tokens, exact BPE for
// the others (bpeTables.appendBPE), and a flat id table for decoding.
type bpe struct {
	enc     Encoding
	split   splitter
	tables  *bpeTables // nil if the ranks are missing: decode only
	vocab   *vocab
	missing error // for an id below NVocab without a token: ErrUnknownID, or ErrLlama3Unavailable
}

func (t *bpe) Encoding() Encoding { return t.enc }

// stackPiece is the length of the longest piece whose backtracking bits
// live on the stack; longer ones, rare, take theirs from a pooled scratch.
const stackPiece = 4096

// A scratch holds the memory of merging long pieces between calls.
type scratch struct {
	done  []uint64 // appendBPE's bits
	merge mergeScratch
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// put returns s to the pool, without the memory of very long pieces: the
// bits of backtracking over more than 4 MiB (512 KiB), and the heap merge of
// more than 64 KiB (3 MiB), which would otherwise stay until the pool is
// cleared.
func (s *scratch) put() {
	if cap(s.done) > 1<<16 {
		s.done = nil
	}
	if cap(s.merge.next) > 64<<10 {
		s.merge = mergeScratch{}
	}
	scratchPool.Put(s)
}

func (t *bpe) AppendEncode(dst []uint32, text []byte) ([]uint32, error) {
	if t.tables == nil {
		return dst, ErrLlama3Unavailable
	}
	if !utf8x.Valid(text) {
		return dst, &TextError{Offset: invalidAt(text), Err: ErrInvalidUTF8}
	}
	var stack [stackPiece/64 + 1]uint64
	var s *scratch     // from scratchPool, for long pieces
	var pc *pieceCache // from tb.pieceCaches, for short ones
	tb := t.tables
	for i := 0; i < len(text); {
		e := t.split.next(text, i)
		piece := text[i:e]
		// A piece that is a token is that token. The pieces of one or two
		// bytes, common in code and in random text, are found in the
		// small tables of bytes and of pairs of bytes.
		switch len(piece) {
		case 1:
			dst = append(dst, tb.byTok[piece[0]])
			i = e
			continue
		case 2:
			if id := tb.prefixes[prefixKey(piece)].tok; id != noRank {
				dst = append(dst, id)
			} else {
				dst = append(dst, tb.byTok[piece[0]], tb.byTok[piece[1]])
			}
			i = e
			continue
		default:
			if id, ok := tb.tokens.lookupIn(text, i, e); ok {
				dst = append(dst, id)
				i = e
				continue
			}
		}
		i = e
		switch {
		case len(piece) == 3:
			// Not a token: BPE merges the pair of lower rank, if either
			// is a token, and stops.
			ab, bc := tb.prefixes[prefixKey(piece)].tok, tb.prefixes[prefixKey(piece[1:])].tok
			switch {
			case ab == noRank && bc == noRank:
				dst = append(dst, tb.byTok[piece[0]], tb.byTok[piece[1]], tb.byTok[piece[2]])
			case ab <= bc:
				dst = append(dst, ab, tb.byTok[piece[2]])
			default:
				dst = append(dst, tb.byTok[piece[0]], bc)
			}
		case len(piece) <= cachePiece:
			if pc == nil {
				pc = tb.pieceCaches.Get().(*pieceCache)
			}
			dst = pc.appendMerged(dst, tb, text, i-len(piece), i)
		case tb.splits == nil && len(piece) <= smallPiece:
			dst = tb.appendScanMerge(dst, piece)
		case tb.splits != nil && len(piece) <= stackPiece:
			dst = tb.appendPiece(dst, piece, stack[:])
		default:
			if s == nil {
				s = scratchPool.Get().(*scratch)
			}
			if tb.splits == nil {
				dst = tb.appendHeapMerge(dst, piece, &s.merge)
			} else {
				s.done = grow(s.done, len(piece)/64+1)
				dst = tb.appendPiece(dst, piece, s.done)
			}
		}
	}
	if s != nil {
		s.put()
	}
	if pc != nil {
		tb.pieceCaches.Put(pc)
	}
	return dst, nil
}

// invalidAt returns the offset of the first byte of text that is not
// valid UTF-8.
func invalidAt(text []byte) int {
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRune(text[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(text)
}

// decodeWord is how many bytes AppendDecode copies at once.
const decodeWord = 16

// AppendDecode copies a token of up to decodeWord bytes as one word of
// decodeWord bytes, which the padding after the tokens allows, into dst's
// spare capacity, and then keeps only the token's bytes: that saves a call
// to memmove per token, most of the time of decoding.
func (t *bpe) AppendDecode(dst []byte, ids []uint32) ([]byte, error) {
	locs, data := t.vocab.locs, t.vocab.data
	for i, id := range ids {
		if int64(id) >= int64(len(locs)) || locs[id]&0xff == 0 {
			return dst, t.idError(i, id)
		}
		lo, hi := locs[id]>>8, locs[id]>>8+locs[id]&0xff
		if n := len(dst); hi-lo <= decodeWord && cap(dst)-n >= decodeWord {
			*(*[decodeWord]byte)(dst[n : n+decodeWord]) = *(*[decodeWord]byte)(data[lo:])
			dst = dst[:n+int(hi-lo)]
			continue
		}
		if cap(dst)-len(dst) < int(hi-lo) {
			// Room for the rest at four bytes a token, the usual.
			dst = slices.Grow(dst, int(hi-lo)+4*(len(ids)-i)+decodeWord)
		}
		dst = append(dst, data[lo:hi]...)
	}
	return dst, nil
}

func (t *bpe) DecodedLen(ids []uint32) (int, error) {
	// A uint64 cannot overflow even on 32-bit platforms: ids fit in less
	// than 2^48 bytes, and no token is 2^8 bytes long.
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
