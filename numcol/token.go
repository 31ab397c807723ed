package numcol

import (
	"math/bits"

	"github.com/m2m-go/m2m/varint"
)

// Tokens: the ids a server makes for each completion, message, tool call
// and request (OpenAI's "chatcmpl-" and "call_" ids, Anthropic's "msg_"
// and "toolu_", vLLM's hex, request ids, UUIDs). Their characters are
// random, drawn from a small alphabet: a coder of text spends 6.5-7 bits
// on a base62 character (zstd at level 3) and the context model loses its
// footing for the bytes after one, where packed they take log2 of the
// alphabet's size. Each is taken as its value in bits, the text left with
// a mark: dev100's archive's skeletons 8.1% smaller at zstd's level 3,
// 6.2% with the context model (bench/README.md, "Ids as bits").
//
// A token is a run of letters and digits (no other byte of a word before
// or after it) of minToken to maxToken bytes, with a digit and a letter
// at least (a word has no digit), written in the smallest of the alphabets below
// that holds it; or a UUID in lower-case hex, 8-4-4-4-12. Split takes
// only those that occur once in its input: an id the text repeats (a
// tool call's id in the history every later request re-sends, a stream's
// id in each chunk) costs a coder a few bytes where it recurs, as long as
// its first occurrence stays in the text for it to match.
const (
	minToken = 16
	maxToken = 128
	uuidLen  = 36
)

// Alphabets of tokens, by number: a token's form is its length<<3 | its
// alphabet's number. A character's value is its place in the alphabet.
var alphabets = [...]string{
	"0123456789abcdef",
	"0123456789ABCDEF",
	"0123456789abcdefghijklmnopqrstuvwxyz",
	"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
	"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
	"0123456789abcdef", // a UUID's, its dashes where a UUID has them
}

const alphaUUID = 5

// A token is packed a group of characters at a time, each group as a
// number below base^g in the fewest bits that hold base^g-1: 4 bits a
// hex character, 5.18 a base36 one (11 in 57 bits), 6 a base62 one (10 in
// 60), within 1% of their entropy.
var groups = [len(alphabets)]int{15, 15, 11, 11, 10, 15}

// digitOf[a][c] is 1 + the value of byte c in alphabet a, 0 if c is not
// in it.
var digitOf = func() (t [len(alphabets)][256]byte) {
	for a, s := range alphabets {
		for v, c := range []byte(s) {
			t[a][c] = byte(v + 1)
		}
	}
	return t
}()

// alnum holds ASCII letters and digits.
var alnum = func() (t [256]bool) {
	for c := range t {
		t[c] = blobClass[c] != 0
	}
	return t
}()

// A span is a token of src: src[i:j], of form.
type span struct {
	i, j int
	form uint64
}

// singleTokens returns the tokens of src that occur once in it, in order.
// Tokens are told apart by a 64-bit hash of their text: two that collide
// count as one that occurs twice, and stay in the text.
func singleTokens(src []byte) []span {
	var all []span
	var hashes []uint64
	counts := map[uint64]int32{}
	for i := 0; i < len(src); i++ {
		if !alnum[src[i]] || i > 0 && alnum[src[i-1]] {
			continue
		}
		if j, form := tokenEnd(src, i); j > i {
			h := fnv64(src[i:j])
			counts[h]++
			all = append(all, span{i, j, form})
			hashes = append(hashes, h)
			i = j - 1
		}
	}
	once := all[:0]
	for k, t := range all {
		if counts[hashes[k]] == 1 {
			once = append(once, t)
		}
	}
	return once
}

