package ppm

import (
	"github.com/m2m-go/m2m/words"
)

// Words (Options.Words): before the model sees a text, its frequent words
// are replaced by codes of one or two bytes (package words): the byte
// values the text does not hold, or holds rarely (escaped where it does),
// and words used words.MinUses times or more. The model then codes fewer
// symbols (dev100's strings: 18.7 MB become 11.4 MB, coded ~30% faster)
// and its contexts of 16 symbols reach further back: 4.4% smaller on
// dev100's strings as one frame, 2.5% on dev's, 8% on its templates,
// where every byte value occurs (bench/README.md).

// minWordsText: below, the list costs what the codes save.
const minWordsText = 128 << 10

// chooseWords returns the table for src, or nil where src has fewer than
// three byte values free or rare or no word worth a code. (AppendEncode
// asks only for a text of minWordsText bytes or more.)
func chooseWords(src []byte) *words.Table {
	return words.Choose(src, words.Codes(src), words.MinUses(len(src)))
}

// listOrder is the order of the small model the word list is coded with,
// apart from the text's.
const listOrder = 4

func listModel(n int) *model {
	n *= words.MaxLen + 1 // a size for the model, not a bound on the list
	m := newModel(arenaWords(1, n, listOrder), listOrder)
	m.match.init(nil, n)
	return m
}

// encodeList codes t's words as words.AppendList lists them.
func encodeList(e *encoder, t *words.Table) {
	if t == nil {
		return
	}
	m := listModel(t.Len())
	defer m.release()
	for _, c := range t.AppendList(nil) {
		m.encodeSymbol(e, c)
	}
}

// decodeWordList decodes what encodeList coded, and returns the table, or
// nil for data no encoder made.
func decodeWordList(d *decoder, n int, codes []byte, one int) *words.Table {
	if n > words.Room(len(codes), one) {
		return nil // before the list's model is made
	}
	m := listModel(n)
	defer m.release()
	var list []byte
	for range n {
		for i := 0; ; i++ {
			c, ok := m.decodeSymbol(d)
			if !ok || d.over > 4 || i > words.MaxLen+1 {
				return nil
			}
			list = append(list, c)
			if c == '\n' && i > 0 {
				break
			}
		}
	}
	t, _, err := words.ParseList(list, n, codes, one)
	if err != nil {
		return nil
	}
	return t
}

// decodeWords decodes symbols with m and d, expanding codes, until at
// least n bytes are appended to dst (n of them are kept), and reports
// whether the data was well formed: codes complete, and no more than
// rawLen bytes. It calls o.OnPrefix as Options says.
func decodeWords(t *words.Table, dst []byte, m *model, d *decoder, n, rawLen int, o Options) ([]byte, bool) {
	start := len(dst)
	pf := o.prefixes(n)
	for len(dst)-start < n {
		if pf.want > 0 && len(dst)-start >= pf.want {
			pf.reached(dst[start:])
		}
		b, ok := m.decodeSymbol(d)
		if !ok || d.over > 4 {
			return dst, false
		}
		k := t.Kind(b)
		if k == words.Literal {
			dst = append(dst, b)
			continue
		}
		if k == words.Escape {
			if b, ok = m.decodeSymbol(d); !ok || t.Kind(b) == words.Literal {
				return dst, false
			}
			dst = append(dst, b)
			if len(dst)-start > rawLen {
				return dst, false
			}
			continue
		}
		capital := k == words.Capital
		if capital {
			if b, ok = m.decodeSymbol(d); !ok {
				return dst, false
			}
			if k = t.Kind(b); k < 0 && k > words.Prefix {
				return dst, false // a literal, an escape or the flag again
			}
		}
		i := k
		if k < 0 {
			c := b
			if b, ok = m.decodeSymbol(d); !ok {
				return dst, false
			}
			i = t.Second(c, b)
		}
		if i >= t.Len() || len(dst)-start+len(t.Word(i)) > rawLen {
			return dst, false
		}
		at := len(dst)
		dst = append(dst, t.Word(i)...)
		if capital {
			dst[at] &^= 0x20
		}
	}
	if d.over <= 4 {
		pf.reached(dst[start:])
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
func setClasses(t *words.Table, m *model) {
	codes, one := t.Codes()
	for i, c := range codes {
		switch {
		case i == 1:
			m.classes[c] = byteClass(' ')
		case i >= 2 && i < 2+one:
			m.classes[c] = byteClass('0')
		default:
			m.classes[c] = byteClass(0)
			m.prefixes[c] = i >= 2
		}
	}
}
