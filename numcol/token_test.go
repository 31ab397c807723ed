package numcol

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/varint"
)

// TestTokens: which ids are taken, in which alphabet, and that each comes
// back.
func TestTokens(t *testing.T) {
	for _, tc := range []struct {
		in    string
		taken string // the token taken, if one is
		alpha int
	}{
		{`{"id":"chatcmpl-JcomEUd8F6NNmq02IHEDdtT5oGPfy","object":"chat.completion"}`, "JcomEUd8F6NNmq02IHEDdtT5oGPfy", 4},
		{`"call_p7E5OKPdCOo8iH3WyGki0kzB"`, "p7E5OKPdCOo8iH3WyGki0kzB", 4},
		{`"msg_01XFDUDYJgAACzvnptvVoYEL"`, "01XFDUDYJgAACzvnptvVoYEL", 4},
		{`"req_01cfvxxdqtrjtj32y8ftj0as9r"`, "01cfvxxdqtrjtj32y8ftj0as9r", 2},
		{`"01ARZ3NDEKTSV4RRFFQ69G5FAV"`, "01ARZ3NDEKTSV4RRFFQ69G5FAV", 3},
		{`"chatcmpl-54e839b8ef4461aa242ac90226dd92f7"`, "54e839b8ef4461aa242ac90226dd92f7", 0},
		{`sha:5F3A9C0D12E4B7A8`, "5F3A9C0D12E4B7A8", 1},
		{`"id":"chatcmpl-c9c0115c-7678-4af8-a013-cb696f95fd08"}`, "c9c0115c-7678-4af8-a013-cb696f95fd08", alphaUUID},
		{"(aaaaaaaa-aaaa-4aaa-aaaa-aaaaaaaaaaaa)", "aaaaaaaa-aaaa-4aaa-aaaa-aaaaaaaaaaaa", alphaUUID},
		{"x " + strings.Repeat("a1", 64), strings.Repeat("a1", 64), 0},
		{"x " + strings.Repeat("z1", 64), strings.Repeat("z1", 64), 2},
		// Not taken: words, numbers, too short or long,
		// a UUID in upper case or joined to a word, a token repeated.
		{`"internationalization"`, "", 0},
		{`"abcdefghijklmnopq"`, "", 0},
		{`"12345678901234567"`, "", 0},
		{`"abcdefghijklmno1"`, "abcdefghijklmno1", 2},
		{`"abc123def456ghi"`, "", 0},
		{`"` + strings.Repeat("a1", 64) + `b"`, "", 0},
		{`"C9C0115C-7678-4AF8-A013-CB696F95FD08"`, "", 0},
		{`"c9c0115c-7678-4af8-a013-cb696f95fd08x"`, "", 0},
		{`"p7E5OKPdCOo8iH3WyGki0kzB","p7E5OKPdCOo8iH3WyGki0kzB"`, "", 0},
	} {
		text, cols, n, taken := roundTrip(t, []byte(tc.in), Tokens)
		if tc.taken == "" {
			if n != 0 {
				t.Errorf("%q: %d taken, want none", tc.in, n)
			}
			continue
		}
		if n != 1 || taken != len(tc.taken) {
			t.Errorf("%q: %d taken (%d bytes), want %q", tc.in, n, taken, tc.taken)
			continue
		}
		if want := strings.Replace(tc.in, tc.taken, "\x04\x80", 1); string(text) != want {
			t.Errorf("%q: text %q, want %q", tc.in, text, want)
		}
		// cols: the marks, no numbers, one form, the bits' length, no
		// times, four empty columns of floats, the bits.
		if !bytes.HasPrefix(cols, []byte{3, 4, 0, 0, 1}) {
			t.Fatalf("%q: columns %x", tc.in, cols)
		}
		form, k, err := varint.Uvarint64(cols[5:])
		if err != nil || form&7 != uint64(tc.alpha) || form>>3 != uint64(len(tc.taken)) {
			t.Errorf("%q: form %#x (%v), want alphabet %d", tc.in, form, err, tc.alpha)
		}
		if got, want := len(cols)-5-k-1-1-4, (tokenBits(form)+7)/8; got != want || NoiseLen(cols) != want || int(cols[5+k]) != want {
			t.Errorf("%q: %d bytes of bits (noise %d), want %d", tc.in, got, NoiseLen(cols), want)
		}
	}
}

