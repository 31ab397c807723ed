package tokenizer

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Byte-pair encoding of one piece, exactly as tiktoken does it: start from
// the piece's bytes, one token each, and merge the adjacent pair whose
// concatenation is the token of lowest rank (the leftmost such pair on a
// tie) until no pair is a token. tiktoken finds each merge by scanning all
// pairs, which is quadratic in the piece's length.
//
// We use the backtracking algorithm of GitHub's Rust crate bpe
// (github.com/github/rust-gems, crates/bpe, MIT licence), which gives the
// same tokens in time linear in the piece's length. It rests on two facts:
//
//   - A sequence of tokens is what BPE makes of its bytes if and only if
//     every two adjacent tokens are what BPE makes of their two tokens'
//     bytes. [bpeTables.valid] decides that for a pair in a few table
//     lookups, by undoing the merges that made the two tokens, latest
//     first, and checking that no merge across their boundary would have
//     come first.
//   - Then the encoding can be built left to right: take the longest token
//     that fits, if it is valid after the previous one; else try the next
//     shorter one; if none is, drop the previous token and try shorter
//     ones in its place. A bit per position remembers where no valid
//     encoding can end, so no position is tried twice and the work is
//     linear in the length of the piece (times the number of tokens that
//     can start at a position, at most the length of the longest token).
//
// valid needs, for every token, the two tokens whose merge makes it (its
// split) and, for every such pair, the token it makes (pairTable), and both
// parts must be of lower rank than the token (so Llama 3 cannot backtrack;
// see rankmerge.go). The splits are found in rank order by computeSplits
// (merge_test.go) when the embedded ranks are written, and stored with
// them; TestSplitsExact checks each against tiktoken's merge of its token.

// maxTokenLen is the length of the longest token we accept in a
// vocabulary; those of cl100k_base, o200k_base and Llama 3 are 128 bytes.
const maxTokenLen = 129

// noSplit marks a token that BPE never makes: its bytes do not merge into
// it. tiktoken still gives it for a piece that is exactly its bytes.
const noSplit = 1<<24 - 1

// bpeTables holds what the encoder needs beyond the vocabulary.
type bpeTables struct {
	vocab  *vocab
	tokens *tokenTable
	pairs  *pairTable
	splits splitTable  // nil without backtracking
	byTok  [256]uint32 // the token of each byte
	// prefixes describes, for every two bytes, the tokens that start with
	// them; longLens has the lengths over 33 bytes.
	prefixes *[1 << 16]prefix
	longLens map[uint16]*[3]uint32 // lengths l from 34 to 129 at bit l-34
	// lens3 narrows prefixes' lengths by the first three bytes: the
	// lengths of the tokens BPE makes whose first three bytes hash to the
	// same slot, as in prefix.lens. Two bytes say little of a character of
	// three (CJK): 64 characters share them.
	lens3 *[1 << lens3Bits]uint32
	// heads holds, for the tokens of four bytes or more that BPE makes
	// and that start with a byte of a character of more than one (26,000
	// in o200k_base, 1,400 in cl100k_base), their length and first eight
	// bytes at most (headsHash), in 64 and 32 KiB. Before it probes the
	// token table for a length that the first bytes allow, longest asks
	// heads, which stays in cache: most CJK characters begin tokens (of
	// two characters, or of one and part of another) other than those
	// that the text goes on with.
	heads *filter
	// chars describes, for each character of three bytes (most CJK
	// characters), the tokens BPE makes that start with it: one word,
	// where prefixes, lens3 and a probe of the token table for the
	// character's own token cost three cache misses (see charInfo).
	chars *[1 << 16]charInfo
	// words maps the tokens BPE makes that are two to four characters
	// of three bytes (CJK words: 11,500 in o200k_base, 360 in
	// cl100k_base) to their ids, by the characters' keys, in 256 and 8
	// KiB. longestChar probes it, once heads lets a length through,
	// rather than the token table of 8 and 4 MiB: a slot there is a
	// cache miss, and a word of three or four characters, longer than a
	// slot's eight bytes, two more in the vocabulary to compare the rest.
	words *wordTable
	// cuts describes each character of three bytes, and the pairs of
	// them that tokens join, for appendCut. It is made when a piece first
	// needs it (charCuts): reading the vocabulary for it would add a
	// sixth to the time o200k_base takes to load, for text that may hold
	// no CJK.
	cuts     *cutTable
	cutsOnce sync.Once
	// joins has a bit for every two bytes that some token holds side by
	// side: BPE never merges across a boundary between two bytes that no
	// token joins (8 KiB; see apart).
	joins *[1 << 16 / 64]uint64
	// allMade is set if BPE makes every token (as for cl100k_base and
	// o200k_base): no need then to read a token's split to know it.
	allMade bool
	// validCache remembers valid's answers, for validCached.
	validCache *[1 << validCacheBits]atomic.Uint32
	// pieceCaches holds *pieceCache.
	pieceCaches sync.Pool
}

