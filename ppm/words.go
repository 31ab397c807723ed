package ppm

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/m2m-go/m2m/varint"
)

// Words (Options.Words): before the model sees a text, its frequent words
// (maximal runs of ASCII letters, and JSON escapes) are replaced by codes
// of one or two bytes the text does not hold, or holds rarely (escaped
// where it does), and a capitalized word by a flag byte and the code of
// its lower-case form. The model then codes fewer symbols (dev100's
// strings: 18.7 MB become 11.4 MB, coded ~30% faster) and its contexts of
// 16 symbols reach further back: 4.4% smaller on dev100's strings as one
// frame, 2.5% on dev's, 8% on its templates, where every byte value
// occurs (bench/README.md).
//
// The table: the codes are the byte values the text does not use and,
// while those are fewer than minCodes, the ones it uses least, each at
// most once in rareCode bytes, in increasing order of their values. The
// first is the escape (the next symbol is a byte of the text, one of the
// codes), the second the capital flag; of the rest, two thirds (rounded down) are
// one-byte codes and the others the first bytes of two-byte codes, whose
// second byte is any. Words are ranked by what replacing them saves (uses
// times length), and take the codes in that order, one-byte codes first;
// a word not longer than its code is not replaced, nor one used fewer
// times than minWordUses says.
const (
	minWordsText  = 128 << 10 // below, the list costs what the codes save
	maxWordLen    = 48
	maxWordsCount = 1 << 18 // distinct words counted: memory bounded on text of few repeats
	minCodes      = 48      // codes taken from used bytes up to this many
	rareCode      = 2048    // a used byte is a code if it is at most one in this many
)

// minWordUses is how often a word must occur in n bytes of text to be
// worth its place in the list: 64 times up to 1 MiB of text, then fewer
// as the text grows, down to 8 from 8 MiB. The list is coded apart from
// the text, by a small model: measured on prefixes of dev100's strings,
// 8 uses made 256 KiB 0.3% larger and 1 MiB 0.85% smaller, 64 uses 0.9%
// and 1.3% smaller; at 4 MiB 8 uses gained 2.3%, 64 1.7%.
func minWordUses(n int) int { return min(max(64<<20/max(n, 1), 8), 64) }

// A wordTable maps words to codes and back.
type wordTable struct {
	words [][]byte // by number
	codes []byte   // the escape, the capital flag, the one-byte codes, the prefixes
	one   int      // how many one-byte codes
	of    [256]int32
	index map[string]int32 // encoder only: word to number
}

// Byte kinds in wordTable.of, besides a word's number for a one-byte code.
const (
	wordLiteral = -1
	wordEscape  = -2
	wordCapital = -3
	wordPrefix  = -4 // -4-p: the first byte of the p-th group of 256 two-byte codes
)

// isLetter reports whether c is an ASCII letter.
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// isEscaped reports whether a backslash and c make a word: a JSON escape
// (\n, \", \\, \t, \u...), or one like it.
func isEscaped(c byte) bool { return isLetter(c) || c == '"' || c == '\\' }

