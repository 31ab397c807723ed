// Command reshape rewrites a JSONL log of OpenAI chat traffic (requests
// with "messages", responses with "choices", as the dev corpora hold) into
// another shape real logs of LLM traffic take, so that the archive can be
// measured on shapes its corpora lack with the same text in them:
//
// -kind anthropic: Anthropic's Messages API, as a proxy that speaks it
// logs it: requests with a "system" string and content blocks, tools with
// an "input_schema"; responses of type "message" with text and tool_use
// blocks, a stop reason and usage in input and output tokens.
//
// -kind batch: OpenAI's Batch API files: each request a line of an input
// file ({"custom_id","method","url","body"}), each response a line of an
// output file ({"id","custom_id","response":{"status_code","request_id",
// "body"},"error"}), the bodies as they were (compacted, as encoding/json
// writes a json.RawMessage: the corpora's lines are compact already).
//
// -kind gateway: a gateway's request log (LiteLLM, Helicone, Portkey
// write such lines): each request or response inside a record of its own
// fields: a UUID, an ISO 8601 timestamp, the user, status, latency, cost
// and tags.
//
// -kind bodies: the gateway's log with each request or response as a
// string of its JSON text (as encoding/json escapes it), as gateways that
// keep bodies as text write them.
//
// -kind logline: each line behind a container runtime's prefix (CRI's, as
// Kubernetes nodes keep containers' output: an RFC 3339 timestamp in
// nanoseconds, the stream, a tag), as a log shipper collects it.
//
// -kind sse: each line as a server-sent event ("data: " before it, a
// blank line after it), as a proxy that logs the stream it passes on.
//
// -kind images: a user message of some requests (one in seven, chosen by
// its text) with an image attached, as vision requests send it: its
// content an array of its text and an image_url part holding a data URL
// of 2 to 30 KB of base64 (bytes drawn from its text's hash: the same
// message re-sent in a later turn holds the same image, as a
// conversation's history does; random bytes, as a JPEG's or a PNG's
// compressed data are to any coder). The rest of the line is as it was.
//
// -kind csv: the log as a warehouse exports it: CSV (CRLF, as Python's
// csv module and spreadsheets write it) of an id, a time and the line,
// quoted as CSV quotes it (each '"' doubled), after a header row.
//
// -kind pretty: each line's JSON indented by two spaces, one value after
// another, as jq . writes them.
//
// -kind array: the lines' JSON values as one array, indented by two
// spaces, as Python's json.dump(data, indent=2) writes a data set (lines
// that are not JSON left out: an array holds values).
//
// Lines that are not JSON objects, and objects of other shapes (embedding
// requests, say), pass through unchanged in anthropic, pretty and array
// (but for array's text), wrapped as the others are in the other kinds.
// The same input and seed write the same bytes.
//
//	go run ./bench/reshape -kind batch < dev.jsonl > batch.jsonl
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"time"
)

func main() {
	kind := flag.String("kind", "anthropic", "anthropic, batch, gateway, bodies, logline, sse, images, csv, pretty or array")
	seed := flag.Uint64("seed", 1, "random seed (ids, times, latencies)")
	flag.Parse()
	r, err := newReshaper(*kind, *seed)
	if err == nil {
		err = r.run(os.Stdin, os.Stdout)
	}
	if err != nil {
		fail(err)
	}
}

// newReshaper returns the reshaper of kind, its randomness from seed.
func newReshaper(kind string, seed uint64) (*reshaper, error) {
	r := &reshaper{rng: rand.New(rand.NewPCG(seed, 7)), at: time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)}
	switch kind {
	case "anthropic":
		r.line = r.anthropic
	case "batch":
		r.line = r.batch
	case "gateway":
		r.line = func(obj map[string]json.RawMessage, raw []byte) any { return r.gateway(obj, json.RawMessage(raw)) }
	case "bodies":
		r.line = func(obj map[string]json.RawMessage, raw []byte) any { return r.gateway(obj, string(raw)) }
	case "logline":
		r.line = r.logline
	case "sse":
		r.line = func(_ map[string]json.RawMessage, raw []byte) any {
			return append(append([]byte("data: "), raw...), '\n')
		}
	case "images":
		r.line = func(obj map[string]json.RawMessage, raw []byte) any { return withImage(obj, raw) }
	case "csv":
		r.text, r.end = r.csvRow, func() []byte { return nil }
	case "pretty":
		r.text = func(raw []byte) []byte {
			var b bytes.Buffer
			if json.Indent(&b, raw, "", "  ") != nil {
				return raw
			}
			return b.Bytes()
		}
	case "array":
		r.text, r.end = r.element, r.closeArray
	default:
		return nil, errors.New("-kind is anthropic, batch, gateway, bodies, logline, sse, images, csv, pretty or array")
	}
	return r, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "reshape:", err)
	os.Exit(1)
}