// validCacheBits is the number of index bits of validCache: 128 KiB.
const validCacheBits = 15

// lens3Bits is the number of index bits of lens3.
const lens3Bits = 16

// headsHash returns the hash in heads of a token of l bytes (l ≥ 4) whose
// first eight bytes (or more) are h8.
func headsHash(h8 uint64, l int) uint64 {
	if l < 8 {
		h8 &= 1<<(8*l) - 1
	}
	return (h8 ^ uint64(l)<<56) * hashMul
}

// inHeads reports whether heads may hold a token of l bytes that starts
// with h8, for bytes that start with a byte of a character of more than
// one (multi): otherwise it does not know, and says so.
func (t *bpeTables) inHeads(h8 uint64, l int, multi bool) bool {
	return !multi || l < 4 || t.heads.has(headsHash(h8, l))
}

// A charInfo describes the tokens BPE makes that start with a character
// of three bytes: the id plus one of the character's own token, if it is
// one, at charID and up (0 if not), and the lengths l of the others from 4
// to charMaxLen bytes at bit l-3, with charLong if there are longer ones.
type charInfo uint32

const (
	charMaxLen = 15
	charLong   = 1 << (charMaxLen - 2)
	charID     = charMaxLen - 1 // the shift of the id
)

// isChar3 reports whether b (of three bytes or more) starts with the
// bytes of a character of three: in text, which is valid UTF-8, a lead
// byte says so, but BPE is exact for any bytes.
func isChar3(b []byte) bool {
	return b[0]&0xf0 == 0xe0 && b[1]&0xc0 == 0x80 && b[2]&0xc0 == 0x80
}

// charKey returns the index in chars of b's first character, of three
// bytes.
func charKey(b []byte) uint16 {
	return uint16(b[0]&0x0f)<<12 | uint16(b[1]&0x3f)<<6 | uint16(b[2]&0x3f)
}

// lens3Key returns the index in lens3 of b's first three bytes.
func lens3Key(b []byte) uint32 {
	return (uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16) * 0x9e3779b1 >> (32 - lens3Bits)
}

// A splitTable holds the split of every token: the two tokens BPE merges
// into it, 24 bits each, little-endian, in six bytes a token. A byte's
// split is itself; noSplit marks a token that BPE never makes.
type splitTable []byte

func (s splitTable) left(id uint32) uint32 {
	i := 6 * int(id)
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16
}

func (s splitTable) right(id uint32) uint32 {
	i := 6*int(id) + 3
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16
}

// made reports whether BPE makes token id.
func (s splitTable) made(id uint32) bool { return s.left(id) != noSplit }

// A prefix describes the tokens that start with two given bytes.
type prefix struct {
	tok uint32 // the token of the two bytes, or noRank
	// lens holds the lengths l of the tokens that BPE makes (that have a
	// split) from 3 to 33 bytes, at bit l-3, and longBit if there are
	// longer ones.
	lens uint32
}

const longBit = 1 << 31

// prefixKey returns the index in prefixes of b's first two bytes.
func prefixKey(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }

// errBadRanks reports ranks that break what BPE needs of them.
var errBadRanks = errors.New("tokenizer: the ranks are not a byte-pair vocabulary")

// A layout is what the embedded ranks hold besides the tokens: the split
// of every token as computeSplits (merge_test.go) finds it (a byte's is
// itself, and that of a token BPE never makes is noSplit), and the orders
// of the token table (all ranks) and of the pair table (the tokens BPE
// merges from a split).
type layout struct {
	splits                splitTable
	tokenOrder, pairOrder order
	// lengths, if not nil, are those of the tokens in tokenOrder, which
	// lie in that order in the vocabulary's data (see newTokenTable).
	lengths []byte
}

