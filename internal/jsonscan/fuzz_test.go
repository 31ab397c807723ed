package jsonscan

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/internal/cpu/cputest"
)

// gen writes random JSON shaped like LLM API traffic: the keys the headers
// read, at the right places and elsewhere, duplicated, escaped, and with
// values of every type, plus strings and numbers chosen to sit on the
// edges of the acceptance rules. Most of what it writes is valid.
type gen struct {
	r      *rand.Rand
	b      strings.Builder
	faulty bool // the record may hold invalid tokens
}

var (
	genTopKeys = []string{"messages", "choices", "usage", "model", "id", "max_tokens", "stream", "object",
		"max_completion_tokens", "tools", "functions", "tool_choice", "function_call", "response_format",
		"reasoning_effort", "service_tier", "seed", "logprobs", "user", "temperature", "top_p", "stop",
		"error", "input", "data", "created", "n"}
	genMessageKeys = []string{"role", "content", "name", "tool_calls"}
	genPartKeys    = []string{"type", "text", "image_url"}
	genChoiceKeys  = []string{"finish_reason", "message", "delta", "index"}
	genChoiceMsg   = []string{"refusal", "tool_calls", "content", "role"}
	genUsageKeys   = []string{"prompt_tokens", "completion_tokens", "prompt_tokens_details", "completion_tokens_details", "total_tokens"}
	genDetailKeys  = []string{"cached_tokens", "reasoning_tokens", "audio_tokens"}
	genWords       = []string{"system", "developer", "user", "assistant", "tool", "function", "stop", "length",
		"tool_calls", "content_filter", "image_url", "text", "chatcmpl-", "chatcmpl-abc", "gpt-4o", "", "User",
		"chat.completion.chunk", "list", "é", "😀", "\x7f"}
	// genNumbers starts with 22 valid numbers.
	genNumbers = []string{"0", "-0", "1", "7", "1000", "-1", "1.0", "1e3", "0.5", "4294967295", "4294967296",
		"18446744073709551615", "18446744073709551616", "-9223372036854775809", "1e308",
		"1.7976931348623157e308", "1e-400", "0e99999999999", "123456789012345678901234567890", "0.000001",
		"2.5E+10", "12",
		"1e309", "-1e309", "1.7976931348623158e308", "1e99999999999", "01", "1.", "-", "1e"}
	// genEscapes starts with 15 valid escapes.
	genEscapes = []string{`\n`, `\"`, `\\`, `\/`, `\b`, `\f`, `\r`, `\t`, `\u0041`, `\u00e9`, `\u20ac`,
		`\ud83d\ude00`, `\uDBFF\uDFFF`, `\u0000`, `\uD7FF\uE000`,
		`\ud800`, `\udc00`, `\uD800\u0041`, `\uD800\uE000`, `\uDBFF\uFFFF`, `\uDFFF`, `\x`, `\u12`}
	// genRaw are raw byte sequences for strings, valid UTF-8 first.
	genRaw = []string{"\u0080", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\uffff", "\U00010000", "\U0010ffff",
		"\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf",
		"\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xc3", "\xe2\x82",
		"\xf0\x9f\x98", "\x80", "\xbf", "\xfe", "\xff", "\x1f"}
)

func (g *gen) pick(list []string) string { return list[g.r.IntN(len(list))] }

// pickValid picks from the first n elements of list, which are the valid
// ones, unless the record is faulty; then now and then from all.
func (g *gen) pickValid(list []string, n int) string {
	if g.faulty && g.r.IntN(4) == 0 {
		return g.pick(list)
	}
	return list[g.r.IntN(n)]
}