type reshaper struct {
	rng  *rand.Rand
	at   time.Time // the gateway's clock
	n    int       // lines read
	line func(obj map[string]json.RawMessage, raw []byte) any
	// text, where not nil, is what each line becomes in place of line
	// (nil: nothing), a line feed after it unless end is set, which
	// kinds whose text ends its own lines set, and whose bytes end the
	// file.
	text     func(raw []byte) []byte
	end      func() []byte
	elements int // array's, so far
}

// element returns raw, JSON, as an element of array's one array: after
// the bracket that opens it, or the comma after the one before; nothing
// for a line that is not JSON.
func (r *reshaper) element(raw []byte) []byte {
	if !json.Valid(raw) {
		return nil
	}
	var b bytes.Buffer
	if r.elements++; r.elements == 1 {
		b.WriteString("[\n  ")
	} else {
		b.WriteString(",\n  ")
	}
	json.Indent(&b, raw, "  ", "  ")
	return b.Bytes()
}

// csvRow returns raw as a row of csv's export, its line feed (CRLF)
// included, the header row before the first.
func (r *reshaper) csvRow(raw []byte) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.UseCRLF = true
	if r.n == 1 {
		w.Write([]string{"id", "created_at", "payload"})
	}
	r.at = r.at.Add(time.Duration(100+r.rng.IntN(5000)) * time.Millisecond)
	w.Write([]string{strconv.Itoa(r.n), r.at.Format(time.RFC3339Nano), string(raw)})
	w.Flush()
	return b.Bytes()
}

// closeArray ends array's array.
func (r *reshaper) closeArray() []byte {
	if r.elements == 0 {
		return []byte("[]\n")
	}
	return []byte("\n]\n")
}

// run rewrites each line of in to out.
func (r *reshaper) run(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	w := bufio.NewWriterSize(out, 1<<20)
	enc := json.NewEncoder(w) // each line ended by a line feed
	enc.SetEscapeHTML(false)
	for sc.Scan() {
		raw := sc.Bytes()
		r.n++
		if r.text != nil {
			if t := r.text(raw); t != nil {
				w.Write(t)
				if r.end == nil {
					w.WriteByte('\n')
				}
			}
			continue
		}
		var obj map[string]json.RawMessage
		var v any
		if json.Unmarshal(raw, &obj) == nil && obj != nil {
			v = r.line(obj, raw)
		}
		if v == nil { // as it is
			v = raw
		}
		if b, ok := v.([]byte); ok { // text
			w.Write(b)
			w.WriteByte('\n')
			continue
		}
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("line %d: %v", r.n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if r.end != nil {
		w.Write(r.end())
	}
	return w.Flush()
}

// ordered is a JSON object whose keys keep the order they were added in.
type ordered []field

type field struct {
	key string
	val any
}

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(f.key); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
		b.WriteByte(':')
		if err := enc.Encode(f.val); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// id returns n random letters and digits.
func (r *reshaper) id(n int) string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[r.rng.IntN(len(chars))]
	}
	return string(b)
}

// uuid returns a random version 4 UUID.
func (r *reshaper) uuid() string {
	var u [16]byte
	for i := range u {
		u[i] = byte(r.rng.Uint32())
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:])
}

func isResponse(obj map[string]json.RawMessage) bool { return obj["choices"] != nil }

func (r *reshaper) batch(obj map[string]json.RawMessage, raw []byte) any {
	custom := fmt.Sprintf("request-%d", r.n)
	if isResponse(obj) {
		return ordered{
			{"id", "batch_req_" + r.id(32)},
			{"custom_id", custom},
			{"response", ordered{
				{"status_code", 200},
				{"request_id", fmt.Sprintf("%016x%016x", r.rng.Uint64(), r.rng.Uint64())},
				{"body", json.RawMessage(raw)},
			}},
			{"error", nil},
		}
	}
	url := "/v1/chat/completions"
	if obj["input"] != nil {
		url = "/v1/embeddings"
	}
	return ordered{{"custom_id", custom}, {"method", "POST"}, {"url", url}, {"body", json.RawMessage(raw)}}
}