// newTables builds the tables of the first nRanks ids of v, and if l is not
// nil those of backtracking too, laid out in l's orders; without l it
// sorts the token table's slots itself. It checks that l is consistent,
// but not that each token is its split's bytes (TestEmbeddedRanks does).
func newTables(v *vocab, nRanks int, l *layout) (*bpeTables, error) {
	if nRanks >= 1<<pairIDBits || l != nil && len(l.splits) != 6*nRanks {
		return nil, errBadRanks
	}
	t := &bpeTables{vocab: v, prefixes: new([1 << 16]prefix)}
	t.pieceCaches.New = func() any { return new(pieceCache) }
	for k := range t.prefixes {
		t.prefixes[k].tok = noRank
	}
	// The token table takes most of the time. The pair table and the
	// lengths of the tokens BPE makes, which read the tokens out of the
	// order they lie in, are built meanwhile.
	var wg sync.WaitGroup
	var splitsErr error
	ord, lengths := order(nil), []byte(nil)
	if l != nil {
		t.longLens = map[uint16]*[3]uint32{}
		wg.Go(func() {
			if splitsErr = t.setSplits(l.splits, l.pairOrder); splitsErr == nil {
				t.setLens(nRanks)
			}
		})
		ord, lengths = l.tokenOrder, l.lengths
	} else {
		ord = tokenOrder(v, nRanks)
	}
	tokens, ok := newTokenTable(v, nRanks, ord, lengths)
	if l != nil {
		t.setJoins(nRanks) // while the splits are still being laid out
	}
	wg.Wait()
	if !ok {
		return nil, fmt.Errorf("%w: the token table's order is wrong", errBadRanks)
	}
	if splitsErr != nil {
		return nil, splitsErr
	}
	t.tokens = tokens
	seen := 0
	for id := range uint32(nRanks) {
		switch tok := v.token(id); len(tok) {
		case 0:
			return nil, fmt.Errorf("%w: token %d is empty", errBadRanks, id)
		case 1:
			t.byTok[tok[0]] = id
			seen++
		case 2:
			t.prefixes[prefixKey(tok)].tok = id
		}
	}
	if seen != 256 {
		return nil, fmt.Errorf("%w: not every byte is a token", errBadRanks)
	}
	return t, nil
}

// setLens records in prefixes (and longLens), lens3, heads and chars the
// tokens of three bytes or more, below n, that BPE makes.
func (t *bpeTables) setLens(n int) {
	t.lens3 = new([1 << lens3Bits]uint32)
	// Sized without counting: an eighth of the tokens of o200k_base start
	// with a byte of a multi-byte character, a seventieth of cl100k_base.
	t.heads = newFilter(n / 8)
	var words []wordSlot
	if n < 1<<(32-charID) {
		t.chars = new([1 << 16]charInfo)
	}
	for id := range uint32(n) {
		tok := t.vocab.token(id)
		if len(tok) < 3 || !t.made(id) {
			continue
		}
		key := prefixKey(tok)
		bit := uint32(longBit)
		if l := len(tok); l > 33 {
			if t.longLens[key] == nil {
				t.longLens[key] = new([3]uint32)
			}
			t.longLens[key][(l-34)/32] |= 1 << ((l - 34) % 32)
		} else {
			bit = 1 << (l - 3)
		}
		t.prefixes[key].lens |= bit
		t.lens3[lens3Key(tok)] |= bit
		if len(tok) >= 4 && tok[0] >= utf8.RuneSelf {
			t.heads.add(headsHash(head(tok), len(tok)))
		}
		if t.chars != nil && isChar3(tok) {
			if key, k, ok := wordKey(tok, len(tok)); ok {
				words = append(words, wordSlot{key: key, id: id, n: uint32(k)})
			}
			c := &t.chars[charKey(tok)]
			switch l := len(tok); {
			case l == 3:
				*c |= charInfo(id+1) << charID
			case l <= charMaxLen:
				*c |= 1 << (l - 3)
			default:
				*c |= charLong
			}
		}
	}
	if t.chars != nil {
		t.words = newWordTable(words)
	}
}

// setSplits takes splits as computeSplits finds them, and the order of
// the pair table. It checks only that every part is a token of lower rank,
// which is all the encoder needs to stay within its tables: that each
// token is its parts' bytes, TestEmbeddedRanks checks.
func (t *bpeTables) setSplits(splits splitTable, ord order) error {
	merged := 0 // the tokens that have a split
	for id := range uint32(len(splits) / 6) {
		l, r := splits.left(id), splits.right(id)
		switch {
		case l < id && r < id:
			merged++
		case l == noSplit && r == noSplit || l == id && r == id && len(t.vocab.token(id)) == 1:
		default:
			return fmt.Errorf("%w: token %d: bad split", errBadRanks, id)
		}
	}
	pairs, ok := newPairTable(splits, len(splits)/6, ord)
	if !ok || ord.len() != merged {
		return fmt.Errorf("%w: the pair table's order is wrong", errBadRanks)
	}
	t.pairs = pairs
	t.splits = splits
	t.validCache = new([1 << validCacheBits]atomic.Uint32)
	t.allMade = merged+256 == len(splits)/6
	return nil
}

