// Package numcol takes the decimal numbers out of text and keeps them as
// columns of binary floats, byte for byte reversibly: the text is left
// with a mark where each number was, and the numbers become a column of
// kinds (how each is written) and columns of the bytes of their IEEE 754
// bits, one column a byte position, the exponent's first.
//
// It exists for embedding vectors and log probabilities in LLM API
// traffic: thousands of numbers such as -0.0069292835 that are the
// shortest decimal form of a float32 (or float64), whose digits are noise
// to an LZ or context-model coder (about 4.7 bytes a number at zstd -19)
// but whose bits are 23 bits of mantissa, a sign and a narrow exponent
// (about 3.3 bytes a number once the exponent column is entropy coded).
// Vectors of float32s sent as base64 (an embedding API's
// encoding_format "base64") go to the same columns, a mark a vector: as
// text they cost about 6 bits a character at any LZ level, 32 bits a
// number. Other runs of base64 of minBlob characters or more (images,
// audio, files sent inline as data URLs or "data" fields) go to a column
// of their bytes as they are, a mark a run: as text they cost ~6.1-6.5
// bits a character at zstd's levels, where their bytes, compressed
// already (JPEG, PNG, MP3), are 6 bits a character stored. Asked to, it
// takes ids too (Tokens: a completion's "chatcmpl-..." id, a UUID), as
// their bits (token.go), and Unix times (Times: "created": 1740001598),
// as the difference from the one before (time.go). It knows nothing of
// JSON or archives: package archive splits a frame's raw bytes with it
// when numbers or ids are much of them.
//
// A number is taken only if writing its value back gives the same bytes:
// the shortest digits of its float32 or float64 (strconv's shortest
// round trip, as Go, Python, JavaScript, Java and Rust print floats),
// in fixed form (0.0001234567, 12.34567) or exponent form (1.234567e-05,
// 1.234567E+21), with or without a ".0" after a whole mantissa. Anything
// else (integers, trailing zeros, more digits than the shortest) stays in
// the text, so nothing is lost however the numbers were printed; and so
// do short numbers (under 4 digits for a float32, 16 for a float64: 0.7,
// 1.25, a float64 of 12 digits), which cost less as text.
//
// # Format
//
// Text: the input with each number, vector or blob taken replaced by the
// numbers' mark, each token by the tokens' mark and a form's byte, each
// time by the times' mark, and each byte of the input that is one of the
// marks by the numbers' mark (its kind says which). Columns, none at all
// (and the text the input) where nothing was taken:
//
//	cols = mark_numbers | mark_tokens | mark_times | uvarint n | kind * n
//	       | uvarint count * vectors | uvarint length * blobs
//	       | uvarint forms | uvarint form * forms | uvarint token_bytes
//	       | uvarint times | uvarint difference * times
//	       | coded(f32 0) | coded(f32 1) | f32 2 | f32 3
//	       | coded(f64 0) | coded(f64 1) | f64 2 ... f64 7 | blob bytes | token bits
//
// The marks are three distinct bytes of markBytes (0x03-0x1F but tab,
// line feed and carriage return), the tokens' and the times' 0 where
// none are taken. n counts the numbers' marks in the text, one kind
// each: 0xff for the numbers' mark byte of the input, 0xfc for the
// tokens', 0xfb for the times', 0xfe for a vector (its count of
// float32s, in order, follows the kinds; see appendVector for what is
// taken as one), 0xfd for a blob, a run of base64 of other bytes (its
// length in bytes, in order, follows the vectors' counts, and its bytes
// end the columns but the tokens'; see blobEnd), else bits: 0x01 float64
// (else float32), 0x02 exponent form (else fixed), 0x04 'E' (else 'e'),
// 0x08 '+' before an exponent that is not negative, 0x10 exponent of at
// least two digits, 0x20 ".0" after a mantissa without fraction digits.
// A token's form (its length times 8 plus its alphabet's number, see
// alphabets) is the one of the table of forms, at most maxForms of them,
// that the byte after its mark names (formByte for the first), and says
// how many bits it is (tokenBits); those follow the tokens' before it in
// the token_bytes that end the columns, the first bit of each byte its
// lowest, the last byte padded with zeros. A time's difference from the
// time before it (from 0 for the first), zigzag (0, -1, 1, -2 as 0, 1,
// 2, 3), is in the times' column, in order. f32 are the float32
// numbers' bits (a vector's in its place among them) as four columns of
// one byte a number: the exponent (bits 30-23), the sign and mantissa
// bits 22-16, bits 15-8, bits 7-0. f64 are the float64 numbers' as eight
// columns: exponent bits 62-55, exponent bits 54-52 then the sign then
// mantissa bits 51-48, and the mantissa's other six bytes from the top.
// The first two columns of each width, which hold the exponent, are
// Huffman coded (see appendHuffman); the others are the mantissa's low
// bits, noise, as they are. A caller may compress cols further (the kinds
// repeat).
package numcol

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/klauspost/compress/huff0"

	"github.com/m2m-go/m2m/varint"
)

// Take says what Split takes out of the text.
type Take uint8

const (
	Numbers Take = 1 << iota // floats, vectors of them in base64, blobs of base64
	Tokens                   // ids made of random letters and digits (token.go)
	Times                    // Unix times in seconds, as differences (time.go)
)

// Marks: each number (vector, blob) taken leaves its mark in the text,
// as do each token and each time, three bytes Split chooses for each
// input among the control bytes that JSON text never holds raw (markBytes):
// the input's rarest, so that few of its own bytes need escaping. A mark
// of its own for tokens and times puts what the mark is in the text,
// whose coder predicts it from the bytes before ("created": comes before
// a time), where a column of kinds spent a byte on each (dev100's
// skeletons: 6.7 KB at zstd -19, bench/README.md "Marks in the text").
// A token's mark is followed by a byte, formByte plus its form's number
// in the columns' table of forms: its length and alphabet, which the
// text's coder predicts from the bytes before as well.
var markBytes = func() (b []byte) {
	for c := byte(0x03); c < 0x20; c++ {
		if c != '\t' && c != '\n' && c != '\r' {
			b = append(b, c)
		}
	}
	return b
}()

