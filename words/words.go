// Package words replaces the frequent words of a text by short codes,
// and back: a transform before a compressor, which then sees fewer
// symbols. Package ppm runs its model over the coded text (its contexts of
// 16 symbols reach further back); package archive gives zstd the coded
// strings of its frames (shorter matches and literals to code).
//
// A word is a maximal run of 2 to MaxLen ASCII letters, not begun after a
// backslash, or a backslash and a letter, quote or backslash: in JSON text
// "\nThe" is an escape and a word, not "nThe"; but not letters within a
// run of minRun or more of base64's bytes (an image sent inline). A [Table] maps up to
// [Room] words to codes of one or two bytes taken from byte values the
// text does not hold, or holds rarely: codes[0] is the escape (the next
// byte is one of the codes, as a byte of the text), codes[1] the capital
// flag (the next code's word, its first letter upper case), codes[2:2+one]
// stand for words 0 to one-1, and each later code c is the first byte of
// two, whose second b stands for word one + 256*(c's place among them) + b.
package words

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"math/bits"
	"slices"

	"github.com/m2m-go/m2m/varint"
)

const (
	// MaxLen is the longest word a table holds.
	MaxLen = 48
	// maxCounted is how many distinct words Choose counts: memory bounded
	// on text of few repeats.
	maxCounted = 1 << 18
	// minCodes: Codes takes used bytes as codes up to this many, each at
	// most one in rareCode bytes of the text.
	minCodes = 48
	rareCode = 2048
)

// ErrCorrupt is returned for a coded text or a list no encoder makes.
var ErrCorrupt = errors.New("words: corrupt data")

// A Table maps words to codes and back.
type Table struct {
	words [][]byte // by number
	codes []byte   // the escape, the capital flag, the one-byte codes, the prefixes
	one   int      // how many one-byte codes
	of    [256]int32
	index index // word to number
	// For AppendDecode (decodeRun): each word in a slot of slotLen bytes,
	// and their lengths (0: a long word, decoded apart); the slot of a
	// one-byte code, or of the first of a two-byte code's group.
	slots [][slotLen]byte
	lens  []uint8
	base  [256]int32
}

const slotLen = 16

// Kinds of a byte of coded text, from [Table.Kind]: besides these, a
// one-byte code's word number (>= 0), and Prefix-p for the first byte of
// the p-th group of 256 two-byte codes.
const (
	Literal = -1
	Escape  = -2
	Capital = -3
	Prefix  = -4
)

// Kind is what byte c is in coded text.
func (t *Table) Kind(c byte) int { return int(t.of[c]) }

// Second returns the number of the word whose two-byte code is c, b, where
// Kind(c) <= Prefix.
func (t *Table) Second(c, b byte) int { return t.one + int(Prefix-t.of[c])*256 + int(b) }

// Len is how many words t holds; Word returns word i.
func (t *Table) Len() int          { return len(t.words) }
func (t *Table) Word(i int) []byte { return t.words[i] }

// Codes returns t's codes, and how many of them are one-byte codes.
func (t *Table) Codes() (codes []byte, one int) { return t.codes, t.one }

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// isEscaped reports whether a backslash and c make a word: a JSON escape
// (\n, \", \\, \t, \u...), or one like it.
func isEscaped(c byte) bool { return isLetter(c) || c == '"' || c == '\\' }

// isWord reports whether w is a word a wordScan finds: 2 to MaxLen letters,
// or an escape.
func isWord(w []byte) bool {
	if len(w) == 2 && w[0] == '\\' {
		return isEscaped(w[1])
	}
	if len(w) < 2 || len(w) > MaxLen {
		return false
	}
	for _, c := range w {
		if !isLetter(c) {
			return false
		}
	}
	return true
}