// fnv64 is the 64-bit FNV-1a hash of b.
func fnv64(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// tokenEnd returns the end of the token at src[i] and its form, or i if
// there is none: a UUID, or a run of alnum bytes, none before it.
func tokenEnd(src []byte, i int) (j int, form uint64) {
	if i > 0 && alnum[src[i-1]] {
		return i, 0
	}
	if isUUID(src[i:]) {
		return i + uuidLen, uuidLen<<3 | alphaUUID
	}
	j = i
	var classes byte
	digits := 0
	for j < len(src) && alnum[src[j]] {
		classes |= tokenClass[src[j]]
		if isDigit(src[j]) {
			digits++
		}
		j++
	}
	n := j - i
	if n < minToken || n > maxToken || digits == 0 || digits == n {
		return i, 0
	}
	var a uint64
	switch {
	case classes&^(tcHexLower) == 0:
		a = 0
	case classes&^(tcHexUpper) == 0:
		a = 1
	case classes&^(tcHexLower|tcLower) == 0:
		a = 2
	case classes&^(tcHexUpper|tcUpper) == 0:
		a = 3
	default:
		a = 4
	}
	return j, uint64(n)<<3 | a
}

// Classes of a token's letters, for the choice of its alphabet.
const (
	tcHexLower = 1 << iota // a-f
	tcLower                // g-z
	tcHexUpper             // A-F
	tcUpper                // G-Z
)

var tokenClass = func() (t [256]byte) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = tcLower, tcUpper
		if c <= 'f' {
			t[c], t[c-'a'+'A'] = tcHexLower, tcHexUpper
		}
	}
	return t
}()

// isUUID reports whether b starts with a UUID in lower-case hex, no byte
// of a word after it.
func isUUID(b []byte) bool {
	if len(b) < uuidLen || len(b) > uuidLen && alnum[b[uuidLen]] {
		return false
	}
	for k, c := range b[:uuidLen] {
		if k == 8 || k == 13 || k == 18 || k == 23 {
			if c != '-' {
				return false
			}
		} else if digitOf[alphaUUID][c] == 0 {
			return false
		}
	}
	return true
}

// tokenBits is how many bits a token of form takes, or -1 if no token
// has that form.
func tokenBits(form uint64) int {
	a, n := form&7, form>>3
	if a >= uint64(len(alphabets)) || n < minToken || n > maxToken || a == alphaUUID && n != uuidLen {
		return -1
	}
	if a == alphaUUID {
		n = 32
	}
	g := uint64(groups[a])
	return int(n/g)*groupBits(int(a), int(g)) + groupBits(int(a), int(n%g))
}

// groupBits is the bits of a group of k characters of alphabet a.
func groupBits(a, k int) int {
	return bits.Len64(pow(len(alphabets[a]), k) - 1)
}

// pow is b^k, for b^k below 2^64.
func pow(b, k int) uint64 {
	p := uint64(1)
	for range k {
		p *= uint64(b)
	}
	return p
}

// appendToken appends to w the bits of token t of form: its characters
// (a UUID's but its dashes) a group at a time, the first the most
// significant.
func appendToken(w *bitWriter, t []byte, form uint64) {
	a := int(form & 7)
	if a == alphaUUID {
		t = append(append(append(append(append(make([]byte, 0, 32), t[:8]...), t[9:13]...), t[14:18]...), t[19:23]...), t[24:]...)
	}
	g := groups[a]
	for len(t) > 0 {
		k := min(len(t), g)
		var v uint64
		for _, c := range t[:k] {
			v = v*uint64(len(alphabets[a])) + uint64(digitOf[a][c]-1)
		}
		w.write(v, groupBits(a, k))
		t = t[k:]
	}
}

// appendTokenText appends to dst the token of form whose bits r reads
// next.
func appendTokenText(dst []byte, r *bitReader, form uint64) ([]byte, error) {
	a, n := int(form&7), int(form>>3)
	digits := n
	if a == alphaUUID {
		digits = 32
	}
	base := uint64(len(alphabets[a]))
	var buf [maxToken]byte
	t := buf[:digits]
	for k := 0; k < digits; {
		size := min(digits-k, groups[a])
		v, ok := r.read(groupBits(a, size))
		if !ok {
			return dst, corruptf("token bits cut short")
		}
		if v >= pow(int(base), size) {
			return dst, corruptf("token group %d out of range", v)
		}
		for p := k + size - 1; p >= k; p-- {
			t[p] = alphabets[a][v%base]
			v /= base
		}
		k += size
	}
	if a == alphaUUID {
		return append(append(append(append(append(append(append(append(append(dst,
			t[:8]...), '-'), t[8:12]...), '-'), t[12:16]...), '-'), t[16:20]...), '-'), t[20:]...), nil
	}
	return append(dst, t...), nil
}

