package tokenizer

import "slices"

// Cutting a piece where no token reaches across. BPE merges two adjacent
// parts only into a token, so where no token holds the bytes on both sides
// of a boundary, no merge ever crosses it, and the tokens of the piece are
// those of its two sides, each merged alone: the merges on one side never
// change the ranks of those on the other. apart uses this for two bytes;
// tables per character and per two characters do it for whole characters
// of three bytes: cl100k_base joins most bytes of CJK characters to
// something, yet no token reaches across 88% of the boundaries between two
// CJK characters of chat text (66% for o200k_base, whose vocabulary holds
// CJK words: its tokens cross the others, most of them within words). A
// character between two such boundaries is merged alone, and what that
// gives is in its entry, read once: its tokens cost no backtracking and no
// check of validity.

// A charCut describes a character of three bytes X: at bit y (0 to 15) of
// its lowest 16 bits, whether some token holds X's last byte followed by
// the lead byte 0xE0|y of another character of three bytes (and, if it
// starts before X's last byte, the bytes of X before it); then its own
// tokens, what BPE makes of its three bytes alone: their number k (1 to 3)
// at bits 16-17 and, for k = 1, its id at 19-40; for k = 2, the id of the
// one of two bytes there, and at bit 18 whether those are X's first two
// (the other is a byte's token); for k = 3 the tokens of its bytes
// (setCuts makes no table for ids of more than 22 bits). At bit 41 + y,
// whether the tokens that hold X's last byte and the lead byte 0xE0|y
// after it all hold X and the character after it whole: then the pairs
// filter, which has every such pair by X and Y (charPairHash), says
// whether the boundary between X and the character after is one that
// some token crosses.
type charCut uint64

const (
	cutIDBits = 22
	cutHead   = 1 << 18 // k = 2: the id's token is X's first two bytes
	cutID     = 19
	cutPairs  = cutID + cutIDBits
)

// A cutTable is what appendCut reads: an entry for every character of
// three bytes (512 KiB, of which CJK text reads the lines of the
// characters it holds), and a filter of the pairs of characters that
// tokens join (128 KiB for o200k_base's 11,900 pairs: a few pairs no
// token joins pass it too, and are not cut).
type cutTable struct {
	chars [1 << 16]charCut
	pairs *filter
}

// charPairHash is the pairs filter's hash of characters x and y, by their
// charKeys.
func charPairHash(x, y uint16) uint64 { return (uint64(x)<<16 | uint64(y)) * hashMul }

// cuts reports whether no token reaches across the boundary after the
// character of three bytes b starts with, whose entry is c (b holds a
// byte after it): a token that crosses it holds the lead byte of a
// character after; where the only such tokens are pairs of whole
// characters, the filter says whether this pair may be one. (Where the
// text holds no whole character after, none of those can match it.)
// appendCut writes it out.
func (ct *cutTable) cuts(b []byte, c charCut) bool {
	y := b[3]
	return y&0xf0 == 0xe0 && (c&(1<<(y&15)) == 0 || c>>cutPairs&(1<<(y&15)) != 0 && !ct.joined(b))
}

// joined reports whether the pairs filter may hold the two characters of
// three bytes that b starts with: false if b holds no second one whole.
func (ct *cutTable) joined(b []byte) bool {
	return len(b) >= 6 && isChar3(b[3:]) && ct.pairs.has(charPairHash(charKey(b), charKey(b[3:])))
}

// charCuts returns cuts, made on the first call; nil where chars is.
func (t *bpeTables) charCuts() *cutTable {
	t.cutsOnce.Do(func() {
		nRanks := len(t.splits) / 6
		if t.chars == nil || nRanks > 1<<cutIDBits {
			return
		}
		p := newCutParts()
		for id := range uint32(nRanks) {
			p.add(id, t.vocab.token(id))
		}
		t.setCuts(p)
	})
	return t.cuts
}

// cutParts gathers, while the vocabulary is read, what cuts are made of:
// the boundaries between a byte of a character's end (a continuation byte)
// and the lead byte of a character of three bytes that some token holds,
// by what of the token precedes the boundary (three bytes or more: full,
// by the last three bytes' charKey; the token's first two bytes: part2, by
// their low six bits each; its first byte: part1) and, where the token
// holds a whole character of three bytes on each side, by both
// characters (pairs); and the tokens of the pairs of bytes that start a
// character of three bytes (heads, by the lead's low four bits and the
// next byte's low six) and that end one (tails).
type cutParts struct {
	full  [1 << 16]uint16
	part2 [1 << 12]uint16
	part1 [1 << 6]uint16
	pairs [][2]uint16
	heads [1 << 10]uint32
	tails [1 << 12]uint32
}

func newCutParts() *cutParts {
	p := new(cutParts)
	for i := range p.heads {
		p.heads[i] = noRank
	}
	for i := range p.tails {
		p.tails[i] = noRank
	}
	return p
}

