package tokenizer

import "unicode/utf8"

// The split patterns (pre-tokenizer regexps) of tiktoken. Llama 3 uses the
// cl100k_base pattern unchanged. Encoding does not run them: splitter
// implements each by hand. The tests hold the two to each other.
const (
	cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	o200kPattern  = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// A splitter cuts valid UTF-8 text into the pieces that an encoding's split
// pattern matches, left to right, as the backtracking regexp engines of
// tiktoken and tiktoken-go do: at each position the first alternative that
// matches wins, and within it greedy quantifiers give back characters only
// as far as needed. Every character matches some alternative, so the
// pieces cover the text.
//
// The pattern is never run. Each alternative becomes a scan over character
// classes (class.go), with a table lookup per ASCII byte; the comments give
// the alternative each step implements.
type splitter struct {
	o200k   bool        // the o200k_base pattern, else cl100k_base's
	classes *classTable // classes()
}

// at returns the classes and length in bytes of the character at text[i].
func (s *splitter) at(text []byte, i int) (class, int) {
	if c := byteClass[text[i]]; c&clMulti == 0 {
		return c, 1
	}
	return s.atMulti(text, i)
}

// atMulti is at for a character of more than one byte. The text is valid
// UTF-8, so the character is decoded from its lead byte without the checks
// of utf8.DecodeRune, which took a tenth of the time of CJK text.
func (s *splitter) atMulti(text []byte, i int) (class, int) {
	b := text[i:]
	switch c := b[0]; {
	case c < 0xe0:
		return s.classes.of(rune(c&0x1f)<<6 | rune(b[1]&0x3f)), 2
	case c < 0xf0:
		return s.classes.of(rune(c&0x0f)<<12 | rune(b[1]&0x3f)<<6 | rune(b[2]&0x3f)), 3
	default:
		return s.classes.of(rune(c&0x07)<<18 | rune(b[1]&0x3f)<<12 | rune(b[2]&0x3f)<<6 | rune(b[3]&0x3f)), 4
	}
}

// at3 returns the classes of the character of three bytes at the start of
// b. Most of the time of splitting CJK text is in the loops of span and
// lowerWord, which call it, inlined, for such characters: the call to
// atMulti was a fifth of it.
func (s *splitter) at3(b []byte) class {
	return s.classes.of(rune(b[0]&0x0f)<<12 | rune(b[1]&0x3f)<<6 | rune(b[2]&0x3f))
}

// span returns the end of the run of characters with a class in want that
// starts at text[i].
func (s *splitter) span(text []byte, i int, want class) int {
	for i < len(text) {
		c := byteClass[text[i]]
		if c&want != 0 {
			i++
			continue
		}
		if c&clMulti == 0 {
			break
		}
		n := 3
		if b := text[i:]; len(b) >= 3 && b[0]&0xf0 == 0xe0 {
			c = s.at3(b)
		} else {
			c, n = s.atMulti(text, i)
		}
		if c&want == 0 {
			break
		}
		i += n
	}
	return i
}

// spanOthers returns the end of the run of characters that are neither
// letters, numbers nor whitespace ([^\s\p{L}\p{N}]+) that starts at
// text[i].
func (s *splitter) spanOthers(text []byte, i int) int {
	for i < len(text) {
		c, n := s.at(text, i)
		if c&(clLetter|clNumber|clSpace) != 0 {
			break
		}
		i += n
	}
	return i
}

// next returns the end of the piece that starts at text[i].
func (s *splitter) next(text []byte, i int) int {
	if s.o200k {
		return s.nextO200k(text, i)
	}
	return s.nextCl100k(text, i)
}

// nextCl100k implements the cl100k_base pattern.
func (s *splitter) nextCl100k(text []byte, i int) int {
	if e := asciiWordCl100k(text, i); e > 0 {
		return e
	}
	c, n := s.at(text, i)
	j := i + n
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if text[i] == '\'' {
		if m := contraction(text[i:]); m > 0 {
			return i + m
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if c&clLetter != 0 {
		return s.span(text, j, clLetter)
	}
	if c&(clNumber|clNewline) == 0 && j < len(text) {
		if c2, n2 := s.at(text, j); c2&clLetter != 0 {
			return s.span(text, j+n2, clLetter)
		}
	}
	return s.rest(text, i, c, n, false)
}

// nextO200k implements the o200k_base pattern. Its first two alternatives
// split words by case: "getURLForID" is one piece for cl100k_base, but
// "get", "URLFor", "ID" here.
func (s *splitter) nextO200k(text []byte, i int) int {
	if e := asciiWordO200k(text, i); e > 0 {
		return e
	}
	c, n := s.at(text, i)
	j := i + n
	// The optional leading character [^\r\n\p{L}\p{N}]: tried taken, then
	// not taken, in each of the two alternatives.
	lead := c&(clLetter|clNumber|clNewline) == 0 && j < len(text)
	if lead {
		if e := s.lowerWord(text, j); e >= 0 {
			return e
		}
	}
	if c&(clUpper|clLower) != 0 {
		if e := s.lowerWord(text, i); e >= 0 {
			return e
		}
	}
	if lead {
		if e := s.upperWord(text, j); e >= 0 {
			return e
		}
	}
	if c&clUpper != 0 {
		return s.upperWord(text, i)
	}
	return s.rest(text, i, c, n, true)
}

// The fast paths: most pieces are an ASCII word, perhaps after one other
// ASCII character (a space, most often), and followed by ASCII. They are
// found from byteClass alone; anything else is left to the general path
// (the functions return 0), as is a word that a character of more than one
// byte follows, since that character might continue the word.

// lead returns where the word of a piece that starts at text[i] starts,
// past a leading ASCII character that [^\r\n\p{L}\p{N}] matches, if any.
func lead(text []byte, i int) int {
	if byteClass[text[i]]&(clLetter|clNumber|clNewline|clMulti) == 0 && i+1 < len(text) {
		return i + 1
	}
	return i
}

// asciiWordCl100k matches [^\r\n\p{L}\p{N}]?\p{L}+ at text[i] for ASCII, or
// returns 0. A contraction comes first, so a leading ' is left to the
// general path.
func asciiWordCl100k(text []byte, i int) int {
	j := lead(text, i)
	if text[i] == '\'' {
		return 0
	}
	k := j
	for k < len(text) && byteClass[text[k]]&clLetter != 0 {
		k++
	}
	if k == j || k < len(text) && text[k] >= utf8.RuneSelf {
		return 0
	}
	return k
}

// asciiWordO200k matches the first two alternatives of the o200k_base
// pattern at text[i] for ASCII, or returns 0: a run of capitals, then one
// of small letters, then perhaps a contraction.
func asciiWordO200k(text []byte, i int) int {
	j := lead(text, i)
	k := j
	for k < len(text) && byteClass[text[k]]&(clUpper|clMulti) == clUpper {
		k++
	}
	for k < len(text) && byteClass[text[k]]&(clLower|clMulti) == clLower {
		k++
	}
	if k == j || k < len(text) && text[k] >= utf8.RuneSelf {
		return 0
	}
	return k + contraction(text[k:])
}

// lowerWord matches [U]*[L]+C? at text[p], where U is
// [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], L is [\p{Ll}\p{Lm}\p{Lo}\p{M}] and C the
// optional contraction, and returns the end of the match, or -1. Lm, Lo and
// M are in both U and L.
func (s *splitter) lowerWord(text []byte, p int) int {
	// U* takes all it can; then L+ must match, so U* gives back characters
	// until the next is in L: either the character after the run (which,
	// not being in U, is Ll) or the last of the run that is in L.
	q, lastL := p, -1 // lastL: the end of the last character of the run in L
	for q < len(text) {
		var c class
		n := 3
		if b := text[q:]; len(b) >= 3 && b[0]&0xf0 == 0xe0 {
			c = s.at3(b)
		} else {
			c, n = s.at(text, q)
		}
		if c&clUpper == 0 {
			if c&clLower != 0 {
				e := s.span(text, q+n, clLower)
				return e + contraction(text[e:])
			}
			break
		}
		q += n
		if c&clLower != 0 {
			lastL = q
		}
	}
	if lastL < 0 {
		return -1
	}
	// L+ took that one character: the next, if any, is not in L.
	return lastL + contraction(text[lastL:])
}

// upperWord matches [U]+[L]*C? at text[p] (see lowerWord) and returns the
// end of the match, or -1.
func (s *splitter) upperWord(text []byte, p int) int {
	q := s.span(text, p, clUpper)
	if q == p {
		return -1
	}
	q = s.span(text, q, clLower)
	return q + contraction(text[q:])
}

// rest implements the alternatives that the two patterns share, after
// those for letters, at text[i], a character of class c and length n:
//
//	\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// with [\r\n/]* in place of [\r\n]* for o200k_base (slash).
func (s *splitter) rest(text []byte, i int, c class, n int, slash bool) int {
	j := i + n
	// \p{N}{1,3}
	if c&clNumber != 0 {
		for k := 1; k < 3 && j < len(text); k++ {
			c2, n2 := s.at(text, j)
			if c2&clNumber == 0 {
				break
			}
			j += n2
		}
		return j
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n]*
	if c&clSpace == 0 {
		return newlines(text, s.spanOthers(text, j), slash)
	}
	if text[i] == ' ' && j < len(text) {
		if c2, n2 := s.at(text, j); c2&(clLetter|clNumber|clSpace) == 0 {
			return newlines(text, s.spanOthers(text, j+n2), slash)
		}
	}
	// A run of whitespace. \s*[\r\n]+ ends it after its last newline, if it
	// has one; else \s+(?!\S) takes all of it at the end of the text, and
	// all but its last character before anything else (which that
	// character may lead); else \s+ takes the one character.
	last, nl := i, -1
	if c&clNewline != 0 {
		nl = j
	}
	for j < len(text) {
		c2, n2 := s.at(text, j)
		if c2&clSpace == 0 {
			break
		}
		if c2&clNewline != 0 {
			nl = j + 1
		}
		last = j
		j += n2
	}
	switch {
	case nl >= 0:
		return nl
	case j == len(text):
		return j
	case last > i:
		return last
	}
	return j
}

// newlines returns the end of the run of \r and \n (and / if slash) that
// starts at text[i].
func newlines(text []byte, i int, slash bool) int {
	for i < len(text) && (text[i] == '\r' || text[i] == '\n' || slash && text[i] == '/') {
		i++
	}
	return i
}

// contraction returns the length of the contraction at the start of b ('s,
// 't, 're, 've, 'm, 'll or 'd, in either case), or 0 if there is none.
// Case-insensitive matching in regexp2 compares lower-cased characters;
// only the ASCII letters lower-case to these letters.
func contraction(b []byte) int {
	if len(b) < 2 || b[0] != '\'' {
		return 0
	}
	switch b[1] | 0x20 {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if len(b) > 2 && b[2]|0x20 == 'e' {
			return 3
		}
	case 'l':
		if len(b) > 2 && b[2]|0x20 == 'l' {
			return 3
		}
	}
	return 0
}
