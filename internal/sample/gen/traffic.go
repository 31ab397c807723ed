package gen

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The traffic model. Applications (apps.go) open sessions; a session is one
// conversation, scripted in full when it opens, whose turns are sent as
// chat requests that each carry the whole history so far. Several sessions
// are open at once, so their requests interleave with each other, with
// responses (logged a few lines after their request, for about half of the
// requests) and with embedding requests. Quotas keep the record mix near
// the target shares whatever the seed.

// Record kinds, as counted in the mix.
const (
	kindRequest    = iota // chat completion request
	kindCompletion        // chat.completion response
	kindChunk             // chat.completion.chunk stream event
	kindEmbedding         // embedding request
	numKinds
)

// Target shares of the record mix, in percent.
var targetShare = [numKinds]int{55, 30, 10, 5}

// provider is the server behind a model; it decides the response format.
type provider int

const (
	openAI  provider = iota // api.openai.com
	litellm                 // Anthropic models behind LiteLLM's OpenAI-compatible proxy
	vllm                    // open-weight models served by vLLM
	groq                    // open-weight models served by Groq
)

// model is a chat model as a client names it and as the response names it.
type model struct {
	name     string
	served   string
	provider provider
}

var (
	gpt41       = &model{"gpt-4.1", "gpt-4.1-2025-04-14", openAI}
	gpt41Mini   = &model{"gpt-4.1-mini", "gpt-4.1-mini-2025-04-14", openAI}
	gpt41Nano   = &model{"gpt-4.1-nano", "gpt-4.1-nano-2025-04-14", openAI}
	gpt4o       = &model{"gpt-4o", "gpt-4o-2024-08-06", openAI}
	gpt4oMini   = &model{"gpt-4o-mini", "gpt-4o-mini-2024-07-18", openAI}
	gpt4Turbo   = &model{"gpt-4-turbo", "gpt-4-turbo-2024-04-09", openAI}
	gpt35Turbo  = &model{"gpt-3.5-turbo", "gpt-3.5-turbo-0125", openAI}
	o1Mini      = &model{"o1-mini", "o1-mini-2024-09-12", openAI}
	o3Mini      = &model{"o3-mini", "o3-mini-2025-01-31", openAI}
	claude35    = &model{"claude-3-5-sonnet-20241022", "claude-3-5-sonnet-20241022", litellm}
	claude37    = &model{"claude-3-7-sonnet-20250219", "claude-3-7-sonnet-20250219", litellm}
	claudeHaiku = &model{"claude-3-5-haiku-20241022", "claude-3-5-haiku-20241022", litellm}
	llamaVLLM   = &model{"meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.1-70B-Instruct", vllm}
	llamaGroq   = &model{"llama-3.1-70b-versatile", "llama-3.1-70b-versatile", groq}
	allModels   = []*model{gpt41, gpt41Mini, gpt41Nano, gpt4o, gpt4oMini, gpt4Turbo, gpt35Turbo,
		o1Mini, o3Mini, claude35, claude37, claudeHaiku, llamaVLLM, llamaGroq}
)

// message is one chat message, as sent in requests and returned in
// responses.
type message struct {
	role    string
	content string
	// parts, when set, replaces content with an array of content parts.
	parts []part
	// toolCalls, when set, makes content null unless content is non-empty.
	toolCalls  []toolCall
	toolCallID string // of a tool result
	// refusal, when set, is the model's refusal; content is then null.
	refusal string
}

// part is a content part: text, or an image given by URL.
type part struct{ text, imageURL string }

type toolCall struct{ id, name, args string }

// turn is one request of a session and the model's answer to it.
type turn struct {
	input  []message // appended to the history before the request
	reply  message
	finish string // "stop", "length", "tool_calls", "content_filter"
	// reasoning is the number of hidden reasoning tokens (o-series models).
	reasoning int
}

