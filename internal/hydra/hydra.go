// Package hydra is the learned part of codec's Hydra selection: the
// features it reads from a text, in one cheap pass, and the linear models
// that predict from them the size of the text's message in each format,
// so that codec encodes only the smallest.
//
// A model predicts ln(size/len) of a format's message from the features
// (least squares); None's is 0. The models are fitted offline (bench/hydra)
// on the development corpora and the embedded sample, and live in
// model.go, which that tool writes:
//
//	go run ./bench/hydra -train -out internal/hydra/model.go \
//	    internal/sample/sample.jsonl /work/shared/corpus/dev.jsonl /work/shared/corpus/dev100.jsonl
//
// A decision is two dot products of a few dozen float32s: no allocation,
// tens of nanoseconds. A decision tree fitted to the same objective came
// out three times as far from the oracle (bench/README.md, Hydra).
package hydra

import (
	"math"
	"math/bits"

	"github.com/m2m-go/m2m/internal/jsonscan"
)

// Class is a format. The values are codec.Algorithm's.
type Class uint8

// The classes.
const (
	None        Class = iota // passthrough, or a raw record
	M2M                      // an M2M v1 frame
	TokenNative              // BPE token ids
	Brotli                   // a Brotli stream
	NumClasses
)

var classNames = [NumClasses]string{"none", "m2m", "tokennative", "brotli"}

func (c Class) String() string { return classNames[c] }

// Feature indexes Features.
type Feature uint8

// The features. Shares are of the bytes of the text's first SampleLen
// bytes; the JSON features are zero for text that is not JSON or was not
// scanned (longer than ScanLen). Bias is always 1, for the models'
// intercept.
const (
	Bias     Feature = iota // 1
	LogLen                  // ln of the length in bytes
	InvLen                  // 100 / the length in bytes
	JSON                    // 1 if the text is one JSON value within the limits
	Object                  // 1 if that value is an object
	API                     // 1 if the object has "messages", "model" or "choices"
	Response                // 1 if it reads as a response (jsonscan.Fields.IsResponse)
	Messages                // ln(1 + elements of "messages")
	Letters                 // share of ASCII letters
	Digits                  // share of ASCII digits
	Spaces                  // share of ASCII white space
	NonASCII                // share of bytes from 0x80
	CJK                     // share of bytes in three-byte UTF-8 sequences led by 0xE3 to 0xE9 (CJK, kana, Hangul)
	Base64                  // share of bytes in runs of 16 or more base64 characters that mix digits and letters
	Escapes                 // share of backslashes
	Repeat                  // share of 4-byte windows that repeat an earlier one (estimated with a small hash table)
	Tokens                  // estimated BPE tokens per byte: runs of letters, groups of up to 3 digits, other bytes one each
	Entropy                 // order-0 entropy of the bytes, in bits per byte
	NumFeatures
)

var featureNames = [NumFeatures]string{
	"bias", "loglen", "invlen", "json", "object", "api", "response", "messages",
	"letters", "digits", "spaces", "nonascii", "cjk", "base64", "escapes", "repeat", "tokens", "entropy",
}

func (f Feature) String() string { return featureNames[f] }

// Features are the inputs of a decision, indexed by Feature.
type Features [NumFeatures]float32

// SampleLen is how many bytes of a text the byte-class shares and the
// repetition estimate read: beyond it, length alone decides.
const SampleLen = 8192

// ScanLen is the longest text whose JSON shape is a feature: codec scans
// no longer text for Hydra, since its shape would not change the choice.
const ScanLen = 4096

// Extractor computes Features. Its zero value is ready; it holds the
// repetition table (64 KiB, twice as many slots as SampleLen has windows,
// of which a text clears only what it needs), so keep one per goroutine
// and reuse it.
type Extractor struct {
	table [2 * SampleLen]uint32 // window hash | 1 of each slot; 0 is empty
	hist  [256]uint32
}

// byte classes for the shares.
const (
	cLetter = iota
	cDigit
	cSpace
	cPunct
	cHigh
)

var classOf = func() (t [256]uint8) {
	for i := range t {
		c := byte(i)
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			t[i] = cLetter
		case '0' <= c && c <= '9':
			t[i] = cDigit
		case c == ' ' || c == '\n' || c == '\r' || c == '\t':
			t[i] = cSpace
		case c < 0x80:
			t[i] = cPunct
		default:
			t[i] = cHigh
		}
	}
	return t
}()

// isB64 reports the bytes of the standard and URL-safe base64 alphabets.
var isB64 = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_") {
		t[c] = true
	}
	return t
}()