// formByte is the byte after a token's mark of its columns' first form:
// forms are formByte to 0xff, maxForms of them, bytes no other mark and
// no byte of JSON's structure or of a word.
const (
	formByte = 0x80
	maxForms = 0x100 - formByte
)

// Bits of a kind.
const (
	kind64     = 0x01
	kindExp    = 0x02
	kindUpper  = 0x04
	kindPlus   = 0x08
	kindExp2   = 0x10
	kindDot0   = 0x20
	kindBits   = 0x3f
	kindTime   = 0xfb // the mark is a byte of the input, the times' mark
	kindToken  = 0xfc // the mark is a byte of the input, the tokens' mark
	kindBlob   = 0xfd // the mark is a run of base64 of other bytes
	kindVector = 0xfe // the mark is a vector of float32s in base64
	kindMark   = 0xff // the mark is a byte of the input, the numbers' mark
)

// maxNumber is the longest number taken, and so the longest a mark
// becomes: a reader renders nothing longer.
const maxNumber = 40

// ErrCorrupt is what Join's errors about malformed input wrap.
var ErrCorrupt = errors.New("numcol: corrupt input")

func corruptf(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, a...)...)
}

// Split appends src to text with every number, token and time it takes
// (as take says) replaced by its mark, and the columns of those to cols.
// n is how many marks text got; taken is how many bytes of src they were
// (the escapes of the input's bytes that are marks not counted), which
// tells a caller whether splitting pays. Where it takes nothing, text is
// src and cols is empty.
func Split(text, cols, src []byte, take Take) (textOut, colsOut []byte, n, taken int) {
	marks := chooseMarks(src, take)
	var escape [256]byte // for a byte of the input that is a mark, its kind
	for k, kind := range [3]byte{kindMark, kindToken, kindTime} {
		if marks[k] != 0 {
			escape[marks[k]] = kind
		}
	}
	start := len(text)
	var kinds []byte
	var spans []span // the tokens to take, in order
	if take&Tokens != 0 {
		spans = singleTokens(src)
	}
	var forms []uint64 // the tokens' forms, by number
	var times []byte   // uvarint differences of the times, zigzag
	nt, nm := 0, 0     // tokens and times taken
	var lastTime int64
	var tokens bitWriter
	var f32, f64 []uint64 // the bits of the numbers of each width, in order
	var buf [64]byte
	last := 0                  // src[last:] is not yet in text
	var vecs []byte            // uvarint counts of the vectors' float32s
	var blobLens, blobs []byte // uvarint lengths of the blobs, and their bytes
	for i := 0; i < len(src); i++ {
		c := src[i]
		if escape[c] != 0 {
			text = append(append(text, src[last:i]...), marks[0])
			kinds = append(kinds, escape[c])
			last = i + 1
			continue
		}
		for len(spans) > 0 && spans[0].i < i {
			spans = spans[1:] // in a number, vector or blob taken
		}
		if len(spans) > 0 && spans[0].i == i {
			t := spans[0]
			spans = spans[1:]
			f := formNumber(forms, t.form)
			if f < maxForms {
				if f == len(forms) {
					forms = append(forms, t.form)
				}
				text = append(append(text, src[last:i]...), marks[1], byte(formByte+f))
				appendToken(&tokens, src[i:t.j], t.form)
				nt++
				taken += t.j - i
				last = t.j
				i = t.j - 1
				continue
			}
		}
		if take&Times != 0 && timeAt(src, i) {
			v := timeValue(src[i:])
			text = append(append(text, src[last:i]...), marks[2])
			times = varint.AppendUvarint64(times, zigzag(v-lastTime))
			lastTime = v
			nm++
			taken += timeDigits
			last = i + timeDigits
			i = last - 1
			continue
		}
		if take&Numbers == 0 {
			continue
		}
		if isBase64[c] && (i == 0 || !isBase64[src[i-1]]) {
			n, ok := len(f32), false
			if j := vectorEnd(src, i); j > i {
				if f32, ok = appendVector(f32, src[i:j]); ok {
					text = append(append(text, src[last:i]...), marks[0])
					kinds = append(kinds, kindVector)
					vecs = varint.AppendUvarint64(vecs, uint64(len(f32)-n))
					taken += j - i
					last = j
					i = j - 1
					continue
				}
			}
			if j := blobEnd(src, i); j > i {
				if b, err := strictBase64.AppendDecode(blobs, src[i:j]); err == nil {
					text = append(append(text, src[last:i]...), marks[0])
					kinds = append(kinds, kindBlob)
					blobLens = varint.AppendUvarint64(blobLens, uint64(len(b)-len(blobs)))
					blobs = b
					taken += j - i
					last = j
					i = j - 1
					continue
				}
			}
		}
		if c != '-' && !isDigit(c) || i > 0 && wordByte[src[i-1]] {
			continue
		}
		j, ok := scanNumber(src, i)
		if !ok {
			i = j - 1
			continue
		}
		kind, bits, ok := takeNumber(src[i:j], buf[:0])
		if !ok {
			i = j - 1
			continue
		}
		text = append(append(text, src[last:i]...), marks[0])
		kinds = append(kinds, kind)
		if kind&kind64 != 0 {
			f64 = append(f64, bits)
		} else {
			f32 = append(f32, bits)
		}
		taken += j - i
		last = j
		i = j - 1
	}
	if taken == 0 {
		return append(text[:start], src...), cols, 0, 0
	}
	text = append(text, src[last:]...)
	cols = append(cols, marks[:]...)
	cols = varint.AppendUvarint64(cols, uint64(len(kinds)))
	cols = append(cols, kinds...)
	cols = append(cols, vecs...)
	cols = append(cols, blobLens...)
	cols = varint.AppendUvarint64(cols, uint64(len(forms)))
	for _, f := range forms {
		cols = varint.AppendUvarint64(cols, f)
	}
	bits := tokens.flush()
	cols = varint.AppendUvarint64(cols, uint64(len(bits)))
	cols = varint.AppendUvarint64(cols, uint64(nm))
	cols = append(cols, times...)
	c32 := make([]byte, 4*len(f32))
	for i, b := range f32 {
		for p, c := range bytes32(b) {
			c32[p*len(f32)+i] = c
		}
	}
	c64 := make([]byte, 8*len(f64))
	for i, b := range f64 {
		for p, c := range bytes64(b) {
			c64[p*len(f64)+i] = c
		}
	}
	// Every chunk carries its table: none refers to the one before.
	s := huff0.Scratch{Reuse: huff0.ReusePolicyNone}
	for _, c := range [2]struct {
		b []byte
		n int
	}{{c32, len(f32)}, {c64, len(f64)}} {
		cols = appendHuffman(cols, c.b[:c.n], &s)
		cols = appendHuffman(cols, c.b[c.n:2*c.n], &s)
		cols = append(cols, c.b[2*c.n:]...)
	}
	return text, append(append(cols, blobs...), bits...), len(kinds) + nt + nm, taken
}

