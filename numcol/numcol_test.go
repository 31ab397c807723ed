package numcol

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"github.com/m2m-go/m2m/internal/sample"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// roundTrip splits src, joins it back and checks the bytes.
func roundTrip(t testing.TB, src []byte, take Take) (text, cols []byte, n, taken int) {
	t.Helper()
	text, cols, n, taken = Split(nil, nil, src, take)
	q, w, k := quickBound(src), wordBound(src), 0
	if take&Numbers == 0 {
		q, w = 0, 0
	}
	switch {
	case take&Times != 0:
		k = tokenBound(src, timeDigits)
	case take&Tokens != 0:
		k = tokenBound(src, minToken)
	}
	if noise := NoiseLen(cols); noise < 0 || noise > len(cols) || n == 0 && noise != 0 {
		t.Fatalf("Split(%.80q): noise of %d bytes in %d of columns", src, noise, len(cols))
	}
	if taken > q+k || taken > w+k || !MightTake(src, taken, take) {
		t.Fatalf("Split(%.80q, %d) took %d bytes, the bounds say at most %d and %d", src, take, taken, q+k, w+k)
	}
	got, err := Join(nil, text, cols, len(src))
	if err != nil {
		t.Fatalf("Join(Split(%.80q)): %v", src, err)
	}
	if !bytes.Equal(got, src) {
		t.Fatalf("Join(Split(%.80q)) = %.80q", src, got)
	}
	if _, err := Join(nil, text, cols, len(src)-1); len(src) > 0 && !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Join with a limit one short: %v, want ErrCorrupt", err)
	}
	if got := countMarks(text, cols); got != n {
		t.Fatalf("Split(%.80q): %d marks in the text, it says %d", src, got, n)
	}
	// A prefix of the text joins to a prefix of src at least as long, but
	// for a token's mark at its end, whose form's byte it lacks.
	var j Joiner
	for _, k := range []int{0, len(text) / 3, len(text) / 2, max(len(text)-1, 0)} {
		got, err := j.JoinPrefix(nil, text[:k], cols, len(src))
		if err != nil || len(got) < k-1 || !bytes.HasPrefix(src, got) {
			t.Fatalf("JoinPrefix(Split(%.80q)) of %d bytes of text: %.80q, %v", src, k, got, err)
		}
	}
	return text, cols, n, taken
}

// TestTaken: which numbers are taken, by how they are written.
func TestTaken(t *testing.T) {
	for _, tc := range []struct {
		in    string
		taken bool
	}{
		// Shortest float32 and float64 digits, as languages print them.
		{"-0.0069292835", true}, {"0.0023064255", true}, {"0.12345678901234566", true},
		{"3.141592653589793", true}, {"1.2345678e-05", true}, {"1.2345678e-5", true},
		{"1.2345678E-5", true}, {"1.2345678e+21", true}, {"1.2345678e21", true},
		{"-6.1035156e-05", true}, {"1234567.0", true}, {"1.7976931348623157e+308", true},
		{"123456.78", true}, {"-0.31725305", true}, {"0.1234567", true}, {"-0.3172", true},
		{"1.234e-05", true},
		// Short numbers, and float64s of fewer digits than bits: cheaper as text.
		{"0.5", false}, {"1e-05", false}, {"-0.317", false}, {"1.25", false},
		{"0.123456789012345", false}, {"1.0", false},
		// Not shortest, not a float, or joined to a word: left in the text.
		{"0.12345670", false}, {"0.1000000000000000055511151231257827", false},
		{"42", false}, {"-7", false}, {"1.2345678e-005", false}, {"01.2345678", false}, {"1.2.3", false},
		{"v1.2345678", false}, {"1.2345678x", false}, {"0.5-0.2", false}, {"1e999", false}, {".5", false},
		{"1.", false}, {"-", false}, {"1e", false}, {"1e+", false}, {"+1.2345678", false},
		{"0." + strings.Repeat("1", 45), false},
	} {
		_, _, n, _ := roundTrip(t, []byte(tc.in), Numbers)
		if (n == 1) != tc.taken {
			t.Errorf("%q: taken %v, want %v", tc.in, n == 1, tc.taken)
		}
	}
}

