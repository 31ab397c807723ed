package codec

import (
	"hash/maphash"
	"unicode/utf8"
)

// Auto-selection thresholds, from the reference's compression spec
// (docs/protocol.md §2.4).
const (
	autoPassthrough = 100  // bytes: below this, compression cannot pay
	autoLarge       = 1024 // bytes: above this, Brotli if repetitive
	autoRepetitive  = 0.3  // repetition ratio above which content is repetitive
	repetitionScan  = 64 << 10
)

// AppendAuto chooses a format for text and appends its wire message:
//
//  1. text under 100 bytes is passed through (None);
//  2. JSON that is an LLM API payload, an object with "messages", "model"
//     or "choices", goes in M2M v1;
//  3. other content over 1 KiB that is repetitive (more than 30 % of its
//     4-character windows repeat) goes in Brotli;
//  4. other JSON goes in M2M v1;
//  5. other text goes in Brotli when that is smaller, else passes through;
//  6. and content under 1 KiB goes in TokenNative instead whenever that is
//     smaller (the spec's use for it: small payloads, when it wins), unless
//     the Encoder seals frames: a sealed frame is never traded for an
//     unsealed message.
//
// Text that starts like a message of another format is never passed
// through (it would not decode back); it goes in Brotli. Text must be
// valid UTF-8. The reference's engine tries Brotli first for anything over
// 1 KiB and never TokenNative; this follows the protocol's specification.
func (e *Encoder) AppendAuto(dst, text []byte) ([]byte, Algorithm, error) {
	if !utf8.Valid(text) {
		return dst, None, errorf(ErrInvalidInput, "text", -1, "not valid UTF-8")
	}
	prefixed := looksPrefixed(text)
	if len(text) < autoPassthrough && !prefixed {
		out, err := e.AppendWire(dst, text, None)
		return out, None, err
	}
	start := len(dst)
	out, alg, err := e.appendByContent(dst, text, prefixed)
	if err != nil || len(text) >= autoLarge || e.opts.security.mode != SecurityNone || e.tokenize(text) != nil {
		return out, alg, err
	}
	if tokenNativeLen(e.ids) < len(out)-start {
		out, err = e.AppendTokenNative(out[:start], text)
		return out, TokenNative, err
	}
	return out, alg, nil
}

// appendByContent applies rules 2 to 5 of AppendAuto.
func (e *Encoder) appendByContent(dst, text []byte, prefixed bool) ([]byte, Algorithm, error) {
	json := e.scan(text) == nil
	llm := json && e.fields.IsObject && (e.fields.HasMessages || e.fields.HasModel || e.fields.HasChoices)
	switch {
	case llm:
	case len(text) > autoLarge && e.rep.ratio(text) > autoRepetitive:
		out, err := e.AppendWire(dst, text, Brotli)
		return out, Brotli, err
	case json:
	default:
		start := len(dst)
		out, err := e.AppendWire(dst, text, Brotli)
		if err != nil || prefixed || len(out)-start < len(text) {
			return out, Brotli, err
		}
		out, err = e.AppendWire(out[:start], text, None)
		return out, None, err
	}
	// The header is already in e.h from the scan above.
	var err error
	if e.scratch, err = e.appendFrame(e.scratch[:0], text); err != nil {
		return dst, M2M, err
	}
	out, err := appendStringForm(dst, prefixM2M, e.scratch[len(prefixM2M):], e.opts.limits)
	return out, M2M, err
}

// repetition estimates the reference's repetition ratio: the share of the
// 4-character windows of a text (over its first 64 KiB) that repeat an
// earlier window, 1 - unique/total. Windows are compared by a 64-bit hash,
// so the estimate can only err low, and by one in billions.
type repetition struct {
	seed  maphash.Seed
	table []uint64 // open addressing; 0 is empty
}

func (r *repetition) ratio(text []byte) float64 {
	text = text[:min(len(text), repetitionScan)]
	// Offsets of the characters, to cut 4-character windows.
	var starts [4]int
	n := 0 // characters seen
	size := 1
	for size < 2*len(text) {
		size *= 2
	}
	if cap(r.table) < size {
		r.table = make([]uint64, size)
		r.seed = maphash.MakeSeed()
	}
	t := r.table[:size]
	clear(t)
	unique, total := 0, 0
	for i := 0; i < len(text); {
		_, w := utf8.DecodeRune(text[i:])
		starts[n%4] = i
		n++
		i += w
		if n < 4 {
			continue
		}
		total++
		h := maphash.Bytes(r.seed, text[starts[(n-4)%4]:i]) | 1
		for j := h & uint64(size-1); ; j = (j + 1) & uint64(size-1) {
			if t[j] == h {
				break
			}
			if t[j] == 0 {
				t[j] = h
				unique++
				break
			}
		}
	}
	if total == 0 {
		return 0
	}
	return 1 - float64(unique)/float64(total)
}