// chooseMarks returns the marks of numbers, tokens and times for src:
// the rarest bytes of markBytes in it, the first of them where several
// are as rare. Tokens and times have none (0) where take does not take
// them; numbers always have one, which escapes the input's bytes that
// are marks.
func chooseMarks(src []byte, take Take) (marks [3]byte) {
	var count [256]int
	for _, c := range src {
		count[c]++
	}
	for k, want := range [3]bool{true, take&Tokens != 0, take&Times != 0} {
		if !want {
			continue
		}
		best := -1
		for _, c := range markBytes {
			if c != marks[0] && c != marks[1] && (best < 0 || count[c] < count[best]) {
				best = int(c)
			}
		}
		marks[k] = byte(best)
	}
	return marks
}

// formNumber returns the number of form in forms, or len(forms) if it is
// not there.
func formNumber(forms []uint64, form uint64) int {
	for k, f := range forms {
		if f == form {
			return k
		}
	}
	return len(forms)
}

// Chunks of a Huffman-coded column: what one huff0 table covers.
const (
	chunkSize    = 128 << 10
	chunkRaw     = 0 // its bytes
	chunkRLE     = 1 // one byte, repeated
	chunkHuffman = 2 // uvarint length, then huff0's 4-stream block with its table
)

// appendHuffman appends column b coded a chunk at a time, after the
// length of the whole:
//
//	coded = uvarint len | (chunkRaw | byte * size, chunkRLE | byte, chunkHuffman | uvarint len | huff0 block)*
//
// where size is that of the chunk, chunkSize but for the last. The two
// columns that hold exponents are coded so; a general coder (zstd at
// level 3) leaves them as they are, at 8 bits a byte where their entropy
// is 2.5-4.5 (bench/README.md, "Numbers").
func appendHuffman(dst, b []byte, s *huff0.Scratch) []byte {
	var body []byte
	for len(b) > 0 {
		c := b[:min(len(b), chunkSize)]
		b = b[len(c):]
		out, _, err := huff0.Compress4X(c, s)
		switch {
		case err == huff0.ErrUseRLE:
			body = append(body, chunkRLE, c[0])
		case err != nil || len(out) >= len(c):
			body = append(append(body, chunkRaw), c...)
		default:
			body = varint.AppendUvarint64(append(body, chunkHuffman), uint64(len(out)))
			body = append(body, out...)
		}
	}
	dst = varint.AppendUvarint64(dst, uint64(len(body)))
	return append(dst, body...)
}

// readHuffman fills col with the column coded at the start of b, and
// returns the rest of b.
func readHuffman(col, b []byte, s *huff0.Scratch) ([]byte, error) {
	n, k, err := varint.Uvarint64(b)
	if err != nil || n > uint64(len(b)-k) {
		return nil, corruptf("coded column: %d bytes of %d", n, len(b)-k)
	}
	body, rest := b[k:k+int(n)], b[k+int(n):]
	for len(col) > 0 {
		size := min(len(col), chunkSize)
		if len(body) == 0 {
			return nil, corruptf("coded column cut short")
		}
		mode := body[0]
		body = body[1:]
		switch mode {
		case chunkRaw:
			if len(body) < size {
				return nil, corruptf("raw chunk cut short")
			}
			copy(col, body[:size])
			body = body[size:]
		case chunkRLE:
			if len(body) < 1 {
				return nil, corruptf("RLE chunk cut short")
			}
			for i := range col[:size] {
				col[i] = body[0]
			}
			body = body[1:]
		case chunkHuffman:
			m, k, err := varint.Uvarint64(body)
			if err != nil || m > uint64(len(body)-k) {
				return nil, corruptf("Huffman chunk of %d bytes in %d", m, len(body)-k)
			}
			s, remain, err := huff0.ReadTable(body[k:k+int(m)], s)
			if err != nil {
				return nil, corruptf("Huffman table: %v", err)
			}
			out, err := s.Decoder().Decompress4X(col[:0:size], remain)
			if err != nil || len(out) != size {
				return nil, corruptf("Huffman chunk: %d bytes of %d: %v", len(out), size, err)
			}
			body = body[k+int(m):]
		default:
			return nil, corruptf("chunk mode %d", mode)
		}
		col = col[size:]
	}
	if len(body) != 0 {
		return nil, corruptf("%d bytes after a coded column", len(body))
	}
	return rest, nil
}

// MightTake reports whether Split, taking what take says, could take n
// bytes or more of src, found faster than splitting it: a caller that
// splits only where numbers are a share of the bytes asks first. For
// numbers it tries the bound quickBound finds at ~1.3 GB/s (chat
// traffic), then, where that is not below n, the tighter one of wordBound
// (hex, long tokens: both at ~0.42 GB/s); tokens add tokenBound's
// (BenchmarkMightTake).
func MightTake(src []byte, n int, take Take) bool {
	t := 0
	switch {
	case take&Times != 0:
		t = tokenBound(src, timeDigits)
	case take&Tokens != 0:
		t = tokenBound(src, minToken)
	}
	if take&Numbers == 0 || t >= n {
		return t >= n
	}
	return t+quickBound(src) >= n && t+wordBound(src) >= n
}