// TestForms: every way of writing a float, down to one digit, is taken
// and comes back once the digits' floor is lifted.
func TestForms(t *testing.T) {
	defer func(m [2]int) { minDigits = m }(minDigits)
	minDigits = [2]int{}
	for _, s := range []string{
		"0.1", "-0.1", "1.5", "1e-05", "1e-5", "1E-5", "1.0E-5", "1e+21", "1e21", "2.5e-07",
		"1.0", "100.0", "0.0", "-0.0", "1e0", "5e-324", "1e-45", "0.001", "1e+100", "1.5E+300",
	} {
		if _, _, n, _ := roundTrip(t, []byte(s), Numbers); n != 1 {
			t.Errorf("%q not taken", s)
		}
	}
}

// TestEmbedding: a vector of float32s as an API prints it comes back, and
// its numbers cost under 3.5 bytes each before any entropy coding of
// the exponent column (4 bytes of bits and a kind).
func TestEmbedding(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var b []byte
	b = append(b, `{"object":"embedding","embedding":[`...)
	const dim = 1536
	for i := range dim {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(float32(r.NormFloat64()*0.025)), 'g', -1, 32)
	}
	b = append(b, "]}\n"...)
	text, cols, n, taken := roundTrip(t, b, Numbers)
	if n < dim*9/10 {
		t.Fatalf("took %d numbers of %d", n, dim)
	}
	if len(cols) > 5*dim+3 || len(text) > len(b)-taken+n {
		t.Fatalf("text %d bytes, columns %d for %d numbers", len(text), len(cols), n)
	}
	if taken < len(b)*3/4 {
		t.Fatalf("taken %d of %d bytes", taken, len(b))
	}
}

// TestChunks: columns of several chunks (each with its own Huffman
// table, however alike) come back.
func TestChunks(t *testing.T) {
	src := embeddingLines(120) // 184,320 numbers: two chunks a column
	_, _, n, _ := roundTrip(t, src, Numbers)
	if n <= chunkSize {
		t.Fatalf("%d numbers: one chunk a column", n)
	}
}

// TestMarks: bytes of the input that are marks come back as they were,
// beside numbers, tokens and times and at the ends, where every byte a
// mark could be is in the input.
func TestMarks(t *testing.T) {
	all := string(markBytes)
	for _, s := range []string{all, all + all, "a" + all + "0.5" + all, "0.5" + all, all + "0.25",
		"[0.5," + all + ",1e-7]", `{"id":"call_p7E5OKPdCOo8iH3WyGki0kzB","t":1740001598,"x":"` + all + `","p":0.12345678}`} {
		for _, take := range []Take{Numbers, Tokens, Times, Numbers | Tokens | Times} {
			_, cols, _, _ := roundTrip(t, []byte(s), take)
			if m := marksOf(cols); len(cols) > 0 && (m[0] != 0x03 || take&Tokens != 0 && m[1] != 0x04) {
				t.Errorf("%q: marks %x, want the first of markBytes", s, m)
			}
		}
	}
	// The rarest bytes are the marks.
	_, cols, _, _ := roundTrip(t, []byte("\x03\x03\x04\x05\x05[0.5,1.2345678]"), Numbers|Tokens|Times)
	if m := marksOf(cols); m != [3]byte{0x06, 0x07, 0x08} {
		t.Errorf("marks %x, want 06 07 08", m)
	}
}

// marksOf returns the marks of columns Split made (none if empty).
func marksOf(cols []byte) (m [3]byte) {
	copy(m[:], cols)
	return m
}