// Extract fills f with the features of text. fields holds the JSON scan of
// text, or is nil if text is not JSON or was not scanned (it must be nil
// for text longer than ScanLen, so that codec and the trainer agree).
func (x *Extractor) Extract(f *Features, text []byte, fields *jsonscan.Fields) {
	*f = Features{Bias: 1}
	if len(text) == 0 {
		return
	}
	f[LogLen] = float32(math.Log(float64(len(text))))
	f[InvLen] = 100 / float32(len(text))
	if fields != nil && len(text) <= ScanLen {
		f[JSON] = 1
		if fields.IsObject {
			f[Object] = 1
			if fields.HasMessages || fields.HasModel || fields.HasChoices {
				f[API] = 1
			}
		}
		if fields.IsResponse() {
			f[Response] = 1
		}
		f[Messages] = float32(math.Log1p(float64(fields.MsgCount)))
	}
	s := text[:min(len(text), SampleLen)]
	if len(s) == 0 {
		return
	}
	var counts [5]int
	cjk, b64, escapes, tokens := 0, 0, 0, 0
	run, mixed := 0, 0 // current base64 run, and its kinds (1 digit, 2 letter)
	size := 64
	for size < 2*len(s) {
		size *= 2
	}
	table := x.table[:size]
	clear(table)
	clear(x.hist[:])
	shift := 32 - bits.TrailingZeros(uint(size))
	repeats := 0
	var w uint32 // the last four bytes
	prev, digits := uint8(cSpace), 0
	for i, c := range s {
		x.hist[c]++
		k := classOf[c]
		counts[k]++
		switch {
		case k == cLetter && prev == cLetter, k == cHigh && prev == cHigh && c < 0xC0:
		case k == cDigit:
			if prev != cDigit {
				digits = 0
			}
			if digits%3 == 0 {
				tokens++
			}
			digits++
		case k == cSpace && prev == cSpace:
		default:
			tokens++
		}
		prev = k
		if c == '\\' {
			escapes++
		}
		if c >= 0xE3 && c <= 0xE9 && i+2 < len(s) {
			cjk += 3
		}
		if isB64[c] {
			run++
			switch classOf[c] {
			case cDigit:
				mixed |= 1
			case cLetter:
				mixed |= 2
			}
		} else {
			if run >= 16 && mixed == 3 {
				b64 += run
			}
			run, mixed = 0, 0
		}
		w = w<<8 | uint32(c)
		if i >= 3 {
			h := w * 0x9E3779B1
			slot := h >> shift
			tag := h | 1
			for {
				if table[slot] == tag {
					repeats++
					break
				}
				if table[slot] == 0 {
					table[slot] = tag
					break
				}
				slot = (slot + 1) & uint32(size-1)
			}
		}
	}
	if run >= 16 && mixed == 3 {
		b64 += run
	}
	n := float32(len(s))
	f[Letters] = float32(counts[cLetter]) / n
	f[Digits] = float32(counts[cDigit]) / n
	f[Spaces] = float32(counts[cSpace]) / n
	f[NonASCII] = float32(counts[cHigh]) / n
	f[CJK] = float32(min(cjk, len(s))) / n
	f[Base64] = float32(b64) / n
	f[Escapes] = float32(escapes) / n
	if len(s) > 3 {
		f[Repeat] = float32(repeats) / float32(len(s)-3)
	}
	f[Tokens] = float32(tokens) / n
	var ent float64
	for _, c := range x.hist {
		if c != 0 {
			p := float64(c)
			ent -= p * math.Log2(p)
		}
	}
	f[Entropy] = float32(ent/float64(n) + math.Log2(float64(n)))
}

// Linear is a model: the weights of the features in a prediction.
type Linear [NumFeatures]float32

// Predict returns the model's prediction for f: its dot product with the
// weights, each step rounded to float32 on its own (the conversions stop
// the compiler fusing multiplies and adds, which would make a decision
// depend on the platform).
func (w *Linear) Predict(f *Features) float32 {
	var s float32
	for i, v := range f {
		s = float32(s + float32(w[i]*v))
	}
	return s
}

// Model predicts the sizes of a text's messages in the formats Hydra
// chooses among, for one form (binary or string).
type Model struct {
	TokenNative, Brotli Linear
}

// Choose returns the format whose message the model predicts to be
// smallest for a text with features f: None (if allowed; its ln(size/len)
// is 0), TokenNative or Brotli, ties going to the faster decoder, in that
// order. M2M v1 is never the smallest: its frame is a Brotli stream (or,
// under 100 bytes, the text) behind a prefix and at least 28 bytes of
// header, length and CRC.
func (m *Model) Choose(f *Features, none bool) Class {
	c, best := Brotli, m.Brotli.Predict(f)
	if t := m.TokenNative.Predict(f); t <= best {
		c, best = TokenNative, t
	}
	if none && best >= 0 {
		c = None
	}
	return c
}
