package tokenizer

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
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
// split) and, for every such pair, the token it makes (pairTable). The
// splits are found once per vocabulary, in rank order (see computeSplits);
// for the embedded vocabularies they are stored with the ranks.

// maxTokenLen is the length of the longest token we accept in a
// vocabulary; those of cl100k_base, o200k_base and Llama 3 are 128 bytes.
const maxTokenLen = 129

// noSplit marks a token that BPE never makes: its bytes do not merge into
// it. tiktoken still gives it for a piece that is exactly its bytes.
const noSplit = math.MaxUint32

// bpeTables holds what the encoder needs beyond the vocabulary.
type bpeTables struct {
	vocab  *vocab
	tokens *tokenTable
	pairs  *pairTable
	splits []tokenSplit // by id: the pair merged into the token; a byte's is itself; nil without backtracking
	byTok  [256]uint32  // the token of each byte
	// prefixes describes, for every two bytes, the tokens that start with
	// them; longLens has the lengths over 33 bytes.
	prefixes *[1 << 16]prefix
	longLens map[uint16]*[3]uint32 // lengths l from 34 to 129 at bit l-34
}

type tokenSplit struct{ left, right uint32 }

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

// newTables builds the tables of the first nRanks ids of v; those of
// backtracking only if backtrack. lefts, if not nil, gives for each id the
// length of the left part of its split (0 if it has none, and for bytes),
// as computeSplits would find it.
func newTables(v *vocab, nRanks int, backtrack bool, lefts []byte) (*bpeTables, error) {
	if nRanks >= 1<<pairIDBits || lefts != nil && len(lefts) != nRanks {
		return nil, errBadRanks
	}
	t := &bpeTables{vocab: v, tokens: newTokenTable(v, nRanks), prefixes: new([1 << 16]prefix)}
	for b := range 256 {
		id, ok := t.tokens.lookup([]byte{byte(b)})
		if !ok {
			return nil, fmt.Errorf("%w: byte %#x is not a token", errBadRanks, b)
		}
		t.byTok[b] = id
	}
	for k := range t.prefixes {
		t.prefixes[k].tok = t.rank([]byte{byte(k), byte(k >> 8)})
	}
	if !backtrack {
		return t, nil
	}
	t.splits = make([]tokenSplit, nRanks)
	t.longLens = map[uint16]*[3]uint32{}
	var err error
	if lefts == nil {
		err = t.computeSplits(nRanks)
	} else {
		err = t.readSplits(lefts)
	}
	if err != nil {
		return nil, err
	}
	for id, s := range t.splits {
		tok := v.token(uint32(id))
		if len(tok) >= 2 && s.left != noSplit {
			p := &t.prefixes[prefixKey(tok)]
			switch l := len(tok); {
			case l > 33:
				p.lens |= longBit
				if t.longLens[prefixKey(tok)] == nil {
					t.longLens[prefixKey(tok)] = new([3]uint32)
				}
				t.longLens[prefixKey(tok)][(l-34)/32] |= 1 << ((l - 34) % 32)
			case l > 2:
				p.lens |= 1 << (l - 3)
			}
		}
	}
	return t, nil
}

// computeSplits finds the split of every token, in rank order: the
// two tokens, both of lower rank and both made by BPE, that are a valid
// pair (what BPE makes of the token's bytes without the token itself). At
// most one split of a token's bytes is valid; a token without one is
// never made by BPE (noSplit).
func (t *bpeTables) computeSplits(nRanks int) error {
	t.pairs = newPairTable(nRanks)
	for id := range uint32(nRanks) {
		tok := t.vocab.token(id)
		if len(tok) > maxTokenLen {
			return fmt.Errorf("%w: token %d has %d bytes", errBadRanks, id, len(tok))
		}
		t.splits[id] = tokenSplit{noSplit, noSplit}
		if len(tok) == 1 {
			t.splits[id] = tokenSplit{id, id}
			continue
		}
		for k := len(tok) - 1; k > 0; k-- {
			l, ok := t.tokens.lookup(tok[:k])
			if !ok || l >= id || t.splits[l].left == noSplit {
				continue
			}
			r, ok := t.tokens.lookup(tok[k:])
			if !ok || r >= id || t.splits[r].left == noSplit {
				continue
			}
			if t.valid(l, r) {
				t.splits[id] = tokenSplit{l, r}
				t.pairs.add(l, r, id)
				break
			}
		}
	}
	return nil
}