// countMarks counts the marks in text as Join reads them: a token's mark
// and its form's byte once.
func countMarks(text, cols []byte) int {
	if len(cols) == 0 {
		return 0
	}
	n := 0
	for _, m := range marksOf(cols) {
		if m != 0 {
			n += bytes.Count(text, []byte{m})
		}
	}
	return n
}

// TestValues: every kind of float bits a number can have renders back
// to the number it was parsed from.
func TestValues(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var b []byte
	for range 20000 {
		b = b[:0]
		switch r.IntN(4) {
		case 0:
			b = strconv.AppendFloat(b, float64(math.Float32frombits(r.Uint32())), 'g', -1, 32)
		case 1:
			b = strconv.AppendFloat(b, math.Float64frombits(r.Uint64()), 'g', -1, 64)
		case 2:
			b = strconv.AppendFloat(b, float64(math.Float32frombits(r.Uint32())), 'e', -1, 32)
		case 3:
			b = strconv.AppendFloat(b, r.NormFloat64()*math.Pow(10, float64(r.IntN(40)-20)), 'f', -1, 64)
		}
		if len(b) > maxNumber || bytes.Contains(b, []byte("N")) || bytes.Contains(b, []byte("I")) {
			continue
		}
		_, _, n, _ := roundTrip(t, b, Numbers)
		mant, _, _ := bytes.Cut(b, []byte("e"))
		digits := len(bytes.TrimLeft(bytes.Trim(mant, "-."), "0.")) - bytes.Count(bytes.TrimLeft(bytes.Trim(mant, "-."), "0."), []byte("."))
		if n != 1 && bytes.ContainsAny(b, ".e") && digits >= 16 {
			t.Fatalf("%s not taken", b)
		}
	}
}

// TestBits: the columns' bytes of any bits give the bits back.
func TestBits(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 10000 {
		b := r.Uint64()
		if got := bits64(bytes64(b)); got != b {
			t.Fatalf("bits64(bytes64(%#x)) = %#x", b, got)
		}
		if got := bits32(bytes32(b & 0xffffffff)); got != b&0xffffffff {
			t.Fatalf("bits32(bytes32(%#x)) = %#x", b&0xffffffff, got)
		}
	}
}

// TestRenderFixed: render's fixed form, strconv's, is what renderDigits
// makes of the exponent form's digits, for floats of every size.
func TestRenderFixed(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for i := range 100000 {
		bits := r.Uint64()
		k := byte(kind64) | byte(i&1)*kindDot0
		if i&2 != 0 {
			bits &= 0xffffffff
			k &^= kind64
		}
		if i&4 != 0 { // mostly the numbers of embeddings and logprobs
			bits = math.Float64bits(r.NormFloat64() * math.Pow(10, float64(r.IntN(12)-8)))
			if k&kind64 == 0 {
				bits = uint64(math.Float32bits(float32(math.Float64frombits(bits))))
			}
		}
		slow, err1 := renderDigits(nil, k, bits)
		fast, err2 := render(nil, k, bits)
		if (err1 == nil) != (err2 == nil) || err1 == nil && !bytes.Equal(fast, slow) {
			if err2 == nil && err1 != nil && len(fast) > maxNumber {
				continue // beyond what a number taken can be: never rendered from a valid stream
			}
			t.Fatalf("kind %#x bits %#x: render %q (%v), renderDigits %q (%v)", k, bits, fast, err2, slow, err1)
		}
	}
}

