package codec

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/m2m-go/m2m/internal/jsonscan"
)

// Token v1 (#T1|) is the abbreviated-JSON format of old reference versions.
// It is lossy (nulls and default values are dropped, and expanding can
// touch genuine keys such as "c"), so decoding is best effort: this is the
// dialect of the reference's current TokenCodec (docs/protocol.md §6.2),
// and the result is re-serialised with sorted keys, as the reference's
// engine did, byte for byte as encoding/json wrote it.
//
// Decoding works on the text and within the limits at every step: the
// control characters are expanded only after measuring the expansion (one
// byte becomes up to 31), and the JSON is rewritten without building its
// tree, which would cost fifty times the text in memory. The rewrite lists
// the members of the objects it is inside, to sort them, and counts them
// against MaxArray; it runs twice, once to measure the output against the
// limit, once to write it into room made for it.

// tokenV1Patterns expands the control characters of docs/protocol.md §6.2,
// which the reference always expands when decoding; every other byte
// stands for itself.
var tokenV1Patterns = [...]string{
	0x01: `{"role":"user","content":"`,
	0x02: `{"role":"assistant","content":"`,
	0x03: `{"role":"system","content":"`,
	0x04: `{"role":"tool","content":"`,
	0x05: `{"index":0,"delta":{`,
	0x06: `{"index":0,"message":{`,
	0x07: `"finish_reason":"stop"`,
	0x08: `"finish_reason":"length"`,
	'\t': `"finish_reason":"tool_calls"`,
	'\n': `{"type":"function","function":{`,
	0x0b: `"choices":[{`,
	0x0c: `{"messages":[`,
	'\r': `],"model":"`,
}

// tokenV1Keys are the key abbreviations, as []byte for the rewrite.
var tokenV1Keys = func() map[string][]byte {
	m := make(map[string][]byte)
	for short, full := range map[string]string{
		"c": "content", "M": "model", "T": "temperature", "x": "max_tokens", "s": "stream",
		"S": "stop", "p": "top_p", "f": "frequency_penalty", "P": "presence_penalty",
		"fc": "function_call", "a": "arguments", "tc": "tool_calls", "tx": "tool_choice",
		"rf": "response_format", "lb": "logit_bias", "lp": "logprobs", "tlp": "top_logprobs",
		"C": "choices", "fr": "finish_reason", "pt": "prompt_tokens", "ct": "completion_tokens",
		"tt": "total_tokens", "D": "delta", "sf": "system_fingerprint", "E": "error",
	} {
		m[short] = []byte(full)
	}
	return m
}()

var tokenV1Roles = map[string]string{"S": "system", "A": "assistant", "F": "function", "T": "tool"}

var tokenV1Models = map[string]string{
	"g4o": "gpt-4o", "g4om": "gpt-4o-mini", "g4t": "gpt-4-turbo", "g4": "gpt-4",
	"g35t": "gpt-3.5-turbo", "l31405": "llama-3.1-405b", "l3170": "llama-3.1-70b",
	"l318": "llama-3.1-8b", "l3370": "llama-3.3-70b", "mll": "mistral-large-latest",
	"msl": "mistral-small-latest", "mx87": "mixtral-8x7b", "mx822": "mixtral-8x22b",
	"dv3": "deepseek-v3", "dr1": "deepseek-r1", "dc": "deepseek-coder",
	"q2572": "qwen-2.5-72b", "q2532": "qwen-2.5-32b", "qc32": "qwen-2.5-coder-32b",
}

// maxTokenV1Value bounds the inside of a string that can be an abbreviated
// role or model: six characters, each escaped as \uXXXX.
const maxTokenV1Value = 6 * 6

// tokenV1Values returns the table that expands string values under key.
func tokenV1Values(key []byte) map[string]string {
	switch {
	case string(key) == "role" || string(key) == "r":
		return tokenV1Roles
	case string(key) == "model":
		return tokenV1Models
	}
	return nil
}

// tokenV1Defaults are restored into request-like objects, as the reference
// does (floats as 1.0, integers as written), in key order.
var tokenV1Defaults = []struct{ key, value string }{
	{"frequency_penalty", "0"}, {"n", "1"}, {"presence_penalty", "0"},
	{"stream", "false"}, {"temperature", "1.0"}, {"top_p", "1.0"},
}