// str writes a string token, sometimes with escapes (now and then a bad
// one), raw non-ASCII or a long ASCII run.
func (g *gen) str(s string) {
	g.b.WriteByte('"')
	switch g.r.IntN(12) {
	case 0: // escape one character of s
		if len(s) > 0 {
			k := g.r.IntN(len(s))
			if s[k] < 0x80 {
				fmt.Fprintf(&g.b, `%s\u%04x%s`, s[:k], s[k], s[k+1:])
				break
			}
		}
		g.b.WriteString(s)
	case 1: // escapes and text around
		for n := g.r.IntN(5); n >= 0; n-- {
			g.b.WriteString(g.pickValid(genEscapes, 15))
			g.b.WriteString(strings.Repeat("x", g.r.IntN(20)))
		}
	case 2: // raw non-ASCII, now and then invalid
		for n := g.r.IntN(4); n >= 0; n-- {
			g.b.WriteString(g.pickValid(genRaw, 8))
			g.b.WriteString(strings.Repeat("y", g.r.IntN(12)))
		}
	case 3:
		g.b.WriteString(strings.Repeat("lorem ipsum ", g.r.IntN(30)))
		g.b.WriteString(g.pick(genWords))
	default:
		g.b.WriteString(s)
	}
	g.b.WriteByte('"')
}

// value writes a random value; depth bounds the nesting.
func (g *gen) value(depth int) {
	switch n := g.r.IntN(12); {
	case n < 3:
		g.str(g.pick(genWords))
	case n < 6:
		g.b.WriteString(g.pickValid(genNumbers, 22))
	case n == 6:
		g.b.WriteString([]string{"true", "false", "null"}[g.r.IntN(3)])
	case n < 9 && depth > 0:
		g.b.WriteByte('[')
		for k := g.r.IntN(4); k > 0; k-- {
			g.value(depth - 1)
			if k > 1 {
				g.b.WriteByte(',')
			}
		}
		g.b.WriteByte(']')
	case depth > 0:
		g.object(genTopKeys, depth-1, func(_ string, d int) { g.value(d) })
	default:
		g.b.WriteString("null")
	}
}

// object writes an object with keys from keys (and now and then another),
// each value written by val.
func (g *gen) object(keys []string, depth int, val func(key string, depth int)) {
	g.b.WriteByte('{')
	for k := g.r.IntN(7); k > 0; k-- {
		key := g.pick(keys)
		switch g.r.IntN(10) {
		case 0:
			key = g.pick(genWords)
		case 1, 2, 3, 4:
			key = keys[g.r.IntN(min(len(keys), 6))] // the first keys matter most
		}
		g.str(key)
		g.b.WriteString([]string{":", " : ", ":\n"}[g.r.IntN(3)])
		val(key, depth)
		if k > 1 {
			g.b.WriteByte(',')
		}
	}
	g.b.WriteByte('}')
}

// array writes an array of up to max elements, each written by elem.
func (g *gen) array(max, depth int, elem func(depth int)) {
	g.b.WriteByte('[')
	for k := g.r.IntN(max + 1); k > 0; k-- {
		elem(depth)
		if k > 1 {
			g.b.WriteByte(',')
		}
	}
	g.b.WriteByte(']')
}

// or writes with f most of the time and a random value otherwise.
func (g *gen) or(f func(depth int)) func(depth int) {
	return func(depth int) {
		if g.r.IntN(6) == 0 {
			g.value(depth)
		} else {
			f(depth)
		}
	}
}