// TestCorrupt: columns that do not fit the text are refused, never a
// panic.
func TestCorrupt(t *testing.T) {
	text, cols, _, _ := Split(nil, nil, []byte("[0.5,-1.2345e-07,\x03,3.5]"), Numbers)
	mark := []byte{cols[0]}
	at := len(markBytes[:3]) + 1 // the marks, the count, then the kinds
	for name, c := range map[string]struct{ text, cols []byte }{
		"short columns":  {text, cols[:len(cols)-1]},
		"long columns":   {text, append(bytes.Clone(cols), 0)},
		"extra mark":     {append(bytes.Clone(text), mark...), cols},
		"missing mark":   {bytes.Replace(text, mark, nil, 1), cols},
		"bad kind":       {text, append(append(bytes.Clone(cols[:at]), 0x40), cols[at+1:]...)},
		"token's escape": {text, append(append(bytes.Clone(cols[:at]), kindToken), cols[at+1:]...)},
		"count too high": {text, []byte{3, 0, 0, 0xff, 0x7f}},
		"bad varint":     {text, []byte{3, 0, 0, 0xff}},
		"no mark":        {text, append([]byte{0}, cols[1:]...)},
		"mark of JSON":   {text, append([]byte{'\n'}, cols[1:]...)},
		"marks the same": {text, append([]byte{cols[0], cols[0]}, cols[2:]...)},
		"cut in marks":   {text, cols[:2]},
	} {
		if _, err := Join(nil, c.text, c.cols, 1<<20); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	// Blobs' lengths: short of a blob, past the columns, and the bytes one
	// short and one over.
	btext, bcols, _, _ := Split(nil, nil, []byte(`"`+base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\xde\xad\xbe\xef\x01\x23\x45\x67\x89\xab", 30)))+`",0.12345678`), Numbers)
	at += 2 // two kinds, then the blob's length
	for name, c := range map[string][]byte{
		"blob too short":   append(append(bytes.Clone(bcols[:at]), 100, 0), bcols[at+2:]...),
		"blob past cols":   append(append(bytes.Clone(bcols[:at]), 0xff, 0x7f), bcols[at+2:]...),
		"blob bytes short": bcols[:len(bcols)-1],
		"blob bytes over":  append(bytes.Clone(bcols), 0),
	} {
		if _, err := Join(nil, btext, c, 1<<20); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	if got, err := Join(nil, btext, bcols, 1<<20); err != nil || bcols[at-2] != kindBlob || bcols[at] != 0xac || bcols[at+1] != 0x02 {
		t.Fatalf("the blob's columns %x: %q, %v", bcols[:at+2], got, err)
	}
	// A float64 of NaN bits, and one whose fixed form is 300 digits; the
	// columns as Split would make them for one float64 but for its bits.
	for _, bits := range []uint64{math.Float64bits(0.12345678901234566), math.Float64bits(math.NaN()), math.Float64bits(1e300), math.Float64bits(math.Inf(-1))} {
		b := bytes64(bits)
		c := []byte{3, 0, 0, 1, kind64, 0, 0, 0, 0, 0, 2, chunkRaw, b[0], 2, chunkRaw, b[1]}
		c = append(c, b[2:]...)
		out, err := Join(nil, []byte{3}, c, 1<<20)
		if ok := bits == math.Float64bits(0.12345678901234566); ok != (err == nil) || ok && string(out) != "0.12345678901234566" {
			t.Errorf("bits %#x: %q, %v", bits, out, err)
		}
	}
}

// base64Noise returns a function of n: n bytes of r's noise in base64
// (an image's compressed data, as any coder sees it).
func base64Noise(r *rand.Rand) func(n int) string {
	return func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return base64.StdEncoding.EncodeToString(b)
	}
}

// kindsOf returns the kinds of columns cols of n numbers' marks, n under
// 128 (a one-byte count).
func kindsOf(cols []byte, n int) []byte {
	if n == 0 {
		return nil
	}
	return cols[4 : 4+n]
}

// TestVectors: float32s in base64 are taken as one vector where they
// decode strictly to float32s of an embedding's magnitudes, and other
// base64 stays text.
func TestVectors(t *testing.T) {
	noise := base64Noise(rand.New(rand.NewPCG(7, 8)))
	vector := base64Vector
	v1536, v35, v34, v32, v31 := vector(1536), vector(35), vector(34), vector(32), vector(31)
	bad := []byte(v34)
	bad[len(bad)-3]++ // before "==": padding bits no longer zero, so it decodes but does not encode back
	for _, tc := range []struct {
		name, in string
		vectors  int
	}{
		{"embedding", `{"embedding":"` + v1536 + `"}`, 1},
		{"padded =", `"` + v35 + `"`, 1},
		{"padded ==", `"` + v34 + `"`, 1},
		{"shortest", v32, 1},
		{"too short", `"` + v31 + `"`, 0},
		{"two, and numbers", `[1.2345678,"` + v32 + `",-0.0012345,"` + v35 + `"]`, 2},
		{"noise", `"` + noise(4096) + `"`, 0},
		{"hex", `"` + strings.Repeat("0123456789abcdef", 16) + `"`, 0},
		{"not whole float32s", `"` + vector(40)[:172] + `"`, 0},
		{"padding bits", `"` + string(bad) + `"`, 0},
		{"third =", `"` + v34 + `="`, 0},
		{"URL alphabet", `"` + strings.NewReplacer("+", "-", "/", "_").Replace(v1536) + `"`, 0},
		{"in a data URL", `"data:application/octet-stream;base64,` + v1536 + `"`, 1},
	} {
		text, cols, n, _ := roundTrip(t, []byte(tc.in), Numbers)
		if vectors := bytes.Count(kindsOf(cols, n), []byte{kindVector}); vectors != tc.vectors {
			t.Errorf("%s: %d vectors taken (%d marks: %.60q), want %d", tc.name, vectors, n, text, tc.vectors)
		}
	}
}

// TestBlobs: runs of base64 of minBlob characters or more, of both
// cases and digits, that are no vector, are taken as their bytes, which
// the columns hold as they are; shorter runs, hex, words, runs that do
// not encode back, and other alphabets stay text.
func TestBlobs(t *testing.T) {
	noise := base64Noise(rand.New(rand.NewPCG(11, 12)))
	image, shortest := noise(30000), noise(190)
	bad := []byte(noise(1000))
	bad[len(bad)-3]++ // before "==": padding bits no longer zero
	for _, tc := range []struct {
		name, in string
		blobs    int
	}{
		{"a data URL", `{"url":"data:image/jpeg;base64,` + image + `"}`, 1},
		{"two, and numbers", `["` + noise(300) + `",1.2345678,"` + noise(301) + `"]`, 2},
		{"shortest (256 with ==)", `"` + shortest + `"`, 1},
		{"too short", `"` + shortest[:252] + `"`, 0},
		{"a vector", `"` + base64Vector(1536) + `"`, 0},
		{"hex", `"` + strings.Repeat("0123456789abcdef", 64) + `"`, 0},
		{"letters and digits, one case", `"` + strings.ToLower(image[:4000]) + `"`, 0},
		{"padding bits", `"` + string(bad) + `"`, 0},
		{"third =", `"` + image[:4000] + `="`, 0},
		{"URL alphabet", `"` + strings.NewReplacer("+", "-", "/", "_").Replace(image) + `"`, 0},
		{"MIME lines", `"` + mimeLines(image[:4000]) + `"`, 0},
	} {
		text, cols, n, taken := roundTrip(t, []byte(tc.in), Numbers)
		if blobs := bytes.Count(kindsOf(cols, n), []byte{kindBlob}); blobs != tc.blobs {
			t.Errorf("%s: %d blobs taken (%d marks: %.60q), want %d", tc.name, blobs, n, text, tc.blobs)
		}
		if noise := NoiseLen(cols); tc.blobs > 0 && (noise == 0 || noise > taken*3/4) {
			t.Errorf("%s: noise of %d bytes for %d of base64", tc.name, noise, taken)
		}
		if tc.blobs > 0 && len(cols) > taken*3/4+16 {
			t.Errorf("%s: %d bytes of columns for %d of base64", tc.name, len(cols), taken)
		}
	}
}

// mimeLines is b64 in lines of 76 characters, as JSON escapes them.
func mimeLines(b64 string) string {
	var lines []string
	for len(b64) > 76 {
		lines, b64 = append(lines, b64[:76]), b64[76:]
	}
	return strings.Join(append(lines, b64), `\n`)
}

// TestMightTake: the bound rules out what has no numbers though its
// digits are many, and not what has them (nor an image in base64: a blob).
func TestMightTake(t *testing.T) {
	image := base64Noise(rand.New(rand.NewPCG(9, 10)))(3 << 10)
	for _, tc := range []struct {
		name, in string
		might    bool
	}{
		{"prose", strings.Repeat("The quick brown fox jumps over the lazy dog, 12 times. ", 20), false},
		{"integers", strings.Repeat(`{"id":12345678,"created":1732500000},`, 20), false},
		{"hex", strings.Repeat(`"0123456789abcdef0123456789abcdef",`, 20), false},
		{"one long word", strings.Repeat("0123456789abcdef", 1<<10), false},
		{"an image", `"data:image/png;base64,` + image + `"`, true},
		{"an image's base64, lower case", `"` + strings.ToLower(image) + `"`, false},
		{"logprobs", strings.Repeat(`{"token":"a","logprob":-0.0012345678},`, 20), true},
		{"a vector", `"` + base64Vector(64) + `"`, true},
	} {
		src := []byte(tc.in)
		if got := MightTake(src, (len(src)+7)/8, Numbers); got != tc.might {
			t.Errorf("%s: MightTake = %v (bounds %d and %d of %d bytes), want %v", tc.name, got, quickBound(src), wordBound(src), len(src), tc.might)
		}
	}
}

// BenchmarkMightTake: what asking costs where the answer is no. Chat
// traffic (the embedded sample: prose, JSON, a few numbers), which no
// frame is split for, is told by the quick bound; hex, whose digits pass
// it, by the word bound. (A sentence repeated, as the first case was,
// let a branch a byte be predicted as real text does not.)
func BenchmarkMightTake(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"jsonl", string(sample.JSONL())},
		{"hex", `"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", `},
	} {
		src := []byte(strings.Repeat(c.text, max(1, (1<<20)/len(c.text))))
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if MightTake(src, len(src)/8, Numbers) {
					b.Fatal("it might")
				}
			}
		})
	}
}

// FuzzSplit: any input comes back byte for byte.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"[0.5,-1.25e-07,3.5]", "\x03", "1.0E+5 0.1 x1.5", `{"logprob":-0.0012,"t":1.5e-300}`} {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"embedding":"` + base64Vector(40) + `","x":0.12345678}`))
	f.Add([]byte(`{"data":"` + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("an image's bytes, ", 20))) + `"}`))
	f.Add([]byte(`{"id":"chatcmpl-JcomEUd8F6NNmq02IHEDdtT5oGPfy","u":"c9c0115c-7678-4af8-a013-cb696f95fd08","p":0.12345678}`))
	f.Add([]byte(`{"created":1740001598,"t":[1740001600,1999999999,1000000000,2000000000,17400015981]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, take := range []Take{Numbers, Tokens, Times, Numbers | Tokens | Times} {
			roundTrip(t, src, take)
		}
	})
}

// FuzzJoin: any text and columns give bytes within the limit or an error
// wrapping ErrCorrupt, never a panic.
func FuzzJoin(f *testing.F) {
	for _, src := range []string{"[0.5,-1.2345678e-07,\x03,\x04,3.5,0.12345678901234566]", string(embeddingLines(1)[:3000]),
		`["` + base64Vector(34) + `",1.2345678]`, `"` + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("Blob 9, ", 40))) + `",1.5e-07`,
		`["msg_01XFDUDYJgAACzvnptvVoYEL","c9c0115c-7678-4af8-a013-cb696f95fd08",0.12345678,"01ARZ3NDEKTSV4RRFFQ69G5FAV"]`,
		`{"created":1740001598,"t":1740001599}`} {
		text, cols, n, _ := Split(nil, nil, []byte(src), Numbers|Tokens|Times)
		if n == 0 {
			f.Fatalf("no number taken from %.40q", src)
		}
		f.Add(text, cols)
	}
	var j Joiner // kept across inputs, as a reader keeps one across frames
	f.Fuzz(func(t *testing.T, text, cols []byte) {
		const limit = 1 << 12
		out, err := Join(nil, text, cols, limit)
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error %v does not wrap ErrCorrupt", err)
		}
		if len(out) > limit {
			t.Fatalf("%d bytes out, limit %d", len(out), limit)
		}
		again, err2 := j.Join(nil, text, cols, limit)
		if !bytes.Equal(again, out) || (err == nil) != (err2 == nil) {
			t.Fatalf("a used Joiner gave %.40q, %v; a new one %.40q, %v", again, err2, out, err)
		}
		// The text as a prefix: the same bounds.
		part, err := j.JoinPrefix(nil, text[:len(text)/2], cols, limit)
		if err != nil && !errors.Is(err, ErrCorrupt) || len(part) > limit {
			t.Fatalf("JoinPrefix: %d bytes, %v", len(part), err)
		}
	})
}

func BenchmarkSplit(b *testing.B) {
	src := embeddingLines(100)
	b.SetBytes(int64(len(src)))
	var text, cols []byte
	for b.Loop() {
		text, cols, _, _ = Split(text[:0], cols[:0], src, Numbers)
	}
}

func BenchmarkJoin(b *testing.B) {
	src := embeddingLines(100)
	text, cols, _, _ := Split(nil, nil, src, Numbers)
	b.SetBytes(int64(len(src)))
	var out []byte
	var j Joiner
	for b.Loop() {
		out, _ = j.Join(out[:0], text, cols, len(src))
	}
}

// base64Vector is n float32s of an embedding's magnitudes in base64.
func base64Vector(n int) string {
	r := rand.New(rand.NewPCG(9, 10))
	b := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(r.NormFloat64()*0.03)))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// embeddingLines is n vectors of 1536 float32s, as an API prints them.
func embeddingLines(n int) []byte {
	r := rand.New(rand.NewPCG(5, 6))
	var b []byte
	for range n {
		b = append(b, `{"embedding":[`...)
		for i := range 1536 {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, float64(float32(r.NormFloat64()*0.025)), 'g', -1, 32)
		}
		b = append(b, "]}\n"...)
	}
	return b
}

// quickBoundBytes is quickBound a byte at a time: its twin.
func quickBoundBytes(src []byte) int {
	digits, runs, run := 0, 0, 0
	for _, c := range src {
		digits += int(class[c] & classDigit)
		if class[c]&classRun != 0 {
			run++
			continue
		}
		if run >= vectorChar {
			runs += run
		}
		run = 0
	}
	if run >= vectorChar {
		runs += run
	}
	return 2*digits + runs
}

// TestQuickBound: quickBound, 64 bytes at a time, is its twin's, on runs
// of base64 of every length around vectorChar, at every offset from a
// chunk's edge, among other bytes.
func TestQuickBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const pieces = "ab+/=0123456789 ,.\"\\\n{}:é"
	for range 2000 {
		var src []byte
		for len(src) < rng.IntN(2000) {
			if rng.IntN(4) == 0 {
				n := vectorChar - 70 + rng.IntN(200)
				for range n {
					src = append(src, "AZaz09+/="[rng.IntN(9)])
				}
				continue
			}
			src = append(src, pieces[rng.IntN(len(pieces))])
		}
		if got, want := quickBound(src), quickBoundBytes(src); got != want {
			t.Fatalf("quickBound = %d, its twin %d, of %q", got, want, src)
		}
	}
}

func FuzzQuickBound(f *testing.F) {
	f.Add([]byte(base64Vector(40)))
	f.Add([]byte("12.5 and 3.25e-4"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if got, want := quickBound(src), quickBoundBytes(src); got != want {
			t.Fatalf("quickBound = %d, its twin %d", got, want)
		}
	})
}
