package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file is the slow reference the tests hold Scan to: validity from
// encoding/json.Valid plus separate checks for what it does not enforce,
// and extraction from the value encoding/json decodes into an any (whose
// maps, like serde_json's, keep the last of duplicate keys), following
// the rules of docs/protocol.md §3.5-3.11 literally.

// view is the comparable form of everything Scan extracts.
type view struct {
	IsObject                              bool
	HasModel, HasMessages, HasChoices     bool
	HasUsage, HasError, HasInput, HasData bool
	IDChatcmpl                            bool

	Model, ID, Object          string
	ModelSet, IDSet, ObjectSet bool // the key holds a string

	RequestFlags uint16
	MsgCount     int
	Roles        string // one byte per role code
	MessageRoles string // one byte per message: role code or RoleOther
	ContentHint  uint32
	MaxTokens    uint32
	MaxTokensOK  bool

	ResponseFlags                                                 uint16
	FinishReason                                                  byte
	PromptTokens, CompletionTokens, CachedTokens, ReasoningTokens uint32
}

// viewOf returns the view of f.
func viewOf(f *Fields) view {
	return view{
		IsObject: f.IsObject, HasModel: f.HasModel, HasMessages: f.HasMessages, HasChoices: f.HasChoices,
		HasUsage: f.HasUsage, HasError: f.HasError, HasInput: f.HasInput, HasData: f.HasData,
		IDChatcmpl: f.IDChatcmpl,
		Model:      string(f.Model), ID: string(f.ID), Object: string(f.Object),
		ModelSet: f.Model != nil, IDSet: f.ID != nil, ObjectSet: f.Object != nil,
		RequestFlags: f.RequestFlags, MsgCount: f.MsgCount, Roles: string(f.Roles), MessageRoles: string(f.MessageRoles),
		ContentHint: f.ContentHint, MaxTokens: f.MaxTokens, MaxTokensOK: f.MaxTokensOK,
		ResponseFlags: f.ResponseFlags, FinishReason: f.FinishReason,
		PromptTokens: f.PromptTokens, CompletionTokens: f.CompletionTokens,
		CachedTokens: f.CachedTokens, ReasoningTokens: f.ReasoningTokens,
	}
}

// refValid checks src against the acceptance rules and limits (already
// resolved) the slow way. It returns nil or every kind of problem found,
// sentinel errors in no particular order.
func refValid(src []byte, lim Limits) []error {
	var errs []error
	add := func(err error) {
		for _, e := range errs {
			if e == err {
				return
			}
		}
		errs = append(errs, err)
	}
	if !utf8.Valid(src) {
		add(ErrUTF8)
	}
	if !json.Valid(src) {
		// The walk below needs well-formed input, so other problems
		// (a limit reached before the syntax error) go unseen.
		add(ErrSyntax)
		add(errUnwalked)
		return errs
	}
	// Walk the tokens of the well-formed text.
	type open struct {
		array bool
		n     int
	}
	var stack []open
	expectKey := false
	for i := 0; i < len(src); {
		c := src[i]
		// A value (not a key) starting inside an array counts.
		isValue := c == '"' && !expectKey || c == '{' || c == '[' || c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f' || c == 'n'
		if isValue && len(stack) > 0 && stack[len(stack)-1].array {
			stack[len(stack)-1].n++
			if stack[len(stack)-1].n > lim.MaxArrayLen {
				add(ErrArrayTooLong)
			}
		}
		switch {
		case c == '{' || c == '[':
			stack = append(stack, open{array: c == '['})
			if len(stack) > lim.MaxDepth {
				add(ErrDepth)
			}
			expectKey = c == '{'
			i++
		case c == '}' || c == ']':
			stack = stack[:len(stack)-1]
			i++
		case c == ',':
			expectKey = !stack[len(stack)-1].array
			i++
		case c == ':':
			expectKey = false
			i++
		case c == '"':
			j := i + 1
			for src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j-i-1 > lim.MaxStringLen {
				add(ErrStringTooLong)
			}
			if !refSurrogatesOK(src[i+1 : j]) {
				add(ErrSurrogate)
			}
			i = j + 1
		case c == '-' || c >= '0' && c <= '9':
			j := i
			for j < len(src) && strings.IndexByte("+-.eE0123456789", src[j]) >= 0 {
				j++
			}
			if !refNumberInRange(string(src[i:j])) {
				add(ErrNumberRange)
			}
			i = j
		default: // whitespace, the rest of a literal
			i++
		}
	}
	return errs
}

// errUnwalked stands for the problems refValid cannot see in malformed
// input.
var errUnwalked = errors.New("not walked")

// refSurrogatesOK reports whether every \u escape of a surrogate in the
// raw string body is a high surrogate followed at once by a low one.
func refSurrogatesOK(raw []byte) bool {
	var units []int // the \u values, and -1 for any other character or escape
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			units = append(units, -1)
			continue
		}
		if raw[i+1] == 'u' {
			v, _ := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
			units = append(units, int(v))
			i += 5
		} else {
			units = append(units, -1)
			i++
		}
	}
	for k := 0; k < len(units); k++ {
		u := units[k]
		switch {
		case u >= 0xDC00 && u <= 0xDFFF:
			return false
		case u >= 0xD800 && u <= 0xDBFF:
			if k+1 == len(units) || units[k+1] < 0xDC00 || units[k+1] > 0xDFFF {
				return false
			}
			k++
		}
	}
	return true
}