// session is one scripted conversation of one client.
type session struct {
	model *model
	// litellmOrder writes "messages" and "model" first and the other keys
	// sorted, as Python clients going through LiteLLM do; otherwise keys come
	// in the OpenAI SDK's order, "model" first.
	litellmOrder bool
	// params are the request members after model and messages, in the
	// client's order; they are the same on every turn.
	params object
	// paramTokens is the prompt-token cost of params (tool schemas).
	paramTokens  int
	stream       bool
	includeUsage bool // stream_options.include_usage: a final usage chunk
	maxTokens    int  // max_tokens or max_completion_tokens, 0 if unset
	system       []message
	turns        []turn

	next    int       // index of the next turn to send
	history []message // the conversation after the system messages, replies included
	waiting bool      // a logged response to the last request is pending
	readyAt int       // the next turn is not sent before this line
	prompt  int       // prompt tokens of the last request
}

// pending is a record due to be written after a few more lines: a
// response, or a client's retry of a request.
type pending struct {
	due int
	run func()
}

// gen is the state of one generation.
type gen struct {
	r      *rng
	out    []byte
	lines  int
	target int
	count  [numKinds]int
	clock  int64 // Unix time of the traffic being written
	active []*session
	queue  []pending
	// fingerprints holds each model's system_fingerprint values, the first
	// the most frequent.
	fingerprints map[*model][]string
	// docs is a document collection, each document split into chunks.
	// Embedding requests add documents to it (and now and then index one
	// again); retrieval-augmented chat requests quote it, as a deployment's
	// indexer and chat app would.
	docs []document
	// planned counts records scheduled in the queue, per kind.
	planned [numKinds]int
	users   []string // end-user IDs
	// atlasPrompt is the in-app assistant's system prompt, handbook
	// included.
	atlasPrompt string
}

func newGen(seed uint64, lines int) *gen {
	g := &gen{r: newRNG(seed), target: lines, fingerprints: make(map[*model][]string)}
	g.clock = 1741000000 + int64(g.r.intn(200000))
	for _, m := range allModels {
		fps := make([]string, 1+g.r.intn(3))
		for i := range fps {
			fps[i] = "fp_" + g.r.chars(hexDigits, 10)
		}
		g.fingerprints[m] = fps
	}
	g.users = make([]string, 40)
	for i := range g.users {
		g.users[i] = "user-" + g.r.chars(hexDigits, 12)
	}
	for range 4 {
		g.docs = append(g.docs, g.document(g.r.between(8, 30)))
	}
	g.atlasPrompt = atlasPrompt + g.handbook()
	return g
}

// run writes records until g.target lines are written. The last record
// written may be a stream cut short, as in any slice of a log.
func (g *gen) run() []byte {
	for g.lines < g.target {
		g.step()
	}
	return g.out
}

func (g *gen) emit(kind int, record object) {
	if g.lines >= g.target {
		return
	}
	g.out = compact.append(g.out, record)
	g.out = append(g.out, '\n')
	g.lines++
	g.count[kind]++
	if g.r.percent(35) {
		g.clock++
	}
}

// behind reports whether kind has fewer records than its target share of
// the lines written so far plus extra.
func (g *gen) behind(kind, extra int) bool {
	return (g.count[kind]+g.planned[kind])*100 < targetShare[kind]*(g.lines+extra)
}

// maxActive bounds the number of conversations open at once.
const maxActive = 12

func (g *gen) step() {
	r := g.r
	// Records that are due come first, oldest first.
	if i := g.dueIndex(); i >= 0 && g.queue[i].due <= g.lines {
		g.runPending(i)
		return
	}
	if g.behind(kindEmbedding, 1) && r.percent(40) {
		g.emit(kindEmbedding, g.embeddingRequest())
		return
	}
	var ready []*session
	var first *session // the idle session that will be ready first
	for _, s := range g.active {
		if s.waiting {
			continue
		}
		if s.readyAt <= g.lines {
			ready = append(ready, s)
		}
		if first == nil || s.readyAt < first.readyAt {
			first = s
		}
	}
	switch {
	case len(ready) > 0 && !r.percent(25):
		g.send(pick(r, ready))
	case len(g.active) < maxActive:
		s := g.newSession()
		g.active = append(g.active, s)
		g.send(s)
	case len(g.queue) > 0:
		g.runPending(g.dueIndex())
	default:
		g.send(first)
	}
}