// quickBound is a bound on what Split takes of src: a number taken has
// four significant digits or more and at most four other bytes, so it is
// at most twice its digits; a vector is a run of base64 (padding
// included) of vectorChar bytes or more.
func quickBound(src []byte) int {
	// 64 bytes at a time, without branches: in text, bytes of a run and
	// others alternate every few bytes, which a branch a byte
	// mispredicted (~450 MB/s). A run long enough to count spans two
	// chunks or more (vectorChar > 64), so only the runs that meet a
	// chunk's edge matter: the one its first bytes end, and the one its
	// last bytes start.
	digits, runs, run := 0, 0, 0
	for ; len(src) >= 64; src = src[64:] {
		var in uint64 // bit i: byte i is of a run
		for i, c := range src[:64] {
			k := class[c]
			digits += int(k & classDigit)
			in |= uint64(k>>classRunShift&1) << i
		}
		if in == ^uint64(0) {
			run += 64
			continue
		}
		if run += bits.TrailingZeros64(^in); run >= vectorChar {
			runs += run
		}
		run = bits.LeadingZeros64(^in)
	}
	for _, c := range src {
		k := class[c]
		digits += int(k & classDigit)
		if k&classRun != 0 {
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

// quickBound counts only runs that reach past a chunk of 64 bytes.
const _ = uint(vectorChar - 65)

// wordBound is a tighter bound on what Split takes of src. A number taken
// is a whole word (a run of wordByte bytes between two that are not) of
// digits, '.', '+', '-', 'e' and 'E' that starts with a digit or '-' and
// has a '.', 'e' or 'E' (integers are not taken), of at most maxNumber
// bytes, minDigits[0] of them digits or more. A vector is a run of base64
// that starts after a byte that is not base64 (padding is not), has, its
// padding included, vectorChar to maxVectorChar bytes, a multiple of 4,
// and whose first kilobyte could be one (mightBeVector); a blob, such a
// run as blobEnd takes.
func wordBound(src []byte) int {
	taken := 0
	word, digits, number, real := 0, 0, false, false // the word so far
	run, pad := 0, 0                                 // the run of base64 so far, and its padding
	endWord := func() {                              // the word so far ends
		if number && real && word <= maxNumber && digits >= minDigits[0] {
			taken += word
		}
		word, digits = 0, 0
	}
	endRun := func(end int) { // the run of base64 so far ends at end
		if n := run + pad; n >= vectorChar && n%4 == 0 && (n <= maxVectorChar && mightBeVector(src[end-n:end]) || blobEnd(src, end-n) == end) {
			taken += n
		}
		run, pad = 0, 0
	}
	for i, c := range src {
		k := class[c]
		if k&classWord != 0 {
			if word == 0 {
				number, real = k&classStart != 0, false
			}
			number = number && k&classNumber != 0
			real = real || k&classPoint != 0
			word++
			digits += int(k & classDigit)
		} else if word > 0 {
			endWord()
		}
		switch {
		case k&classBase64 != 0 && pad == 0:
			run++
		case c == '=' && run > 0:
			pad++
		case run > 0:
			endRun(i)
			run = int(k&classBase64) / classBase64 // base64 after padding starts a run
		}
	}
	endWord()
	endRun(len(src))
	return taken
}

// class holds, for each byte, whether it is a digit, base64 (padding
// not), base64 or padding, a byte of a word, one a number may start with,
// one a number may have, and one of a fraction or exponent, for the
// bounds of MightTake.
var class = func() (t [256]byte) {
	for c := range t {
		if isDigit(byte(c)) {
			t[c] |= classDigit
		}
		if isBase64[c] {
			t[c] |= classBase64
		}
		if isBase64[c] || c == '=' {
			t[c] |= classRun
		}
		if wordByte[c] {
			t[c] |= classWord
		}
		if isDigit(byte(c)) || c == '-' {
			t[c] |= classStart
		}
		if isDigit(byte(c)) || strings.IndexByte(".+-eE", byte(c)) >= 0 {
			t[c] |= classNumber
		}
		if strings.IndexByte(".eE", byte(c)) >= 0 {
			t[c] |= classPoint
		}
	}
	return t
}()

const (
	classDigit  = 1
	classBase64 = 2
	classRun    = 4
	// classRunShift is classRun's bit.
	classRunShift = 2
	classWord     = 8
	classStart    = 16
	classNumber   = 32
	classPoint    = 64
)

// scanNumber matches -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at
// src[i:], not followed by a byte of a word, and with a fraction or an
// exponent (integers stay in the text: their digits are what they are).
// j is where the match, or the run of bytes that failed to be one, ends.
func scanNumber(src []byte, i int) (j int, ok bool) {
	j = i
	if src[j] == '-' {
		j++
	}
	switch {
	case j == len(src) || !isDigit(src[j]):
		return j, false
	case src[j] == '0':
		j++
	default:
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	real := false
	if j+1 < len(src) && src[j] == '.' && isDigit(src[j+1]) {
		j += 2
		for j < len(src) && isDigit(src[j]) {
			j++
		}
		real = true
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			for k < len(src) && isDigit(src[k]) {
				k++
			}
			j, real = k, true
		}
	}
	if j < len(src) && wordByte[src[j]] {
		// 1.2.3, 2x, 0.5ms, 12-34: not a number alone. Skip the word.
		for j < len(src) && wordByte[src[j]] {
			j++
		}
		return j, false
	}
	return j, real && j-i <= maxNumber
}

// takeNumber returns the kind and bits that render s exactly, if any.
func takeNumber(s, buf []byte) (kind byte, bits uint64, ok bool) {
	mant := s
	for k, c := range s {
		if c == 'e' || c == 'E' {
			mant = s[:k]
			kind |= kindExp
			if c == 'E' {
				kind |= kindUpper
			}
			exp := s[k+1:]
			if exp[0] == '+' {
				kind |= kindPlus
			}
			if exp[0] == '+' || exp[0] == '-' {
				exp = exp[1:]
			}
			if len(exp) >= 2 && exp[0] == '0' {
				kind |= kindExp2
			}
			break
		}
	}
	if n := len(mant); n >= 2 && mant[n-2] == '.' && mant[n-1] == '0' {
		kind |= kindDot0
	}
	// Significant digits: short numbers (0.7, 1.25, 0.95) stay text,
	// where a coder sees them repeat, as do float64s of fewer digits than
	// their 53 bits.
	digits := 0
	for _, c := range mant {
		if isDigit(c) && (digits > 0 || c != '0') {
			digits++
		}
	}
	str := string(s) // does not escape: ParseFloat copies nothing
	for _, size := range [2]int{32, 64} {
		if digits < minDigits[size/64] {
			break
		}
		f, err := strconv.ParseFloat(str, size)
		if err != nil {
			continue
		}
		k := kind
		if size == 64 {
			k |= kind64
			bits = math.Float64bits(f)
		} else {
			bits = uint64(math.Float32bits(float32(f)))
		}
		out, err := render(buf[:0], k, bits)
		if err == nil && string(out) == str {
			return k, bits, true
		}
	}
	return 0, 0, false
}

// minDigits are the fewest significant digits of a float32 and a float64
// taken. A float32's 23 bits of mantissa are worth 7 digits, but coders
// spend more than log2(10) bits a digit: on embedding vectors, floors of
// 1, 4, 5 and 6 digits made archives 0.0%, +0.02%, +0.1% and +0.5% larger
// (bench/README.md). A float64's 53 bits are 16 digits.
var minDigits = [2]int{4, 16}

// render appends the number of kind k and bits to dst.
func render(dst []byte, k byte, bits uint64) ([]byte, error) {
	// Fixed form of a number not too large or small: strconv writes it
	// so, with the same shortest digits (TestRenderFixed); Join is ~10%
	// faster than taking them apart from the exponent form.
	if k&kindExp == 0 {
		f, size := math.Float64frombits(bits), 64
		if k&kind64 == 0 {
			f, size = float64(math.Float32frombits(uint32(bits))), 32
		}
		if a := math.Abs(f); a == 0 || 1e-30 <= a && a < 1e30 {
			start := len(dst)
			dst = strconv.AppendFloat(dst, f, 'f', -1, size)
			if k&kindDot0 != 0 && bytes.IndexByte(dst[start:], '.') < 0 {
				dst = append(dst, '.', '0')
			}
			return dst, nil
		}
	}
	return renderDigits(dst, k, bits)
}

// renderDigits is render, from the digits of strconv's exponent form.
func renderDigits(dst []byte, k byte, bits uint64) ([]byte, error) {
	var tmp [32]byte
	var e []byte // d.ddde±xx, strconv's shortest digits
	if k&kind64 != 0 {
		e = strconv.AppendFloat(tmp[:0], math.Float64frombits(bits), 'e', -1, 64)
	} else {
		e = strconv.AppendFloat(tmp[:0], float64(math.Float32frombits(uint32(bits))), 'e', -1, 32)
	}
	neg := e[0] == '-'
	if neg {
		e = e[1:]
	}
	if !isDigit(e[0]) {
		return dst, corruptf("not a finite number")
	}
	// Digits: e[0], then e[2:at] if there is a fraction.
	at := 1
	for at < len(e) && e[at] != 'e' {
		at++
	}
	x := 0
	for _, c := range e[at+2:] {
		x = 10*x + int(c-'0')
	}
	if e[at+1] == '-' {
		x = -x
	}
	frac := e[min(2, at):at] // digits after the first
	start := len(dst)
	if neg {
		dst = append(dst, '-')
	}
	if k&kindExp != 0 {
		dst = append(dst, e[0])
		if len(frac) > 0 {
			dst = append(append(dst, '.'), frac...)
		} else if k&kindDot0 != 0 {
			dst = append(dst, '.', '0')
		}
		if k&kindUpper != 0 {
			dst = append(dst, 'E')
		} else {
			dst = append(dst, 'e')
		}
		if x < 0 {
			dst = append(dst, '-')
			x = -x
		} else if k&kindPlus != 0 {
			dst = append(dst, '+')
		}
		if x < 10 && k&kindExp2 != 0 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(x), 10), nil
	}
	// Fixed form: nothing longer than a number taken.
	if x < -maxNumber || x > maxNumber {
		return dst[:start], corruptf("fixed form of 1e%d", x)
	}
	switch {
	case x < 0:
		dst = append(dst, '0', '.')
		for range -x - 1 {
			dst = append(dst, '0')
		}
		dst = append(append(dst, e[0]), frac...)
	case x >= len(frac):
		dst = append(append(dst, e[0]), frac...)
		for range x - len(frac) {
			dst = append(dst, '0')
		}
		if k&kindDot0 != 0 {
			dst = append(dst, '.', '0')
		}
	default:
		dst = append(append(dst, e[0]), frac[:x]...)
		dst = append(append(dst, '.'), frac[x:]...)
	}
	return dst, nil
}

// Join appends to dst text with each Mark replaced by its number from
// cols, as Split made them. It fails, wrapping ErrCorrupt, if the columns
// are malformed or do not match the text's marks, or if the output would
// be longer than limit bytes: a reader bounds what it makes.
func Join(dst, text, cols []byte, limit int) ([]byte, error) {
	var j Joiner
	return j.Join(dst, text, cols, limit)
}

// A Joiner joins numbers back into text as Join does, keeping the memory
// of its columns and Huffman tables for the next call: a reader joining
// frame after frame asks for no new memory. Its zero value is ready; one
// goroutine uses it at a time.
type Joiner struct {
	f32, f64 []byte
	vecs     []int    // float32s a vector
	blobs    []int    // bytes a blob
	forms    []uint64 // a token's form (tokenBits)
	times    []int64  // a time's value
	s        huff0.Scratch
}

// Join is the package's Join, with j's memory.
func (j *Joiner) Join(dst, text, cols []byte, limit int) ([]byte, error) {
	return j.join(dst, text, cols, limit, false)
}

// JoinPrefix joins a prefix of the text Split made with the columns of
// the whole: the marks in text are replaced as Join does, and the
// columns' numbers past the last of them are not used, but a token's
// mark at the end of text, without its form's byte, is left out. A
// reader so renders as much of a frame as it needs from as much of its
// text: each byte of the text renders one byte or more, so k bytes of it
// render k-1 or more.
func (j *Joiner) JoinPrefix(dst, text, cols []byte, limit int) ([]byte, error) {
	return j.join(dst, text, cols, limit, true)
}

func (j *Joiner) join(dst, text, cols []byte, limit int, prefix bool) ([]byte, error) {
	if len(cols) == 0 {
		if len(text) > limit {
			return dst, corruptf("text longer than %d bytes", limit)
		}
		return append(dst, text...), nil // nothing was taken
	}
	h, err := parseHeader(cols)
	if err != nil {
		return dst, err
	}
	kinds, cols := h.kinds, h.rest
	n32, n64, nv, nb := 0, 0, 0, 0
	for _, k := range kinds {
		switch {
		case k == kindMark || k == kindToken && h.marks[1] != 0 || k == kindTime && h.marks[2] != 0:
		case k == kindVector:
			nv++
		case k == kindBlob:
			nb++
		case k&^kindBits != 0:
			return dst, corruptf("kind %#x", k)
		case k&kind64 != 0:
			n64++
		default:
			n32++
		}
	}
	// Each number has a mark in the text (of which a prefix has only
	// some) and renders one byte or more: their count bounds what is
	// allocated.
	if !prefix && len(kinds) > len(text) || len(kinds) > max(limit, 0) {
		return dst, corruptf("%d numbers for %d bytes of text, %d of output", len(kinds), len(text), limit)
	}
	// Each float32 takes two bytes or more of the columns: their length
	// bounds the vectors' counts.
	j.vecs = j.vecs[:0]
	for range nv {
		c, k, err := varint.Uvarint64(cols)
		if err != nil || c < minVector || c > maxVector {
			return dst, corruptf("vector of %d float32s", c)
		}
		cols = cols[k:]
		if n32 += int(c); n32 > len(cols)/2 {
			return dst, corruptf("vectors of %d float32s in %d bytes of columns", n32, len(cols))
		}
		j.vecs = append(j.vecs, int(c))
	}
	// A blob's bytes are in the columns: their length bounds its length.
	j.blobs = j.blobs[:0]
	blobBytes := 0
	for range nb {
		c, k, err := varint.Uvarint64(cols)
		if err != nil || c < minBlob/4*3-2 || c > uint64(len(cols)) {
			return dst, corruptf("blob of %d bytes", c)
		}
		cols = cols[k:]
		if blobBytes += int(c); blobBytes > len(cols) {
			return dst, corruptf("blobs of %d bytes in %d bytes of columns", blobBytes, len(cols))
		}
		j.blobs = append(j.blobs, int(c))
	}
	// The tokens' forms, at most maxForms, each a byte or two.
	nf, k, err := varint.Uvarint64(cols)
	if err != nil || nf > maxForms || h.marks[1] == 0 && nf != 0 {
		return dst, corruptf("%d forms of tokens", nf)
	}
	cols = cols[k:]
	j.forms = j.forms[:0]
	for range nf {
		form, k, err := varint.Uvarint64(cols)
		if err != nil || tokenBits(form) < 0 {
			return dst, corruptf("token of form %#x", form)
		}
		cols = cols[k:]
		j.forms = append(j.forms, form)
	}
	tokenBytes, k, err := varint.Uvarint64(cols)
	if err != nil || tokenBytes > uint64(len(cols)-k) {
		return dst, corruptf("tokens of %d bytes in %d bytes of columns", tokenBytes, len(cols)-k)
	}
	cols = cols[k:]
	// A time's difference is a byte or more of the columns.
	nm, k, err := varint.Uvarint64(cols)
	if err != nil || nm > uint64(len(cols)-k) || h.marks[2] == 0 && nm != 0 {
		return dst, corruptf("%d times in %d bytes of columns", nm, len(cols)-k)
	}
	cols = cols[k:]
	j.times = j.times[:0]
	prevTime := int64(0)
	for range nm {
		u, k, err := varint.Uvarint64(cols)
		if err != nil {
			return dst, corruptf("time: %v", err)
		}
		cols = cols[k:]
		if prevTime += unzigzag(u); prevTime < minTime || prevTime > maxTime {
			return dst, corruptf("time %d", prevTime)
		}
		j.times = append(j.times, prevTime)
	}
	if blobBytes+int(tokenBytes) > len(cols) {
		return dst, corruptf("blobs and tokens of %d bytes in %d bytes of columns", blobBytes+int(tokenBytes), len(cols))
	}
	tokens := bitReader{b: cols[len(cols)-int(tokenBytes):]}
	cols = cols[:len(cols)-int(tokenBytes)]
	blobs := cols[len(cols)-blobBytes:]
	cols = cols[:len(cols)-blobBytes]
	j.f32, j.f64 = grow(j.f32, 4*n32), grow(j.f64, 8*n64)
	f32, f64, s := j.f32, j.f64, &j.s
	for _, c := range [2]struct {
		b []byte
		n int
	}{{f32, n32}, {f64, n64}} {
		var err error
		if cols, err = readHuffman(c.b[:c.n], cols, s); err != nil {
			return dst, err
		}
		if cols, err = readHuffman(c.b[c.n:2*c.n], cols, s); err != nil {
			return dst, err
		}
		if len(cols) < len(c.b)-2*c.n {
			return dst, corruptf("columns cut short")
		}
		cols = cols[copy(c.b[2*c.n:], cols):]
	}
	if len(cols) != 0 {
		return dst, corruptf("%d bytes after the columns", len(cols))
	}
	start := len(dst)
	i32, i64, iv, ib, im := 0, 0, 0, 0, 0
	find := markFinder{marks: h.marks}
marks:
	for {
		at, m := find.next(text)
		if at < 0 {
			break
		}
		if len(dst)-start+at > limit {
			return dst[:start], corruptf("text longer than %d bytes", limit)
		}
		var err error
		switch m {
		case 1: // a token, its form's byte next
			if at+1 == len(text) {
				if prefix {
					text = text[:at] // the prefix ends before its form
					break marks
				}
				return dst[:start], corruptf("token without its form")
			}
			f := int(text[at+1]) - formByte
			if f < 0 || f >= len(j.forms) {
				return dst[:start], corruptf("token of form %d of %d", f, len(j.forms))
			}
			form := j.forms[f]
			if len(dst)-start+at+int(form>>3) > limit {
				return dst[:start], corruptf("text longer than %d bytes", limit)
			}
			dst, err = appendTokenText(append(dst, text[:at]...), &tokens, form)
			if err != nil {
				return dst[:start], err
			}
			text = find.skip(text, at+2)
			continue
		case 2: // a time
			if im == len(j.times) {
				return dst[:start], corruptf("more times than the %d", len(j.times))
			}
			if len(dst)-start+at+timeDigits > limit {
				return dst[:start], corruptf("text longer than %d bytes", limit)
			}
			dst = appendTime(append(dst, text[:at]...), j.times[im])
			im++
			text = find.skip(text, at+1)
			continue
		}
		if len(kinds) == 0 {
			return dst[:start], corruptf("more marks than the numbers")
		}
		k := kinds[0]
		kinds = kinds[1:]
		dst = append(dst, text[:at]...)
		text = find.skip(text, at+1)
		switch {
		case k == kindMark:
			dst = append(dst, h.marks[0])
		case k == kindToken:
			dst = append(dst, h.marks[1])
		case k == kindTime:
			dst = append(dst, h.marks[2])
		case k == kindVector:
			c := j.vecs[iv]
			if len(dst)-start+4*((4*c+2)/3) > limit {
				return dst[:start], corruptf("text longer than %d bytes", limit)
			}
			dst = appendBase64(dst, f32, n32, i32, c)
			i32, iv = i32+c, iv+1
		case k == kindBlob:
			c := j.blobs[ib]
			if len(dst)-start+base64.StdEncoding.EncodedLen(c) > limit {
				return dst[:start], corruptf("text longer than %d bytes", limit)
			}
			dst = base64.StdEncoding.AppendEncode(dst, blobs[:c])
			blobs, ib = blobs[c:], ib+1
		case k&kind64 != 0:
			var c [8]byte
			for p := range c {
				c[p] = f64[p*n64+i64]
			}
			i64++
			dst, err = render(dst, k, bits64(c))
		default:
			c := [4]byte{f32[i32], f32[n32+i32], f32[2*n32+i32], f32[3*n32+i32]}
			i32++
			dst, err = render(dst, k, bits32(c))
		}
		if err != nil {
			return dst[:start], err
		}
	}
	if !prefix && (len(kinds) != 0 || im != len(j.times) || len(tokens.b) != 0) {
		return dst[:start], corruptf("%d numbers, %d times or %d bytes of tokens left over", len(kinds), len(j.times)-im, len(tokens.b))
	}
	if !prefix && tokens.acc != 0 {
		return dst[:start], corruptf("tokens' bits padded with ones")
	}
	if len(dst)-start+len(text) > limit {
		return dst[:start], corruptf("text longer than %d bytes", limit)
	}
	return append(dst, text...), nil
}

// A header is what starts columns: the marks of numbers, tokens and
// times, the numbers' kinds, and the rest.
type header struct {
	marks       [3]byte
	kinds, rest []byte
}

// parseHeader parses the header of cols, not empty.
func parseHeader(cols []byte) (h header, err error) {
	if len(cols) < len(h.marks) {
		return h, corruptf("columns of %d bytes", len(cols))
	}
	copy(h.marks[:], cols)
	for k, m := range h.marks {
		if m == 0 && k > 0 {
			continue
		}
		if m < markBytes[0] || m >= 0x20 || m == '\t' || m == '\n' || m == '\r' || k > 0 && bytes.IndexByte(h.marks[:k], m) >= 0 {
			return h, corruptf("marks %#x", h.marks)
		}
	}
	cols = cols[len(h.marks):]
	n, k, err := varint.Uvarint64(cols)
	if err != nil || n > uint64(len(cols)-k) {
		return h, corruptf("%d numbers in %d bytes of columns", n, len(cols)-k)
	}
	h.kinds, h.rest = cols[k:k+int(n)], cols[k+int(n):]
	return h, nil
}

// A markFinder finds the marks in a text, each kind's next once: where
// one is rare (tokens in a log of numbers), the text is not searched
// for it again at every mark of another.
type markFinder struct {
	marks [3]byte
	at    [3]int  // where in the text each mark's next is, -1 for none
	found [3]bool // whether at holds it, or the text is to be searched
}

// next returns where in text the first mark is, and which it is, or -1.
func (f *markFinder) next(text []byte) (at, mark int) {
	at, mark = -1, -1
	for k, m := range f.marks {
		if m == 0 {
			continue
		}
		if !f.found[k] {
			f.at[k], f.found[k] = bytes.IndexByte(text, m), true
		}
		if f.at[k] >= 0 && (at < 0 || f.at[k] < at) {
			at, mark = f.at[k], k
		}
	}
	return at, mark
}

// skip returns text from i, where a mark's bytes end.
func (f *markFinder) skip(text []byte, i int) []byte {
	for k := range f.at {
		if f.found[k] && f.at[k] >= 0 {
			if f.at[k] -= i; f.at[k] < 0 {
				f.found[k] = false
			}
		}
	}
	return text[i:]
}

// grow returns b with length n, reusing its memory where it has room.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// bytes32 and bytes64 are a number's bits as one byte of each column;
// bits32 and bits64 put them back.
func bytes32(b uint64) [4]byte {
	return [4]byte{byte(b >> 23), byte(b>>31)<<7 | byte(b>>16)&0x7f, byte(b >> 8), byte(b)}
}

func bits32(c [4]byte) uint64 {
	return uint64(c[0])<<23 | uint64(c[1]>>7)<<31 | uint64(c[1]&0x7f)<<16 | uint64(c[2])<<8 | uint64(c[3])
}

func bytes64(b uint64) [8]byte {
	return [8]byte{byte(b >> 55), byte(b>>52)&7<<5 | byte(b>>63)<<4 | byte(b>>48)&0x0f,
		byte(b >> 40), byte(b >> 32), byte(b >> 24), byte(b >> 16), byte(b >> 8), byte(b)}
}

func bits64(c [8]byte) uint64 {
	return uint64(c[0])<<55 | uint64(c[1]>>5)<<52 | uint64(c[1]>>4&1)<<63 | uint64(c[1]&0x0f)<<48 |
		uint64(c[2])<<40 | uint64(c[3])<<32 | uint64(c[4])<<24 | uint64(c[5])<<16 | uint64(c[6])<<8 | uint64(c[7])
}

// Vectors: float32s sent as base64 (the OpenAI API's encoding_format
// "base64", which its Python client asks for by default), 4 bytes a
// number, little-endian, the bytes in standard base64 with padding.
// A run is taken as such a vector only if it decodes strictly (so that
// encoding it again gives it back), to a whole number of float32s, at
// least minVector of them, seven in eight of which (in every first 192k
// of them) have the exponent of a number of magnitude 2^-40 to 2^8 or are
// zero: an embedding's, not an image's or a hash's bytes, whose exponents
// are anything.
const (
	minVector     = 32
	maxVector     = 1 << 20                     // float32s a vector: a run longer stays text
	vectorChar    = 4 * ((4*minVector + 2) / 3) // the base64 of minVector float32s
	maxVectorChar = 4 * ((4*maxVector + 2) / 3) // and of maxVector
)

// strictBase64 refuses base64 whose padding bits are not zero: what it
// decodes encodes back to the same text.
var strictBase64 = base64.StdEncoding.Strict()

// isBase64 holds the bytes of standard base64 but its padding.
var isBase64 = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") {
		t[c] = true
	}
	return t
}()