// appendTokenV1 decodes the body of a #T1| message.
func (d *Decoder) appendTokenV1(dst, body []byte) ([]byte, error) {
	at := len(prefixTokenV1)
	lim := d.opts.limits
	if !utf8.Valid(body) {
		return dst, errorf(ErrMalformed, "text", at, "not valid UTF-8")
	}
	n := len(body)
	for _, c := range body {
		if int(c) < len(tokenV1Patterns) && tokenV1Patterns[c] != "" {
			n += len(tokenV1Patterns[c]) - 1
		}
	}
	if n > lim.MaxDecompressed {
		return dst, errorf(ErrLimit, "payload", at, "expands to %d bytes, over the %d-byte limit", n, lim.MaxDecompressed)
	}
	text := body
	if n > len(body) {
		text = slices.Grow(d.scratch[:0], n)
		for _, c := range body {
			if int(c) < len(tokenV1Patterns) && tokenV1Patterns[c] != "" {
				text = append(text, tokenV1Patterns[c]...)
			} else {
				text = append(text, c)
			}
		}
		d.scratch = text
	}
	if err := jsonscan.Scan(text, lim.json(), &d.fields); err != nil {
		kind := ErrMalformed
		if errors.Is(err, jsonscan.ErrLimit) {
			kind = ErrLimit
		}
		return dst, wrap(kind, "json", at, err)
	}
	out, err := d.v1.rewrite(dst, text, lim.MaxDecompressed, lim.MaxArray)
	if err != nil {
		return dst, wrap(ErrLimit, "payload", at, err)
	}
	return out, nil
}

// A tokenV1Writer rewrites the expanded JSON of a Token v1 message, which
// jsonscan has found valid and within the limits, as the reference's
// engine did (docs/protocol.md §6.2): keys renamed, role and model values
// expanded, the request defaults restored, compact, keys sorted, strings
// escaped as encoding/json escapes them without HTML escaping. It reads
// values where they are; an object's members are listed to be sorted.
// Where several members of an object have the same key, after renaming,
// the last one wins (a decoder built on Go maps would pick one at random
// when renaming made them equal).
type tokenV1Writer struct {
	src        []byte          // the expanded JSON
	measure    bool            // count the output in n instead of appending it to out
	out        []byte          // the output, when writing
	n          int             // bytes of output so far
	limit      int             // on n, while measuring
	maxMembers int             // per object
	members    []tokenV1Member // of the objects being written, innermost last
	keys       []byte          // unescaped keys (and a value being looked up), innermost last
	err        error           // why measuring stopped
}

// rewrite appends the rewrite of src to dst, unless it would pass limit
// bytes or an object has more than maxMembers members. The writer keeps its
// buffers for the next call, and nothing of src and dst.
func (w *tokenV1Writer) rewrite(dst, src []byte, limit, maxMembers int) ([]byte, error) {
	*w = tokenV1Writer{src: src, measure: true, limit: limit, maxMembers: maxMembers, members: w.members[:0], keys: w.keys[:0]}
	defer func() { w.src, w.out = nil, nil }()
	if w.value(w.space(0), nil, true); w.over() {
		return dst, w.err
	}
	w.out, w.measure = slices.Grow(dst, w.n), false
	w.value(w.space(0), nil, true)
	return w.out, nil
}

// A tokenV1Member is a member of an object: its key, renamed, and where its
// value starts in src.
type tokenV1Member struct {
	key []byte
	at  int
}

func (w *tokenV1Writer) write(b []byte) {
	if w.measure {
		w.n += len(b)
	} else {
		w.out = append(w.out, b...)
	}
}

func (w *tokenV1Writer) writeString(s string) {
	if w.measure {
		w.n += len(s)
	} else {
		w.out = append(w.out, s...)
	}
}

func (w *tokenV1Writer) writeByte(c byte) {
	if w.measure {
		w.n++
	} else {
		w.out = append(w.out, c)
	}
}

// over reports whether measuring has stopped, stopping it if the output
// has passed the limit.
func (w *tokenV1Writer) over() bool {
	if w.measure && w.err == nil && w.n > w.limit {
		w.err = fmt.Errorf("decodes to more than %d bytes", w.limit)
	}
	return w.err != nil
}

