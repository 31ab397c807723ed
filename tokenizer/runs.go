package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// MaxRun is the longest run of characters, in bytes, that AppendEncode
// accepts: text with a longer run of letters, of whitespace, or of other
// characters (see the package documentation) is refused with
// [ErrPieceTooLong], because tiktoken-go merges each piece in time quadratic
// in its length. A piece is then at most MaxRun+16 bytes long, and encoding
// costs at most about 0.7 µs a byte whatever the text, three to four times
// the cost of typical text (the package documentation has the
// measurements).
const MaxRun = 1024

// runSlack bounds what a piece may hold beyond its run: a leading character
// and a contraction suffix such as 'll, each character at most UTFMax bytes.
const runSlack = 4 * utf8.UTFMax

// runRules says how an encoding's split pattern forms pieces.
type runRules struct {
	marksAreLetters bool // o200k_base: \p{M} continues a run of letters
	slashTail       bool // o200k_base: '/' joins the newlines that may end a run of other characters
}

// longestRun returns the length in bytes of the longest run in text, and
// the offset where it starts, or a *TextError if text is not valid UTF-8.
//
// Every piece that the split pattern cuts from valid UTF-8 is at most
// runSlack bytes longer than some run, which is a maximal substring of
// one of these kinds, found without running the pattern:
//
//   - letters: \p{L}, and for o200k_base also \p{M}. A piece of letters may
//     add one leading character and a contraction suffix ('s, 're, …);
//   - whitespace: \s, which holds every whitespace piece;
//   - others: [^\s\p{L}\p{N}] (punctuation, symbols, marks, emoji, control
//     characters), followed by CR and LF (and '/' for o200k_base), which
//     the pattern appends; a piece may add one leading space.
//
// Digits form pieces of at most three and contractions of at most three
// characters, so they need no run.
func (r runRules) longestRun(text []byte) (longest, at int, err error) {
	// The lengths in bytes of the runs that end at the current character.
	var letters, spaces, others, othersTail int
	for i := 0; i < len(text); {
		c, size := rune(text[i]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRune(text[i:])
			if c == utf8.RuneError && size == 1 {
				return 0, 0, &TextError{Offset: i, Err: ErrInvalidUTF8}
			}
		}
		i += size
		letter, number, space := unicode.IsLetter(c), unicode.IsNumber(c), unicode.IsSpace(c)
		other := !letter && !number && !space

		if letter || r.marksAreLetters && c >= utf8.RuneSelf && unicode.IsMark(c) {
			letters += size
		} else {
			letters = 0
		}
		if space {
			spaces += size
		} else {
			spaces = 0
		}
		// othersTail: the longest run of others, then tail characters, that
		// ends here.
		tail := c == '\r' || c == '\n' || r.slashTail && c == '/'
		if tail && othersTail > 0 {
			othersTail += size
		} else {
			othersTail = 0
		}
		if other {
			others += size
			othersTail = max(othersTail, others)
		} else {
			others = 0
		}

		for _, n := range [...]int{letters, spaces, othersTail} {
			if n > longest {
				longest, at = n, i-n
			}
		}
	}
	return longest, at, nil
}