// TestTokenBits: a token's bits are within 1% of its alphabet's entropy.
func TestTokenBits(t *testing.T) {
	for a, s := range alphabets {
		for n := minToken; n <= maxToken; n++ {
			if a == alphaUUID && n != uuidLen {
				continue
			}
			chars := n
			if a == alphaUUID {
				chars = 32
			}
			b := tokenBits(uint64(n)<<3 | uint64(a))
			min := float64(chars) * math.Log2(float64(len(s)))
			if float64(b) < min || float64(b) > min*1.01+1 {
				t.Errorf("alphabet %d, %d bytes: %d bits, entropy %.1f", a, n, b, min)
			}
		}
	}
	for _, form := range []uint64{15<<3 | 4, 129<<3 | 4, 32<<3 | alphaUUID, 20<<3 | 6, 20<<3 | 7} {
		if b := tokenBits(form); b != -1 {
			t.Errorf("form %#x: %d bits, want -1", form, b)
		}
	}
}

// TestRandomTokens: random ids of every alphabet and length come back, in
// text with numbers and marks around them.
func TestRandomTokens(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var src []byte
	want := 0
	for _, s := range alphabets[:alphaUUID] {
		for n := minToken; n <= maxToken; n++ {
			tok := make([]byte, n)
			for {
				for i := range tok {
					tok[i] = s[r.IntN(len(s))]
				}
				if c, _ := tokenEnd(append(tok, ' '), 0); c == n {
					break
				}
			}
			src = append(src, `{"id":"x-`...)
			src = append(src, tok...)
			src = append(src, "\",\"p\":0.12345678,\"m\":\""...)
			src = append(src, markBytes...)
			src = append(src, "\"}"...)
			src = append(src, '\n')
			want++
		}
	}
	// Each line's number, the escapes of its bytes that are the numbers'
	// and the tokens' marks, and the tokens of the first maxForms forms:
	// the others stay text.
	text, cols, n, _ := roundTrip(t, src, Numbers|Tokens)
	if got := countMarks(text, cols); got != n || n != 3*want+maxForms {
		t.Errorf("%d marks, %d taken, want %d", got, n, 3*want+maxForms)
	}
	if len(cols) > len(src)/2 {
		t.Errorf("columns of %d bytes for %d bytes of text", len(cols), len(src))
	}
	if h, err := parseHeader(cols); err != nil || len(h.kinds) != 3*want {
		t.Errorf("%d numbers' marks (%v), want %d", len(h.kinds), err, 3*want)
	} else if forms, _, err := varint.Uvarint64(h.rest); forms != maxForms {
		t.Errorf("%d forms (%v), want %d", forms, err, maxForms)
	}
}