// isWord reports whether w is a word forWords finds: 2 to maxWordLen
// letters, or an escape.
func isWord(w []byte) bool {
	if len(w) == 2 && w[0] == '\\' {
		return isEscaped(w[1])
	}
	if len(w) < 2 || len(w) > maxWordLen {
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

// lower returns w with its first letter in lower case, in buf.
func lower(buf, w []byte) []byte { return append(append(buf[:0], w[0]|0x20), w[1:]...) }

// chooseWords returns the table for src, or nil where src has fewer than
// three byte values free or rare or no word worth a code. (AppendEncode
// asks only for a text of minWordsText bytes or more.)
func chooseWords(src []byte) *wordTable {
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
	if len(codes) < 3 {
		return nil
	}
	slices.Sort(codes)
	one := (len(codes) - 2) * 2 / 3
	type word struct {
		w    string
		uses int
	}
	index := make(map[string]int32)
	var counted []word
	var buf [maxWordLen]byte
	forWords(src, func(w []byte) {
		if capitalized(w) {
			w = lower(buf[:], w)
		}
		if i, ok := index[string(w)]; ok {
			counted[i].uses++
		} else if len(counted) < maxWordsCount {
			index[string(w)] = int32(len(counted))
			counted = append(counted, word{string(w), 1})
		}
	})
	slices.SortFunc(counted, func(a, b word) int {
		if c := cmp.Compare(b.uses*len(b.w), a.uses*len(a.w)); c != 0 {
			return c
		}
		return cmp.Compare(a.w, b.w)
	})
	var words [][]byte
	minUses := minWordUses(len(src))
	room := wordRoom(len(codes), one)
	for _, x := range counted {
		if x.uses < minUses || len(words) == room {
			break
		}
		if len(words) >= one && len(x.w) <= 2 {
			continue // a two-byte code saves nothing
		}
		words = append(words, []byte(x.w))
	}
	if len(words) == 0 {
		return nil
	}
	// Which of its group's codes a word gets does not matter to the model
	// (codes are labels), so each group is listed in order of its bytes,
	// which the list's model codes in less.
	slices.SortFunc(words[:min(one, len(words))], bytes.Compare)
	for i := one; i < len(words); i += 256 {
		slices.SortFunc(words[i:min(i+256, len(words))], bytes.Compare)
	}
	return newWordTable(words, codes, one)
}

// wordRoom is how many words codes codes hold, one of them one-byte codes:
// 0 where they are too few (an escape, a capital flag and one more) or one
// is out of range.
func wordRoom(codes, one int) int {
	if codes < 3 || one < 0 || one > codes-2 {
		return 0
	}
	return one + (codes-2-one)*256
}

// newWordTable makes the table of words and codes, which it checks: codes
// distinct, an escape, a capital flag and one more at least, room for
// every word, words as forWords finds them, distinct.
func newWordTable(words [][]byte, codes []byte, one int) *wordTable {
	if room := wordRoom(len(codes), one); room == 0 || len(words) > room {
		return nil
	}
	t := &wordTable{words: words, codes: codes, one: one, index: make(map[string]int32, len(words))}
	for i := range t.of {
		t.of[i] = wordLiteral
	}
	for i, c := range codes {
		if t.of[c] != wordLiteral {
			return nil
		}
		switch {
		case i == 0:
			t.of[c] = wordEscape
		case i == 1:
			t.of[c] = wordCapital
		case i < 2+one:
			t.of[c] = int32(i - 2)
		default:
			t.of[c] = int32(wordPrefix - (i - 2 - one))
		}
	}
	for i, w := range words {
		if !isWord(w) {
			return nil
		}
		if _, dup := t.index[string(w)]; dup {
			return nil
		}
		t.index[string(w)] = int32(i)
	}
	return t
}

// forWords calls f with each word of b: a maximal run of 2 to maxWordLen
// ASCII letters, not counting one after a backslash, or a backslash and
// what isEscaped allows. In JSON text "\nThe" is an escape and a word,
// not "nThe": 0.3% smaller on 4 MiB of dev100's strings, and the escapes
// given codes 0.26% more.
func forWords(b []byte, f func(w []byte)) {
	for i := 0; i < len(b); {
		if b[i] == '\\' {
			if i+1 < len(b) && isEscaped(b[i+1]) {
				f(b[i : i+2])
			}
			i += 2 // what follows a backslash is not a word's first letter
			continue
		}
		if !isLetter(b[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(b) && isLetter(b[j]) {
			j++
		}
		if n := j - i; n >= 2 && n <= maxWordLen {
			f(b[i:j])
		}
		i = j
	}
}

// appendCode appends the code of word number i.
func (t *wordTable) appendCode(dst []byte, i int) []byte {
	if i < t.one {
		return append(dst, t.codes[2+i])
	}
	i -= t.one
	return append(dst, t.codes[2+t.one+i/256], byte(i))
}

// appendCoded appends src with its words replaced by their codes, and
// escapes before its bytes that are codes.
func (t *wordTable) appendCoded(dst, src []byte) []byte {
	var buf [maxWordLen]byte
	last := 0
	forWords(src, func(w []byte) {
		i, ok := t.index[string(w)]
		capital := false
		if !ok && capitalized(w) {
			i, ok = t.index[string(lower(buf[:], w))]
			capital = ok
		}
		if !ok {
			return
		}
		start := cap(src) - cap(w)
		dst = t.appendLiteral(dst, src[last:start])
		if capital {
			dst = append(dst, t.codes[1])
		}
		dst = t.appendCode(dst, int(i))
		last = start + len(w)
	})
	return t.appendLiteral(dst, src[last:])
}

// appendLiteral appends b, an escape before each of its bytes that is a
// code.
func (t *wordTable) appendLiteral(dst, b []byte) []byte {
	for {
		i := 0
		for i < len(b) && t.of[b[i]] == wordLiteral {
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

// appendHeader appends the table's part of the header: uvarint words,
// and for words > 0, uvarint codes | the codes | uvarint one.
func (t *wordTable) appendHeader(dst []byte) []byte {
	if t == nil {
		return append(dst, 0)
	}
	dst = varint.AppendUvarint64(dst, uint64(len(t.words)))
	dst = varint.AppendUvarint64(dst, uint64(len(t.codes)))
	dst = append(dst, t.codes...)
	return varint.AppendUvarint64(dst, uint64(t.one))
}

// readWordHeader reads what appendHeader wrote: how many words, the codes
// and how many of them are one-byte codes, and the bytes it took.
func readWordHeader(src []byte) (words int, codes []byte, one, k int, ok bool) {
	w, k1, err := varint.Uvarint64(src)
	if err != nil || w > 256*256 {
		return 0, nil, 0, 0, false
	}
	if w == 0 {
		return 0, nil, 0, k1, true
	}
	n, k2, err := varint.Uvarint64(src[k1:])
	at := k1 + k2
	if err != nil || n > 256 || uint64(len(src)-at) < n {
		return 0, nil, 0, 0, false
	}
	codes = src[at : at+int(n)]
	at += int(n)
	o, k3, err := varint.Uvarint64(src[at:])
	if err != nil || o > 256 {
		return 0, nil, 0, 0, false
	}
	return int(w), codes, int(o), at + k3, true
}

// listOrder is the order of the small model the word list is coded with,
// apart from the text's.
const listOrder = 4

func listModel(words int) *model {
	n := words * (maxWordLen + 1)
	m := newModel(arenaWords(1, n, listOrder), listOrder)
	m.match.init(nil, n)
	return m
}

// encodeList codes the table's words, each as how many of its first
// bytes are the word before's (a byte), the rest, and a line feed.
func (t *wordTable) encodeList(e *encoder) {
	m := listModel(len(t.words))
	var prev []byte
	for _, w := range t.words {
		k := commonPrefix(prev, w)
		m.encodeSymbol(e, byte(k))
		for _, c := range w[k:] {
			m.encodeSymbol(e, c)
		}
		m.encodeSymbol(e, '\n')
		prev = w
	}
}

// commonPrefix returns how many first bytes a and b share.
func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// decodeWordList decodes what encodeList coded, and returns the table, or
// nil for data no encoder made.
func decodeWordList(d *decoder, words int, codes []byte, one int) *wordTable {
	if words > wordRoom(len(codes), one) {
		return nil // before the list's model is made
	}
	m := listModel(words)
	list := make([][]byte, 0, words)
	var letters, prev []byte
	for range words {
		k, ok := m.decodeSymbol(d)
		if !ok || int(k) > len(prev) {
			return nil
		}
		start := len(letters)
		letters = append(letters, prev[:k]...)
		for {
			c, ok := m.decodeSymbol(d)
			if !ok || d.over > 4 || len(letters)-start > maxWordLen {
				return nil
			}
			if c == '\n' {
				break
			}
			letters = append(letters, c)
		}
		prev = letters[start:len(letters):len(letters)]
		list = append(list, prev)
	}
	return newWordTable(list, codes, one)
}

// decode decodes symbols with m and d, expanding codes, until at least n
// bytes are appended to dst (n of them are kept), and reports whether
// the data was well formed: codes complete, and no more than rawLen bytes.
func (t *wordTable) decode(dst []byte, m *model, d *decoder, n, rawLen int) ([]byte, bool) {
	start := len(dst)
	for len(dst)-start < n {
		b, ok := m.decodeSymbol(d)
		if !ok || d.over > 4 {
			return dst, false
		}
		k := t.of[b]
		if k == wordLiteral {
			dst = append(dst, b)
			continue
		}
		if k == wordEscape {
			if b, ok = m.decodeSymbol(d); !ok || t.of[b] == wordLiteral {
				return dst, false
			}
			dst = append(dst, b)
			if len(dst)-start > rawLen {
				return dst, false
			}
			continue
		}
		capital := k == wordCapital
		if capital {
			if b, ok = m.decodeSymbol(d); !ok {
				return dst, false
			}
			if k = t.of[b]; k < 0 && k > wordPrefix {
				return dst, false // a literal, an escape or the flag again
			}
		}
		i := int(k)
		if k < 0 {
			if b, ok = m.decodeSymbol(d); !ok {
				return dst, false
			}
			i = t.one + int(wordPrefix-k)*256 + int(b)
		}
		if i >= len(t.words) || len(dst)-start+len(t.words[i]) > rawLen {
			return dst, false
		}
		at := len(dst)
		dst = append(dst, t.words[i]...)
		if capital {
			dst[at] &^= 0x20
		}
	}
	return dst[:start+n], d.over <= 4
}

// setClasses gives the codes their byte classes in m's escape estimation
// (byteClass): the capital flag that of a space, which comes before a
// word; a word's one-byte code that of a digit, a class prose seldom
// holds, so that what follows a word is told apart; the escape and a
// prefix, the rest; and the byte after a prefix, whatever its value, that
// of a one-byte code. Measured on 4 MiB of dev100's strings: 0.7% smaller
// than every code in the class byteClass gives it, and 0.15% more for the
// second bytes (dev's strings too); a class of their own (five, a larger
// table) gained 0.1% more.
func (t *wordTable) setClasses(m *model) {
	for i, c := range t.codes {
		switch {
		case i == 1:
			m.classes[c] = byteClass(' ')
		case i >= 2 && i < 2+t.one:
			m.classes[c] = byteClass('0')
		default:
			m.classes[c] = byteClass(0)
			m.prefixes[c] = i >= 2
		}
	}
}