// A bitWriter appends values of up to 64 bits to a byte slice, the first
// bit of the stream the low bit of its first byte.
type bitWriter struct {
	b   []byte
	acc uint64
	n   int // bits in acc
}

func (w *bitWriter) write(v uint64, width int) {
	for width > 0 {
		k := min(width, 32)
		w.acc |= (v & (1<<k - 1)) << w.n
		w.n += k
		v >>= k
		width -= k
		for w.n >= 8 {
			w.b = append(w.b, byte(w.acc))
			w.acc >>= 8
			w.n -= 8
		}
	}
}

// flush appends the last bits, padded with zeros to a byte.
func (w *bitWriter) flush() []byte {
	if w.n > 0 {
		w.b = append(w.b, byte(w.acc))
		w.acc, w.n = 0, 0
	}
	return w.b
}

// A bitReader reads what a bitWriter wrote.
type bitReader struct {
	b   []byte
	acc uint64
	n   int
}

func (r *bitReader) read(width int) (uint64, bool) {
	var v uint64
	for got := 0; got < width; {
		if r.n == 0 {
			if len(r.b) == 0 {
				return 0, false
			}
			r.acc, r.n = uint64(r.b[0]), 8
			r.b = r.b[1:]
		}
		k := min(width-got, r.n)
		v |= (r.acc & (1<<k - 1)) << got
		r.acc >>= k
		r.n -= k
		got += k
	}
	return v, true
}

// tokenBound is a bound on what Split takes of src as tokens, or times
// if min is timeDigits: the bytes of runs of letters, digits and '-' of
// min bytes or more, in which every token (and time) lies.
func tokenBound(src []byte, min int) int {
	bound, run := 0, 0
	for _, c := range src {
		if alnum[c] || c == '-' {
			run++
			continue
		}
		if run >= min {
			bound += run
		}
		run = 0
	}
	if run >= min {
		bound += run
	}
	return bound
}

// NoiseLen returns how many of the last bytes of cols, as Split made
// them, are noise that a general coder cannot make smaller: the blobs'
// bytes (compressed already: images, audio) and the tokens' bits. A
// caller that compresses the columns further (package archive, with zstd)
// stores these as they are: in one zstd block with the columns before
// them, the tokens' bits spoiled the literals' statistics of the kinds
// and times (dev100's --max skeletons, 3.4 KB). It is 0 for columns
// Split did not make.
func NoiseLen(cols []byte) int {
	if len(cols) == 0 {
		return 0
	}
	h, err := parseHeader(cols)
	if err != nil {
		return 0
	}
	b := h.rest
	var count [2]int // vectors, blobs: their counts and lengths follow, in that order
	for _, kind := range h.kinds {
		switch kind {
		case kindVector:
			count[0]++
		case kindBlob:
			count[1]++
		}
	}
	noise := 0
	for c, m := range count {
		for range m {
			v, k, err := varint.Uvarint64(b)
			if err != nil {
				return 0
			}
			b = b[k:]
			if c == 1 {
				noise += int(min(v, uint64(len(cols))))
			}
		}
	}
	forms, k, err := varint.Uvarint64(b)
	if err != nil || forms > maxForms {
		return 0
	}
	b = b[k:]
	for range forms {
		if _, k, err = varint.Uvarint64(b); err != nil {
			return 0
		}
		b = b[k:]
	}
	bits, _, err := varint.Uvarint64(b)
	if err != nil || bits > uint64(len(cols)) || noise+int(bits) > len(cols) {
		return 0
	}
	return noise + int(bits)
}