// capitalized reports whether w is a capital and lower-case letters.
func capitalized(w []byte) bool {
	if len(w) < 2 || w[0] < 'A' || w[0] > 'Z' {
		return false
	}
	for _, c := range w[1:] {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// Codes returns the byte values src does not use and, while those are
// fewer than 48, the ones it uses least, each at most once in 2048 bytes,
// in increasing order: codes for [Choose] that a text of its kind seldom
// needs escaped.
func Codes(src []byte) []byte {
	var uses [256]int
	for _, c := range src {
		uses[c]++
	}
	byUse := make([]byte, 256)
	for c := range byUse {
		byUse[c] = byte(c)
	}
	slices.SortStableFunc(byUse, func(a, b byte) int { return cmp.Compare(uses[a], uses[b]) })
	var codes []byte
	for _, c := range byUse {
		if uses[c] > 0 && (len(codes) >= minCodes || uses[c] > len(src)/rareCode) {
			break
		}
		codes = append(codes, c)
	}
	slices.Sort(codes)
	return codes
}

// MinUses is how often a word must occur in n bytes of text to be worth
// its place in a list coded apart from the text: 64 times up to 1 MiB of
// text, then fewer as the text grows, down to 8 from 8 MiB. (Measured with
// package ppm on prefixes of dev100's strings: 8 uses made 256 KiB 0.3%
// larger and 1 MiB 0.85% smaller, 64 uses 0.9% and 1.3% smaller; at 4 MiB
// 8 uses gained 2.3%, 64 1.7%.)
func MinUses(n int) int { return min(max(64<<20/max(n, 1), 8), 64) }

// Choose returns the table of src's words used minUses times or more,
// ranked by what replacing them saves (uses times length), with codes
// (distinct, in increasing order; two thirds of those past the escape and
// the capital flag, rounded down, are one-byte codes): as many as they
// hold, a word not longer than its code left out. It returns nil where
// codes are fewer than three or no word is worth a code.
func Choose(src, codes []byte, minUses int) *Table {
	if len(codes) < 3 {
		return nil
	}
	one := (len(codes) - 2) * 2 / 3
	counted, uses := count(src, maxCounted)
	// Words ranked by the bytes they cover, up to the first used fewer
	// than minUses times: only those before it are taken, so only they
	// are sorted (most words of a text are rare: sorting all of them was
	// a fifth of Choose's time).
	order := func(a, b int32) int {
		if c := cmp.Compare(uses[b]*len(counted[b]), uses[a]*len(counted[a])); c != 0 {
			return c
		}
		return bytes.Compare(counted[a], counted[b])
	}
	rare := int32(-1)
	for i := range counted {
		if uses[i] < minUses && (rare < 0 || order(int32(i), rare) < 0) {
			rare = int32(i)
		}
	}
	var rank []int32
	for i := range counted {
		if uses[i] >= minUses && (rare < 0 || order(int32(i), rare) < 0) {
			rank = append(rank, int32(i))
		}
	}
	slices.SortFunc(rank, order)
	var words [][]byte
	room := Room(len(codes), one)
	for _, r := range rank {
		if len(words) == room {
			break
		}
		w := counted[r]
		if len(words) >= one && len(w) <= 2 {
			continue // a two-byte code saves nothing
		}
		words = append(words, w)
	}
	if len(words) == 0 {
		return nil
	}
	// Copied out of src (which the caller may reuse), in one piece.
	n := 0
	for _, w := range words {
		n += len(w)
	}
	letters := make([]byte, 0, n)
	for i, w := range words {
		letters = append(letters, w...)
		words[i] = letters[len(letters)-len(w) : len(letters) : len(letters)]
	}
	// Which of its group's codes a word gets does not matter to a model
	// (codes are labels), so each group is listed in order of its bytes,
	// which the list is coded in less.
	slices.SortFunc(words[:min(one, len(words))], bytes.Compare)
	for i := one; i < len(words); i += 256 {
		slices.SortFunc(words[i:min(i+256, len(words))], bytes.Compare)
	}
	t, _ := New(words, slices.Clone(codes), one)
	return t
}

// Room is how many words codes codes hold, one of them one-byte codes: 0
// where they are too few (an escape, a capital flag and one more) or one
// is out of range.
func Room(codes, one int) int {
	if codes < 3 || one < 0 || one > codes-2 {
		return 0
	}
	return one + (codes-2-one)*256
}

// New returns the table of words and codes, which it checks (codes
// distinct, an escape, a capital flag and one more at least, room for
// every word, words as a table holds them, distinct), or ErrCorrupt. It
// keeps words and codes.
func New(words [][]byte, codes []byte, one int) (*Table, error) {
	if room := Room(len(codes), one); room == 0 || len(words) > room {
		return nil, ErrCorrupt
	}
	t := &Table{words: words, codes: codes, one: one}
	for i := range t.of {
		t.of[i] = Literal
	}
	for i, c := range codes {
		if t.of[c] != Literal {
			return nil, ErrCorrupt
		}
		switch {
		case i == 0:
			t.of[c] = Escape
		case i == 1:
			t.of[c] = Capital
		case i < 2+one:
			t.of[c] = int32(i - 2)
		default:
			t.of[c] = int32(Prefix - (i - 2 - one))
		}
	}
	for _, w := range words {
		if !isWord(w) {
			return nil, ErrCorrupt
		}
	}
	var ok bool
	if t.index, ok = newIndex(words); !ok {
		return nil, ErrCorrupt
	}
	t.slots = make([][slotLen]byte, len(words))
	t.lens = make([]uint8, len(words))
	for i, w := range words {
		if len(w) <= slotLen {
			copy(t.slots[i][:], w)
			t.lens[i] = uint8(len(w))
		}
	}
	for c := range 256 {
		switch k := t.of[c]; {
		case k >= 0:
			t.base[c] = k
		case k <= Prefix:
			t.base[c] = int32(t.one + int(Prefix-k)*256)
		}
	}
	return t, nil
}

// minRun is the shortest run of base64's bytes (letters, digits, '+' and
// '/') whose letters are no words: an image's, audio's or a file's bytes
// sent inline, whose runs of letters recur by chance (2 MB of an image's
// base64 got 1,200 two- and three-letter words of 8 uses) and, coded,
// leave package numcol no run to take as its bytes (from 256 characters
// with padding: see numcol's blobs). Prose has no such run.
const minRun = 240

// isRunByte reports whether c is a byte of base64 but its padding.
func isRunByte(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == '+' || c == '/'
}

// A wordScan finds words in a text, remembering the run of base64's bytes
// it last found shorter than minRun, so that it measures none twice.
type wordScan struct{ start, end int }

// next returns where the first word of b at or after from starts and
// ends, or len(b) twice where there is none: a run of letters that
// borders another byte of base64 (a token, a path, base64) is a word only
// if the run of base64's bytes around it is shorter than minRun.
func (ws *wordScan) next(b []byte, from int) (int, int) {
	for {
		i, j := nextLetters(b, from)
		if i == len(b) || b[i] == '\\' || (i == 0 || !isRunByte(b[i-1])) && (j == len(b) || !isRunByte(b[j])) || ws.start <= i && j <= ws.end {
			return i, j
		}
		s, e := i, j
		for s > 0 && isRunByte(b[s-1]) {
			s--
		}
		for e < len(b) && isRunByte(b[e]) {
			e++
		}
		if e-s < minRun {
			ws.start, ws.end = s, e
			return i, j
		}
		from = e
	}
}

// nextLetters returns where the first run of 2 to MaxLen letters or
// escape of b at or after from starts and ends, or len(b) twice where
// there is none. It reads b 8 bytes at a time where it has them (see
// letters): the byte loop it replaced, which the tests keep as its twin,
// was a third of Choose's and AppendEncode's time, mispredicting where
// each run of letters or of other bytes ends.
func nextLetters(b []byte, from int) (int, int) {
	for i := from; i < len(b); {
		if i+8 <= len(b) {
			// To the next letter or backslash, and a letter's run to
			// its end, if it ends within the same 8 bytes.
			x := binary.LittleEndian.Uint64(b[i:])
			l := letters(x)
			m := l | zeroBytes(x^0x5C5C5C5C5C5C5C5C)
			if m == 0 {
				i += 8
				continue
			}
			p := uint(bits.TrailingZeros64(m)) // the high bit of byte p/8
			at := i + int(p>>3)
			if l&m&-m != 0 {
				// A run of letters starts at at: it ends at the
				// load's first other byte after it, or past the load.
				j := i + 8
				if rest := ^l & hiBits & (^uint64(0) << p); rest != 0 {
					j = i + bits.TrailingZeros64(rest)>>3
				} else {
					j = letterRunEnd(b, j)
				}
				if n := j - at; n >= 2 && n <= MaxLen {
					return at, j
				}
				i = j
				continue
			}
			i = at
		}
		if b[i] == '\\' {
			if i+1 < len(b) && isEscaped(b[i+1]) {
				return i, i + 2
			}
			i += 2 // what follows a backslash is not a word's first letter
			continue
		}
		if !isLetter(b[i]) {
			i++
			continue
		}
		j := letterRunEnd(b, i+1)
		if n := j - i; n >= 2 && n <= MaxLen {
			return i, j
		}
		i = j
	}
	return len(b), len(b)
}

// letterRunEnd returns where the run of letters of b that goes on at j
// ends: j itself if b[j] is no letter, or len(b).
func letterRunEnd(b []byte, j int) int {
	for ; j+8 <= len(b); j += 8 {
		if m := ^letters(binary.LittleEndian.Uint64(b[j:])) & hiBits; m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
	}
	for j < len(b) && isLetter(b[j]) {
		j++
	}
	return j
}

const hiBits = 0x8080808080808080

// letters returns the high bit of each byte of x (8 bytes of text, the
// first lowest) that is an ASCII letter, isLetter's test for 8 bytes at
// once: a byte of up to 0x7F, with the bit of case set, is at least 'a'
// where adding 0x80-'a' sets its high bit, and past 'z' where adding
// 0x80-'z'-1 does; neither sum carries into the next byte.
func letters(x uint64) uint64 {
	y := (x | 0x2020202020202020) &^ hiBits
	return (y + 0x1F1F1F1F1F1F1F1F) &^ (y + 0x0505050505050505) &^ x & hiBits
}

// zeroBytes returns the high bit of each byte of x that is 0, exactly (no
// carry from a zero byte into the next, as the shorter test has).
func zeroBytes(x uint64) uint64 {
	return ^((x&^hiBits + ^uint64(hiBits)) | x) & hiBits
}

// appendCode appends the code of word number i.
func (t *Table) appendCode(dst []byte, i int) []byte {
	if i < t.one {
		return append(dst, t.codes[2+i])
	}
	i -= t.one
	return append(dst, t.codes[2+t.one+i/256], byte(i))
}

// AppendEncode appends src with its words replaced by their codes, and
// escapes before its bytes that are codes. A nil t appends src.
func (t *Table) AppendEncode(dst, src []byte) []byte {
	if t == nil {
		return append(dst, src...)
	}
	last := 0
	var ws wordScan
	for i, j := ws.next(src, 0); i < len(src); i, j = ws.next(src, j) {
		w := src[i:j]
		k := keyAt(src, i, j)
		n := t.index.find(k, w, t.words)
		capital := false
		if n < 0 && capitalized(w) {
			n = t.index.find(k|0x20, w, t.words) // the first letter in lower case
			capital = n >= 0
		}
		if n < 0 {
			continue
		}
		dst = t.appendLiteral(dst, src[last:i])
		if capital {
			dst = append(dst, t.codes[1])
		}
		dst = t.appendCode(dst, int(n))
		last = j
	}
	return t.appendLiteral(dst, src[last:])
}

// appendLiteral appends b, an escape before each of its bytes that is a
// code.
func (t *Table) appendLiteral(dst, b []byte) []byte {
	for {
		i := 0
		for i < len(b) && t.of[b[i]] == Literal {
			i++
		}
		dst = append(dst, b[:i]...)
		if i == len(b) {
			return dst
		}
		dst = append(dst, t.codes[0], b[i])
		b = b[i+1:]
	}
}

// AppendDecode appends the text src codes, as far as src holds whole
// codes, and returns how many bytes of src that took: all of them, but for
// a code cut at its end (a prefix of a coded text decodes as far as it
// can). It returns ErrCorrupt, and dst as it was, where src is no
// encoder's or the text would be longer than limit bytes.
//
// A word is a slot of slotLen bytes copied whole (the next one writes over
// its tail), the output advanced by its length: BenchmarkDecode expands
// the sample and dev100's first 4 MiB at ~770-800 MB/s so, and 4 MiB of
// the strings of dev100's archive, denser in words (2.6 MB coded: 1.74
// million literals, 0.52 million codes), at ~550, against ~350 with a
// word's bytes appended (bench/README.md).
func (t *Table) AppendDecode(dst, src []byte, limit int) ([]byte, int, error) {
	start := len(dst)
	limit = start + max(limit, 0) // where the output must end, at most
	// Written by index, not appended, with room for a slot copied whole
	// at the end: as much as a byte of src is on average, more as needed.
	out := slices.Grow(dst, min(limit-start, 2*len(src))+slotLen)
	out = out[:cap(out)]
	end := min(limit, len(out)-slotLen)
	o, i := start, 0
	for i < len(src) {
		if o, i = t.decodeRun(out, o, end, src, i); i == len(src) {
			break
		}
		if end < limit && end-o < MaxLen {
			// Out of room before the limit: more.
			out = slices.Grow(out[:o], min(limit-o, max(o-start, 2*MaxLen))+slotLen)
			out = out[:cap(out)]
			end = min(limit, len(out)-slotLen)
			continue
		}
		// The last byte, an escape, a capital flag, a long word, or what
		// no encoder makes.
		var ok bool
		if o, i, ok = t.decodeCode(out, o, end, src, i); !ok {
			return dst[:start], 0, ErrCorrupt
		}
		if i < 0 {
			return out[:o], -i - 1, nil // a code cut at the end
		}
	}
	return out[:o], i, nil
}

// decodeRun decodes src from i into out from o, up to end, literals and
// codes of words of a slot, until src ends or another byte or code comes,
// and returns where output and input stopped. A loop of its own, with few
// variables: in AppendDecode's, the compiler kept i on the stack, a store
// and a load on the path of every byte. A word is its slot copied whole
// (the next one writes over its tail), the output advanced by its length.
func (t *Table) decodeRun(out []byte, o, end int, src []byte, i int) (int, int) {
	slots, lens, base, of := t.slots, t.lens, &t.base, &t.of
	for i < len(src) {
		c := src[i]
		k := of[c]
		if k == Literal && o < end {
			out[o] = c
			o++
			i++
			continue
		}
		if k >= 0 && int(k) < len(lens) {
			if n := int(lens[base[c]]); n > 0 && n <= end-o {
				*(*[slotLen]byte)(out[o:]) = slots[base[c]]
				o += n
				i++
				continue
			}
		} else if k <= Prefix && i+1 < len(src) {
			if s := int(base[c]) + int(src[i+1]); s < len(lens) {
				if n := int(lens[s]); n > 0 && n <= end-o {
					*(*[slotLen]byte)(out[o:]) = slots[s]
					o += n
					i += 2
					continue
				}
			}
		}
		break
	}
	return o, i
}

// AppendSeps appends the offsets of the bytes sep of coded text src that
// stand for themselves (sep is no code: a separator the text holds, such
// as the end of an entry), from offset from on, where a code starts: not
// the second byte of a two-byte code nor an escaped byte. Only the byte
// after a prefix or an escape can be such, and it is where that prefix
// or escape ends a run of them of odd length: the run starts where a code
// starts (after any other byte, a code's second byte or not), and its
// bytes pair up from there. A sep that is one of t's codes finds none.
// The bytes between two seps so found expand alone ([Table.AppendDecode]):
// a reader finds an entry of a long coded text without expanding the
// text before it.
func (t *Table) AppendSeps(dst []uint32, src []byte, sep byte, from int) []uint32 {
	if t.of[sep] != Literal {
		return dst
	}
	start := from // where a code starts: no run reaches before it
	for at := from; at < len(src); {
		i := bytes.IndexByte(src[at:], sep)
		if i < 0 {
			break
		}
		p := at + i
		q := p
		for q > start && (t.of[src[q-1]] == Escape || t.of[src[q-1]] <= Prefix) {
			q--
		}
		if (p-q)%2 == 0 {
			dst = append(dst, uint32(p))
			start = p + 1
		}
		at = p + 1
	}
	return dst
}

// decodeCode decodes the code at src[i] into out[o:end], and returns
// where the output and the input go on (-1-i where src ends in the code),
// or false for a code no encoder makes.
func (t *Table) decodeCode(out []byte, o, end int, src []byte, i int) (int, int, bool) {
	at := i
	c := src[i]
	k := t.of[c]
	i++
	switch k {
	case Literal:
		if o == end {
			return o, i, false
		}
		out[o] = c
		return o + 1, i, true
	case Escape:
		if i == len(src) {
			return o, -1 - at, true
		}
		if t.of[src[i]] == Literal || o == end {
			return o, i, false
		}
		out[o] = src[i]
		return o + 1, i + 1, true
	}
	capital := k == Capital
	if capital {
		if i == len(src) {
			return o, -1 - at, true
		}
		c = src[i]
		if k = t.of[c]; k < 0 && k > Prefix {
			return o, i, false // a literal, an escape or the flag again
		}
		i++
	}
	w := int(k)
	if k <= Prefix {
		if i == len(src) {
			return o, -1 - at, true
		}
		w = t.Second(c, src[i])
		i++
	}
	if w >= len(t.words) || len(t.words[w]) > end-o {
		return o, i, false
	}
	copy(out[o:], t.words[w])
	if capital {
		out[o] &^= 0x20
	}
	return o + len(t.words[w]), i, true
}

// AppendHeader appends t's codes: uvarint words, and for words > 0,
// uvarint codes | the codes | uvarint one. A nil t appends uvarint 0.
func (t *Table) AppendHeader(dst []byte) []byte {
	if t == nil {
		return append(dst, 0)
	}
	dst = varint.AppendUvarint64(dst, uint64(len(t.words)))
	dst = varint.AppendUvarint64(dst, uint64(len(t.codes)))
	dst = append(dst, t.codes...)
	return varint.AppendUvarint64(dst, uint64(t.one))
}

// ReadHeader reads what AppendHeader wrote: how many words, the codes
// (src's bytes) and how many of them are one-byte codes, and the bytes it
// took. words is at most what the codes hold.
func ReadHeader(src []byte) (words int, codes []byte, one, k int, err error) {
	w, k1, err := varint.Uvarint64(src)
	if err != nil || w > 256*256 {
		return 0, nil, 0, 0, ErrCorrupt
	}
	if w == 0 {
		return 0, nil, 0, k1, nil
	}
	n, k2, err := varint.Uvarint64(src[k1:])
	at := k1 + k2
	if err != nil || n > 256 || uint64(len(src)-at) < n {
		return 0, nil, 0, 0, ErrCorrupt
	}
	codes = src[at : at+int(n)]
	at += int(n)
	o, k3, err := varint.Uvarint64(src[at:])
	if err != nil || o > 256 || int(w) > Room(len(codes), int(o)) {
		return 0, nil, 0, 0, ErrCorrupt
	}
	return int(w), codes, int(o), at + k3, nil
}

// AppendList appends t's words, front-coded: each as how many of its first
// bytes are the word before's (a byte), the rest, and a line feed.
func (t *Table) AppendList(dst []byte) []byte {
	var prev []byte
	for _, w := range t.words {
		k := commonPrefix(prev, w)
		dst = append(append(append(dst, byte(k)), w[k:]...), '\n')
		prev = w
	}
	return dst
}

// commonPrefix returns how many first bytes a and b share.
func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// ListLen is the most bytes AppendList makes of n words, for a reader's
// bound on what it reads.
func ListLen(n int) int { return n * (MaxLen + 2) }

// ParseList returns the table of the first words words of list, which
// AppendList made, and codes, from ReadHeader; and the bytes of list it
// took.
func ParseList(list []byte, words int, codes []byte, one int) (*Table, int, error) {
	if words > Room(len(codes), one) {
		return nil, 0, ErrCorrupt
	}
	// Checked and measured first, then made in one piece of memory.
	total, prev, at := 0, 0, 0
	for range words {
		if at == len(list) || int(list[at]) > prev {
			return nil, 0, ErrCorrupt
		}
		k := int(list[at])
		end := bytes.IndexByte(list[at+1:], '\n')
		if end < 0 || k+end > MaxLen {
			return nil, 0, ErrCorrupt
		}
		prev = k + end
		total += prev
		at += 1 + end + 1
	}
	letters := make([]byte, 0, total)
	ws := make([][]byte, words)
	var w []byte
	for i, p := 0, 0; i < words; i++ {
		k := int(list[p])
		end := bytes.IndexByte(list[p+1:], '\n')
		from := len(letters)
		letters = append(append(letters, w[:k]...), list[p+1:p+1+end]...)
		w = letters[from:len(letters):len(letters)]
		ws[i] = w
		p += 1 + end + 1
	}
	t, err := New(ws, codes, one)
	return t, at, err
}
