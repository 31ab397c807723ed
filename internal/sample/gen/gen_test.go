package gen

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestDeterministic(t *testing.T) {
	a, b := Generate(7, 120), Generate(7, 120)
	if !bytes.Equal(a, b) {
		t.Fatal("two runs with the same seed differ")
	}
	if c := Generate(8, 120); bytes.Equal(a, c) {
		t.Fatal("seeds 7 and 8 give the same output")
	}
	if n := bytes.Count(a, []byte("\n")); n != 120 {
		t.Fatalf("Generate(7, 120) has %d lines", n)
	}
	if Generate(7, 0) != nil {
		t.Fatal("Generate(7, 0) is not empty")
	}
}

// TestDocumentedStatistics checks the numbers the package documentation
// gives for the sample450 sample.
func TestDocumentedStatistics(t *testing.T) {
	got, _ := measure(t, sample450)
	want := numbers{
		lines:          450,
		bytes:          1178370,
		kinds:          [numKinds]int{246, 131, 50, 23},
		lengthP:        [5]int{323, 613, 1225, 2896, 5541},
		maxLength:      44727,
		resends:        115,
		promptRequests: 225,
		systemPrompts:  31,
		topPromptUses:  23,
		toolRequests:   55,
		toolSets:       12,
		topToolSetUses: 23,
		streams:        1,
	}
	if got != want {
		t.Errorf("the sample's statistics changed; update the package documentation and this test:\n got %+v\nwant %+v", got, want)
	}
}

// TestMixAnySeed checks that the record mix stays near its target shares
// whatever the seed.
func TestMixAnySeed(t *testing.T) {
	for seed := range uint64(4) {
		st, _ := measure(t, Generate(seed, DefaultLines))
		for k, n := range st.kinds {
			share := n * 100 / st.lines
			if d := share - targetShare[k]; d < -3 || d > 3 {
				t.Errorf("seed %d: record kind %d is %d%% of the lines, want %d%%", seed, k, share, targetShare[k])
			}
		}
		if st.resends*100 < 30*st.kinds[kindRequest] || st.resends*100 > 55*st.kinds[kindRequest] {
			t.Errorf("seed %d: %d of %d requests re-send an earlier request's messages, want 30%% to 55%%", seed, st.resends, st.kinds[kindRequest])
		}
	}
}

// documentedFeatures are the kinds of content the package documentation
// promises; measure names what it finds the same way.
var documentedFeatures = []string{
	"role:system", "role:developer", "role:user", "role:assistant", "role:tool",
	"param:temperature", "param:top_p", "param:max_tokens", "param:max_completion_tokens",
	"param:stream", "param:stream_options", "param:tools", "param:tool_choice",
	"param:parallel_tool_calls", "param:response_format", "param:seed", "param:user",
	"param:stop", "param:reasoning_effort", "tool_choice:function", "retry",
	"response_format:text", "response_format:json_object", "response_format:json_schema",
	"order:model-first", "order:messages-first",
	"part:text", "part:image_url", "tool_calls", "parallel tool_calls",
	"finish:stop", "finish:length", "finish:tool_calls", "finish:content_filter", "refusal",
	"cached_tokens", "reasoning_tokens",
	"provider:openai", "provider:litellm", "provider:vllm", "provider:groq",
	"stream:usage", "embedding:string", "embedding:array",
	"text:non-ascii", "text:cjk", "text:emoji", `escape:\n`, `escape:\r`, `escape:\t`, `escape:\"`, `escape:\\`, `escape:\u`,
	"text:ansi", "text:json.dumps ascii",
}

// TestFeatures checks that the sample has every kind of content the
// package documentation lists.
func TestFeatures(t *testing.T) {
	_, features := measure(t, sample450)
	for _, f := range documentedFeatures {
		if !slices.Contains(features, f) {
			t.Errorf("sample has no %s", f)
		}
	}
}

