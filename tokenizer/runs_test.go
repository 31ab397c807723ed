package tokenizer

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dlclark/regexp2"
)

var specs = []*spec{cl100kSpec, o200kSpec, llama3Spec}

// splitters holds the split patterns compiled with regexp2, the engine
// tiktoken-go uses, to find the real pieces.
var splitters = sync.OnceValue(func() map[*spec]*regexp2.Regexp {
	m := map[*spec]*regexp2.Regexp{}
	for _, s := range specs {
		m[s] = regexp2.MustCompile(s.pattern, regexp2.None)
	}
	return m
})

// checkPieces checks that no piece of text is longer than longestRun allows.
func checkPieces(t testing.TB, s *spec, text string) {
	t.Helper()
	run, _, err := s.runs.longestRun([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	re := splitters()[s]
	m, err := re.FindStringMatch(text)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		if piece := m.String(); len(piece) > run+runSlack {
			t.Fatalf("%v: piece %q of %d bytes in %q, whose longest run is %d bytes", s.enc, piece, len(piece), text, run)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestLongestRun(t *testing.T) {
	for _, tc := range []struct {
		text              string
		cl100k, o200k     int // longest run
		cl100kAt, o200kAt int
	}{
		{"", 0, 0, 0, 0},
		{"1234567", 0, 0, 0, 0},
		{"ab 12 cd", 2, 2, 0, 0},
		{"x     y", 5, 5, 1, 1},
		{"hello!!!\n\n\n", 6, 6, 5, 5},            // others and the newlines after them
		{"!\n/\n/x", 2, 5, 0, 0},                  // o200k: '/' continues the tail
		{"//a//b//", 2, 2, 0, 0},                  // '/' is an other character in both
		{"e\u0301e\u0301e\u0301", 2, 9, 1, 0},     // o200k: marks continue letters
		{"\u0301\u0301\u0301x", 6, 7, 0, 0},       // marks are also others
		{"日本語です", 15, 15, 0, 0},                   // letters, 3 bytes each
		{"\t\n \r\n  a", 7, 7, 0, 0},              // whitespace
		{"😀😀😀 abc", 12, 12, 0, 0},                 // emoji are others
		{"\u00a0\u3000x", 5, 5, 0, 0},             // Unicode spaces
		{"a\x7f\x7f\x7fb\n", 3, 3, 1, 1},          // DEL is an other character
		{"abc\ndef\n\n\n\nghij", 4, 4, 7, 7},      // a newline run
		{"It's'''", 3, 3, 4, 4},                   // apostrophes
		{strings.Repeat("ab1", 1000), 2, 2, 0, 0}, // digits break runs
	} {
		for _, r := range []struct {
			s       *spec
			run, at int
		}{{cl100kSpec, tc.cl100k, tc.cl100kAt}, {o200kSpec, tc.o200k, tc.o200kAt}} {
			run, at, err := r.s.runs.longestRun([]byte(tc.text))
			if err != nil || run != r.run || at != r.at {
				t.Errorf("%v: longestRun(%q) = %d, %d, %v; want %d, %d", r.s.enc, tc.text, run, at, err, r.run, r.at)
			}
			checkPieces(t, r.s, tc.text)
		}
	}
}

// Every piece of the golden texts, and of some nastier ones, fits its run.
func TestRunsBoundPieces(t *testing.T) {
	texts := append(goldenTexts(t),
		"'s'S'T'RE'vE'M'LL'D 'll's",
		"a'll B'S c'Re Ǆ'd ǅ'm",
		" \u0301abc\u0301\u0302's",
		"x\r\n\r\n\r\n!!\r\n/\r/\n/y",
		" !!!\n\n/ !\r\r",
		"😀abc 😀😀def\u0301'll",
		"\u00a0abc \u3000def \u2028ghi",
		strings.Repeat(" ", 40)+"x"+strings.Repeat("\n ", 20)+"y",
		"ⅷⅷⅷ ²²² ٣٣٣abc",
		"ABCdefGHIjkl'S MNO'll",
	)
	for _, s := range specs {
		for _, text := range texts {
			checkPieces(t, s, text)
		}
	}
}

// pathological returns texts of about n bytes that are one run each, or
// that hold runs as long as the text.
func pathological(n int) map[string]string {
	return map[string]string{
		"letters":     strings.Repeat("a", n),
		"upper":       strings.Repeat("A", n),
		"cjk":         strings.Repeat("中", n/3),
		"spaces":      strings.Repeat(" ", n),
		"newlines":    strings.Repeat("\n", n),
		"mixed space": strings.Repeat(" \t\n", n/3),
		"punctuation": strings.Repeat("=", n),
		"marks":       "e" + strings.Repeat("\u0301", n/2),
		"base64 zero": "data:image/png;base64,iVBORw0KGgo" + strings.Repeat("A", n),
	}
}

// A text with a run longer than MaxRun is refused, quickly, however long:
// unguarded, a single 2 MiB piece would take about an hour to merge.
func TestPieceTooLong(t *testing.T) {
	texts := pathological(2 << 20)
	for _, tok := range complete(t) {
		for name, text := range texts {
			start := time.Now()
			_, err := tok.AppendEncode(nil, []byte(text))
			d := time.Since(start)
			if !errors.Is(err, ErrPieceTooLong) {
				t.Errorf("%v: %s: %v, want ErrPieceTooLong", tok.Encoding(), name, err)
			}
			if d > 5*time.Second {
				t.Errorf("%v: %s: took %v to refuse 2 MiB", tok.Encoding(), name, d)
			}
		}
	}
}

// The limit is exactly MaxRun, and the error says where the run starts.
func TestMaxRun(t *testing.T) {
	for _, tok := range complete(t) {
		for name, unit := range map[string]string{"letters": "a", "spaces": " ", "punctuation": "-"} {
			ok := "1" + strings.Repeat(unit, MaxRun) + "1"
			if _, err := tok.AppendEncode(nil, []byte(ok)); err != nil {
				t.Errorf("%v: %s: run of MaxRun: %v", tok.Encoding(), name, err)
			}
			long := "1" + strings.Repeat(unit, MaxRun+1) + "1"
			_, err := tok.AppendEncode(nil, []byte(long))
			var e *TextError
			if !errors.As(err, &e) || !errors.Is(err, ErrPieceTooLong) || e.Offset != 1 {
				t.Errorf("%v: %s: run of MaxRun+1: %v, want TextError{1, ErrPieceTooLong}", tok.Encoding(), name, err)
			}
		}
	}
}
