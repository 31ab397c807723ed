package codec

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/m2m-go/m2m/internal/jsonscan"
)

// Token v1 (#T1|) is the abbreviated-JSON format of old reference versions.
// It is lossy (nulls and default values are dropped, and expanding can
// touch genuine keys such as "c"), so decoding is best effort: this is the
// dialect of the reference's current TokenCodec (reference-implementation.md
// §10.1-10.5), and the result is re-serialised with sorted keys, as the
// reference's engine did.

// tokenV1Patterns expands the control characters of §10.4, which the
// reference always expands when decoding.
var tokenV1Patterns = strings.NewReplacer(
	"\x01", `{"role":"user","content":"`,
	"\x02", `{"role":"assistant","content":"`,
	"\x03", `{"role":"system","content":"`,
	"\x04", `{"role":"tool","content":"`,
	"\x05", `{"index":0,"delta":{`,
	"\x06", `{"index":0,"message":{`,
	"\x07", `"finish_reason":"stop"`,
	"\x08", `"finish_reason":"length"`,
	"\t", `"finish_reason":"tool_calls"`,
	"\n", `{"type":"function","function":{`,
	"\x0b", `"choices":[{`,
	"\x0c", `{"messages":[`,
	"\r", `],"model":"`,
)

var tokenV1Keys = map[string]string{
	"c": "content", "M": "model", "T": "temperature", "x": "max_tokens", "s": "stream",
	"S": "stop", "p": "top_p", "f": "frequency_penalty", "P": "presence_penalty",
	"fc": "function_call", "a": "arguments", "tc": "tool_calls", "tx": "tool_choice",
	"rf": "response_format", "lb": "logit_bias", "lp": "logprobs", "tlp": "top_logprobs",
	"C": "choices", "fr": "finish_reason", "pt": "prompt_tokens", "ct": "completion_tokens",
	"tt": "total_tokens", "D": "delta", "sf": "system_fingerprint", "E": "error",
}

var tokenV1Roles = map[string]string{"S": "system", "A": "assistant", "F": "function", "T": "tool"}

var tokenV1Models = map[string]string{
	"g4o": "gpt-4o", "g4om": "gpt-4o-mini", "g4t": "gpt-4-turbo", "g4": "gpt-4",
	"g35t": "gpt-3.5-turbo", "l31405": "llama-3.1-405b", "l3170": "llama-3.1-70b",
	"l318": "llama-3.1-8b", "l3370": "llama-3.3-70b", "mll": "mistral-large-latest",
	"msl": "mistral-small-latest", "mx87": "mixtral-8x7b", "mx822": "mixtral-8x22b",
	"dv3": "deepseek-v3", "dr1": "deepseek-r1", "dc": "deepseek-coder",
	"q2572": "qwen-2.5-72b", "q2532": "qwen-2.5-32b", "qc32": "qwen-2.5-coder-32b",
}

// tokenV1Defaults are restored into request-like objects, as the reference
// does: floats as 1.0, integers as written.
var tokenV1Defaults = []struct {
	key   string
	value any
}{
	{"temperature", json.Number("1.0")}, {"top_p", json.Number("1.0")}, {"n", json.Number("1")},
	{"stream", false}, {"frequency_penalty", json.Number("0")}, {"presence_penalty", json.Number("0")},
}

// appendTokenV1 decodes the body of a #T1| message.
func (d *Decoder) appendTokenV1(dst, body []byte) ([]byte, error) {
	at := len(prefixTokenV1)
	if !utf8.Valid(body) {
		return dst, errorf(ErrMalformed, "text", at, "not valid UTF-8")
	}
	expanded := []byte(tokenV1Patterns.Replace(string(body)))
	lim := d.opts.limits
	if err := jsonscan.Scan(expanded, lim.json(), &d.fields); err != nil {
		kind := ErrMalformed
		if errors.Is(err, jsonscan.ErrLimit) {
			kind = ErrLimit
		}
		return dst, wrap(kind, "json", at, err)
	}
	dec := json.NewDecoder(bytes.NewReader(expanded))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return dst, wrap(ErrMalformed, "json", at, err)
	}
	v = expandTokenV1(v, "")
	restoreTokenV1Defaults(v)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, wrap(ErrMalformed, "json", at, err)
	}
	text := bytes.TrimSuffix(out.Bytes(), []byte("\n"))
	if len(text) > lim.MaxDecompressed {
		return dst, errorf(ErrLimit, "payload", at, "decodes to %d bytes, over the %d-byte limit", len(text), lim.MaxDecompressed)
	}
	return append(dst, text...), nil
}

// expandTokenV1 renames abbreviated keys and expands role and model values;
// key is the (expanded) key v sits under, which array elements inherit.
func expandTokenV1(v any, key string) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, val := range v {
			full := k
			if f, ok := tokenV1Keys[k]; ok {
				full = f
			}
			out[full] = expandTokenV1(val, full)
		}
		return out
	case []any:
		for i := range v {
			v[i] = expandTokenV1(v[i], key)
		}
		return v
	case string:
		table := map[string]map[string]string{"role": tokenV1Roles, "r": tokenV1Roles, "model": tokenV1Models}[key]
		if full, ok := table[v]; ok {
			return full
		}
	}
	return v
}

// restoreTokenV1Defaults inserts the request defaults into the top object
// if it has "messages" or "model", else into the nested objects that do.
func restoreTokenV1Defaults(v any) {
	switch v := v.(type) {
	case map[string]any:
		_, msgs := v["messages"]
		_, model := v["model"]
		if msgs || model {
			for _, d := range tokenV1Defaults {
				if _, ok := v[d.key]; !ok {
					v[d.key] = d.value
				}
			}
			return
		}
		for _, val := range v {
			restoreTokenV1Defaults(val)
		}
	case []any:
		for _, val := range v {
			restoreTokenV1Defaults(val)
		}
	}
}

// appendInflated appends the decompression of the zlib stream src to dst,
// failing on corrupt or truncated input, bytes after the stream, or output
// over limit bytes.
func appendInflated(dst, src []byte, limit int) ([]byte, error) {
	start := len(dst)
	in := bytes.NewReader(src)
	zr, err := zlib.NewReader(in)
	if err != nil {
		return dst, wrap(ErrMalformed, "payload", -1, err)
	}
	var out bytes.Buffer
	n, err := io.Copy(&out, io.LimitReader(zr, int64(limit)+1))
	switch {
	case err != nil:
		return dst[:start], wrap(ErrMalformed, "payload", -1, err)
	case n > int64(limit):
		return dst[:start], errorf(ErrLimit, "payload", -1, "decompresses to more than %d bytes", limit)
	case in.Len() != 0:
		return dst[:start], errorf(ErrMalformed, "payload", -1, "%d bytes after the zlib stream", in.Len())
	}
	return append(dst, out.Bytes()...), nil
}