// numbers are the measured statistics of a sample.
type numbers struct {
	lines, bytes int
	kinds        [numKinds]int
	// lengthP are the 10th, 25th, 50th, 75th and 90th percentiles of line
	// length in bytes, without the newline.
	lengthP   [5]int
	maxLength int
	// resends counts requests whose messages begin with all the messages
	// of an earlier request: later turns of a conversation.
	resends int
	// promptRequests counts requests with a system or developer message,
	// systemPrompts the distinct ones, topPromptUses how often the most
	// used one appears.
	promptRequests, systemPrompts, topPromptUses int
	// toolRequests counts requests with tools, toolSets the distinct
	// "tools" arrays, topToolSetUses how often the most used one appears.
	toolRequests, toolSets, topToolSetUses int
	streams                                int
}

// measure decodes a sample, checks the invariants every sample must hold
// (one valid JSON object a line, timestamps that never go back, consistent
// token counts, streams in one piece), and returns its statistics and the
// features found in it (see TestFeatures).
func measure(t *testing.T, data []byte) (numbers, []string) {
	t.Helper()
	var st numbers
	var features []string
	feature := func(f string) {
		if !slices.Contains(features, f) {
			features = append(features, f)
		}
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatal("sample does not end with a newline")
	}
	var lengths []int
	var created int64
	seen, lines := map[string]bool{}, map[string]bool{}
	prompts, toolSets := map[string]int{}, map[string]int{}
	streams, lastStream := map[string]bool{}, ""
	for i, line := range bytes.Split(data[:len(data)-1], []byte("\n")) {
		st.lines++
		st.bytes += len(line) + 1
		lengths = append(lengths, len(line))
		if !json.Valid(line) {
			t.Fatalf("line %d is not valid JSON", i+1)
		}
		var rec record
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&rec); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, esc := range []string{`\n`, `\r`, `\t`, `\"`, `\\`, `\u`} {
			if bytes.Contains(line, []byte(esc)) {
				feature("escape:" + esc)
			}
		}
		if bytes.Contains(line, []byte(`\u001b[`)) {
			feature("text:ansi")
		}
		if bytes.Contains(line, []byte(`\\u`)) {
			feature("text:json.dumps ascii")
		}
		for _, r := range string(line) {
			switch {
			case r >= 0x4e00 && r <= 0x9fff:
				feature("text:cjk")
			case r >= 0x1f300:
				feature("text:emoji")
			case r > 0x7f:
				feature("text:non-ascii")
			}
		}
		if rec.Created != 0 {
			if rec.Created < created {
				t.Errorf("line %d: created %d is before %d", i+1, rec.Created, created)
			}
			created = rec.Created
		}
		if rec.Usage != nil {
			rec.Usage.check(t, i+1, feature)
		}
		if rec.Object != "chat.completion.chunk" {
			lastStream = ""
		}
		switch {
		case rec.Object == "chat.completion":
			st.kinds[kindCompletion]++
			rec.completionFeatures(feature)
		case rec.Object == "chat.completion.chunk":
			st.kinds[kindChunk]++
			if rec.ID != lastStream {
				if streams[rec.ID] {
					t.Errorf("line %d: stream %s resumes after other records", i+1, rec.ID)
				}
				streams[rec.ID], lastStream = true, rec.ID
			}
			if len(rec.Choices) == 0 && rec.Usage != nil {
				feature("stream:usage")
			}
		case rec.Input != nil:
			st.kinds[kindEmbedding]++
			if rec.Input[0] == '"' {
				feature("embedding:string")
			} else {
				feature("embedding:array")
			}
		case rec.Messages != nil:
			st.kinds[kindRequest]++
			rec.requestFeatures(line, feature)
			if lines[string(line)] {
				feature("retry")
			}
			lines[string(line)] = true
			key, resend := "", false
			for j, m := range rec.Messages {
				key += string(m) + ","
				resend = resend || j < len(rec.Messages)-1 && seen[key]
			}
			seen[key] = true
			if resend {
				st.resends++
			}
			var msg struct{ Role, Content string }
			if json.Unmarshal(rec.Messages[0], &msg) == nil && (msg.Role == "system" || msg.Role == "developer") {
				st.promptRequests++
				prompts[msg.Content]++
			}
			if rec.Tools != nil {
				st.toolRequests++
				toolSets[string(rec.Tools)]++
			}
		default:
			t.Fatalf("line %d is no known kind of record", i+1)
		}
	}
	slices.Sort(lengths)
	for i, p := range []int{10, 25, 50, 75, 90} {
		st.lengthP[i] = lengths[len(lengths)*p/100]
	}
	st.maxLength = lengths[len(lengths)-1]
	st.systemPrompts, st.topPromptUses = len(prompts), maxValue(prompts)
	st.toolSets, st.topToolSetUses = len(toolSets), maxValue(toolSets)
	st.streams = len(streams)
	return st, features
}

