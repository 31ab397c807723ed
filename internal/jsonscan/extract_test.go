package jsonscan

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/internal/cpu/cputest"
)

// routingHeader lays out a request routing header (§3.7) from f, without
// the trailing f32 cost (which needs the pricing table of the codec).
func routingHeader(f *Fields) []byte {
	b := []byte{byte(len(f.Model))}
	b = append(b, f.Model...)
	b = binary.AppendUvarint(b, uint64(uint32(f.MsgCount)))
	packed := make([]byte, (2*len(f.Roles)+7)/8)
	for i, r := range f.Roles {
		packed[i/4] |= r << (2 * (i % 4))
	}
	b = append(b, packed...)
	b = binary.AppendUvarint(b, uint64(f.ContentHint))
	if f.RequestFlags&ReqMaxTokens != 0 && f.MaxTokensOK {
		b = binary.AppendUvarint(b, uint64(f.MaxTokens))
	}
	return b
}

// responseHeader lays out a response header (§3.9) from f, without the
// trailing f32 cost.
func responseHeader(f *Fields) []byte {
	b := []byte{byte(len(f.ID))}
	b = append(b, f.ID...)
	b = append(b, byte(len(f.Model)))
	b = append(b, f.Model...)
	b = append(b, f.FinishReason)
	b = binary.AppendUvarint(b, uint64(f.PromptTokens))
	b = binary.AppendUvarint(b, uint64(f.CompletionTokens))
	if f.ResponseFlags&RespCachedTokens != 0 {
		b = binary.AppendUvarint(b, uint64(f.CachedTokens))
	}
	if f.ResponseFlags&RespReasoningTokens != 0 {
		b = binary.AppendUvarint(b, uint64(f.ReasoningTokens))
	}
	return b
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSpecFrames reproduces the header bytes of the worked example (§3.13)
// and the frame KATs (§9.1) from the extracted fields. Each frame is
// "#M2M|1|", the 20-byte fixed header (flags at offsets 4-7), the variable
// header ending in the f32 cost when there is one, then payload_len.
func TestSpecFrames(t *testing.T) {
	const (
		testRequest  = `{"model":"gpt-4o","messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"What is 2+2?"}],"temperature":0.7,"max_tokens":1000}`
		testResponse = `{"id":"chatcmpl-abc123","object":"chat.completion","created":1705520400,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"The answer is 4."},"finish_reason":"stop"}],"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}`
	)
	cases := []struct {
		name     string
		json     string
		response bool
		frame    string // hex of the frame up to and including the variable header
		costLen  int    // bytes of cost at the end of the variable header
	}{
		{"§3.13 / §9.1 A", `{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}`, false,
			"234d324d7c317c2200010000000000000000000000000000000000066770742d346f0101020ad7a33b", 4},
		{"§9.1 B", `{"model":"x","messages":[]}`, false,
			"234d324d7c317c1c0001000000000000000000000000000000000001780000a69bc43a", 4},
		{"§9.1 C", `{"model":"gpt-4o","messages":[{"role":"user","content":"Test"}]}`, false,
			"234d324d7c317c2200010000000000000000000000000000000000066770742d346f01010403eca33b", 4},
		{"§9.1 D", `{"id":"chatcmpl-456","model":"gpt-4o","choices":[{"message":{"content":"Test"}}]}`, true,
			"234d324d7c317c2b000200000000000000000000000000000000000c63686174636d706c2d343536066770742d346fff0000", 0},
		{"§9.1 E", testRequest, false,
			"234d324d7c317c2400010041100001000000000000000000000000066770742d346f020428e807e63f243c", 4},
		{"§9.1 F", testResponse, true,
			"234d324d7c317c32000200880000010000000000000000000000000f63686174636d706c2d616263313233066770742d346f00320afbed6b39", 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			frame := unhex(t, tc.frame)
			fixed, variable := frame[7:27], frame[27:len(frame)-tc.costLen]
			var f Fields
			if err := Scan([]byte(tc.json), Limits{}, &f); err != nil {
				t.Fatal(err)
			}
			if f.IsResponse() != tc.response {
				t.Errorf("IsResponse() = %v, want %v", f.IsResponse(), tc.response)
			}
			// Byte 2 of the fixed header is the schema; bytes 4-5 the
			// specific flags.
			if schema := map[bool]byte{false: 1, true: 2}[tc.response]; fixed[2] != schema {
				t.Fatalf("the KAT has schema %d, the case expects %d", fixed[2], schema)
			}
			flags := f.RequestFlags
			header := routingHeader(&f)
			if tc.response {
				flags = f.ResponseFlags
				header = responseHeader(&f)
			}
			if got, want := flags, binary.LittleEndian.Uint16(fixed[4:]); got != want {
				t.Errorf("flags %#04x, want %#04x", got, want)
			}
			if !bytes.Equal(header, variable) {
				t.Errorf("header % x\nwant   % x", header, variable)
			}
			if msg := checkAgainstRef([]byte(tc.json), Limits{}); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// TestSpecRoutingExample checks the routing header that §3.11 gives for a
// body with a model and no messages (the cost bytes aside).
func TestSpecRoutingExample(t *testing.T) {
	var f Fields
	if err := Scan([]byte(`{"model":"gpt-4o","input":"x"}`), Limits{}, &f); err != nil {
		t.Fatal(err)
	}
	if f.IsResponse() || !f.HasInput || f.RequestFlags != 0 {
		t.Errorf("IsResponse %v, HasInput %v, flags %#x; want a request with input and no flags", f.IsResponse(), f.HasInput, f.RequestFlags)
	}
	if got, want := routingHeader(&f), unhex(t, "06 67 70 74 2d 34 6f 00 00"); !bytes.Equal(got, want) {
		t.Errorf("routing header % x, want % x", got, want)
	}
}

// TestExtract covers each extraction rule, the duplicate-key cases among
// them. Each want lists only the fields that differ from an object with
// nothing in it (IsObject true, FinishReason unknown); every case is also
// held to the reference extractor.
func TestExtract(t *testing.T) {
	base := view{IsObject: true, FinishReason: FinishUnknown}
	with := func(f func(*view)) view { v := base; f(&v); return v }
	cases := []struct {
		name string
		in   string
		want view
	}{
		{"§3.11 model without messages", `{"model":"gpt-4o","input":"x"}`, with(func(v *view) {
			v.HasModel, v.Model, v.ModelSet, v.HasInput = true, "gpt-4o", true, true
		})},
		{"not an object", `[{"model":"x","messages":[]}]`, view{FinishReason: FinishUnknown}},
		{"string top level", `"model"`, view{FinishReason: FinishUnknown}},
		{"nested keys do not count", `{"a":{"model":"x","messages":[{"role":"user"}],"usage":{}}}`, base},
		{"empty model", `{"model":""}`, with(func(v *view) { v.HasModel, v.ModelSet = true, true })},
		{"model not a string", `{"model":["gpt-4o"]}`, with(func(v *view) { v.HasModel = true })},
		{"model null", `{"model":null}`, with(func(v *view) { v.HasModel = true })},
		{"duplicate model", `{"model":"a","model":"b"}`, with(func(v *view) {
			v.HasModel, v.Model, v.ModelSet = true, "b", true
		})},
		{"duplicate model, last not a string", `{"model":"a","model":1}`, with(func(v *view) { v.HasModel = true })},
		{"escaped model", `{"model":"gpt\u002d4o\n"}`, with(func(v *view) {
			v.HasModel, v.Model, v.ModelSet = true, "gpt-4o\n", true
		})},
		{"escaped key", `{"mod\u0065l":"x","\u006d\u0065ssages":[]}`, with(func(v *view) {
			v.HasModel, v.Model, v.ModelSet, v.HasMessages = true, "x", true, true
		})},
		{"key with a different escape", `{"model\n":"x"}`, base},
		{"id chatcmpl", `{"id":"chatcmpl-1"}`, with(func(v *view) { v.ID, v.IDSet, v.IDChatcmpl = "chatcmpl-1", true, true })},
		{"id escaped chatcmpl", `{"id":"chatcmpl\u002d"}`, with(func(v *view) { v.ID, v.IDSet, v.IDChatcmpl = "chatcmpl-", true, true })},
		{"id prefix only", `{"id":"chatcmpl"}`, with(func(v *view) { v.ID, v.IDSet = "chatcmpl", true })},
		{"id number", `{"id":1}`, base},
		{"duplicate id", `{"id":"chatcmpl-1","id":"x"}`, with(func(v *view) { v.ID, v.IDSet = "x", true })},
		{"object and presence keys", `{"object":"list","error":{},"data":[],"input":0}`, with(func(v *view) {
			v.Object, v.ObjectSet, v.HasError, v.HasData, v.HasInput = "list", true, true, true, true
		})},
		{"error null", `{"error":null,"data":null,"input":null}`, with(func(v *view) { v.HasData, v.HasInput = true, true })},
		{"error false", `{"error":false}`, base},
		{"error string", `{"error":"rate limited"}`, with(func(v *view) { v.HasError = true })},
		{"error null, then an error", `{"error":null,"error":{"message":"x"}}`, with(func(v *view) { v.HasError = true })},
		{"error, then null", `{"error":{"message":"x"},"error":null}`, base},

		{"roles and hint", `{"messages":[{"role":"system","content":"ab"},{"role":"developer"},{"role":"user","content":""},{"role":"assistant","content":"cde"},{"role":"tool","content":"f"}]}`, with(func(v *view) {
			v.HasMessages, v.MsgCount, v.Roles, v.ContentHint = true, 5, "\x00\x00\x01\x02\x03", 6
			v.MessageRoles = "\x00\x00\x01\x02\x03"
			v.RequestFlags = ReqSystemPrompt
		})},
		{"unknown roles skipped", `{"messages":[1,"x",null,[],{"role":"function"},{"role":"User"},{"role":5},{},{"role":"tool"}]}`, with(func(v *view) {
			v.HasMessages, v.MsgCount, v.Roles = true, 9, "\x03"
			v.MessageRoles = "\xff\xff\xff\xff\xff\xff\xff\xff\x03"
		})},
		{"escaped role", `{"messages":[{"role":"\u0073ystem"},{"role":"us\u0065r"}]}`, with(func(v *view) {
			v.HasMessages, v.MsgCount, v.Roles, v.RequestFlags = true, 2, "\x00\x01", ReqSystemPrompt
			v.MessageRoles = "\x00\x01"
		})},
		{"duplicate role", `{"messages":[{"role":"user","role":"assistant"}]}`, with(func(v *view) {
			v.HasMessages, v.MsgCount, v.Roles = true, 1, "\x02"
			v.MessageRoles = "\x02"
		})},
		{"duplicate role, last not a string", `{"messages":[{"role":"system","role":5}]}`, with(func(v *view) {
			v.HasMessages, v.MsgCount = true, 1
			v.MessageRoles = "\xff"
		})},
		{"duplicate messages", `{"messages":[{"role":"user","content":"abc"},{"content":[{"type":"image_url"}]}],"messages":[{"role":"system"}]}`, with(func(v *view) {
			v.HasMessages, v.MsgCount, v.Roles, v.RequestFlags = true, 1, "\x00", ReqSystemPrompt
			v.MessageRoles = "\x00"
		})},
		{"duplicate messages, last null", `{"messages":[{"role":"system","content":"x"}],"messages":null}`, with(func(v *view) {
			v.HasMessages = true
		})},
		{"messages not an array", `{"messages":{"role":"user","content":"x"}}`, with(func(v *view) { v.HasMessages = true })},
		{"content decoded length", `{"messages":[{"content":"\u00e9\n\ud83d\ude00é\\"}]}`, with(func(v *view) {
			v.HasMessages, v.MsgCount, v.ContentHint = true, 1, 2+1+4+2+1
			v.MessageRoles = "\xff"
		})},
		{"content parts", `{"messages":[{"content":[{"type":"text","text":"ab"},{"type":"image_url","image_url":{"url":"x"}},{"text":5},"text",{"text":"\u20ac"}]}]}`, with(func(v *view) {
			v.HasMessages, v.MsgCount, v.ContentHint, v.RequestFlags = true, 1, 5, ReqImages
			v.MessageRoles = "\xff"
		})},
		{"image type must be a string", `{"messages":[{"content":[{"type":["image_url"]}]}]}`, with(func(v *view) {
			v.HasMessages, v.MsgCount = true, 1
			v.MessageRoles = "\xff"
		})},
		{"image type escaped", `{"messages":[{"content":[{"type":"image\u005furl"}]}]}`, with(func(v *view) {
			v.HasMessages, v.MsgCount, v.RequestFlags = true, 1, ReqImages
			v.MessageRoles = "\xff"
		})},
		{"image needs array content", `{"messages":[{"content":{"type":"image_url","text":"abc"}}]}`, with(func(v *view) {
			v.HasMessages, v.MsgCount = true, 1
			v.MessageRoles = "\xff"
		})},
		{"duplicate content", `{"messages":[{"content":"abc","content":[{"text":"de"},{"type":"image_url"}]}]}`, with(func(v *view) {
			v.HasMessages, v.MsgCount, v.ContentHint, v.RequestFlags = true, 1, 2, ReqImages
			v.MessageRoles = "\xff"
		})},
		{"duplicate content, last a string", `{"messages":[{"content":[{"type":"image_url","text":"abcd"}],"content":"x"}]}`, with(func(v *view) {
			v.HasMessages, v.MsgCount, v.ContentHint = true, 1, 1
			v.MessageRoles = "\xff"
		})},
		{"duplicate text and type", `{"messages":[{"content":[{"text":"a","text":"bcd","type":"image_url","type":"text"}]}]}`, with(func(v *view) {
			v.HasMessages, v.MsgCount, v.ContentHint = true, 1, 3
			v.MessageRoles = "\xff"
		})},
		{"hint sums over messages", `{"messages":[{"content":"abc"},{"content":[{"text":"de"}]},{"content":null}]}`, with(func(v *view) {
			v.HasMessages, v.MsgCount, v.ContentHint = true, 3, 5
			v.MessageRoles = "\xff\xff\xff"
		})},

		{"presence flags", `{"tools":null,"tool_choice":0,"response_format":{},"reasoning_effort":"low","service_tier":"x","seed":1,"logprobs":false,"user":"u","temperature":0.5,"top_p":1,"stop":[]}`, with(func(v *view) {
			v.RequestFlags = ReqTools | ReqToolChoice | ReqResponseFormat | ReqReasoningEffort | ReqServiceTier |
				ReqSeed | ReqLogprobs | ReqUser | ReqTemperature | ReqTopP | ReqStop
		})},
		{"legacy function keys", `{"functions":[],"function_call":"auto"}`, with(func(v *view) { v.RequestFlags = ReqTools | ReqToolChoice })},
		{"header.rs flag test", `{"model":"gpt-4o","messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}],"stream":true,"max_tokens":100,"tools":[]}`, with(func(v *view) {
			v.HasModel, v.Model, v.ModelSet, v.HasMessages, v.MsgCount, v.Roles, v.ContentHint = true, "gpt-4o", true, true, 2, "\x00\x01", 2
			v.MessageRoles = "\x00\x01"
			v.RequestFlags = ReqSystemPrompt | ReqStream | ReqMaxTokens | ReqTools
			v.MaxTokens, v.MaxTokensOK = 100, true
		})},
		{"stream false", `{"stream":false}`, base},
		{"stream not a bool", `{"stream":"true"}`, base},
		{"stream one", `{"stream":1}`, base},
		{"duplicate stream", `{"stream":true,"stream":false}`, base},
		{"duplicate stream, last true", `{"stream":null,"stream":true}`, with(func(v *view) { v.RequestFlags = ReqStream })},

		{"max_tokens", `{"max_tokens":4294967295}`, with(func(v *view) { v.RequestFlags, v.MaxTokens, v.MaxTokensOK = ReqMaxTokens, 1<<32-1, true })},
		{"max_tokens truncated", `{"max_tokens":4294967297}`, with(func(v *view) { v.RequestFlags, v.MaxTokens, v.MaxTokensOK = ReqMaxTokens, 1, true })},
		{"max_tokens u64 max", `{"max_tokens":18446744073709551615}`, with(func(v *view) {
			v.RequestFlags, v.MaxTokens, v.MaxTokensOK = ReqMaxTokens, 1<<32-1, true
		})},
		{"max_tokens beyond u64", `{"max_tokens":18446744073709551616}`, with(func(v *view) { v.RequestFlags = ReqMaxTokens })},
		{"max_tokens zero", `{"max_tokens":0}`, with(func(v *view) { v.RequestFlags, v.MaxTokensOK = ReqMaxTokens, true })},
		{"max_tokens minus zero", `{"max_tokens":-0}`, with(func(v *view) { v.RequestFlags = ReqMaxTokens })},
		{"max_tokens negative", `{"max_tokens":-1}`, with(func(v *view) { v.RequestFlags = ReqMaxTokens })},
		{"max_tokens fraction", `{"max_tokens":1000.0}`, with(func(v *view) { v.RequestFlags = ReqMaxTokens })},
		{"max_tokens exponent", `{"max_tokens":1e3}`, with(func(v *view) { v.RequestFlags = ReqMaxTokens })},
		{"max_tokens string", `{"max_tokens":"1000"}`, with(func(v *view) { v.RequestFlags = ReqMaxTokens })},
		{"max_tokens null shadows max_completion_tokens", `{"max_tokens":null,"max_completion_tokens":5}`, with(func(v *view) {
			v.RequestFlags = ReqMaxTokens
		})},
		{"max_completion_tokens", `{"max_completion_tokens":5}`, with(func(v *view) { v.RequestFlags, v.MaxTokens, v.MaxTokensOK = ReqMaxTokens, 5, true })},
		{"max_tokens wins in any order", `{"max_completion_tokens":5,"max_tokens":7}`, with(func(v *view) {
			v.RequestFlags, v.MaxTokens, v.MaxTokensOK = ReqMaxTokens, 7, true
		})},
		{"duplicate max_tokens", `{"max_tokens":7,"max_tokens":null}`, with(func(v *view) { v.RequestFlags = ReqMaxTokens })},

		{"response", `{"id":"chatcmpl-x","model":"m","choices":[{"message":{"tool_calls":null,"refusal":"no"},"finish_reason":"content_filter"}],"usage":{"prompt_tokens":7,"completion_tokens":8,"prompt_tokens_details":{"cached_tokens":3},"completion_tokens_details":{"reasoning_tokens":4}}}`, with(func(v *view) {
			v.ID, v.IDSet, v.IDChatcmpl, v.Model, v.ModelSet, v.HasModel, v.HasChoices, v.HasUsage = "chatcmpl-x", true, true, "m", true, true, true, true
			v.FinishReason = FinishContentFilter
			v.ResponseFlags = RespToolCalls | RespRefusal | RespContentFiltered | RespUsage | RespCostEstimate | RespCachedTokens | RespReasoningTokens
			v.PromptTokens, v.CompletionTokens, v.CachedTokens, v.ReasoningTokens = 7, 8, 3, 4
		})},
		{"finish reasons", `{"choices":[{"finish_reason":"length"}]}`, with(func(v *view) {
			v.HasChoices, v.FinishReason, v.ResponseFlags = true, FinishLength, RespTruncated
		})},
		{"finish tool_calls", `{"choices":[{"finish_reason":"tool_calls"}]}`, with(func(v *view) { v.HasChoices, v.FinishReason = true, FinishToolCalls })},
		{"finish stop escaped", `{"choices":[{"finish_reason":"st\u006fp"}]}`, with(func(v *view) { v.HasChoices, v.FinishReason = true, FinishStop })},
		{"finish unknown", `{"choices":[{"finish_reason":"Stop"}]}`, with(func(v *view) { v.HasChoices = true })},
		{"duplicate finish_reason", `{"choices":[{"finish_reason":"length","finish_reason":null}]}`, with(func(v *view) { v.HasChoices = true })},
		{"only choices[0]", `{"choices":[{},{"finish_reason":"length","message":{"tool_calls":[]}}]}`, with(func(v *view) { v.HasChoices = true })},
		{"choices[0] not an object", `{"choices":[["x"],{"finish_reason":"stop"}]}`, with(func(v *view) { v.HasChoices = true })},
		{"empty choices", `{"choices":[]}`, with(func(v *view) { v.HasChoices = true })},
		{"choices not an array", `{"choices":{"finish_reason":"stop"}}`, with(func(v *view) { v.HasChoices = true })},
		{"duplicate choices", `{"choices":[{"finish_reason":"stop","message":{"refusal":""}}],"choices":[]}`, with(func(v *view) { v.HasChoices = true })},
		{"refusal not a string", `{"choices":[{"message":{"refusal":null}}]}`, with(func(v *view) { v.HasChoices = true })},
		{"duplicate refusal", `{"choices":[{"message":{"refusal":"no","refusal":null}}]}`, with(func(v *view) { v.HasChoices = true })},
		{"duplicate message", `{"choices":[{"message":{"tool_calls":[],"refusal":"x"},"message":{}}]}`, with(func(v *view) { v.HasChoices = true })},
		{"delta is not message", `{"choices":[{"delta":{"tool_calls":[]}}]}`, with(func(v *view) { v.HasChoices = true })},
		{"usage null", `{"usage":null}`, with(func(v *view) { v.HasUsage, v.ResponseFlags = true, RespUsage|RespCostEstimate })},
		{"usage counts not unsigned", `{"usage":{"prompt_tokens":-0,"completion_tokens":10.0,"prompt_tokens_details":{"cached_tokens":1e1},"completion_tokens_details":{"reasoning_tokens":"4"}}}`, with(func(v *view) {
			v.HasUsage, v.ResponseFlags = true, RespUsage|RespCostEstimate
		})},
		{"cached zero", `{"usage":{"prompt_tokens_details":{"cached_tokens":0}}}`, with(func(v *view) { v.HasUsage, v.ResponseFlags = true, RespUsage|RespCostEstimate })},
		{"cached 2^32: flag, truncated to 0", `{"usage":{"prompt_tokens_details":{"cached_tokens":4294967296}}}`, with(func(v *view) {
			v.HasUsage, v.ResponseFlags = true, RespUsage|RespCostEstimate|RespCachedTokens
		})},
		{"duplicate usage counts", `{"usage":{"prompt_tokens":5,"prompt_tokens":"x","completion_tokens":1,"completion_tokens":2}}`, with(func(v *view) {
			v.HasUsage, v.ResponseFlags, v.CompletionTokens = true, RespUsage|RespCostEstimate, 2
		})},
		{"duplicate details", `{"usage":{"prompt_tokens_details":{"cached_tokens":3},"prompt_tokens_details":null}}`, with(func(v *view) {
			v.HasUsage, v.ResponseFlags = true, RespUsage|RespCostEstimate
		})},
		{"duplicate usage", `{"usage":{"prompt_tokens":5},"usage":{}}`, with(func(v *view) { v.HasUsage, v.ResponseFlags = true, RespUsage|RespCostEstimate })},
		{"usage details outside usage", `{"prompt_tokens_details":{"cached_tokens":3},"prompt_tokens":4}`, base},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var f Fields
			if err := Scan([]byte(tc.in), Limits{}, &f); err != nil {
				t.Fatal(err)
			}
			if got := viewOf(&f); got != tc.want {
				t.Errorf("extracted\n\t%+v\nwant\n\t%+v", got, tc.want)
			}
			if ref := refExtract([]byte(tc.in)); ref != tc.want {
				t.Errorf("the reference extractor disagrees with the table:\n\t%+v", ref)
			}
		})
	}
}

func TestIsResponse(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{`{"model":"m","messages":[],"choices":[]}`, false}, // rule 1 first
		{`{"model":"m","choices":null}`, true},
		{`{"choices":1}`, true},
		{`{"id":"chatcmpl-"}`, true},
		{`{"id":"chatcmpl"}`, false},
		{`{"id":"xchatcmpl-"}`, false},
		{`{"messages":[],"id":"chatcmpl-1"}`, true},
		{`{"model":null,"messages":null,"id":"chatcmpl-1"}`, false},
		{`{}`, false},
		{`[]`, false},
	}
	for _, tc := range cases {
		var f Fields
		if err := Scan([]byte(tc.in), Limits{}, &f); err != nil {
			t.Fatal(err)
		}
		if got := f.IsResponse(); got != tc.want {
			t.Errorf("%s: IsResponse() = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestFieldsReuse scans records of every shape into one Fields and checks
// each against a fresh one, so nothing leaks from one call to the next,
// and checks that the decoded strings alias the input or a capped buffer.
func TestFieldsReuse(t *testing.T) {
	records := []string{
		`{"model":"gpt\u002d4o","id":"chatcmpl\u002dx","object":"o\u0062j","messages":[{"role":"system","content":"abc"},{"role":"user"}],"max_tokens":5,"stream":true,"usage":{"prompt_tokens_details":{"cached_tokens":9}},"choices":[{"finish_reason":"length","message":{"refusal":"r","tool_calls":1}}],"error":1,"input":1,"data":1}`,
		`[1,2,3]`,
		`{"model":"m","messages":[{"role":"tool"}]}`,
		`{}`,
		`{"model":"\u0061\u0062","messages":[{"content":[{"type":"image_url"}]}]}`,
		`{"model":"x"`, // an error in between
		`"s"`,
	}
	var reused Fields
	for round := 0; round < 2; round++ {
		for _, r := range records {
			var fresh Fields
			errFresh := Scan([]byte(r), Limits{}, &fresh)
			errReused := Scan([]byte(r), Limits{}, &reused)
			if (errFresh == nil) != (errReused == nil) {
				t.Fatalf("%s: fresh %v, reused %v", r, errFresh, errReused)
			}
			if errFresh == nil && viewOf(&fresh) != viewOf(&reused) {
				t.Errorf("%s: reused Fields gives\n\t%+v\nfresh\n\t%+v", r, viewOf(&reused), viewOf(&fresh))
			}
		}
	}

	src := []byte(`{"model":"plain","id":"e\u0073caped"}`)
	var f Fields
	if err := Scan(src, Limits{}, &f); err != nil {
		t.Fatal(err)
	}
	if &f.Model[0] != &src[10] {
		t.Error("an unescaped model does not alias the input")
	}
	if string(f.ID) != "escaped" || cap(f.ID) != len(f.ID) {
		t.Errorf("escaped id %q has cap %d, want it capped at its length", f.ID, cap(f.ID))
	}
}

// TestAllocs checks that Scan, with every kernel, allocates nothing with a
// reused Fields, for records that take every path (escapes decoded into
// the buffer, roles, deep nesting, errors excepted).
func TestAllocs(t *testing.T) {
	records := [][]byte{
		[]byte(`{"model":"gpt-4o","messages":[{"role":"system","content":"You are \"helpful\".\n"},{"role":"user","content":[{"type":"text","text":"Hi é😀"},{"type":"image_url","image_url":{"url":"data:,"}}]}],"temperature":0.7,"max_tokens":1000,"stream":true}`),
		[]byte(`{"id":"chatcmpl-\u0041bc","object":"chat.completion","model":"gpt\u002d4o","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":50,"completion_tokens":10,"prompt_tokens_details":{"cached_tokens":5}}}`),
		[]byte(nest(32, true)),
		[]byte(`{"m\u006fdel":"x","messages":[{"r\u006fle":"\u0075ser"}]}`),
		[]byte(`[1e-400, -0, 12345678901234567890123, "x"]`),
	}
	cputest.Run(t, "jsonscan", func(t *testing.T) {
		var f Fields
		for _, r := range records {
			if err := Scan(r, Limits{}, &f); err != nil { // grow the buffers
				t.Fatalf("%s: %v", r, err)
			}
		}
		allocs := testing.AllocsPerRun(100, func() {
			for _, r := range records {
				if err := Scan(r, Limits{}, &f); err != nil {
					panic(err)
				}
			}
		})
		if allocs != 0 {
			t.Errorf("Scan allocates %v times per round with a reused Fields, want 0", allocs)
		}
	})
}
