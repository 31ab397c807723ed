package words

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/internal/sample"
	"github.com/m2m-go/m2m/internal/wordtext"
)

// fixed are codes a text may hold: every third byte value.
func fixed() []byte {
	var c []byte
	for b := 0; b < 256; b += 3 {
		c = append(c, byte(b))
	}
	return c
}

// TestRoundTrip: every text comes back, with codes chosen for it or fixed
// (and then escaped where it holds them), whole and from any prefix of
// its coded form as far as that holds whole codes.
func TestRoundTrip(t *testing.T) {
	for name, in := range wordtext.Texts(MaxLen) {
		for k, codes := range [][]byte{Codes(in), fixed()} {
			tb := Choose(in, codes, MinUses(len(in)))
			if (tb == nil) != (name == "random" || name == "empty" || name == "word") {
				t.Errorf("%s: table %v", name, tb != nil)
			}
			coded := tb.AppendEncode([]byte("x"), in)[1:]
			if tb == nil {
				if !bytes.Equal(coded, in) {
					t.Errorf("%s: a nil table changed the text", name)
				}
				continue
			}
			back, used, err := tb.AppendDecode([]byte("x"), coded, len(in))
			if err != nil || used != len(coded) || !bytes.Equal(back[1:], in) {
				t.Fatalf("%s: %v, %d of %d used, %d bytes of %d", name, err, used, len(coded), len(back)-1, len(in))
			}
			if _, _, err := tb.AppendDecode(nil, coded, len(in)-1); len(in) > 0 && !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s: decoded past the limit: %v", name, err)
			}
			for n := 0; n <= len(coded); n += 1 + n/50 {
				part, used, err := tb.AppendDecode(nil, coded[:n], len(in))
				if err != nil || used > n || used < n-2 || !bytes.HasPrefix(in, part) {
					t.Fatalf("%s: prefix of %d: %v, %d used, %d bytes", name, n, err, used, len(part))
				}
			}
			if name == "prose" && k == 0 && len(coded) > len(in)*9/10 {
				t.Errorf("%s: %d bytes coded of %d", name, len(coded), len(in))
			}
		}
	}
}

// nextWord is a wordScan's next, with nothing remembered.
func nextWord(b []byte, from int) (int, int) {
	var s wordScan
	return s.next(b, from)
}