// gateway returns the gateway's record of obj, whose JSON text is body:
// the text itself or a string of it.
func (r *reshaper) gateway(obj map[string]json.RawMessage, body any) any {
	r.at = r.at.Add(time.Duration(5+r.rng.IntN(4000)) * time.Millisecond)
	side := "request"
	if isResponse(obj) {
		side = "response"
	}
	envs := [...]string{"prod", "prod", "staging"}
	teams := [...]string{"search", "support", "ml", "growth"}
	return ordered{
		{"request_id", r.uuid()},
		{"timestamp", r.at.Format("2006-01-02T15:04:05.000Z")},
		{"provider", "openai"},
		{"endpoint", "/v1/chat/completions"},
		{"user_id", fmt.Sprintf("user_%d", 1+r.rng.IntN(300))},
		{"status", 200},
		{"latency_ms", 80 + r.rng.IntN(9000)},
		{side, body},
		{"cost_usd", float64(r.rng.IntN(20000)) / 1e6},
		{"tags", ordered{{"env", envs[r.rng.IntN(len(envs))]}, {"team", teams[r.rng.IntN(len(teams))]}}},
	}
}

// logline returns raw behind a CRI log line's prefix.
func (r *reshaper) logline(_ map[string]json.RawMessage, raw []byte) any {
	r.at = r.at.Add(time.Duration(5+r.rng.IntN(4000))*time.Millisecond + time.Duration(r.rng.IntN(1e6)))
	return append(r.at.AppendFormat(nil, "2006-01-02T15:04:05.000000000Z07:00 stdout F "), raw...)
}

// claude maps a model name to one of a few of Anthropic's, the same one
// each time, so that a log keeps as many models as it had (up to four).
func claude(model json.RawMessage) string {
	names := [...]string{"claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805", "claude-3-5-haiku-20241022", "claude-sonnet-4-20250514"}
	h := fnv.New32a()
	h.Write(model)
	return names[h.Sum32()%uint32(len(names))]
}