// readSplits sets the splits from the lengths of their left parts.
func (t *bpeTables) readSplits(lefts []byte) error {
	t.pairs = newPairTable(len(lefts))
	for id, k := range lefts {
		id := uint32(id)
		tok := t.vocab.token(id)
		switch {
		case len(tok) > maxTokenLen || int(k) >= len(tok) || len(tok) == 1 && k != 0:
			return fmt.Errorf("%w: token %d: bad split", errBadRanks, id)
		case len(tok) == 1:
			t.splits[id] = tokenSplit{id, id}
			continue
		case k == 0:
			t.splits[id] = tokenSplit{noSplit, noSplit}
			continue
		}
		l, lok := t.tokens.lookup(tok[:k])
		r, rok := t.tokens.lookup(tok[k:])
		if !lok || !rok || l >= id || r >= id {
			return fmt.Errorf("%w: token %d: bad split", errBadRanks, id)
		}
		t.splits[id] = tokenSplit{l, r}
		t.pairs.add(l, r, id)
	}
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
			a = t.splits[a].right
			if a == limit { // a byte: undo b instead
				limit = b + 1
				b = t.splits[b].left
				if b+1 == limit {
					return true
				}
			}
		} else {
			limit = b + 1
			b = t.splits[b].left
			if b+1 == limit {
				limit = a
				a = t.splits[a].right
				if a == limit {
					return true
				}
			}
		}
	}
}

// longest returns the longest token BPE makes that is a prefix of b and
// shorter than below bytes (below ≥ 2, len(b) ≥ 1).
func (t *bpeTables) longest(b []byte, below int) uint32 {
	n := min(len(b), below-1)
	if n < 2 {
		return t.byTok[b[0]]
	}
	p := t.prefixes[prefixKey(b)]
	if n >= 3 && p.lens != 0 {
		h8 := head(b)
		if p.lens&longBit != 0 && n >= 34 {
			long := t.longLens[prefixKey(b)]
			for w := 2; w >= 0; w-- {
				for x := long[w]; x != 0; {
					i := bits.Len32(x) - 1
					x &^= 1 << i
					if l := 34 + 32*w + i; l <= n {
						if id, ok := t.reachable(b[:l], h8); ok {
							return id
						}
					}
				}
			}
		}
		m := p.lens &^ longBit
		if n < 33 {
			m &= 1<<(n-2) - 1 // lengths up to n
		}
		for m != 0 {
			i := bits.Len32(m) - 1
			m &^= 1 << i
			if id, ok := t.reachable(b[:i+3], h8); ok {
				return id
			}
		}
	}
	if p.tok != noRank && t.splits[p.tok].left != noSplit {
		return p.tok
	}
	return t.byTok[b[0]]
}

// reachable returns the id of the token b, of three bytes or more, whose
// first eight bytes (or more) are h8, if it is one that BPE makes.
func (t *bpeTables) reachable(b []byte, h8 uint64) (uint32, bool) {
	if len(b) < 8 {
		h8 &= 1<<(8*len(b)) - 1
	}
	id, ok := t.tokens.lookupHash(b, h8, tokenHash(h8, len(b), tail(b)))
	return id, ok && t.splits[id].left != noSplit
}

// tokenLen returns the length of token id.
func (t *bpeTables) tokenLen(id uint32) int {
	return int(t.vocab.offs[id+1] - t.vocab.offs[id])
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
	tok := t.longest(piece, n+1)
	for {
		l := t.tokenLen(tok)
		end := pos + l
		if done[end/64]&(1<<(end%64)) == 0 && (len(dst) == base || t.valid(dst[len(dst)-1], tok)) {
			dst = append(dst, tok)
			if pos = end; pos == n {
				return dst
			}
			tok = t.longest(piece[pos:], n-pos+1)
			continue
		}
		if l > 1 {
			tok = t.longest(piece[pos:], l)
			continue
		}
		// No token is valid at pos: take back the one before it.
		if len(dst) == base {
			panic("tokenizer: inconsistent BPE tables") // every piece has an encoding
		}
		done[pos/64] |= 1 << (pos % 64)
		tok = dst[len(dst)-1]
		dst = dst[:len(dst)-1]
		pos -= t.tokenLen(tok)
	}
}