// dueIndex returns the index of the queued record due first, or -1.
func (g *gen) dueIndex() int {
	best := -1
	for i, p := range g.queue {
		if best < 0 || p.due < g.queue[best].due {
			best = i
		}
	}
	return best
}

func (g *gen) runPending(i int) {
	p := g.queue[i]
	g.queue = slices.Delete(g.queue, i, i+1)
	p.run()
}

func (g *gen) schedule(delay int, run func()) {
	g.queue = append(g.queue, pending{due: g.lines + delay, run: run})
}

// send writes the next request of s and decides whether its response is
// logged.
func (g *gen) send(s *session) {
	r := g.r
	t := &s.turns[s.next]
	msgs := slices.Concat(s.system, s.history, t.input)
	req := s.request(msgs)
	prompt := s.paramTokens + 3
	for _, m := range msgs {
		prompt += m.tokens() + 4
	}
	cached := 0
	if s.model.provider == openAI && prompt >= 1024 && s.prompt >= 1024 {
		cached = min(prompt, s.prompt) / 128 * 128
	}
	s.prompt = prompt
	s.history = append(s.history, t.input...)
	s.history = append(s.history, t.reply)
	s.next++
	g.emit(kindRequest, req)
	// Tool results come back at once; people take their time to read and
	// type, and sometimes leave and come back much later.
	switch {
	case len(t.reply.toolCalls) > 0 || r.percent(35):
		s.readyAt = g.lines + r.intn(3)
	case r.percent(75):
		s.readyAt = g.lines + r.between(2, 10)
	default:
		s.readyAt = g.lines + r.between(10, 60)
	}

	// A few requests time out on the client side and are sent again.
	retried := r.permille(50)
	if retried {
		delay := 1 + r.geometric(50, 3)
		s.readyAt = max(s.readyAt, g.lines+delay+1)
		g.planned[kindRequest]++
		g.schedule(delay, func() {
			g.planned[kindRequest]--
			g.emit(kindRequest, req)
		})
	}

	u := usage{prompt: prompt, cached: cached, completion: t.completionTokens(s), reasoning: t.reasoning}
	delay := 1 + r.geometric(55, 10)
	if retried {
		delay += 3
	}
	switch {
	case s.stream && s.model.provider == openAI:
		n := len(splitTokens(t.reply.content)) + 2
		if s.includeUsage {
			n++
		}
		// Streams are logged while they fit in the stream events' share
		// of the whole sample, and, as in the corpus, only OpenAI's.
		if t.reply.content == "" || g.count[kindChunk]+g.planned[kindChunk]+n > g.target*targetShare[kindChunk]/100+8 {
			break
		}
		g.planned[kindChunk] += n
		s.waiting = true
		g.schedule(delay, func() {
			g.planned[kindChunk] -= n
			g.emitStream(s, t, u)
			s.waiting = false
		})
	case !s.stream && r.percent(g.completionOdds()):
		g.planned[kindCompletion]++
		s.waiting = true
		g.schedule(delay, func() {
			g.planned[kindCompletion]--
			g.emit(kindCompletion, g.completion(s, t, u))
			s.waiting = false
		})
	}
	if s.next == len(s.turns) {
		g.active = slices.DeleteFunc(g.active, func(x *session) bool { return x == s })
	}
}

// completionOdds returns the percent chance of logging a response, higher
// when responses are behind their share of requests.
func (g *gen) completionOdds() int {
	want := g.count[kindRequest] * targetShare[kindCompletion] / targetShare[kindRequest]
	have := g.count[kindCompletion] + g.planned[kindCompletion]
	return max(5, min(95, 55+(want-have)*10))
}

// request renders s's request with messages msgs.
func (s *session) request(msgs []message) object {
	ms := make([]object, len(msgs))
	for i, m := range msgs {
		ms[i] = m.requestJSON()
	}
	req := make(object, 0, 2+len(s.params))
	req = append(req, member{"model", s.model.name}, member{"messages", ms})
	req = append(req, s.params...)
	if s.litellmOrder {
		slices.SortStableFunc(req[2:], func(a, b member) int { return strings.Compare(a.key, b.key) })
		req[0], req[1] = req[1], req[0]
	}
	return req
}