// valid reports whether BPE makes the tokens a, b of their bytes (with the
// merges recorded so far). It undoes the latest merge of the two tokens,
// repeatedly, and fails if a merge across the boundary of lower rank than
// the undone one exists: BPE would have made it first. On equal ranks the
// left one wins, hence the limit b+1 when b is undone.
func (t *bpeTables) valid(a, b uint32) bool {
	limit := uint32(math.MaxUint32)
	for {
		if m, ok := t.pairs.get(a, b); ok && m < limit {
			return false
		}
		if a > b {
			limit = a
			a = t.splits.right(a)
			if a == limit { // a byte: undo b instead
				limit = b + 1
				b = t.splits.left(b)
				if b+1 == limit {
					return true
				}
			}
		} else {
			limit = b + 1
			b = t.splits.left(b)
			if b+1 == limit {
				limit = a
				a = t.splits.right(a)
				if a == limit {
					return true
				}
			}
		}
	}
}

// validCached is valid, answered from validCache when the pair of tokens
// was asked lately. Text repeats its pairs of tokens, and valid reads the
// pair table and the splits several times each, cache misses in a row:
// remembering its answers made CJK text 25 % faster. A slot is one word,
// read and written atomically, so goroutines share the cache without
// locks. The pair's key, mixed by a bijection of its 2·pairIDBits bits, is
// the slot's index and what the slot holds besides the answer and a bit
// that marks it full: a slot of four bytes holds a pair exactly, and the
// cache twice the pairs it would in words of eight.
func (t *bpeTables) validCached(a, b uint32) bool {
	const keyBits, restBits = 2 * pairIDBits, 2*pairIDBits - validCacheBits
	k := pairKey(a, b) * hashMul & (1<<keyBits - 1) // hashMul is odd
	slot := &t.validCache[k>>restBits]
	tag := uint32(k&(1<<restBits-1))<<2 | 2
	if e := slot.Load(); e&^1 == tag {
		return e&1 != 0
	}
	v := t.valid(a, b)
	if v {
		slot.Store(tag | 1)
	} else {
		slot.Store(tag)
	}
	return v
}

// setJoins records in joins the bytes side by side in the tokens below n.
func (t *bpeTables) setJoins(n int) {
	t.joins = new([1 << 16 / 64]uint64)
	for id := range uint32(n) {
		tok := t.vocab.token(id)
		for i := 1; i < len(tok); i++ {
			k := joinKey(tok[i-1], tok[i])
			t.joins[k/64] |= 1 << (k % 64)
		}
	}
}

// joinKey returns the index in joins of the bytes a, b.
func joinKey(a, b byte) uint16 { return uint16(a)<<8 | uint16(b) }

// made reports whether BPE makes token id, without reading its split
// when it makes every token.
func (t *bpeTables) made(id uint32) bool { return t.allMade || t.splits.made(id) }

// longest returns the longest token BPE makes that is a prefix of b and
// shorter than below bytes (below ≥ 2, len(b) ≥ 1), and its length, which
// spares backtracking a read of the token's length from the vocabulary.
func (t *bpeTables) longest(b []byte, below int) (uint32, int) {
	n := min(len(b), below-1)
	if n < 2 {
		return t.byTok[b[0]], 1
	}
	if n >= 3 && isChar3(b) && t.chars != nil {
		if c := t.chars[charKey(b)]; c&charLong == 0 {
			return t.longestChar(b, n, c)
		}
	}
	p := t.prefixes[prefixKey(b)]
	if n >= 3 && p.lens != 0 {
		lens := p.lens & t.lens3[lens3Key(b)]
		h8 := head(b)
		multi := b[0] >= utf8.RuneSelf
		if lens&longBit != 0 && n >= 34 {
			long := t.longLens[prefixKey(b)]
			for w := 2; w >= 0; w-- {
				for x := long[w]; x != 0; {
					i := bits.Len32(x) - 1
					x &^= 1 << i
					if l := 34 + 32*w + i; l <= n && t.inHeads(h8, l, multi) {
						if id, ok := t.reachable(b[:l], h8); ok {
							return id, l
						}
					}
				}
			}
		}
		m := lens &^ longBit
		if n < 33 {
			m &= 1<<(n-2) - 1 // lengths up to n
		}
		for m != 0 {
			i := bits.Len32(m) - 1
			m &^= 1 << i
			if !t.inHeads(h8, i+3, multi) {
				continue
			}
			if id, ok := t.reachable(b[:i+3], h8); ok {
				return id, i + 3
			}
		}
	}
	if p.tok != noRank && t.made(p.tok) {
		return p.tok, 2
	}
	return t.byTok[b[0]], 1
}