func maxValue(m map[string]int) int {
	n := 0
	for _, v := range m {
		n = max(n, v)
	}
	return n
}

// record has the fields of all record kinds that the tests look at.
type record struct {
	ID       string
	Object   string
	Created  int64
	Messages []json.RawMessage
	Tools    json.RawMessage
	Input    json.RawMessage
	Choices  []struct {
		FinishReason string `json:"finish_reason"`
		Message      *struct {
			ToolCalls []json.RawMessage `json:"tool_calls"`
			Refusal   *string
		}
	}
	Usage       *usageJSON
	XGroq       json.RawMessage `json:"x_groq"`
	PromptLogp  json.RawMessage `json:"prompt_logprobs"`
	ServiceTier string          `json:"service_tier"`
	Fingerprint *string         `json:"system_fingerprint"`
}

func (rec *record) completionFeatures(feature func(string)) {
	switch {
	case rec.XGroq != nil:
		feature("provider:groq")
	case rec.PromptLogp != nil:
		feature("provider:vllm")
	case rec.ServiceTier != "":
		feature("provider:openai")
	case rec.Fingerprint == nil:
		feature("provider:litellm")
	}
	for _, c := range rec.Choices {
		feature("finish:" + c.FinishReason)
		if c.Message.Refusal != nil {
			feature("refusal")
		}
	}
}

func (rec *record) requestFeatures(line []byte, feature func(string)) {
	if bytes.HasPrefix(line, []byte(`{"model":`)) {
		feature("order:model-first")
	} else if bytes.HasPrefix(line, []byte(`{"messages":`)) {
		feature("order:messages-first")
	}
	var params map[string]json.RawMessage
	json.Unmarshal(line, &params)
	for k := range params {
		if k != "model" && k != "messages" {
			feature("param:" + k)
		}
	}
	if tc := params["tool_choice"]; tc != nil && tc[0] == '{' {
		feature("tool_choice:function")
	}
	var format struct{ Type string }
	if json.Unmarshal(params["response_format"], &format) == nil && format.Type != "" {
		feature("response_format:" + format.Type)
	}
	for _, m := range rec.Messages {
		var msg struct {
			Role      string
			Content   json.RawMessage
			ToolCalls []json.RawMessage `json:"tool_calls"`
		}
		json.Unmarshal(m, &msg)
		feature("role:" + msg.Role)
		switch {
		case len(msg.ToolCalls) > 1:
			feature("parallel tool_calls")
			fallthrough
		case len(msg.ToolCalls) == 1:
			feature("tool_calls")
		}
		var parts []struct{ Type string }
		if json.Unmarshal(msg.Content, &parts) == nil {
			for _, p := range parts {
				feature("part:" + p.Type)
			}
		}
	}
}

