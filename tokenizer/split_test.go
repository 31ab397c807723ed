package tokenizer

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// regexps holds the split patterns compiled with regexp2, the engine
// tiktoken-go uses: the reference for splitter.
var regexps = sync.OnceValue(func() map[bool]*regexp2.Regexp {
	return map[bool]*regexp2.Regexp{
		false: regexp2.MustCompile(cl100kPattern, regexp2.None),
		true:  regexp2.MustCompile(o200kPattern, regexp2.None),
	}
})

// regexpPieces splits text with the pattern itself.
func regexpPieces(t testing.TB, o200k bool, text string) []string {
	t.Helper()
	re := regexps()[o200k]
	var pieces []string
	m, err := re.FindStringMatch(text)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		pieces = append(pieces, m.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	return pieces
}

// splitPieces splits text with splitter.
func splitPieces(o200k bool, text string) []string {
	s := &splitter{o200k: o200k, classes: classes()}
	var pieces []string
	for i := 0; i < len(text); {
		e := s.next([]byte(text), i)
		pieces = append(pieces, text[i:e])
		i = e
	}
	return pieces
}

func checkSplit(t *testing.T, text string) {
	t.Helper()
	for _, o200k := range []bool{false, true} {
		if got, want := splitPieces(o200k, text), regexpPieces(t, o200k, text); !slices.Equal(got, want) {
			t.Fatalf("o200k=%v: %q splits into\n %q, the pattern into\n %q", o200k, text, got, want)
		}
	}
}

// splitAlphabet has characters of every class the patterns tell apart, and
// the characters they name.
var splitAlphabet = []rune{
	'a', 'z', 'A', 'Z', 's', 'S', 't', 'T', 'r', 'R', 'e', 'E', 'v', 'V', 'm', 'M', 'l', 'L', 'd', 'D', 'x',
	'\'', '’', ' ', ' ', ' ', '\t', '\n', '\r', '\v', '\f', '\u0085', '\u00a0', '\u2028', '\u3000', '\u200b',
	'0', '7', '٣', 'Ⅷ', '²', '½', '𝟙',
	'!', '/', '.', '-', '=', '"', '\\', '{', '😀', '\u200d', '\ufe0f', '\x00', '\x7f', '\u00ad',
	'é', 'É', 'ß', 'ǅ', 'ʰ', 'ー', '日', '語', 'ا', 'ก', '\u0301', '\u0903', '\u20dd', 'ſ', 'K', 'İ',
	'𝔘', '𝔫', '𐐀', '𐐨',
}

func randomSplitText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteRune(splitAlphabet[r.IntN(len(splitAlphabet))])
	}
	return b.String()
}

func TestSplit(t *testing.T) {
	texts := append(goldenTexts(t),
		"", "a", " ", "\n", "'", "'s", "'S", "'ll", "'LL", "'lL", "'x", "x's", "X'S", "x'Ll", "'re'vE'M'D't",
		"  a", "   ", "a  ", " \n ", " \n", "\n ", "a \n b", "\r\n\r\n", "\t\ta", " !", " !!\n\n/", "!\n/\n/x",
		"1234567", "１２３", "a1b22c333d4444", "ⅷⅷⅷⅷ", "HTTPServer", "getURLForID", "ǅemal", "ÉCOLE école",
		"e\u0301\u0301 \u0301a \u0301\u0301 !\u0301 '\u0301s", "日本語です。日本A語B", "ʰʰA", "Aʰa", "A\u0301a",
		" \u3000x", "\u3000\u3000x", "\u00a0a", "x\u2028\u2028y", "a\u200bb", "'\u0301'", "😀'S", "//a//",
	)
	for _, text := range texts {
		checkSplit(t, text)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		checkSplit(t, randomSplitText(r, 1+r.IntN(24)))
	}
}

// FuzzSplit holds splitter to the patterns on any valid UTF-8.
func FuzzSplit(f *testing.F) {
	for _, text := range goldenTexts(f) {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		checkSplit(t, text)
	})
}