// value writes the value at src[i:], whose key (or, in arrays, the key of
// the array) is key, restoring the defaults into the objects in it if
// restore is set, and returns where the value ends.
func (w *tokenV1Writer) value(i int, key []byte, restore bool) int {
	switch w.src[i] {
	case '{':
		return w.object(i, restore)
	case '[':
		w.writeByte('[')
		for i = w.space(i + 1); w.src[i] != ']'; {
			i = w.space(w.value(i, key, restore))
			if w.over() {
				return i
			}
			if w.src[i] == ',' {
				w.writeByte(',')
				i = w.space(i + 1)
			}
		}
		w.writeByte(']')
		return i + 1
	case '"':
		end := w.stringEnd(i)
		raw := w.src[i+1 : end-1]
		if table := tokenV1Values(key); table != nil && len(raw) <= maxTokenV1Value {
			mark := len(w.keys)
			full, ok := table[string(w.unescape(raw))]
			w.keys = w.keys[:mark]
			if ok {
				w.writeByte('"')
				w.writeString(full)
				w.writeByte('"')
				return end
			}
		}
		w.quote(raw, true)
		return end
	}
	end := w.valueEnd(i) // a number, true, false or null
	w.write(w.src[i:end])
	return end
}

// object writes the object at src[i:] and returns where it ends.
func (w *tokenV1Writer) object(i int, restore bool) int {
	mark, keysMark := len(w.members), len(w.keys)
	defer func() { w.members, w.keys = w.members[:mark], w.keys[:keysMark] }()
	for i = w.space(i + 1); w.src[i] != '}'; {
		end := w.stringEnd(i)
		key := w.unescape(w.src[i+1 : end-1])
		if full, ok := tokenV1Keys[string(key)]; ok {
			key = full
		}
		if len(w.members)-mark == w.maxMembers {
			w.err = fmt.Errorf("an object has more than %d members", w.maxMembers)
			return i
		}
		i = w.space(w.space(end) + 1) // after the colon
		w.members = append(w.members, tokenV1Member{key, i})
		if i = w.space(w.valueEnd(i)); w.src[i] == ',' {
			i = w.space(i + 1)
		}
	}
	end := i + 1
	// Sort, keeping the last of equal keys.
	ms := w.members[mark:]
	slices.SortStableFunc(ms, func(a, b tokenV1Member) int { return bytes.Compare(a.key, b.key) })
	kept := ms[:0]
	for j, m := range ms {
		if j+1 == len(ms) || !bytes.Equal(m.key, ms[j+1].key) {
			kept = append(kept, m)
		}
	}
	// Write the members, and the missing defaults in their places.
	w.writeByte('{')
	next := len(tokenV1Defaults) // the next default to consider
	defaults := restore && slices.ContainsFunc(kept, func(m tokenV1Member) bool {
		return string(m.key) == "messages" || string(m.key) == "model"
	})
	if defaults {
		next = 0
	}
	comma := false
	for _, m := range kept {
		for ; next < len(tokenV1Defaults) && tokenV1Defaults[next].key <= string(m.key); next++ {
			if tokenV1Defaults[next].key != string(m.key) {
				comma = w.writeDefault(next, comma)
			}
		}
		if comma {
			w.writeByte(',')
		}
		comma = true
		w.quote(m.key, false)
		w.writeByte(':')
		w.value(m.at, m.key, restore && !defaults)
		if w.over() {
			return end
		}
	}
	for ; next < len(tokenV1Defaults); next++ {
		comma = w.writeDefault(next, comma)
	}
	w.writeByte('}')
	return end
}

// writeDefault writes default k as a member, after a comma if comma is
// set, and reports that the next member needs one.
func (w *tokenV1Writer) writeDefault(k int, comma bool) bool {
	if comma {
		w.writeByte(',')
	}
	w.writeByte('"')
	w.writeString(tokenV1Defaults[k].key)
	w.writeString(`":`)
	w.writeString(tokenV1Defaults[k].value)
	return true
}

// jsonEscapes are the escapes encoding/json writes for the bytes below
// 0x20.
var jsonEscapes = func() (e [0x20]string) {
	const hex = "0123456789abcdef"
	for c := range e {
		e[c] = `\u00` + hex[c>>4:c>>4+1] + hex[c&0xF:c&0xF+1]
	}
	e['\b'], e['\f'], e['\n'], e['\r'], e['\t'] = `\b`, `\f`, `\n`, `\r`, `\t`
	return e
}()