// vectorEnd returns the end of the run of base64 starting at src[i],
// padding included, if it could be a vector; else i.
func vectorEnd(src []byte, i int) int {
	j := i
	for j < len(src) && isBase64[src[j]] {
		j++
	}
	for k := 0; k < 2 && j < len(src) && src[j] == '='; k++ {
		j++
	}
	if n := j - i; n < vectorChar || n%4 != 0 || n > maxVectorChar || j < len(src) && src[j] == '=' {
		return i
	}
	return j
}

// Blobs: runs of base64 that are not vectors, minBlob characters or more,
// of upper- and lower-case letters and digits (not hex, not a word), as
// a strict decoder takes them (so that they encode back to themselves).
const minBlob = 256

// blobEnd returns the end of the run of base64 starting at src[i],
// padding included, if it could be a blob; else i.
func blobEnd(src []byte, i int) int {
	j, classes := i, 0
	for j < len(src) && isBase64[src[j]] {
		classes |= int(blobClass[src[j]])
		j++
	}
	for k := 0; k < 2 && j < len(src) && src[j] == '='; k++ {
		j++
	}
	if n := j - i; n < minBlob || n%4 != 0 || classes != 7 || j < len(src) && src[j] == '=' {
		return i
	}
	return j
}

// blobClass is 1 for an upper-case letter, 2 for a lower-case one, 4 for
// a digit.
var blobClass = func() (t [256]byte) {
	for c := range t {
		switch {
		case 'A' <= c && c <= 'Z':
			t[c] = 1
		case 'a' <= c && c <= 'z':
			t[c] = 2
		case isDigit(byte(c)):
			t[c] = 4
		}
	}
	return t
}()