type message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []toolCall      `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

type toolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// blocks returns an OpenAI message's content as Anthropic's content
// blocks: a string as one text block, parts of type text as text blocks,
// any other part as it is.
func blocks(content json.RawMessage) []any {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return []any{ordered{{"type", "text"}, {"text", s}}}
	}
	var parts []map[string]json.RawMessage
	if json.Unmarshal(content, &parts) != nil {
		return nil
	}
	var out []any
	for _, p := range parts {
		var typ, text string
		json.Unmarshal(p["type"], &typ)
		if typ == "text" && json.Unmarshal(p["text"], &text) == nil {
			out = append(out, ordered{{"type", "text"}, {"text", text}})
		} else {
			out = append(out, p)
		}
	}
	return out
}

// input returns a tool call's arguments as the object Anthropic's
// tool_use block holds (an empty one where they are not JSON).
func input(args string) any {
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	return map[string]any{}
}

func (r *reshaper) anthropic(obj map[string]json.RawMessage, raw []byte) any {
	if isResponse(obj) {
		return r.anthropicResponse(obj)
	}
	var msgs []message
	if json.Unmarshal(obj["messages"], &msgs) != nil {
		return nil
	}
	req := ordered{{"model", claude(obj["model"])}}
	maxTokens := json.RawMessage("4096")
	if obj["max_tokens"] != nil {
		maxTokens = obj["max_tokens"]
	}
	req = append(req, field{"max_tokens", maxTokens})
	var turns []any
	for _, m := range msgs {
		switch m.Role {
		case "system", "developer":
			var s string
			if json.Unmarshal(m.Content, &s) == nil {
				req = append(req, field{"system", s})
			} else {
				req = append(req, field{"system", blocks(m.Content)})
			}
			continue
		case "tool":
			var s string
			json.Unmarshal(m.Content, &s)
			turns = append(turns, ordered{{"role", "user"}, {"content", []any{
				ordered{{"type", "tool_result"}, {"tool_use_id", "toolu_" + m.ToolCallID}, {"content", s}},
			}}})
			continue
		}
		role := "user"
		if m.Role == "assistant" {
			role = "assistant"
		}
		content := blocks(m.Content)
		for _, tc := range m.ToolCalls {
			content = append(content, ordered{{"type", "tool_use"}, {"id", "toolu_" + tc.ID}, {"name", tc.Function.Name}, {"input", input(tc.Function.Arguments)}})
		}
		turns = append(turns, ordered{{"role", role}, {"content", content}})
	}
	req = append(req, field{"messages", turns})
	var tools []struct {
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if json.Unmarshal(obj["tools"], &tools) == nil && len(tools) > 0 {
		var out []any
		for _, t := range tools {
			schema := t.Function.Parameters
			if schema == nil {
				schema = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			out = append(out, ordered{{"name", t.Function.Name}, {"description", t.Function.Description}, {"input_schema", schema}})
		}
		req = append(req, field{"tools", out})
	}
	for _, k := range []string{"temperature", "top_p", "stream"} {
		if obj[k] != nil {
			req = append(req, field{k, obj[k]})
		}
	}
	return req
}

func (r *reshaper) anthropicResponse(obj map[string]json.RawMessage) any {
	var choices []struct {
		Message      message  `json:"message"`
		Delta        *message `json:"delta"`
		FinishReason string   `json:"finish_reason"`
	}
	var usage struct {
		Prompt     int `json:"prompt_tokens"`
		Completion int `json:"completion_tokens"`
	}
	json.Unmarshal(obj["choices"], &choices)
	json.Unmarshal(obj["usage"], &usage)
	if len(choices) > 0 && choices[0].Delta != nil {
		return r.event(obj, choices[0].Delta, choices[0].FinishReason, usage.Completion)
	}
	var content []any
	stop := "end_turn"
	if len(choices) > 0 {
		m := choices[0].Message
		var s string
		if json.Unmarshal(m.Content, &s) == nil && s != "" {
			content = append(content, ordered{{"type", "text"}, {"text", s}})
		}
		for _, tc := range m.ToolCalls {
			content = append(content, ordered{{"type", "tool_use"}, {"id", "toolu_" + r.id(24)}, {"name", tc.Function.Name}, {"input", input(tc.Function.Arguments)}})
			stop = "tool_use"
		}
		if choices[0].FinishReason == "length" {
			stop = "max_tokens"
		}
	}
	if content == nil {
		content = []any{}
	}
	return ordered{
		{"id", "msg_" + r.id(24)},
		{"type", "message"},
		{"role", "assistant"},
		{"model", claude(obj["model"])},
		{"content", content},
		{"stop_reason", stop},
		{"stop_sequence", nil},
		{"usage", ordered{{"input_tokens", usage.Prompt}, {"cache_creation_input_tokens", 0}, {"cache_read_input_tokens", 0}, {"output_tokens", usage.Completion}}},
	}
}

// event returns a chunk of a streamed chat completion as the event of
// Anthropic's stream that carries the same: the first (a role) as
// message_start, text as a text_delta, a tool call's arguments as an
// input_json_delta, a finish reason as message_delta, and a chunk of none
// of these (the usage OpenAI sends last) as message_stop.
func (r *reshaper) event(obj map[string]json.RawMessage, d *message, finish string, output int) any {
	var text string
	json.Unmarshal(d.Content, &text)
	switch {
	case finish != "":
		stop := "end_turn"
		switch finish {
		case "length":
			stop = "max_tokens"
		case "tool_calls":
			stop = "tool_use"
		}
		return ordered{{"type", "message_delta"}, {"delta", ordered{{"stop_reason", stop}, {"stop_sequence", nil}}}, {"usage", ordered{{"output_tokens", output}}}}
	case d.Role != "":
		return ordered{{"type", "message_start"}, {"message", ordered{
			{"id", "msg_" + r.id(24)}, {"type", "message"}, {"role", "assistant"}, {"model", claude(obj["model"])},
			{"content", []any{}}, {"stop_reason", nil}, {"stop_sequence", nil},
			{"usage", ordered{{"input_tokens", 0}, {"output_tokens", 1}}},
		}}}
	case text != "":
		return ordered{{"type", "content_block_delta"}, {"index", 0}, {"delta", ordered{{"type", "text_delta"}, {"text", text}}}}
	case len(d.ToolCalls) > 0:
		return ordered{{"type", "content_block_delta"}, {"index", 1}, {"delta", ordered{{"type", "input_json_delta"}, {"partial_json", d.ToolCalls[0].Function.Arguments}}}}
	}
	return ordered{{"type", "message_stop"}}
}

// withImage returns raw with an image attached to its first user message
// whose content is a string, if that message's text is one of those that
// get one; else nil (the line as it is).
func withImage(obj map[string]json.RawMessage, raw []byte) any {
	var msgs []json.RawMessage
	if json.Unmarshal(obj["messages"], &msgs) != nil {
		return nil
	}
	for _, m := range msgs {
		var msg struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m, &msg) != nil || msg.Role != "user" || len(msg.Content) == 0 || msg.Content[0] != '"' {
			continue
		}
		h := fnv.New64a()
		h.Write(msg.Content)
		seed := h.Sum64()
		if seed%7 != 0 {
			return nil
		}
		rng := rand.New(rand.NewPCG(seed, 11))
		img := make([]byte, 2048+rng.IntN(28<<10))
		for i := range img {
			img[i] = byte(rng.Uint32())
		}
		content := fmt.Appendf(nil, `[{"type":"text","text":%s},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,%s"}}]`,
			msg.Content, base64.StdEncoding.EncodeToString(img))
		// The content replaced in its message, and the message in the
		// line, byte for byte: the rest as it was.
		i := bytes.Index(m, msg.Content)
		newMsg := append(append(append([]byte(nil), m[:i]...), content...), m[i+len(msg.Content):]...)
		j := bytes.Index(raw, m)
		return append(append(append([]byte(nil), raw[:j]...), newMsg...), raw[j+len(m):]...)
	}
	return nil
}
