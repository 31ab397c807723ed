package tokenizer

import "encoding/binary"

// Text repeats its words, and so the pieces that are no token and that
// BPE merges: identifiers of code, inflected words, numbers. A pieceCache
// remembers the tokens of the short pieces merged lately, by their bytes,
// so that a piece seen before costs a lookup instead of a merge. Each
// encoding keeps its caches in a sync.Pool (bpeTables.pieceCaches): a
// goroutine takes one for a call of AppendEncode, at its first such piece,
// and most calls on a P get back the cache the last call left there.

// pieceCacheBits is the number of index bits of a pieceCache: 48 KiB.
const pieceCacheBits = 10

// cachePiece is the length of the longest piece a pieceCache holds, and
// cacheIDs the most tokens it holds for one. Such pieces are merged by
// scanning (appendScanMerge) even where backtracking is possible: on
// short pieces scanning touches less memory, except those that start with
// a character of three bytes.
const (
	cachePiece = 16
	cacheIDs   = 7
)

type pieceCache [1 << pieceCacheBits]cachedPiece

// A cachedPiece is a piece and its tokens.
type cachedPiece struct {
	lo, hi uint64 // the piece's bytes, as pieceWords returns them
	n      uint8  // the piece's length; 0 marks an empty entry
	nIDs   uint8
	ids    [cacheIDs]uint32
}

// pieceWords returns the bytes of text[i:e], a piece of 1 to cachePiece
// bytes, little-endian and zero-padded, in two words.
func pieceWords(text []byte, i, e int) (lo, hi uint64) {
	if len(text)-i < 16 {
		var b [16]byte
		copy(b[:], text[i:e])
		return binary.LittleEndian.Uint64(b[:]), binary.LittleEndian.Uint64(b[8:])
	}
	n := e - i
	lo = binary.LittleEndian.Uint64(text[i:]) & (1<<(8*min(n, 8)) - 1)
	hi = binary.LittleEndian.Uint64(text[i+8:]) & (1<<(8*max(n-8, 0)) - 1)
	return lo, hi
}

// appendMerged appends the tokens of text[i:e], a piece of at most
// cachePiece bytes that is no token, from c if it holds them, else merged
// by tb (and then kept in c).
func (c *pieceCache) appendMerged(dst []uint32, tb *bpeTables, text []byte, i, e int) []uint32 {
	lo, hi := pieceWords(text, i, e)
	n := uint8(e - i)
	s := &c[tokenHash(lo, int(n), hi)>>(64-pieceCacheBits)]
	if s.n == n && s.lo == lo && s.hi == hi {
		return append(dst, s.ids[:s.nIDs]...)
	}
	start := len(dst)
	if tb.splits != nil && text[i]&0xf0 == 0xe0 {
		// A piece that starts with a character of three bytes (CJK) is
		// cut and backtracked, which cuts and chars serve, rather than
		// scanned.
		var done [1]uint64
		dst = tb.appendPiece(dst, text[i:e], done[:])
	} else {
		dst = tb.appendScanMerge(dst, text[i:e])
	}
	if k := len(dst) - start; k <= cacheIDs {
		s.lo, s.hi, s.n, s.nIDs = lo, hi, n, uint8(k)
		copy(s.ids[:], dst[start:])
	}
	return dst
}