// requestJSON renders a message as clients send it.
func (m message) requestJSON() object {
	o := object{{"role", m.role}}
	if m.toolCallID != "" {
		o = append(o, member{"tool_call_id", m.toolCallID})
	}
	o = append(o, member{"content", m.contentJSON()})
	if len(m.toolCalls) > 0 {
		o = append(o, member{"tool_calls", toolCallsJSON(m.toolCalls)})
	}
	return o
}

func (m message) contentJSON() any {
	switch {
	case m.parts != nil:
		ps := make([]object, len(m.parts))
		for i, p := range m.parts {
			if p.imageURL != "" {
				ps[i] = object{{"type", "image_url"}, {"image_url", object{{"url", p.imageURL}}}}
			} else {
				ps[i] = object{{"type", "text"}, {"text", p.text}}
			}
		}
		return ps
	case m.content == "" && (len(m.toolCalls) > 0 || m.refusal != ""):
		return nil
	}
	return m.content
}

func toolCallsJSON(calls []toolCall) []object {
	o := make([]object, len(calls))
	for i, c := range calls {
		o[i] = object{{"id", c.id}, {"type", "function"}, {"function", object{{"name", c.name}, {"arguments", c.args}}}}
	}
	return o
}

// tokens estimates a message's size in tokens: a token per 4 bytes of
// ASCII text, one per other character.
func (m message) tokens() int {
	n := textTokens(m.content)
	for _, p := range m.parts {
		n += textTokens(p.text)
		if p.imageURL != "" {
			n += 765 // a high-detail 512x512 tile and the base cost
		}
	}
	for _, c := range m.toolCalls {
		n += textTokens(c.name) + textTokens(c.args) + 3
	}
	return n
}

func textTokens(s string) int {
	ascii, other := 0, 0
	for _, r := range s {
		if r < utf8.RuneSelf {
			ascii++
		} else {
			other++
		}
	}
	return (ascii+3)/4 + other
}

func (t *turn) completionTokens(s *session) int {
	if t.finish == "length" {
		return s.maxTokens
	}
	return t.reply.tokens() + t.reasoning + 1
}

// usage is the token accounting of one response.
type usage struct{ prompt, cached, completion, reasoning int }