// quote writes the text s as a JSON string escaped as encoding/json
// escapes it with HTML escaping off: the bytes below 0x20 (jsonEscapes),
// the quote and the backslash, and U+2028 and U+2029. If raw is set, s is
// rather the inside of a JSON string, valid as jsonscan checks it: its
// escapes are decoded, and their characters written as above.
func (w *tokenV1Writer) quote(s []byte, raw bool) {
	w.writeByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0xe2 {
			i++
			continue
		}
		w.write(s[start:i])
		r, n := rune(c), 1
		switch {
		case c == '\\' && raw:
			r, n = unescapeRune(s[i:])
		case c == 0xe2:
			r, n = utf8.DecodeRune(s[i:])
		}
		switch {
		case r < 0x20:
			w.writeString(jsonEscapes[r])
		case r == '"':
			w.writeString(`\"`)
		case r == '\\':
			w.writeString(`\\`)
		case r == '\u2028':
			w.writeString(`\u2028`)
		case r == '\u2029':
			w.writeString(`\u2029`)
		default:
			var b [utf8.UTFMax]byte
			w.write(utf8.AppendRune(b[:0], r))
		}
		i += n
		start = i
	}
	w.write(s[start:])
	w.writeByte('"')
}

// unescape returns the text of the inside s of a JSON string: s itself if
// it has no escapes, else its text appended to w.keys.
func (w *tokenV1Writer) unescape(s []byte) []byte {
	if bytes.IndexByte(s, '\\') < 0 {
		return s
	}
	start := len(w.keys)
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			w.keys = append(w.keys, s[i])
			i++
			continue
		}
		r, n := unescapeRune(s[i:])
		w.keys = utf8.AppendRune(w.keys, r)
		i += n
	}
	return w.keys[start:len(w.keys):len(w.keys)]
}

// unescapeRune decodes the escape at the start of s, valid as jsonscan
// checks it (a \u escape of a high surrogate is followed by one of a low
// surrogate), and returns its character and length.
func unescapeRune(s []byte) (rune, int) {
	switch s[1] {
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r := hex4(s[2:])
		if utf16.IsSurrogate(r) {
			return utf16.DecodeRune(r, hex4(s[8:])), 12
		}
		return r, 6
	}
	return rune(s[1]), 2 // " \ /
}

// hex4 returns the value of the four hex digits at the start of s.
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= 'a':
			c -= 'a' - 10
		case c >= 'A':
			c -= 'A' - 10
		default:
			c -= '0'
		}
		r = r<<4 | rune(c)
	}
	return r
}

// space returns where the JSON whitespace at src[i:] ends.
func (w *tokenV1Writer) space(i int) int {
	for i < len(w.src) && (w.src[i] == ' ' || w.src[i] == '\t' || w.src[i] == '\n' || w.src[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns where the string at src[i:] ends, after its quote.
func (w *tokenV1Writer) stringEnd(i int) int {
	for i++; ; i++ {
		i += bytes.IndexByte(w.src[i:], '"')
		// The quote ends the string unless an odd number of backslashes
		// escapes it.
		j := i
		for w.src[j-1] == '\\' {
			j--
		}
		if (i-j)%2 == 0 {
			return i + 1
		}
	}
}

// valueEnd returns where the value at src[i:] ends.
func (w *tokenV1Writer) valueEnd(i int) int {
	switch w.src[i] {
	case '"':
		return w.stringEnd(i)
	case '{', '[':
		depth := 0
		for {
			switch w.src[i] {
			case '"':
				i = w.stringEnd(i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
	}
	for i < len(w.src) && !isJSONDelim(w.src[i]) {
		i++
	}
	return i
}

// isJSONDelim reports whether c ends a number or literal.
func isJSONDelim(c byte) bool {
	return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// appendInflated appends the decompression of the zlib stream src to dst,
// failing on corrupt or truncated input, bytes after the stream, or output
// over limit bytes, which it stops at, as appendDecompressed does.
func appendInflated(dst, src []byte, limit int) ([]byte, error) {
	start := len(dst)
	in := bytes.NewReader(src)
	zr, err := zlib.NewReader(in)
	if err != nil {
		return dst, wrap(ErrMalformed, "payload", -1, err)
	}
	dst, err = appendRead(dst, zr, 4*len(src), limit)
	switch {
	case err == errOverLimit:
		return dst[:start], errorf(ErrLimit, "payload", -1, "decompresses to more than %d bytes", limit)
	case err != nil:
		return dst[:start], wrap(ErrMalformed, "payload", -1, err)
	case in.Len() != 0:
		return dst[:start], errorf(ErrMalformed, "payload", -1, "%d bytes after the zlib stream", in.Len())
	}
	return dst, nil
}
