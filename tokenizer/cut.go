package tokenizer

// Cutting a piece where no token reaches across. BPE merges two adjacent
// parts only into a token, so where no token holds the bytes on both sides
// of a boundary, no merge ever crosses it, and the tokens of the piece are
// those of its two sides, each merged alone: the merges on one side never
// change the ranks of those on the other. apart uses this for two bytes;
// a table per character does it for whole characters of three bytes:
// cl100k_base joins most bytes of CJK characters to something, yet no
// token reaches across five in six of the boundaries between two CJK
// characters of chat text (two in five for o200k_base, whose vocabulary
// holds CJK words). A character between two such boundaries is merged
// alone, and what that gives is in its entry, read once: its tokens cost
// no backtracking and no check of validity.

// A charCut describes a character of three bytes X: at bit y (0 to 15) of
// its lowest 16 bits, whether some token holds X's last byte followed by
// the lead byte 0xE0|y of another character of three bytes (and, if it
// starts before X's last byte, the bytes of X before it); then its own
// tokens, what BPE makes of its three bytes alone: their number k (1 to 3)
// at bits 16-17, the first's id at 18-39 and, for k = 2, the second's at
// 40-61 (setCuts makes no table for larger ids). For k = 3 they are the
// tokens of its bytes.
type charCut uint64

const (
	cutIDBits = 22
	cutID0    = 18
	cutID1    = cutID0 + cutIDBits
)

// joins reports whether some token may join the character to one whose
// first byte is lead, a lead byte of a character of three bytes.
func (c charCut) joins(lead byte) bool { return c&(1<<(lead&15)) != 0 }

// charCuts returns cuts, made on the first call; nil where chars is.
func (t *bpeTables) charCuts() *[1 << 16]charCut {
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
// their low six bits each; its first byte: part1), and the tokens of the
// pairs of bytes that start a character of three (pairs, by the lead's low
// four bits and the next byte's low six) and that end one (tails), and of
// single bytes.
type cutParts struct {
	full   [1 << 16]uint16
	part2  [1 << 12]uint16
	part1  [1 << 6]uint16
	pairs  [1 << 10]uint32
	tails  [1 << 12]uint32
	single [256]uint32
}

func newCutParts() *cutParts {
	p := new(cutParts)
	for i := range p.pairs {
		p.pairs[i] = noRank
	}
	for i := range p.tails {
		p.tails[i] = noRank
	}
	return p
}

// add records token id, tok.
func (p *cutParts) add(id uint32, tok []byte) {
	switch {
	case len(tok) == 1:
		p.single[tok[0]] = id
	case len(tok) == 2 && tok[1]&0xc0 == 0x80:
		switch {
		case tok[0]&0xf0 == 0xe0:
			p.pairs[uint16(tok[0]&0x0f)<<6|uint16(tok[1]&0x3f)] = id
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
			if isChar3(tok[i-3:]) {
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
	t.cuts = new([1 << 16]charCut)
	for k := range t.cuts {
		c := charCut(p.full[k] | p.part2[k&0xfff] | p.part1[k&0x3f])
		if id := uint32(t.chars[k] >> charID); id != 0 {
			// A token BPE makes is what BPE makes of its bytes.
			c |= 1<<16 | charCut(id-1)<<cutID0
		} else {
			// As AppendEncode merges a piece of three bytes that is no
			// token (a token of three bytes that BPE does not make has
			// no pair in it that is one).
			x0, x2 := 0xe0|byte(k>>12), 0x80|byte(k)&0x3f
			switch ab, bc := p.pairs[k>>6], p.tails[k&0xfff]; {
			case ab == noRank && bc == noRank:
				c |= 3 << 16
			case ab <= bc:
				c |= 2<<16 | charCut(ab)<<cutID0 | charCut(p.single[x2])<<cutID1
			default:
				c |= 2<<16 | charCut(p.single[x0])<<cutID0 | charCut(bc)<<cutID1
			}
		}
		t.cuts[k] = c
	}
}

// appendChar appends the tokens of b, the three bytes of a character, as
// BPE merges them alone; c is the character's entry.
func (t *bpeTables) appendChar(dst []uint32, b []byte, c charCut) []uint32 {
	const idMask = 1<<cutIDBits - 1
	switch c >> 16 & 3 {
	case 1:
		return append(dst, uint32(c>>cutID0&idMask))
	case 2:
		return append(dst, uint32(c>>cutID0&idMask), uint32(c>>cutID1&idMask))
	default:
		return append(dst, t.byTok[b[0]], t.byTok[b[1]], t.byTok[b[2]])
	}
}

// appendCut is appendBPE for a piece that holds characters of three
// bytes: it cuts piece where no token reaches across the boundary between
// two of them, and merges each part alone, a part that is one character
// from its entry (in cuts, which charCuts returns). done is as for
// appendBPE.
func (t *bpeTables) appendCut(dst []uint32, piece []byte, done []uint64, cuts *[1 << 16]charCut) []uint32 {
	s := 0 // the start of the part not yet merged
	for i := 0; i+3 < len(piece); {
		if !isChar3(piece[i:]) {
			i++
			continue
		}
		c := cuts[charKey(piece[i:])]
		j := i + 3
		if piece[j]&0xf0 != 0xe0 || c.joins(piece[j]) {
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
		return t.appendChar(dst, rest, cuts[charKey(rest)])
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