// refNumberInRange applies serde_json's default number parsing
// (de.rs: parse_integer, parse_long_integer, parse_decimal,
// parse_decimal_overflow, parse_exponent, parse_exponent_overflow,
// f64_from_parts without float_roundtrip) to a well-formed number token,
// written independently of scanNumber: big.Int for the uint64 and int32
// overflow tests, strconv for the powers of ten.
func refNumberInRange(tok string) bool {
	tok = strings.TrimPrefix(tok, "-")
	mant, expPart, hasExp := strings.Cut(strings.ToLower(tok), "e")
	intPart, fracPart, _ := strings.Cut(mant, ".")
	maxU64 := new(big.Int).SetUint64(math.MaxUint64)
	sig := new(big.Int)
	var exponent int64
	// fits reports whether sig*10+d still fits in a uint64, and if so
	// makes it so.
	fits := func(d byte) bool {
		next := new(big.Int).Mul(sig, big.NewInt(10))
		next.Add(next, big.NewInt(int64(d-'0')))
		if next.Cmp(maxU64) > 0 {
			return false
		}
		sig = next
		return true
	}
	for k := 0; k < len(intPart); k++ {
		if !fits(intPart[k]) {
			exponent += int64(len(intPart) - k) // the rest only scale
			break
		}
	}
	for k := 0; k < len(fracPart); k++ {
		if !fits(fracPart[k]) {
			break // the rest are ignored
		}
		exponent--
	}
	if hasExp {
		positive := !strings.HasPrefix(expPart, "-")
		digits := strings.TrimLeft(expPart, "+-")
		e, ok := new(big.Int).SetString(digits, 10)
		// serde accumulates the exponent digit by digit in an int32 and
		// gives up at the first digit that overflows it: the same as
		// comparing the whole value, leading zeros aside.
		if !ok || e.Cmp(big.NewInt(math.MaxInt32)) > 0 {
			return !(positive && sig.Sign() != 0)
		}
		if positive {
			exponent += e.Int64()
		} else {
			exponent -= e.Int64()
		}
		exponent = max(min(exponent, math.MaxInt32), math.MinInt32)
	}
	if sig.Sign() == 0 || exponent < 0 {
		return true
	}
	if exponent > 308 {
		return false
	}
	// Both conversions are correctly rounded, as Rust's u64-to-f64 cast
	// and float literals are.
	f, err := strconv.ParseFloat(sig.String(), 64)
	if err != nil {
		panic(err)
	}
	p, err := strconv.ParseFloat("1e"+strconv.FormatInt(exponent, 10), 64)
	if err != nil {
		panic(err)
	}
	return !math.IsInf(f*p, 0)
}