// completion renders the chat.completion response to turn t of s.
func (g *gen) completion(s *session, t *turn, u usage) object {
	r := g.r
	m := s.model
	reply := t.reply
	switch m.provider {
	case litellm:
		msg := object{{"content", reply.contentJSON()}, {"role", "assistant"}, {"tool_calls", nil}, {"function_call", nil}}
		if len(reply.toolCalls) > 0 {
			msg[2].val = toolCallsJSON(reply.toolCalls)
		}
		return object{
			{"id", "chatcmpl-" + r.uuid()},
			{"created", g.clock},
			{"model", m.served},
			{"object", "chat.completion"},
			{"system_fingerprint", nil},
			{"choices", []object{{{"finish_reason", t.finish}, {"index", 0}, {"message", msg}}}},
			{"usage", object{
				{"completion_tokens", u.completion},
				{"prompt_tokens", u.prompt},
				{"total_tokens", u.prompt + u.completion},
				{"completion_tokens_details", nil},
				{"prompt_tokens_details", object{{"audio_tokens", nil}, {"cached_tokens", 0}}},
				{"cache_creation_input_tokens", 0},
				{"cache_read_input_tokens", 0},
			}},
		}
	case vllm:
		calls := any([]object{})
		if len(reply.toolCalls) > 0 {
			calls = toolCallsJSON(reply.toolCalls)
		}
		msg := object{{"role", "assistant"}, {"reasoning_content", nil}, {"content", reply.contentJSON()}, {"tool_calls", calls}}
		return object{
			{"id", "chatcmpl-" + r.chars(hexDigits, 32)},
			{"object", "chat.completion"},
			{"created", g.clock},
			{"model", m.served},
			{"choices", []object{{{"index", 0}, {"message", msg}, {"logprobs", nil}, {"finish_reason", t.finish}, {"stop_reason", nil}}}},
			{"usage", object{{"prompt_tokens", u.prompt}, {"total_tokens", u.prompt + u.completion}, {"completion_tokens", u.completion}, {"prompt_tokens_details", nil}}},
			{"prompt_logprobs", nil},
		}
	case groq:
		msg := object{{"role", "assistant"}, {"content", reply.contentJSON()}}
		if len(reply.toolCalls) > 0 {
			msg = append(msg, member{"tool_calls", toolCallsJSON(reply.toolCalls)})
		}
		// Timings in microseconds, written as Python floats of seconds.
		queue := r.between(5000, 300000)
		promptTime := u.prompt*r.between(20, 40) + r.between(500, 3000)
		completionTime := u.completion * r.between(900, 1500)
		return object{
			{"id", "chatcmpl-" + r.uuid()},
			{"object", "chat.completion"},
			{"created", g.clock},
			{"model", m.served},
			{"choices", []object{{{"index", 0}, {"message", msg}, {"logprobs", nil}, {"finish_reason", t.finish}}}},
			{"usage", object{
				{"queue_time", seconds(queue)},
				{"prompt_tokens", u.prompt},
				{"prompt_time", seconds(promptTime)},
				{"completion_tokens", u.completion},
				{"completion_time", seconds(completionTime)},
				{"total_tokens", u.prompt + u.completion},
				{"total_time", seconds(promptTime + completionTime)},
			}},
			{"system_fingerprint", g.fingerprint(m)},
			{"x_groq", object{{"id", "req_01" + r.chars("0123456789abcdefghjkmnpqrstvwxyz", 24)}}},
		}
	}
	msg := object{{"role", "assistant"}, {"content", reply.contentJSON()}}
	if len(reply.toolCalls) > 0 {
		msg = append(msg, member{"tool_calls", toolCallsJSON(reply.toolCalls)})
	}
	var refusal any
	if reply.refusal != "" {
		refusal = reply.refusal
	}
	msg = append(msg, member{"refusal", refusal}, member{"annotations", []object{}})
	return object{
		{"id", g.openAIID()},
		{"object", "chat.completion"},
		{"created", g.clock},
		{"model", m.served},
		{"choices", []object{{{"index", 0}, {"message", msg}, {"logprobs", nil}, {"finish_reason", t.finish}}}},
		{"usage", u.openAIJSON()},
		{"service_tier", "default"},
		{"system_fingerprint", g.fingerprint(m)},
	}
}

func (u usage) openAIJSON() object {
	return object{
		{"prompt_tokens", u.prompt},
		{"completion_tokens", u.completion},
		{"total_tokens", u.prompt + u.completion},
		{"prompt_tokens_details", object{{"cached_tokens", u.cached}, {"audio_tokens", 0}}},
		{"completion_tokens_details", object{{"reasoning_tokens", u.reasoning}, {"audio_tokens", 0}, {"accepted_prediction_tokens", 0}, {"rejected_prediction_tokens", 0}}},
	}
}

// seconds formats a duration in microseconds as Python prints a float of
// seconds: 0.212256, 0.00997, 0.05.
func seconds(us int) number {
	frac := strconv.Itoa(1000000 + us%1000000)[1:]
	frac = strings.TrimRight(frac, "0")
	if frac == "" {
		frac = "0"
	}
	return number(strconv.Itoa(us/1000000) + "." + frac)
}

func (g *gen) openAIID() string { return "chatcmpl-" + g.r.chars(base62Digits, 29) }

func (g *gen) fingerprint(m *model) string {
	fps := g.fingerprints[m]
	if len(fps) > 1 && g.r.percent(25) {
		return pick(g.r, fps[1:])
	}
	return fps[0]
}