// appendVector appends to f32 the bits of the float32s run encodes, if it
// is a vector; else it returns f32 as it was, and false.
func appendVector(f32 []uint64, run []byte) ([]uint64, bool) {
	var buf [vectorChunk / 4 * 3]byte
	n, bad := len(f32), 0
	for len(run) > 0 {
		k := min(len(run), vectorChunk)
		var ok bool
		if f32, bad, ok = appendChunk(f32, bad, buf[:], run[:k]); !ok {
			return f32[:n], false
		}
		run = run[k:]
		// The same test on each chunk's numbers so far: an image or a
		// file of megabytes is given up after its first kilobyte.
		if !fewBad(bad, len(f32)-n) {
			return f32[:n], false
		}
	}
	return f32, true // minVector of them or more: vectorEnd's run is that long
}

// vectorChunk is how much of a run of base64 appendVector decodes at a
// time, and tests as it goes (fewBad).
const vectorChunk = 1024

// fewBad reports whether bad of n float32s, those of an exponent no
// embedding has, are few enough for a vector: an eighth at most.
func fewBad(bad, n int) bool { return 8*bad <= n }

// appendChunk appends to f32 the float32s of chunk, at most vectorChunk
// bytes of a run of base64, decoded in buf, and adds to bad those of an
// exponent no embedding has; ok is false where chunk is no float32s.
func appendChunk(f32 []uint64, bad int, buf, chunk []byte) (_ []uint64, _ int, ok bool) {
	// A chunk of 1 KiB decodes to 768 bytes, 192 float32s: only the
	// last, which holds the padding, may end inside one, and then the
	// run is no vector.
	m, err := strictBase64.Decode(buf, chunk)
	if err != nil || m%4 != 0 {
		return f32, bad, false
	}
	for p := 0; p < m; p += 4 {
		b := binary.LittleEndian.Uint32(buf[p:])
		if e := b >> 23 & 0xff; (e < 127-40 || e > 127+8) && b&0x7fffffff != 0 {
			bad++
		}
		f32 = append(f32, uint64(b))
	}
	return f32, bad, true
}

// mightBeVector reports whether appendVector could take run: whether its
// first kilobyte passes.
func mightBeVector(run []byte) bool {
	var buf [vectorChunk / 4 * 3]byte
	var f32 [vectorChunk / 4]uint64
	got, bad, ok := appendChunk(f32[:0], 0, buf[:], run[:min(len(run), vectorChunk)])
	return ok && fewBad(bad, len(got))
}

// appendBase64 appends to dst the base64 of the c float32s of a vector
// whose bits are at i of the four columns of n bytes in f32.
func appendBase64(dst, f32 []byte, n, i, c int) []byte {
	var buf [3 * 256]byte
	for c > 0 {
		k := min(c, len(buf)/4)
		for p := range k {
			b := bits32([4]byte{f32[i+p], f32[n+i+p], f32[2*n+i+p], f32[3*n+i+p]})
			binary.LittleEndian.PutUint32(buf[4*p:], uint32(b))
		}
		dst = base64.StdEncoding.AppendEncode(dst, buf[:4*k])
		i, c = i+k, c-k
	}
	return dst
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// wordByte holds the bytes that join a number to a word around it.
var wordByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	t['.'], t['_'], t['-'], t['+'] = true, true, true, true
	return t
}()