// refExtract decodes valid src with encoding/json and extracts the header
// fields by the rules of docs/protocol.md §3.5, §3.7, §3.9 and §3.11, the
// way the reference reads its serde_json::Value.
func refExtract(src []byte) view {
	d := json.NewDecoder(bytes.NewReader(src))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		panic(fmt.Sprintf("refExtract on invalid input: %v", err))
	}
	r := view{FinishReason: FinishUnknown}
	top, ok := v.(map[string]any)
	if !ok {
		return r
	}
	r.IsObject = true
	has := func(k string) bool { _, ok := top[k]; return ok }
	str := func(m any, k string) (string, bool) {
		o, _ := m.(map[string]any)
		s, ok := o[k].(string)
		return s, ok
	}
	get := func(m any, k string) any {
		o, _ := m.(map[string]any)
		return o[k]
	}
	uintOf := func(x any) (uint64, bool) {
		n, ok := x.(json.Number)
		if !ok || strings.ContainsAny(string(n), "-.eE") {
			return 0, false
		}
		u, err := strconv.ParseUint(string(n), 10, 64)
		if err != nil {
			return 0, false
		}
		return u, true
	}

	r.HasModel, r.HasMessages, r.HasChoices = has("model"), has("messages"), has("choices")
	r.HasUsage, r.HasInput, r.HasData = has("usage"), has("input"), has("data")
	if e, ok := top["error"]; ok && e != nil && e != false {
		r.HasError = true
	}
	r.Model, r.ModelSet = str(top, "model")
	r.ID, r.IDSet = str(top, "id")
	r.Object, r.ObjectSet = str(top, "object")
	r.IDChatcmpl = r.IDSet && strings.HasPrefix(r.ID, "chatcmpl-")

	// Request (§3.5, §3.7).
	var rf uint16
	if msgs, ok := top["messages"].([]any); ok {
		r.MsgCount = len(msgs)
		var roles, perMessage []byte
		for _, m := range msgs {
			before := len(roles)
			if role, ok := str(m, "role"); ok {
				switch role {
				case "system", "developer":
					roles = append(roles, RoleSystem)
					rf |= ReqSystemPrompt
				case "user":
					roles = append(roles, RoleUser)
				case "assistant":
					roles = append(roles, RoleAssistant)
				case "tool":
					roles = append(roles, RoleTool)
				}
			}
			if len(roles) > before {
				perMessage = append(perMessage, roles[len(roles)-1])
			} else {
				perMessage = append(perMessage, RoleOther)
			}
			switch c := get(m, "content").(type) {
			case string:
				r.ContentHint += uint32(len(c))
			case []any:
				for _, part := range c {
					if t, ok := str(part, "text"); ok {
						r.ContentHint += uint32(len(t))
					}
					if t, ok := str(part, "type"); ok && t == "image_url" {
						rf |= ReqImages
					}
				}
			}
		}
		r.Roles = string(roles)
		r.MessageRoles = string(perMessage)
	}
	for _, kf := range []struct {
		key  string
		flag uint16
	}{
		{"tools", ReqTools}, {"functions", ReqTools}, {"tool_choice", ReqToolChoice},
		{"function_call", ReqToolChoice}, {"response_format", ReqResponseFormat},
		{"max_tokens", ReqMaxTokens}, {"max_completion_tokens", ReqMaxTokens},
		{"reasoning_effort", ReqReasoningEffort}, {"service_tier", ReqServiceTier},
		{"seed", ReqSeed}, {"logprobs", ReqLogprobs}, {"user", ReqUser},
		{"temperature", ReqTemperature}, {"top_p", ReqTopP}, {"stop", ReqStop},
	} {
		if has(kf.key) {
			rf |= kf.flag
		}
	}
	if b, ok := top["stream"].(bool); ok && b {
		rf |= ReqStream
	}
	r.RequestFlags = rf
	if mt, ok := top["max_tokens"]; ok {
		u, ok := uintOf(mt)
		r.MaxTokens, r.MaxTokensOK = uint32(u), ok
	} else if mt, ok := top["max_completion_tokens"]; ok {
		u, ok := uintOf(mt)
		r.MaxTokens, r.MaxTokensOK = uint32(u), ok
	}

	// Response (§3.5, §3.9).
	var sf uint16
	if choices, ok := top["choices"].([]any); ok && len(choices) > 0 {
		first := choices[0]
		msg := get(first, "message")
		if o, ok := msg.(map[string]any); ok {
			if _, ok := o["tool_calls"]; ok {
				sf |= RespToolCalls
			}
		}
		if _, ok := str(msg, "refusal"); ok {
			sf |= RespRefusal
		}
		if fr, ok := str(first, "finish_reason"); ok {
			switch fr {
			case "stop":
				r.FinishReason = FinishStop
			case "length":
				r.FinishReason = FinishLength
				sf |= RespTruncated
			case "tool_calls":
				r.FinishReason = FinishToolCalls
			case "content_filter":
				r.FinishReason = FinishContentFilter
				sf |= RespContentFiltered
			}
		}
	}
	if usage, ok := top["usage"]; ok {
		sf |= RespUsage | RespCostEstimate
		pt, _ := uintOf(get(usage, "prompt_tokens"))
		ct, _ := uintOf(get(usage, "completion_tokens"))
		cached, _ := uintOf(get(get(usage, "prompt_tokens_details"), "cached_tokens"))
		reasoning, _ := uintOf(get(get(usage, "completion_tokens_details"), "reasoning_tokens"))
		r.PromptTokens, r.CompletionTokens = uint32(pt), uint32(ct)
		r.CachedTokens, r.ReasoningTokens = uint32(cached), uint32(reasoning)
		if cached > 0 {
			sf |= RespCachedTokens
		}
		if reasoning > 0 {
			sf |= RespReasoningTokens
		}
	}
	r.ResponseFlags = sf
	return r
}

// checkAgainstRef scans src with lim and holds the verdict and the
// fields to the reference; it returns a description of the first
// disagreement, or "".
func checkAgainstRef(src []byte, lim Limits) string {
	var f Fields
	err := Scan(src, lim, &f)
	want := refValid(src, lim.resolve())
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return fmt.Sprintf("error %v is not an *Error", err)
		}
		if e.Offset < 0 || e.Offset > len(src) {
			return fmt.Sprintf("error offset %d outside [0, %d]", e.Offset, len(src))
		}
	}
	switch {
	case err == nil && len(want) > 0:
		return fmt.Sprintf("accepted; the reference finds %v", want)
	case err != nil && len(want) == 0:
		return fmt.Sprintf("rejected with %v; the reference accepts", err)
	case err != nil && len(want) == 1 && !errors.Is(err, want[0]):
		return fmt.Sprintf("rejected with %v; the reference finds only %v", err, want[0])
	case err == nil:
		if got, ref := viewOf(&f), refExtract(src); got != ref {
			return fmt.Sprintf("extracted\n\t%+v\nreference\n\t%+v", got, ref)
		}
	}
	return ""
}