// emitStream writes the chat.completion.chunk events of a streamed answer:
// the role, the content a token or so at a time, the finish reason and,
// when asked for, the usage.
func (g *gen) emitStream(s *session, t *turn, u usage) {
	r := g.r
	m := s.model
	id, fp, created := g.openAIID(), g.fingerprint(m), g.clock
	chunk := func(choices []object, use any) object {
		o := object{
			{"id", id},
			{"object", "chat.completion.chunk"},
			{"created", created},
			{"model", m.served},
			{"service_tier", "default"},
			{"system_fingerprint", fp},
			{"choices", choices},
		}
		if s.includeUsage {
			o = append(o, member{"usage", use})
		}
		// OpenAI pads each event with random characters so that its size
		// does not reveal the token.
		return append(o, member{"obfuscation", r.chars(base62Digits, r.between(1, 16))})
	}
	delta := func(d object, finish any) []object {
		return []object{{{"index", 0}, {"delta", d}, {"logprobs", nil}, {"finish_reason", finish}}}
	}
	g.emit(kindChunk, chunk(delta(object{{"role", "assistant"}, {"content", ""}, {"refusal", nil}}, nil), nil))
	for _, tok := range splitTokens(t.reply.content) {
		g.emit(kindChunk, chunk(delta(object{{"content", tok}}, nil), nil))
	}
	g.emit(kindChunk, chunk(delta(object{}, t.finish), nil))
	if s.includeUsage {
		g.emit(kindChunk, chunk([]object{}, u.openAIJSON()))
	}
}

// splitTokens cuts text into pieces the size of model tokens: a word with
// the spaces or newlines before it, long words in two, punctuation alone.
func splitTokens(s string) []string {
	var toks []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && (s[i] == ' ' || s[i] == '\n') {
			i++
		}
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		switch {
		case j == i && i < len(s):
			_, size := utf8.DecodeRuneInString(s[i:])
			j = i + size
		case j-i > 8:
			j = i + 5
		}
		toks = append(toks, s[:j])
		s = s[j:]
	}
	return toks
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '\''
}

// Embeddings.

// document is an indexed text: its topic, and the text split into chunks.
type document struct {
	topic  *topic
	chunks []string
}

// document returns a new document of about n chunks, split the way text
// splitters do it: at the last space before a fixed size (256 to 2,000
// bytes), often in the middle of a sentence.
func (g *gen) document(n int) document {
	t := g.topic()
	size := pick(g.r, []int{256, 512, 1000, 1000, 2000, 2000})
	var b strings.Builder
	for b.Len() < n*size {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(g.paragraph(t, g.r.between(2, 8)))
	}
	return document{t, chunk(b.String(), size)}
}

// chunk splits text into pieces of at most size bytes, at spaces.
func chunk(text string, size int) []string {
	var chunks []string
	for len(text) > size {
		i := strings.LastIndexByte(text[:size], ' ')
		chunks = append(chunks, text[:i])
		text = text[i+1:]
	}
	return append(chunks, text)
}

var embeddingModels = []string{"text-embedding-3-small", "text-embedding-3-small", "text-embedding-3-small", "text-embedding-3-large", "text-embedding-ada-002", "BAAI/bge-m3", "nomic-embed-text"}

// embeddingRequest returns a request to embed one search query, or the
// chunks of a document: mostly a new one, sometimes one indexed before.
func (g *gen) embeddingRequest() object {
	r := g.r
	var input any
	switch {
	case r.percent(30):
		input = g.question(g.topic())
	case r.percent(15):
		input = pick(r, g.docs).chunks
	default:
		doc := g.document(pick(r, []int{1, 1, 1, 2, 4, 8, 8, 16, 16, 32}))
		g.docs = append(g.docs, doc)
		input = doc.chunks
	}
	m := pick(r, embeddingModels)
	format := "float"
	if r.percent(60) {
		format = "base64" // what the OpenAI Python SDK sends by default
	}
	if r.percent(60) {
		return object{{"input", input}, {"model", m}, {"encoding_format", format}}
	}
	o := object{{"model", m}, {"input", input}}
	if strings.HasPrefix(m, "text-embedding-3") && r.percent(30) {
		o = append(o, member{"dimensions", []int{256, 512, 1024, 1536}[r.intn(4)]})
	}
	return append(o, member{"encoding_format", format})
}