// TestTokenCorrupt: malformed token columns are refused.
func TestTokenCorrupt(t *testing.T) {
	// The columns of one token of form, bits bytes of them, zeros.
	token := func(form uint64, bits int) []byte {
		b := varint.AppendUvarint64([]byte{3, 4, 0, 0, 1}, form)
		b = append(varint.AppendUvarint64(b, uint64(bits)), 0, 0, 0, 0, 0)
		return append(b, make([]byte, bits)...)
	}
	text, cols, _, _ := Split(nil, nil, []byte(`"call_p7E5OKPdCOo8iH3WyGki0kzB"`), Tokens)
	// 17 base62 characters: 60 + 42 bits, two of padding.
	odd := token(17<<3|4, 13)
	if got, err := Join(nil, []byte("\x04\x80"), odd, 1<<10); err != nil || string(got) != "00000000000000000" {
		t.Fatalf("the columns of a token: %q, %v", got, err)
	}
	padded := bytes.Clone(odd)
	padded[len(padded)-1] = 0x80
	over := token(17<<3|4, 14)
	for _, tc := range []struct {
		name       string
		text, cols []byte
	}{
		{"form of no alphabet", nil, token(24<<3|6, 18)},
		{"too short", nil, token(15<<3|4, 12)},
		{"too long", nil, token(129<<3|4, 97)},
		{"a UUID of another length", nil, token(32<<3|alphaUUID, 16)},
		{"no form", nil, []byte{3, 4, 0, 0, 1}},
		{"too many forms", nil, append([]byte{3, 4, 0, 0, 0x81, 0x01}, bytes.Repeat([]byte{16<<3 | 4}, 129)...)},
		{"forms without a mark", nil, append([]byte{3, 0, 0}, token(16<<3|4, 12)[3:]...)},
		{"bits cut short", nil, cols[:len(cols)-1]},
		{"bits past the columns", nil, append(token(16<<3|4, 12)[:7], 0x7f)},
		{"a group out of range", nil, append(cols[:len(cols)-18:len(cols)-18], bytes.Repeat([]byte{0xff}, 18)...)},
		{"bytes after", nil, append(cols[:len(cols):len(cols)], 0)},
		{"a byte left over", []byte("\x04\x80"), over},
		{"padding not zeros", []byte("\x04\x80"), padded},
		{"form byte past the table", []byte("\x04\x81"), token(16<<3|4, 12)},
		{"form byte not one", []byte("\x04\x03"), token(16<<3|4, 12)},
		{"no form byte", []byte("\x04"), token(16<<3|4, 12)},
		{"no token", []byte("x"), token(16<<3|4, 12)},
	} {
		in := text
		if tc.text != nil {
			in = tc.text
		}
		if out, err := Join(nil, in, tc.cols, 1<<10); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %q, %v; want ErrCorrupt", tc.name, out, err)
		}
	}
}

// TestTimes: which Unix times are taken, and that they come back.
func TestTimes(t *testing.T) {
	for _, tc := range []struct {
		in    string
		taken int
	}{
		{`{"created":1740001598,"x":1}`, 1},
		{`[1740001598,1740001599,1740001598,1000000000,1999999999]`, 5},
		{"1740001598", 1},
		{`"ts 1740001598 s"`, 1},
		// Not times: other lengths, out of range, joined to a word, a
		// float, negative.
		{`[174000159,17400015981,2000000000,0999999999]`, 0},
		{`["a1740001598","1740001598b","v1740001598",1740001598.5,-1740001598,1740001598e3]`, 0},
	} {
		text, cols, n, taken := roundTrip(t, []byte(tc.in), Times)
		if n != tc.taken || taken != 10*tc.taken {
			t.Errorf("%q: %d taken (%d bytes), want %d", tc.in, n, taken, tc.taken)
		}
		if countMarks(text, cols) != n || n == 0 && len(cols) != 0 {
			t.Errorf("%q: text %q, columns %x", tc.in, text, cols)
		}
	}
	// Differences: the first from 0, the second, a second later, a byte.
	first := varint.AppendUvarint64(nil, 2*1740001598)
	_, cols, _, _ := Split(nil, nil, []byte("[1740001598,1740001599]"), Times)
	head := []byte{3, 0, 4, 0, 0, 0, 2} // marks, no numbers, no forms, no bits, two times
	if want := append(append(bytes.Clone(head), first...), 2, 0, 0, 0, 0); !bytes.Equal(cols, want) {
		t.Errorf("columns %x, want %x", cols, want)
	}
	for _, bad := range [][]byte{
		{3, 0, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0}, // time 0
		append(append(append(bytes.Clone(head), first...), varint.AppendUvarint64(nil, 2*800_000_000-1)...), 0, 0, 0, 0), // before 2001
		{3, 0, 4, 0, 0, 0, 1, 0x80}, // cut short
		append(append(append([]byte{3, 0, 4, 0, 0, 0, 3}, first...), 2, 2), 0, 0, 0, 0), // three times for two marks
		append(append([]byte{3, 0, 4, 0, 0, 0, 1}, first...), 0, 0, 0, 0),               // one for two
		append(append([]byte{3, 0, 0, 0, 0, 0, 2}, first...), 2, 0, 0, 0, 0),            // times without a mark
	} {
		if out, err := Join(nil, []byte("\x04,\x04"), bad, 1<<10); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Join(%x) = %q, %v; want ErrCorrupt", bad, out, err)
		}
	}
}