// nextWordBytes is nextWord a byte at a time: its twin.
func nextWordBytes(b []byte, from int) (int, int) {
	for i := from; i < len(b); {
		if b[i] == '\\' {
			if i+1 < len(b) && isEscaped(b[i+1]) {
				return i, i + 2
			}
			i += 2
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
		s, e := i, j
		for s > 0 && isRunByte(b[s-1]) {
			s--
		}
		for e < len(b) && isRunByte(b[e]) {
			e++
		}
		if e-s >= minRun {
			i = e // letters in base64
			continue
		}
		if n := j - i; n >= 2 && n <= MaxLen {
			return i, j
		}
		i = j
	}
	return len(b), len(b)
}

// sameWords fails t where nextWord and its twin find other words in b,
// from every offset.
func sameWords(t *testing.T, b []byte) {
	t.Helper()
	for from := range len(b) + 1 {
		i, j := nextWord(b, from)
		wi, wj := nextWordBytes(b, from)
		if i != wi || j != wj {
			t.Fatalf("%q from %d: %d-%d, byte by byte %d-%d", b, from, i, j, wi, wj)
		}
	}
}

// TestNextWord: nextWord finds what its twin finds, in every string of
// up to 3 bytes from an alphabet of each kind of byte (a letter of each
// case, the bytes either side of the letters' ranges, a backslash, a
// quote, bytes with the high bit), placed at every offset of 8-byte
// loads, and in the texts and runs of letters about MaxLen long.
func TestNextWord(t *testing.T) {
	alphabet := []byte{'a', 'z', 'A', 'Z', '`', '{', '@', '[', '\\', '"', ' ', 0, 0x80, 0xC1, 0xE1, 0xFA, 0xDA}
	var b []byte
	for n := 1; n <= 3; n++ {
		idx := make([]int, n)
		for {
			b = b[:0]
			for _, k := range idx {
				b = append(b, alphabet[k])
			}
			for pad := range 9 {
				// Letters before, others after: runs that cross loads.
				text := append(append(bytes.Repeat([]byte{'q'}, pad), b...), bytes.Repeat([]byte{'.'}, 9-pad)...)
				sameWords(t, text)
				sameWords(t, text[pad:])
			}
			k := n - 1
			for k >= 0 && idx[k] == len(alphabet)-1 {
				idx[k] = 0
				k--
			}
			if k < 0 {
				break
			}
			idx[k]++
		}
	}
	for n := MaxLen - 9; n <= MaxLen+9; n++ {
		run := bytes.Repeat([]byte{'w'}, n)
		sameWords(t, append(append([]byte(" "), run...), " x"...))
		sameWords(t, run)
	}
	for _, in := range wordtext.Texts(MaxLen) {
		sameWords(t, in[:min(len(in), 4096)])
	}
	for c := range 256 {
		x := uint64(c) << 24
		if got, want := letters(x) != 0, isLetter(byte(c)); got != want {
			t.Errorf("letters(%#x): %v", c, got)
		}
		if got, want := zeroBytes(x|0x0101010100010101) != 0, c == 0; got != want {
			t.Errorf("zeroBytes with %#x: %v", c, got)
		}
	}
}

// TestBase64Runs: no word is found in a run of base64's bytes of minRun
// or more (an image inline), and words are in shorter runs (tokens,
// paths), as the twin finds them from every offset; a wordScan that
// remembers runs finds what nextWord does.
func TestBase64Runs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	b64 := func(n int) []byte {
		raw := make([]byte, n)
		for i := range raw {
			raw[i] = byte(r.Uint32())
		}
		return []byte(base64.StdEncoding.EncodeToString(raw))
	}
	long := b64(3000)
	text := append(append([]byte(`{"url":"data:image/png;base64,`), long...), `","alt":"the image of a cat"}`...)
	words := 0
	forWords(text, func(w []byte) {
		words++
		if bytes.Contains(long, w) && !bytes.Contains([]byte(`url data image png base alt the image of a cat`), w) {
			t.Errorf("word %q of the base64", w)
		}
	})
	if words != 10 {
		t.Errorf("%d words, want 10 (url data image png base alt the image of cat)", words)
	}
	for n := minRun - 4; n <= minRun+4; n++ {
		run := b64(n)[:n]
		run[0], run[n-1] = 'a', '1' // a word at the start, bordered by its run
		in := append(append([]byte("xy "), run...), " zz/ab9 cd"...)
		sameWords(t, in)
		var ws wordScan
		var got, want [][2]int
		for i, j := ws.next(in, 0); i < len(in); i, j = ws.next(in, j) {
			got = append(got, [2]int{i, j})
		}
		for i, j := nextWordBytes(in, 0); i < len(in); i, j = nextWordBytes(in, j) {
			want = append(want, [2]int{i, j})
		}
		if !slices.Equal(got, want) {
			t.Errorf("run of %d: a wordScan found %v, the twin %v", n, got, want)
		}
		if inRun := slices.ContainsFunc(want, func(w [2]int) bool { return w[0] >= 3 && w[1] <= 3+n }); inRun != (n < minRun) {
			t.Errorf("run of %d: words in it %v", n, inRun)
		}
	}
}