// record writes one random top-level value, usually an object shaped like
// a request or a response.
func (g *gen) record() []byte {
	g.b.Reset()
	g.faulty = g.r.IntN(3) == 0
	words := func(int) { g.str(g.pick(genWords)) }
	// oneOf writes a string from list, mostly.
	oneOf := func(list ...string) func(int) { return g.or(func(int) { g.str(g.pick(list)) }) }
	role := oneOf("system", "developer", "user", "assistant", "tool", "function", "User")
	partType := oneOf("text", "image_url", "image")
	finish := oneOf("stop", "length", "tool_calls", "content_filter", "other")
	number := func(int) { g.b.WriteString(g.pickValid(genNumbers, 22)) }
	part := g.or(func(d int) {
		g.object(genPartKeys, d, func(key string, d int) {
			if key == "type" {
				partType(d)
			} else {
				g.or(words)(d)
			}
		})
	})
	message := g.or(func(d int) {
		g.object(genMessageKeys, d, func(key string, d int) {
			switch {
			case key == "role":
				role(d)
			case key == "content" && g.r.IntN(2) == 0:
				g.array(4, d, part)
			default:
				g.or(words)(d)
			}
		})
	})
	details := g.or(func(d int) { g.object(genDetailKeys, d, func(_ string, d int) { g.or(number)(d) }) })
	usage := g.or(func(d int) {
		g.object(genUsageKeys, d, func(key string, d int) {
			if strings.HasSuffix(key, "_details") {
				details(d)
			} else {
				g.or(number)(d)
			}
		})
	})
	choiceMsg := g.or(func(d int) { g.object(genChoiceMsg, d, func(_ string, d int) { g.or(words)(d) }) })
	choice := g.or(func(d int) {
		g.object(genChoiceKeys, d, func(key string, d int) {
			switch key {
			case "message":
				choiceMsg(d)
			case "finish_reason":
				finish(d)
			default:
				g.or(words)(d)
			}
		})
	})
	if g.r.IntN(10) == 0 {
		g.value(3)
		return []byte(g.b.String())
	}
	g.object(genTopKeys, 3, func(key string, d int) {
		switch key {
		case "messages":
			g.or(func(d int) { g.array(6, d, message) })(d)
		case "choices":
			g.or(func(d int) { g.array(3, d, choice) })(d)
		case "usage":
			usage(d)
		case "max_tokens", "max_completion_tokens", "seed", "created":
			g.or(number)(d)
		case "stream":
			g.or(func(int) { g.b.WriteString([]string{"true", "false"}[g.r.IntN(2)]) })(d)
		case "model", "id", "object":
			g.or(words)(d)
		default:
			g.value(d)
		}
	})
	return []byte(g.b.String())
}

// mutate damages b in one to three random places.
func mutate(r *rand.Rand, b []byte) []byte {
	const alphabet = "\"\\{}[],: \t0-1eE.+uDdcfx\x00\x1f\x7f\x80\xbf\xc3\xed\xf0\xf4\xff"
	for n := r.IntN(3); n >= 0 && len(b) > 0; n-- {
		k := r.IntN(len(b))
		switch r.IntN(4) {
		case 0:
			b[k] = alphabet[r.IntN(len(alphabet))]
		case 1:
			b = append(b[:k], b[k+1:]...)
		case 2:
			b = append(b[:k], append([]byte{alphabet[r.IntN(len(alphabet))]}, b[k:]...)...)
		default:
			b = b[:k]
		}
	}
	return b
}

// randomLimits returns small limits half the time, so that the limit
// boundaries come up, and the defaults otherwise.
func randomLimits(r *rand.Rand) Limits {
	if r.IntN(2) == 0 {
		return Limits{}
	}
	return Limits{MaxDepth: 1 + r.IntN(5), MaxArrayLen: 1 + r.IntN(5), MaxStringLen: 1 + r.IntN(30)}
}

// TestDifferential holds Scan to the reference on generated records, as
// they are and damaged.
func TestDifferential(t *testing.T) {
	n := 40000
	if testing.Short() {
		n = 10000
	}
	r := rand.New(rand.NewPCG(1, 2))
	g := gen{r: r}
	// How many valid records show each feature: the generator must reach
	// them all, or the test proves little.
	seen := map[string]int{}
	for i := 0; i < n; i++ {
		rec := g.record()
		if i%3 == 2 {
			rec = mutate(r, rec)
		}
		lim := randomLimits(r)
		if msg := checkAgainstRef(rec, lim); msg != "" {
			t.Fatalf("record %d %q, limits %+v: %s", i, rec, lim, msg)
		}
		var f Fields
		if Scan(rec, lim, &f) != nil {
			seen["invalid"]++
			continue
		}
		seen["valid"]++
		for name, ok := range map[string]bool{
			"roles>1":       len(f.Roles) > 1,
			"images":        f.RequestFlags&ReqImages != 0,
			"system":        f.RequestFlags&ReqSystemPrompt != 0,
			"stream":        f.RequestFlags&ReqStream != 0,
			"max_tokens":    f.MaxTokensOK,
			"content hint":  f.ContentHint > 0,
			"finish reason": f.FinishReason != FinishUnknown,
			"truncated":     f.ResponseFlags&RespTruncated != 0,
			"refusal":       f.ResponseFlags&RespRefusal != 0,
			"tool calls":    f.ResponseFlags&RespToolCalls != 0,
			"cached":        f.ResponseFlags&RespCachedTokens != 0,
			"reasoning":     f.ResponseFlags&RespReasoningTokens != 0,
			"prompt tokens": f.PromptTokens > 0,
			"model":         len(f.Model) > 0,
			"id chatcmpl":   f.IDChatcmpl,
			"not an object": !f.IsObject,
		} {
			if ok {
				seen[name]++
			}
		}
	}
	for _, name := range []string{"valid", "invalid", "roles>1", "images", "system", "stream", "max_tokens",
		"content hint", "finish reason", "truncated", "refusal", "tool calls", "cached", "reasoning",
		"prompt tokens", "model", "id chatcmpl", "not an object"} {
		if seen[name] < n/2000 {
			t.Errorf("only %d of %d generated records are %s", seen[name], n, name)
		}
	}
}