// usageJSON is the usage object of all providers.
type usageJSON struct {
	Prompt     int `json:"prompt_tokens"`
	Completion int `json:"completion_tokens"`
	Total      int `json:"total_tokens"`
	PromptDet  *struct {
		Cached int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionDet *struct {
		Reasoning int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func (u *usageJSON) check(t *testing.T, line int, feature func(string)) {
	t.Helper()
	if u.Prompt <= 0 || u.Completion <= 0 || u.Total != u.Prompt+u.Completion {
		t.Errorf("line %d: inconsistent usage %+v", line, *u)
	}
	if u.PromptDet != nil && u.PromptDet.Cached > 0 {
		feature("cached_tokens")
		if u.PromptDet.Cached > u.Prompt || u.PromptDet.Cached%128 != 0 {
			t.Errorf("line %d: %d cached of %d prompt tokens", line, u.PromptDet.Cached, u.Prompt)
		}
	}
	if u.CompletionDet != nil && u.CompletionDet.Reasoning > 0 {
		feature("reasoning_tokens")
		if u.CompletionDet.Reasoning >= u.Completion {
			t.Errorf("line %d: %d reasoning of %d completion tokens", line, u.CompletionDet.Reasoning, u.Completion)
		}
	}
}

// TestJSONStrings checks the string encoder against encoding/json on text
// that needs every kind of escape.
func TestJSONStrings(t *testing.T) {
	for _, s := range []string{
		"", "plain", "quote \" backslash \\ slash / <tag> & amp",
		"lines\nand\r\nreturns\ttabs\bback\fform", "\x00\x01\x1b[31m\x1f\x7f",
		"café naïve Zürich São Paulo", "中文，标点。", "emoji 😊 🚀 ⚠️", "\u2028\u2029",
	} {
		for _, style := range []jsonStyle{compact, pythonJSON, pythonUTF8} {
			enc := style.encode(s)
			var back string
			if err := json.Unmarshal([]byte(enc), &back); err != nil || back != s {
				t.Errorf("%+v: %q encodes as %s, which decodes to %q (%v)", style, s, enc, back, err)
			}
			if style.ascii && strings.ContainsFunc(enc, func(r rune) bool { return r > 0x7e }) {
				t.Errorf("%+v: %q encodes as %s, not ASCII", style, s, enc)
			}
		}
	}
	o := object{{"b", 1}, {"a", []any{nil, true, number("0.5"), "x"}}, {"c", object{}}}
	if got, want := compact.encode(o), `{"b":1,"a":[null,true,0.5,"x"],"c":{}}`; got != want {
		t.Errorf("compact: got %s, want %s", got, want)
	}
	if got, want := pythonJSON.encode(o), `{"b": 1, "a": [null, true, 0.5, "x"], "c": {}}`; got != want {
		t.Errorf("python: got %s, want %s", got, want)
	}
}

func TestNumbers(t *testing.T) {
	for us, want := range map[int]number{212256: "0.212256", 9970: "0.00997", 50000: "0.05", 0: "0.0", 1500000: "1.5"} {
		if got := seconds(us); got != want {
			t.Errorf("seconds(%d) = %s, want %s", us, got, want)
		}
	}
	for h, want := range map[int]number{85050: "850.5", 1200: "12.0", 1234: "12.34", 7: "0.07"} {
		if got := decimal(h); got != want {
			t.Errorf("decimal(%d) = %s, want %s", h, got, want)
		}
	}
}

func TestInflection(t *testing.T) {
	for _, c := range [][4]string{
		// verb, third person, past, gerund
		{"stop", "stops", "stopped", "stopping"},
		{"commit", "commits", "committed", "committing"},
		{"create", "creates", "created", "creating"},
		{"apply", "applies", "applied", "applying"},
		{"build", "builds", "built", "building"},
		{"fix", "fixes", "fixed", "fixing"},
		{"warm up", "warms up", "warmed up", "warming up"},
		{"edit", "edits", "edited", "editing"},
		{"agree", "agrees", "agreed", "agreeing"},
	} {
		if got := [4]string{c[0], thirdPerson(c[0]), past(c[0]), gerund(c[0])}; got != c {
			t.Errorf("got %q, want %q", got, c)
		}
	}
	for in, want := range map[string]string{"analysis": "analyses", "stack trace": "stack traces", "strategy": "strategies", "day": "days"} {
		if got := pluralOf(in); got != want {
			t.Errorf("pluralOf(%q) = %q, want %q", in, got, want)
		}
	}
	if got := fixArticles("a apple, a unique pear and a hour"); got != "An apple, a unique pear and an hour" {
		t.Errorf("fixArticles: %q", got)
	}
}

func BenchmarkGenerate(b *testing.B) {
	b.SetBytes(int64(len(sample450)))
	for b.Loop() {
		Generate(DefaultSeed, DefaultLines)
	}
}

// sample450 is the sample package sample embeds.
var sample450 = Generate(DefaultSeed, DefaultLines)