// FuzzNextWord: nextWord finds the words its twin finds.
func FuzzNextWord(f *testing.F) {
	f.Add([]byte(`The "cat"\nsat \\on the mat\`))
	f.Add(wordtext.Prose(200, 3))
	f.Add([]byte(`"` + strings.Repeat("ab9+Cd/", 40) + `" the end`))
	f.Fuzz(func(t *testing.T, b []byte) {
		sameWords(t, b[:min(len(b), 512)])
	})
}

// forWords calls f with each word of b.
func forWords(b []byte, f func(w []byte)) {
	for i, j := nextWord(b, 0); i < len(b); i, j = nextWord(b, j) {
		f(b[i:j])
	}
}

// encodeByMap is AppendEncode as it reads, with a Go map for the index:
// each word forWords finds replaced where the table holds it, or holds it
// with its first letter in lower case and it is capitalized.
func encodeByMap(t *Table, src []byte) []byte {
	index := make(map[string]int)
	for i, w := range t.words {
		index[string(w)] = i
	}
	var dst []byte
	last := 0
	forWords(src, func(w []byte) {
		i, ok := index[string(w)]
		capital := false
		if !ok && capitalized(w) {
			i, ok = index[string(w[0]|0x20)+string(w[1:])]
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
		dst = t.appendCode(dst, i)
		last = start + len(w)
	})
	return t.appendLiteral(dst, src[last:])
}

// TestIndex: AppendEncode finds words as a map of them does, among words
// that share their first 8 letters or differ only in length or case, at
// the end of a text (fewer than 8 bytes left); New refuses a word twice.
func TestIndex(t *testing.T) {
	list := []string{"internationally", "international", "internationalization", "interna", "internat",
		"internati", "the", "they", "The", "ab", "abcdefgh", "abcdefghi", `\n`}
	var ws [][]byte
	for _, w := range list {
		ws = append(ws, []byte(w))
	}
	codes := fixed()
	tb, err := New(ws, codes, 4)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"International internationally INTERNATIONAL interNat Internati the They THE The they ab Ab abcdefgh Abcdefghi abcdefghij",
		`\n\nThe\`, "Internat", "Abcdefghi", "ab", "interna",
	}
	for _, in := range append(texts, string(wordtext.Prose(5000, 3))) {
		src := []byte(in) // words at its end: fewer than 8 bytes left to load
		if got, want := tb.AppendEncode(nil, src), encodeByMap(tb, src); !bytes.Equal(got, want) {
			t.Errorf("%.40q: coded %q, by a map %q", in, got, want)
		}
	}
	for _, in := range wordtext.Texts(MaxLen) {
		tb := Choose(in, Codes(in), 2)
		if tb == nil {
			continue
		}
		if got, want := tb.AppendEncode(nil, in), encodeByMap(tb, in); !bytes.Equal(got, want) {
			t.Errorf("coded differs from by a map")
		}
	}
	if _, err := New([][]byte{[]byte("internationally"), []byte("the"), []byte("internationally")}, codes, 4); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a word twice: %v", err)
	}
}

// TestCodes: a text's unused bytes, and while they are fewer than
// minCodes its rarest, at most one in rareCode bytes.
func TestCodes(t *testing.T) {
	in := wordtext.Rare()
	if c := Codes(in); len(c) != minCodes {
		t.Errorf("every byte used, some rarely: %d codes", len(c))
	}
	if c := Codes([]byte("ab")); len(c) != 254 || c[0] != 0 || c[253] != 255 {
		t.Errorf("two bytes used: %d codes", len(c))
	}
	if Choose(in, []byte{1, 2}, 1) != nil {
		t.Errorf("a table of two codes")
	}
}

// TestCorrupt: coded text no encoder makes is refused, dst as it was.
func TestCorrupt(t *testing.T) {
	tb, err := New([][]byte{[]byte("the"), []byte("cat")}, []byte{1, 2, 3, 4}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// 1 escape, 2 capital, 3 "the", 4 the prefix of "cat" (4 0).
	for _, c := range []struct {
		in   string
		want string
		used int
		ok   bool
	}{
		{"a\x03b", "atheb", 3, true},
		{"\x02\x03 \x02\x04\x00", "The Cat", 6, true},
		{"\x01\x03", "\x03", 2, true},
		{"x\x01", "x", 1, true},     // an escape cut off
		{"x\x02", "x", 1, true},     // a capital flag cut off
		{"x\x02\x04", "x", 1, true}, // a flag and a prefix cut off
		{"x\x04", "x", 1, true},     // a prefix cut off
		{"\x01a", "", 0, false},     // an escaped literal
		{"\x02a", "", 0, false},     // a capital literal
		{"\x02\x01", "", 0, false},  // a capital escape
		{"\x02\x02", "", 0, false},  // a capital flag twice
		{"\x04\x01", "", 0, false},  // a word past the list
	} {
		out, used, err := tb.AppendDecode([]byte("d"), []byte(c.in), 100)
		if (err == nil) != c.ok || string(out) != "d"+c.want || used != c.used {
			t.Errorf("%q: %q, %d used, %v", c.in, out, used, err)
		}
	}
	for _, bad := range []struct {
		words [][]byte
		codes []byte
		one   int
	}{
		{[][]byte{[]byte("ok")}, []byte{1, 2}, 0},                                // no room
		{[][]byte{[]byte("ok")}, []byte{1, 1, 3}, 1},                             // a code twice
		{[][]byte{[]byte("ok")}, []byte{1, 2, 3}, 2},                             // one past the codes
		{[][]byte{[]byte("ok"), []byte("ok")}, []byte{1, 2, 3, 4}, 2},            // a word twice
		{[][]byte{[]byte("o")}, []byte{1, 2, 3}, 1},                              // too short
		{[][]byte{[]byte("o k")}, []byte{1, 2, 3}, 1},                            // not letters
		{[][]byte{[]byte("a"), []byte("b"), []byte("c")}, []byte{1, 2, 3, 4}, 2}, // more than room
	} {
		if _, err := New(bad.words, bad.codes, bad.one); !errors.Is(err, ErrCorrupt) {
			t.Errorf("New(%q, %v, %d): %v", bad.words, bad.codes, bad.one, err)
		}
	}
}

// TestList: a table's header and list give it back; lists no encoder
// makes are refused.
func TestList(t *testing.T) {
	in := wordtext.Prose(200000, 1000)
	tb := Choose(in, Codes(in), 8)
	head := tb.AppendHeader(nil)
	list := tb.AppendList(nil)
	if len(list) > ListLen(tb.Len()) {
		t.Errorf("list of %d bytes, over ListLen's %d", len(list), ListLen(tb.Len()))
	}
	n, codes, one, k, err := ReadHeader(head)
	if err != nil || k != len(head) || n != tb.Len() {
		t.Fatalf("header: %v, %d words", err, n)
	}
	back, used, err := ParseList(list, n, codes, one)
	if err != nil || used != len(list) || !bytes.Equal(back.AppendEncode(nil, in), tb.AppendEncode(nil, in)) {
		t.Fatalf("list: %v, %d of %d bytes", err, used, len(list))
	}
	for name, bad := range map[string][]byte{
		"cut":         list[:len(list)-1],
		"no line end": bytes.ReplaceAll(list, []byte("\n"), []byte("x")),
		"long prefix": append([]byte{9}, list[1:]...),
	} {
		if _, _, err := ParseList(bad, n, codes, one); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, _, _, _, err := ReadHeader(append(headerOf(Room(len(codes), one)+1, codes, one), 0)); err == nil {
		t.Errorf("a header of more words than its codes hold: accepted")
	}
	if (*Table)(nil).AppendHeader(nil)[0] != 0 {
		t.Errorf("a nil table's header is not 0")
	}
}

// headerOf returns a header of n words and codes, as AppendHeader
// would for such a table.
func headerOf(n int, codes []byte, one int) []byte {
	t := &Table{words: make([][]byte, n), codes: codes, one: one}
	return t.AppendHeader(nil)
}

// FuzzRoundTrip: any text comes back with its words replaced, the table
// chosen as for a long text whatever the length, the codes its own or
// fixed ones; coded in pieces (AppendEncodeParallel), it codes the same.
func FuzzRoundTrip(f *testing.F) {
	defer func(m int) { minPiece = m }(minPiece)
	minPiece = 16
	f.Add([]byte("The cat and the hat and The Cat and the cat, and the hat."), 8, false)
	f.Add(wordtext.Prose(2000, 10), 1, true)
	f.Add([]byte(`\nThe "cat"\n\n\"hat\" \\nThe\`), 64, false)
	f.Fuzz(func(t *testing.T, unit []byte, copies int, own bool) {
		in := bytes.Repeat(unit, min(max(copies, 1), 64)) // words used often enough
		codes := fixed()
		if own {
			codes = Codes(in)
		}
		tb := Choose(in, codes, 2)
		coded := tb.AppendEncode(nil, in)
		if tb == nil {
			return
		}
		if want := encodeByMap(tb, in); !bytes.Equal(coded, want) {
			t.Fatalf("coded %q, by a map %q", coded, want)
		}
		if pieces := tb.AppendEncodeParallel(nil, in, 2+copies&3); !bytes.Equal(pieces, coded) {
			t.Fatalf("coded in pieces %q, whole %q", pieces, coded)
		}
		back, used, err := tb.AppendDecode(nil, coded, len(in))
		if err != nil || used != len(coded) || !bytes.Equal(back, in) {
			t.Fatalf("%v: %q", err, back)
		}
	})
}

// FuzzDecode: any bytes decode or are refused, within the limit, without
// a panic; what decodes codes back to the same text.
func FuzzDecode(f *testing.F) {
	tb, err := New([][]byte{[]byte("the"), []byte("cat"), []byte(`\n`)}, []byte{1, 2, 3, 4, 5, 6}, 2)
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte("\x02\x03 \x05\x01\x06\x00"), 100)
	f.Add([]byte("\x01\x01\x01"), 1)
	f.Fuzz(func(t *testing.T, coded []byte, limit int) {
		limit = min(max(limit, 0), 1<<16)
		out, used, err := tb.AppendDecode(nil, coded, limit)
		if err != nil {
			return
		}
		if len(out) > limit || used > len(coded) || used < len(coded)-2 {
			t.Fatalf("%d bytes of %d allowed, %d of %d used", len(out), limit, used, len(coded))
		}
		back, _, err := tb.AppendDecode(nil, tb.AppendEncode(nil, out), len(out))
		if err != nil || !bytes.Equal(back, out) {
			t.Fatalf("re-coded: %v", err)
		}
	})
}

// benchTexts are the sample, and the first 4 MiB of $M2M_CORPUS if set.
func benchTexts(b *testing.B) map[string][]byte {
	texts := map[string][]byte{"sample": sample.JSONL()}
	if path := os.Getenv("M2M_CORPUS"); path != "" {
		in, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		texts["corpus"] = in[:min(len(in), 4<<20)]
	}
	return texts
}

func BenchmarkEncode(b *testing.B) {
	for name, in := range benchTexts(b) {
		b.Run("text="+name, func(b *testing.B) {
			tb := Choose(in, Codes(in), 8)
			dst := tb.AppendEncode(nil, in)
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				dst = tb.AppendEncode(dst[:0], in)
			}
		})
	}
}

