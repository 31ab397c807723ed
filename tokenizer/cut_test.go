package tokenizer

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf8"
)

// cutTables returns the tables of the complete encodings that have cuts.
func cutTables(t *testing.T) []*bpe {
	var out []*bpe
	for _, tok := range complete(t) {
		if b := tok.(*bpe); b.tables.charCuts() != nil {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		t.Fatal("no encoding has cuts")
	}
	return out
}

// TestCharCuts checks the tokens of every character's entry against
// backtracking over its three bytes.
func TestCharCuts(t *testing.T) {
	for _, b := range cutTables(t) {
		tb := b.tables
		var done [1]uint64
		var got, want []uint32
		kinds := [4]int{}
		for k := range tb.cuts.chars {
			x := []byte{0xe0 | byte(k>>12), 0x80 | byte(k>>6)&0x3f, 0x80 | byte(k)&0x3f}
			c := tb.cuts.chars[k]
			kinds[c>>16&3]++
			got = tb.appendChar(got[:0], x, c)
			want = tb.appendBPE(want[:0], x, done[:])
			if !slices.Equal(got, want) {
				t.Fatalf("%v: %q: %v, backtracking %v", b.enc, x, got, want)
			}
		}
		t.Logf("%v: characters of one, two and three tokens: %d, %d, %d", b.enc, kinds[1], kinds[2], kinds[3])
	}
}

// cjkRunes returns the characters of three bytes that the tokens of tb
// hold, those of words first: the characters whose boundaries tokens join.
func cjkRunes(tb *bpeTables) (words, all []rune) {
	seen := map[rune]bool{}
	for id := range uint32(len(tb.vocab.locs)) {
		tok := tb.vocab.token(id)
		if !utf8.Valid(tok) {
			continue
		}
		chars := 0
		for _, r := range string(tok) {
			if utf8.RuneLen(r) == 3 {
				chars++
			}
		}
		for _, r := range string(tok) {
			if utf8.RuneLen(r) == 3 && !seen[r] {
				seen[r] = true
				all = append(all, r)
				if chars > 1 {
					words = append(words, r)
				}
			}
		}
	}
	return words, all
}

// spanning returns the tokens of tb that hold a boundary between a byte of
// a character's end and the lead of a character of three bytes.
func spanning(tb *bpeTables) [][]byte {
	var out [][]byte
	for id := range uint32(len(tb.vocab.locs)) {
		tok := tb.vocab.token(id)
		for i := 1; i < len(tok); i++ {
			if tok[i-1]&0xc0 == 0x80 && tok[i]&0xf0 == 0xe0 {
				out = append(out, tok)
				break
			}
		}
	}
	return out
}

// appendWhole appends tok to s, with the lead and continuation bytes its
// ends lack to be whole characters drawn at random (the result is not
// valid UTF-8 where tok starts with three continuation bytes or more).
func appendWhole(r *rand.Rand, s, tok []byte) []byte {
	k := 0
	for k < len(tok) && tok[k]&0xc0 == 0x80 {
		k++
	}
	switch k {
	case 1:
		s = append(s, 0xe4+byte(r.IntN(6)), 0x80|byte(r.IntN(64)))
	case 2:
		s = append(s, 0xe4+byte(r.IntN(6)))
	}
	s = append(s, tok...)
	last := len(s) - 1
	for last > 0 && s[last]&0xc0 == 0x80 {
		last--
	}
	want := 1
	switch c := s[last]; {
	case c >= 0xf0:
		want = 4
	case c >= 0xe0:
		want = 3
	case c >= 0xc0:
		want = 2
	}
	for range want - (len(s) - last) {
		s = append(s, 0x80|byte(r.IntN(64)))
	}
	return s
}

// TestCutPieces checks appendCut against backtracking on pieces of
// characters of three bytes, drawn from CJK words of the vocabulary (whose
// boundaries tokens join), from all its characters, and from the tokens
// that reach across a boundary between two characters (made whole
// characters), after a byte or not, and a few of them against the oracle
// as whole texts.
func TestCutPieces(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for _, b := range cutTables(t) {
		tb := b.tables
		words, all := cjkRunes(tb)
		span := spanning(tb)
		r := rand.New(rand.NewPCG(5, uint64(b.enc)))
		var got, want []uint32
		done := make([]uint64, 8)
		cuts := 0
		for i := range n {
			var s []byte
			switch r.IntN(4) {
			case 0:
				s = append(s, ' ')
			case 1:
				s = append(s, '"')
			}
			for range 1 + r.IntN(40) {
				switch r.IntN(3) {
				case 0:
					s = utf8.AppendRune(s, all[r.IntN(len(all))])
				case 1:
					s = utf8.AppendRune(s, words[r.IntN(len(words))])
				default:
					s = appendWhole(r, s, span[r.IntN(len(span))])
				}
			}
			if !utf8.Valid(s) {
				continue
			}
			got = tb.appendCut(got[:0], s, done, tb.cuts)
			want = tb.appendBPE(want[:0], s, done)
			if !slices.Equal(got, want) {
				t.Fatalf("%v: %q: %v, backtracking %v", b.enc, s, got, want)
			}
			for j := 0; j+3 < len(s); j++ {
				if isChar3(s[j:]) && tb.cuts.cuts(s[j:], tb.cuts.chars[charKey(s[j:])]) {
					cuts++
				}
			}
			if i%50 == 0 {
				checkOracle(t, b, string(s))
			}
		}
		t.Logf("%v: %d pieces, %d cuts", b.enc, n, cuts)
	}
}
