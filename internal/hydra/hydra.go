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
//	    internal/sample/sample.jsonl $CORPORA/dev.jsonl $CORPORA/dev100.jsonl
//
// A refit changes the choices, and so TestSampleDigest's digest, which
// CI checks on amd64, arm64 and 386 alike: set it to what the test prints.
//
// A decision is two dot products of a few dozen float32s: no allocation,
// tens of nanoseconds. A decision tree fitted to the same objective came
// out three times as far from the oracle (bench/README.md, Hydra).
package hydra

import (
	"math"

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
	Tokens                  // estimated BPE tokens per byte: runs of letters, digits (and one per 3 digits), spaces, UTF-8 sequences; one per other byte
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
const SampleLen = 2048

// ScanLen is the longest text whose JSON shape is a feature: codec scans
// no longer text for Hydra, since its shape would not change the choice.
const ScanLen = 4096

// repBits is log2 of the slots of the repetition table.
const repBits = 12

// Extractor computes Features. Its zero value is ready; it holds a
// histogram and the repetition table (8 KiB), so keep one per goroutine
// and reuse it.
type Extractor struct {
	hist  [256]uint32
	table [1 << repBits]uint16 // the tag of the last window hashed to each slot
}

// byte classes, for the shares and the token estimate.
const (
	cLetter = iota
	cDigit
	cSpace
	cPunct
	cLead // a byte that starts a multi-byte UTF-8 sequence
	cCont // a continuation byte
	numClasses
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
		case c < 0xC0:
			t[i] = cCont
		default:
			t[i] = cLead
		}
	}
	return t
}()

// newToken[prev][class] is 1 where a byte of class after one of class prev
// starts a token, for the estimate: runs of letters, digits, spaces and
// whole UTF-8 sequences are one token (digits get a token per three more,
// after the pass), every other byte one.
var newToken = func() (t [numClasses][numClasses]uint8) {
	for p := range t {
		for k := range t[p] {
			if p != k || k == cPunct || k == cLead {
				t[p][k] = 1
			}
		}
		t[p][cCont] = 0
	}
	return t
}()

// b64Kind is, for the bytes of the standard and URL-safe base64
// alphabets, 1 for a digit, 2 for a letter and 4 for + / - _; 0 for the
// rest.
var b64Kind = func() (t [256]uint8) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_") {
		switch classOf[c] {
		case cDigit:
			t[c] = 1
		case cLetter:
			t[c] = 2
		default:
			t[c] = 4
		}
	}
	return t
}()

// xlog2x[m] is m log2 m, for the entropy of a histogram of up to
// SampleLen bytes.
var xlog2x = func() (t [SampleLen + 1]float64) {
	for m := 1; m <= SampleLen; m++ {
		t[m] = float64(m) * math.Log2(float64(m))
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
	clear(x.hist[:])
	clear(x.table[:])
	hist, table := &x.hist, &x.table
	b64, tokens, repeats := 0, 0, 0
	run, mixed := 0, uint8(0) // the current run of base64 bytes, and the OR of their kinds
	prev := uint8(cSpace)
	var w uint32 // the last four bytes
	for i, c := range s {
		hist[c]++
		k := classOf[c]
		tokens += int(newToken[prev][k])
		prev = k
		if kind := b64Kind[c]; kind != 0 {
			run++
			mixed |= kind
		} else {
			if run >= 16 && mixed&3 == 3 {
				b64 += run
			}
			run, mixed = 0, 0
		}
		// Repetition: a direct-mapped table of 16-bit tags, so a window
		// repeats if the last window that hashed to its slot was the same
		// (an estimate; collisions err both ways, rarely).
		w = w<<8 | uint32(c)
		h := w * 0x9E3779B1
		slot, tag := h>>(32-repBits), uint16(h)|1
		if i >= 3 {
			if table[slot] == tag {
				repeats++
			}
			table[slot] = tag
		}
	}
	if run >= 16 && mixed&3 == 3 {
		b64 += run
	}
	var counts [numClasses]uint32
	var ent float64
	for c, m := range hist {
		counts[classOf[c]] += m
		ent -= xlog2x[m]
	}
	cjk := 0
	for c := 0xE3; c <= 0xE9; c++ {
		cjk += 3 * int(hist[c])
	}
	n := float32(len(s))
	f[Letters] = float32(counts[cLetter]) / n
	f[Digits] = float32(counts[cDigit]) / n
	f[Spaces] = float32(counts[cSpace]) / n
	f[NonASCII] = float32(counts[cLead]+counts[cCont]) / n
	f[CJK] = float32(min(cjk, len(s))) / n
	f[Base64] = float32(b64) / n
	f[Escapes] = float32(hist['\\']) / n
	if len(s) > 3 {
		f[Repeat] = float32(repeats) / float32(len(s)-3)
	}
	f[Tokens] = (float32(tokens) + float32(counts[cDigit])/3) / n
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
