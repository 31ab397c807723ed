// Package hydra is the learned part of codec's Hydra selection: the
// features it reads from a text, in one cheap pass, and the decision trees
// that map them to the format whose wire message is smallest.
//
// The trees are trained offline (bench/hydra) on the development corpora
// and the embedded sample, and live in model.go, which that tool writes:
//
//	go run ./bench/hydra -train -out internal/hydra/model.go \
//	    internal/sample/sample.jsonl /work/shared/corpus/dev.jsonl /work/shared/corpus/dev100.jsonl
//
// A decision walks one tree of at most a few dozen nodes over a fixed
// array of features: no allocation, tens of nanoseconds.
package hydra

import "github.com/m2m-go/m2m/internal/jsonscan"

// Class is a format a tree can choose. The values are codec.Algorithm's.
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
// scanned (longer than ScanLen).
const (
	Len         Feature = iota // bytes
	JSON                       // 1 if the text is one JSON value within the limits
	Object                     // 1 if that value is an object
	API                        // 1 if the object has "messages", "model" or "choices"
	Response                   // 1 if it reads as a response (jsonscan.Fields.IsResponse)
	Messages                   // elements of "messages"
	Letters                    // share of ASCII letters
	Digits                     // share of ASCII digits
	Spaces                     // share of ASCII white space
	Punct                      // share of other ASCII bytes
	NonASCII                   // share of bytes from 0x80
	CJK                        // share of bytes in three-byte UTF-8 sequences led by 0xE3 to 0xE9 (CJK, kana, Hangul)
	Base64                     // share of bytes in runs of 16 or more base64 characters that mix digits and letters
	Escapes                    // share of backslashes
	Repeat                     // share of 4-byte windows that repeat an earlier one (estimated with a small hash table)
	NumFeatures
)

var featureNames = [NumFeatures]string{
	"len", "json", "object", "api", "response", "messages",
	"letters", "digits", "spaces", "punct", "nonascii", "cjk", "base64", "escapes", "repeat",
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

// Extractor computes Features. Its zero value is ready; it holds the
// repetition table (16 KiB), so keep one per goroutine and reuse it.
type Extractor struct {
	table [1 << repBits]uint32 // window hash + 1 of each slot; 0 is empty
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
	*f = Features{}
	f[Len] = float32(len(text))
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
		f[Messages] = float32(fields.MsgCount)
	}
	s := text[:min(len(text), SampleLen)]
	if len(s) == 0 {
		return
	}
	var counts [5]int
	cjk, b64, escapes := 0, 0, 0
	run, mixed := 0, 0 // current base64 run, and its kinds (1 digit, 2 letter)
	clear(x.table[:])
	repeats := 0
	var w uint32 // the last four bytes
	for i, c := range s {
		counts[classOf[c]]++
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
			slot := h >> (32 - repBits)
			tag := h | 1
			for {
				if x.table[slot] == tag {
					repeats++
					break
				}
				if x.table[slot] == 0 {
					x.table[slot] = tag
					break
				}
				slot = (slot + 1) & (1<<repBits - 1)
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
	f[Punct] = float32(counts[cPunct]) / n
	f[NonASCII] = float32(counts[cHigh]) / n
	f[CJK] = float32(min(cjk, len(s))) / n
	f[Base64] = float32(b64) / n
	f[Escapes] = float32(escapes) / n
	if len(s) > 3 {
		f[Repeat] = float32(repeats) / float32(len(s)-3)
	}
}

// Node is a node of a decision tree: an inner node sends features below
// Threshold to Left and the rest to Left+1; a leaf (Left 0) chooses Class.
type Node struct {
	Feature   Feature
	Class     Class
	Left      uint16
	Threshold float32
}

// Predict walks tree from its root, tree[0], and returns the class of the
// leaf f reaches.
func Predict(tree []Node, f *Features) Class {
	i := 0
	for {
		n := &tree[i]
		if n.Left == 0 {
			return n.Class
		}
		i = int(n.Left)
		if f[n.Feature] >= n.Threshold {
			i++
		}
	}
}