// BenchmarkDecode: MB/s of text expanded.
func BenchmarkDecode(b *testing.B) {
	for name, in := range benchTexts(b) {
		b.Run("text="+name, func(b *testing.B) {
			tb := Choose(in, Codes(in), 8)
			coded := tb.AppendEncode(nil, in)
			dst := make([]byte, 0, len(in))
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				dst, _, _ = tb.AppendDecode(dst[:0], coded, len(in))
			}
		})
	}
}

// BenchmarkChoose: MB/s of text whose words are counted and ranked.
func BenchmarkChoose(b *testing.B) {
	for name, in := range benchTexts(b) {
		b.Run("text="+name, func(b *testing.B) {
			codes := Codes(in)
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				Choose(in, codes, 8)
			}
		})
	}
}

// TestChooseRank: Choose takes the words a full ranking of every word
// counted takes (by bytes covered, up to the first used fewer than
// minUses times), though it sorts only those before that one.
func TestChooseRank(t *testing.T) {
	src := sample.JSONL()
	codes := Codes(src)
	for _, minUses := range []int{1, 2, 3, 8, 64} {
		counted, uses := count(src, maxCounted)
		rank := make([]int, len(counted))
		for i := range rank {
			rank[i] = i
		}
		slices.SortFunc(rank, func(a, b int) int {
			if c := cmp.Compare(uses[b]*len(counted[b]), uses[a]*len(counted[a])); c != 0 {
				return c
			}
			return bytes.Compare(counted[a], counted[b])
		})
		one := (len(codes) - 2) * 2 / 3
		room := Room(len(codes), one)
		want := map[string]bool{}
		for _, r := range rank {
			if uses[r] < minUses || len(want) == room {
				break
			}
			if len(want) >= one && len(counted[r]) <= 2 {
				continue
			}
			want[string(counted[r])] = true
		}
		tb := Choose(src, codes, minUses)
		if tb == nil {
			t.Fatalf("minUses %d: no table", minUses)
		}
		if len(tb.words) != len(want) {
			t.Fatalf("minUses %d: %d words, want %d", minUses, len(tb.words), len(want))
		}
		for _, w := range tb.words {
			if !want[string(w)] {
				t.Fatalf("minUses %d: %q taken, not among the first ranked", minUses, w)
			}
		}
	}
}