// addSeeds seeds a fuzz target with every table input and some generated
// records.
func addSeeds(f *testing.F) {
	for _, tc := range acceptCases {
		if len(tc.in) < 4096 {
			f.Add([]byte(tc.in))
		}
	}
	for _, s := range []string{
		`{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}`,
		`{"id":"chatcmpl-abc123","object":"chat.completion","created":1705520400,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"The answer is 4."},"finish_reason":"stop"}],"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}`,
		`{"messages":[{"role":"user","content":"abc"}],"messages":[{"role":"system","content":[{"type":"image_url"},{"text":"\u00e9"}]}]}`,
		`{"choices":[{"message":{"refusal":"x","tool_calls":[]},"finish_reason":"length"}],"usage":{"prompt_tokens_details":{"cached_tokens":4294967296}}}`,
		`{"max_tokens":null,"max_completion_tokens":5,"stream":true}`,
		nest(33, true), array(12),
	} {
		f.Add([]byte(s))
	}
	g := gen{r: rand.New(rand.NewPCG(3, 4))}
	for i := 0; i < 50; i++ {
		f.Add(g.record())
	}
}

// FuzzScan holds Scan, with the default limits, to the reference: the
// same verdict (and the same kind of error when the reference sees only
// one), and when valid the same extracted fields. Scan must never panic.
func FuzzScan(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		if msg := checkAgainstRef(src, Limits{}); msg != "" {
			t.Fatal(msg)
		}
	})
}

// FuzzScanLimits is FuzzScan with small limits taken from the input, so
// the fuzzer reaches both sides of every limit.
func FuzzScanLimits(f *testing.F) {
	f.Add([]byte(`[[1,2],{"a":"bcd"}]`), uint8(2), uint8(2), uint8(3))
	f.Add([]byte(`{"model":"x","messages":[{},{}]}`), uint8(3), uint8(1), uint8(8))
	f.Fuzz(func(t *testing.T, src []byte, depth, arrayLen, stringLen uint8) {
		lim := Limits{MaxDepth: 1 + int(depth%40), MaxArrayLen: 1 + int(arrayLen%20), MaxStringLen: 1 + int(stringLen%64)}
		if msg := checkAgainstRef(src, lim); msg != "" {
			t.Fatal(msg)
		}
	})
}

// TestCorpus checks every line of the corpus named by M2M_CORPUS with
// every kernel: each must be valid, and the fields must match the
// reference extractor's.
func TestCorpus(t *testing.T) {
	lines, _ := corpusLines(t)
	cputest.Run(t, "jsonscan", func(t *testing.T) {
		var f Fields
		for i, l := range lines {
			if err := Scan(l, Limits{}, &f); err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			if got, want := viewOf(&f), refExtract(l); got != want {
				t.Fatalf("line %d: extracted\n\t%+v\nreference\n\t%+v", i+1, got, want)
			}
		}
	})
}