// add records token id, tok.
func (p *cutParts) add(id uint32, tok []byte) {
	if len(tok) == 2 && tok[1]&0xc0 == 0x80 {
		switch {
		case tok[0]&0xf0 == 0xe0:
			p.heads[uint16(tok[0]&0x0f)<<6|uint16(tok[1]&0x3f)] = id
		case tok[0]&0xc0 == 0x80:
			p.tails[uint16(tok[0]&0x3f)<<6|uint16(tok[1]&0x3f)] = id
		}
	}
	for i := 1; i < len(tok); i++ {
		if tok[i-1]&0xc0 != 0x80 || tok[i]&0xf0 != 0xe0 {
			continue
		}
		bit := uint16(1) << (tok[i] & 15)
		switch {
		case i >= 3:
			// Text can hold these bytes only as a character of three.
			if !isChar3(tok[i-3:]) {
				continue
			}
			if len(tok)-i >= 3 && isChar3(tok[i:]) {
				p.pairs = append(p.pairs, [2]uint16{charKey(tok[i-3:]), charKey(tok[i:])})
			} else {
				p.full[charKey(tok[i-3:])] |= bit
			}
		case i == 2:
			if tok[0]&0xc0 == 0x80 {
				p.part2[uint16(tok[0]&0x3f)<<6|uint16(tok[1]&0x3f)] |= bit
			}
		default:
			p.part1[tok[0]&0x3f] |= bit
		}
	}
}

// setCuts makes cuts from p and chars.
func (t *bpeTables) setCuts(p *cutParts) {
	// A pair is in many tokens. The filter, four times the size its
	// pairs alone would get, passes few pairs that no token joins.
	slices.SortFunc(p.pairs, func(a, b [2]uint16) int { return slices.Compare(a[:], b[:]) })
	p.pairs = slices.Compact(p.pairs)
	ct := &cutTable{pairs: newFilter(4 * len(p.pairs))}
	var pairs [1 << 16]uint16 // the lead bytes after each character in pairs
	for _, k := range p.pairs {
		ct.pairs.add(charPairHash(k[0], k[1]))
		pairs[k[0]] |= 1 << (k[1] >> 12)
	}
	for k := range ct.chars {
		other := p.full[k] | p.part2[k&0xfff] | p.part1[k&0x3f]
		c := charCut(other|pairs[k]) | charCut(pairs[k]&^other)<<cutPairs
		if id := uint32(t.chars[k] >> charID); id != 0 {
			// A token BPE makes is what BPE makes of its bytes.
			c |= 1<<16 | charCut(id-1)<<cutID
		} else {
			// As AppendEncode merges a piece of three bytes that is no
			// token (a token of three bytes that BPE does not make has
			// no pair in it that is one).
			switch ab, bc := p.heads[k>>6], p.tails[k&0xfff]; {
			case ab == noRank && bc == noRank:
				c |= 3 << 16
			case ab <= bc:
				c |= 2<<16 | cutHead | charCut(ab)<<cutID
			default:
				c |= 2<<16 | charCut(bc)<<cutID
			}
		}
		ct.chars[k] = c
	}
	t.cuts = ct
}

// appendChar appends the tokens of b, the three bytes of a character, as
// BPE merges them alone; c is the character's entry.
func (t *bpeTables) appendChar(dst []uint32, b []byte, c charCut) []uint32 {
	id := uint32(c>>cutID) & (1<<cutIDBits - 1)
	switch c >> 16 & 3 {
	case 1:
		return append(dst, id)
	case 2:
		if c&cutHead != 0 {
			return append(dst, id, t.byTok[b[2]])
		}
		return append(dst, t.byTok[b[0]], id)
	default:
		return append(dst, t.byTok[b[0]], t.byTok[b[1]], t.byTok[b[2]])
	}
}

// appendCut is appendBPE for a piece that holds characters of three
// bytes: it cuts piece where no token reaches across the boundary between
// two of them, and merges each part alone, a part that is one character
// from its entry (in cuts, which charCuts returns). done is as for
// appendBPE.
func (t *bpeTables) appendCut(dst []uint32, piece []byte, done []uint64, cuts *cutTable) []uint32 {
	s := 0 // the start of the part not yet merged
	for i := 0; i+3 < len(piece); {
		if !isChar3(piece[i:]) {
			i++
			continue
		}
		c := cuts.chars[charKey(piece[i:])]
		j := i + 3
		// cuts.cuts, written out: Go does not inline it, and a call at
		// every boundary cost cl100k_base's CJK text several percent
		// (bench/README.md). TestCutPieces checks what this makes.
		if y := piece[j]; y&0xf0 != 0xe0 || c&(1<<(y&15)) != 0 && (c>>cutPairs&(1<<(y&15)) == 0 || cuts.joined(piece[i:])) {
			i = j
			continue
		}
		if i == s {
			dst = t.appendChar(dst, piece[i:j], c)
		} else {
			dst = t.appendBPE(dst, piece[s:j], done)
		}
		s, i = j, j
	}
	switch rest := piece[s:]; {
	case len(rest) == 3 && isChar3(rest):
		return t.appendChar(dst, rest, cuts.chars[charKey(rest)])
	default:
		return t.appendBPE(dst, rest, done)
	}
}

// appendPiece is appendBPE, through appendCut for a piece that starts with
// a character of three bytes, or with one byte and then one (a space, a
// quote or a sign before a word, in both encodings' split patterns).
func (t *bpeTables) appendPiece(dst []uint32, piece []byte, done []uint64) []uint32 {
	if t.chars != nil && len(piece) >= 6 && (piece[0]&0xf0 == 0xe0 || piece[1]&0xf0 == 0xe0) {
		if cuts := t.charCuts(); cuts != nil {
			return t.appendCut(dst, piece, done, cuts)
		}
	}
	return t.appendBPE(dst, piece, done)
}