// longestChar is longest for b, which starts with a character of three
// bytes whose tokens c describes, none longer than charMaxLen, and n of
// whose bytes may be taken (n ≥ 3).
func (t *bpeTables) longestChar(b []byte, n int, c charInfo) (uint32, int) {
	lens := uint32(c) & (charLong - 1) &^ 1 // lengths 4 to charMaxLen
	if n < charMaxLen {
		lens &= 1<<(n-2) - 1
	}
	if lens != 0 {
		h8 := head(b)
		for lens != 0 {
			i := bits.Len32(lens) - 1
			lens &^= 1 << i
			if !t.heads.has(headsHash(h8, i+3)) {
				continue
			}
			if key, k, ok := wordKey(b, i+3); ok {
				if id, ok := t.words.get(key, k); ok {
					return id, i + 3
				}
				continue
			}
			if id, ok := t.reachable(b[:i+3], h8); ok {
				return id, i + 3
			}
		}
	}
	if id := uint32(c >> charID); id != 0 {
		return id - 1, 3
	}
	if p := t.prefixes[prefixKey(b)]; p.tok != noRank && t.made(p.tok) {
		return p.tok, 2
	}
	return t.byTok[b[0]], 1
}

// reachable returns the id of the token b, of three bytes or more, whose
// first eight bytes (or more) are h8, if it is one that BPE makes. The
// lengths of prefixes and lens3 make b a token often enough (a third of
// the time on CJK text) that the token table's filter would cost more
// cache misses than it saves.
func (t *bpeTables) reachable(b []byte, h8 uint64) (uint32, bool) {
	if len(b) < 8 {
		h8 &= 1<<(8*len(b)) - 1
	}
	id, ok := t.tokens.probe(b, h8, tokenHash(h8, len(b), tail(b)))
	return id, ok && t.made(id)
}

// tokenLen returns the length of token id.
func (t *bpeTables) tokenLen(id uint32) int {
	return int(t.vocab.locs[id] & 0xff)
}

// apart reports whether no token holds the bytes a, b side by side. Two
// tokens that BPE makes, the first ending with a and the second starting
// with b, are then what BPE makes of their bytes: a merge across their
// boundary would make a token that holds a, b. That spares validCached
// half the pairs of tokens of CJK text for cl100k_base (for o200k_base,
// whose tokens join most such bytes, a twentieth), from memory that stays
// in the nearest cache.
func (t *bpeTables) apart(a, b byte) bool {
	k := joinKey(a, b)
	return t.joins[k/64]&(1<<(k%64)) == 0
}

// appendBPE appends the tokens of piece (not empty) to dst. done must have
// at least len(piece)/64+1 words; appendBPE sets and clears its bits.
func (t *bpeTables) appendBPE(dst []uint32, piece []byte, done []uint64) []uint32 {
	n := len(piece)
	// A set bit of done marks a position where no valid encoding of the
	// piece so far ends.
	done = done[:n/64+1]
	clear(done)
	base := len(dst)
	pos := 0
	tok, l := t.longest(piece, n+1)
	for {
		end := pos + l
		if done[end/64]&(1<<(end%64)) == 0 && (len(dst) == base || t.apart(piece[pos-1], piece[pos]) || t.validCached(dst[len(dst)-1], tok)) {
			dst = append(dst, tok)
			if pos = end; pos == n {
				return dst
			}
			tok, l = t.longest(piece[pos:], n-pos+1)
			continue
		}
		if l > 1 {
			tok, l = t.longest(piece[pos:], l)
			continue
		}
		// No token is valid at pos: take back the one before it.
		if len(dst) == base {
			panic("tokenizer: inconsistent BPE tables") // every piece has an encoding
		}
		done[pos/64] |= 1 << (pos % 64)
		tok = dst[len(dst)-1]
		dst = dst[:len(dst)-1]
		l = t.tokenLen(tok)
		pos -= l
	}
}
