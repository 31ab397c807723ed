package gen

import (
	"slices"
	"strconv"
	"strings"
)

// The client applications behind the traffic. Each opens sessions of one
// kind: plain chat, a long-form planning assistant, a coding assistant, a
// support desk and a function-calling bot with tools, translators, a
// guessing game, a coding agent, a ReAct research crew, a JSON extractor,
// a retrieval-augmented documentation bot, a math tutor on reasoning
// models, image questions and an email summarizer. Like real deployments,
// each app sends the same system prompt and the same tool schemas with
// every request, so a small pool of them accounts for most requests.

// app is a client application: how often it opens a session, and how.
type app struct {
	weight int
	open   func(*gen) *session
}

// The weights give each app about the share of requests its kind has in
// the development corpus, allowing for how many turns its sessions have.
var apps = []app{
	{28, (*gen).assistantSession},
	{12, (*gen).strategistSession},
	{11, (*gen).coderSession},
	{3, (*gen).supportSession},
	{8, (*gen).functionsSession},
	{10, (*gen).translatorSession},
	{2, (*gen).gameSession},
	{2, (*gen).agentSession},
	{4, (*gen).crewSession},
	{9, (*gen).extractorSession},
	{8, (*gen).docsSession},
	{3, (*gen).tutorSession},
	{3, (*gen).visionSession},
	{7, (*gen).summarizerSession},
}

var appWeights = func() []int {
	w := make([]int, len(apps))
	for i, a := range apps {
		w[i] = a.weight
	}
	return w
}()

func (g *gen) newSession() *session { return apps[g.r.weighted(appWeights...)].open(g) }

// System prompts. Those in variables are shared by all sessions of an app;
// a few apps also write prompts of their own per session.
var (
	assistantPrompts = []string{
		"You are a helpful assistant.",
		"You are a helpful assistant. Format your answers with Markdown.",
		"You are a concise assistant. Keep answers short and to the point.",
		"You are a friendly and knowledgeable assistant. If you are not sure about something, say so instead of guessing.",
	}
	// atlasPrompt is the start of the in-app assistant's prompt; the
	// product handbook that follows it is made up once per generation (see
	// handbook), so it repeats like the other shared prompts.
	atlasPrompt      = "You are Atlas, the in-app assistant of a productivity suite. Answer questions about planning, writing and organizing work. Use short paragraphs and bullet lists, avoid jargon, and never invent features the product does not have. If a question is about billing or account security, tell the user to contact support@example.com. Reply in the language the user writes in.\n\nUse the handbook below as your source of truth.\n\n"
	strategistPrompt = "You are a senior business strategist who specializes in travel technology. You are helping a small founding team plan Wayfarer, a mobile tour-guide app for international visitors that combines offline maps, audio walking tours and real-time translation.\n\nFor every request:\n- Write in clear, professional English with markdown headings.\n- Ground recommendations in realistic numbers (market size, prices, conversion rates) and state your assumptions.\n- Consider the three launch cities first: Lisbon, Kyoto and Mexico City.\n- Point out risks and open questions at the end of each section.\n- Keep the tone practical: the team has 18 months of runway and four engineers.\n\nThe plan has these sections: executive summary, market analysis, competitor landscape, product roadmap, monetization model, go-to-market plan, operations, risk assessment and financial projections. When the user asks for one section, write only that section, in depth, and keep it consistent with the sections written before."
	coderPrompts     = []string{
		"You are a senior software engineer. Give working, idiomatic code first, then a short explanation.",
		"You are a coding assistant inside an IDE. The user's code is Go or Python. Prefer the standard library, keep functions small, and always mention edge cases the code does not handle.",
	}
	supportPrompt    = "You are the customer support assistant for Northwind Outfitters, an online store for outdoor clothing and gear. Use the tools to look up orders, shipments and products; never guess order details. Refund policy: orders can be refunded within 30 days of delivery, damaged items at any time. Be warm and concise, use the customer's first name if you know it, and confirm with the customer before changing an order. If the customer is upset or asks for a person, escalate to a human agent."
	functionsPrompt  = "You are a function-calling assistant. Call a function only when you have every required argument; if something is missing, ask the user for it first."
	translatorPrompt = "You are a professional Chinese-to-English translator. Translate the user's text faithfully and naturally, keeping names, numbers and formatting. Do not add explanations or notes; output only the translation. If a term has no common English equivalent, keep the original in parentheses after your translation."
	// gamePrompt keeps the {name} placeholder its client forgot to fill in.
	gamePrompt       = "You are {name}, the host of a twenty-questions guessing game. The user thinks of a famous person, animal or object and you try to find it by asking yes-or-no questions.\nRules:\n1. Ask exactly one question per message and number it.\n2. Accept answers like yes, no, probably, probably not and I don't know.\n3. Use each answer to narrow down the possibilities; never repeat a question.\n4. When you are confident, make a guess in the form \"Is it ...?\".\n5. If you have not guessed correctly after 20 questions, admit defeat and ask the user to reveal the answer.\nStay playful and encouraging, and keep each message under two sentences."
	agentPrompt      = "You are a coding agent working in a checkout of a Python repository. You solve the issue the user describes by inspecting and editing files with the tools provided, one tool call at a time.\n\nHow to work:\n1. Reproduce the problem first: find the relevant code with search_code, read it with open_file, and write or run a failing test with run_command.\n2. Make the smallest change that fixes the root cause. Keep the existing code style and do not reformat unrelated lines.\n3. Run the relevant tests again and make sure nothing else broke.\n4. When you are done, call submit.\n\nRules:\n- Use only the tools. You cannot ask the user questions; if something is ambiguous, choose the most reasonable interpretation and say so.\n- Line numbers in open_file output are for reference only; never include them in new_text.\n- replace_lines replaces whole lines. Indentation matters in Python: copy it exactly.\n- Long outputs are truncated to the first 200 lines. Narrow your searches instead of printing whole files.\n- Never run commands that need network access or that modify files outside the repository.\n- Before each tool call, explain in one or two sentences what you expect to learn or change.\n\nThe repository uses pytest. The package lives in src/, its tests in tests/, and `make lint` runs the linters."
	extractorPrompt  = "Always reply with one valid JSON object that matches the requested schema, and nothing else."
	docsPrompt       = "You are the documentation assistant for Lumen Analytics. Answer using only the numbered context passages in the user's message and cite them like [2]. If the passages do not contain the answer, say that you could not find it in the documentation. Keep answers under 200 words."
	tutorPrompt      = "You are a careful math tutor. Work through problems step by step and give the final answer in LaTeX."
	summarizerPrompt = "You summarize emails and documents for busy executives. Use at most three bullet points and mention deadlines and amounts explicitly."
	visionPrompt     = "You describe images accurately and in plain language for people who cannot see them. Mention text that appears in the image."
	romancePrompt    = "You are a professional translator."
)

// crewRole is a role of the research crew; its system prompt is built from
// it once per role, so each of the four prompts repeats.
type crewRole struct{ role, backstory, goal string }

var crewRoles = []crewRole{
	{"Market Researcher", "You have spent ten years sizing markets for consumer apps and you distrust any number without a source.", "Find reliable, recent figures about the market named in the task"},
	{"Technical Writer", "You turn rough engineering notes into documentation that new users can follow on their first try.", "Write clear, accurate documentation for the feature described in the task"},
	{"Travel Planner", "You have planned hundreds of trips and you know how long things really take on the ground.", "Plan a realistic itinerary that matches the traveler's budget and pace"},
	{"Data Analyst", "You are fluent in SQL and statistics and you always check the data before drawing conclusions.", "Answer the business question in the task with numbers and a short explanation"},
}

func (c crewRole) prompt() string {
	return "You are " + c.role + ". " + c.backstory + "\nWhat you want to achieve: " + c.goal + ".\n\nYou can use these tools:\nweb_search: search the web and return the top results. Input: {\"query\": string}\nread_page: fetch a web page and return its text. Input: {\"url\": string}\n\nAlways answer in this format:\n\nThought: what you should do next\nAction: the tool to use, one of [web_search, read_page]\nAction Input: the tool input as a JSON object\nObservation: the result of the action\n\n(Thought, Action, Action Input and Observation can repeat several times.)\n\nThought: I have what I need.\nFinal Answer: the complete answer to the task\n\nBegin, and do not stop until you have the final answer."
}

// Sampling settings, as number literals with the spellings clients send.
var (
	temperatures = []number{"0", "0", "0", "1.0", "1.0", "0.7", "0.7", "0.3", "0.5", "0.2"}
	maxTokenOpts = []int{512, 1024, 1024, 2048, 4096, 4096, 8192}
)

// Helpers shared by the scripts.

// pickModel returns ms[i] with probability w[i]/sum(w).
func (g *gen) pickModel(ms []*model, w ...int) *model { return ms[g.r.weighted(w...)] }

func (g *gen) topic() *topic { return &topics[g.r.intn(len(topics))] }

func topicNamed(name string) *topic {
	for i := range topics {
		if topics[i].name == name {
			return &topics[i]
		}
	}
	panic("sample: no topic " + name)
}

// user returns the "user" request field of one of the end users; the same
// users come back across sessions and apps.
func (g *gen) user() string { return pick(g.r, g.users) }

func userMsg(s string) message   { return message{role: "user", content: s} }
func systemMsg(s string) message { return message{role: "system", content: s} }

func (g *gen) toolCallID(p provider) string {
	switch p {
	case litellm:
		return "toolu_01" + g.r.chars(base62Digits, 22)
	case vllm:
		return "chatcmpl-tool-" + g.r.chars(hexDigits, 32)
	}
	return "call_" + g.r.chars(base62Digits, 24)
}

// say appends a turn whose answer is text. Answers longer than the
// session's token limit are cut off with finish_reason "length"; OpenAI
// models rarely refuse or trip the content filter, which ends the
// conversation. say reports whether the conversation can go on.
func (g *gen) say(s *session, input []message, text string) bool {
	t := turn{input: input, reply: message{role: "assistant", content: text}, finish: "stop"}
	switch {
	case s.maxTokens > 0 && textTokens(text) > s.maxTokens:
		t.reply.content = cut(text, s.maxTokens*4)
		t.finish = "length"
	case s.model.provider == openAI && g.r.permille(12):
		t.reply.content, t.reply.refusal = "", "I'm sorry, but I can't help with that."
	case s.model.provider == openAI && g.r.permille(6):
		t.reply.content = cut(text, len(text)/3)
		t.finish = "content_filter"
	}
	s.turns = append(s.turns, t)
	return t.finish != "content_filter" && t.reply.refusal == ""
}

// callTools appends a turn whose answer calls tools, optionally after a
// sentence of text.
func (g *gen) callTools(s *session, input []message, text string, calls ...toolCall) {
	s.turns = append(s.turns, turn{input: input, reply: message{role: "assistant", content: text, toolCalls: calls}, finish: "tool_calls"})
}

// cut returns s cut to at most n bytes, at a character boundary.
func cut(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}

// turnCount returns how many turns a conversation has: 1 plus a
// geometrically distributed number of follow-ups.
func (g *gen) turnCount(p, max int) int { return 1 + g.r.geometric(p, max-1) }

// chatParams returns the request parameters of a generic chat client, each
// present or not at random, and sets s.maxTokens, s.stream and
// s.includeUsage to match.
func (g *gen) chatParams(s *session) object {
	r := g.r
	p := object{}
	if r.percent(85) {
		p = append(p, member{"temperature", pick(r, temperatures)})
	}
	if r.percent(20) {
		p = append(p, member{"top_p", pick(r, []number{"0.9", "0.9", "0.95", "1"})})
	}
	if r.percent(50) {
		s.maxTokens = pick(r, maxTokenOpts)
		p = append(p, member{"max_tokens", s.maxTokens})
	}
	if r.percent(15) {
		p = append(p, member{"response_format", object{{"type", "text"}}})
	}
	if r.percent(45) {
		p = append(p, member{"user", g.user()})
	}
	if r.percent(40) {
		s.stream = r.percent(45)
		p = append(p, member{"stream", s.stream})
		if s.stream && r.percent(70) {
			s.includeUsage = true
			p = append(p, member{"stream_options", object{{"include_usage", true}}})
		}
	}
	return p
}

// The apps.

func (g *gen) assistantSession() *session {
	r := g.r
	s := &session{model: g.pickModel([]*model{gpt4oMini, gpt41, gpt4o, gpt35Turbo, claude35, claudeHaiku, gpt4Turbo, llamaVLLM}, 30, 25, 12, 7, 12, 5, 4, 5)}
	s.litellmOrder = r.percent(45)
	t := g.topic()
	switch r.weighted(60, 15, 12, 13) {
	case 0:
		s.system = []message{systemMsg(pick(r, assistantPrompts))}
	case 1:
		s.system = []message{systemMsg(g.atlasPrompt)}
	case 2:
		s.system = []message{systemMsg("You are the personal assistant of " + g.personName() + ", who works on " + pluralOf(pick(r, t.nouns)) + " at " + g.company() + ". Today is " + g.date() + ". Be brief and practical, and ask before making assumptions about their schedule.")}
	}
	s.params = g.chatParams(s)
	st := answerStyle{emoji: r.percent(20), smart: s.model.provider == litellm && r.percent(60), length: r.between(2, 7)}
	n := g.turnCount(52, 10)
	for i := range n {
		var q string
		switch {
		case i == 0:
			q = g.question(t)
		case s.turns[i-1].finish == "length":
			q = pick(r, []string{"continue", "Please continue.", "Go on from where you stopped."})
		default:
			q = g.followUp(t)
		}
		if !g.say(s, []message{userMsg(q)}, g.answer(t, st)) {
			break
		}
	}
	return s
}

var planSections = []string{"executive summary", "market analysis", "competitor landscape", "product roadmap", "monetization model", "go-to-market plan", "operations plan", "risk assessment", "financial projections"}

// handbook returns a long markdown product handbook: sections of rules,
// facts and examples, several kilobytes in all.
func (g *gen) handbook() string {
	r := g.r
	var b strings.Builder
	b.WriteString("# Atlas handbook\n")
	for range r.between(5, 9) {
		t := g.topic()
		b.WriteString("\n## " + g.expand(pick(r, headingTemplates), t) + "\n\n" + g.paragraph(t, r.between(2, 4)) + "\n\n" + g.bullets(t, r.between(3, 7), false) + "\n")
	}
	return b.String()
}

func (g *gen) strategistSession() *session {
	r := g.r
	s := &session{model: g.pickModel([]*model{gpt41, gpt4o}, 80, 20), system: []message{systemMsg(strategistPrompt)}}
	s.maxTokens = pick(r, []int{1024, 4096, 4096, 4096})
	s.params = object{{"temperature", number("0.7")}, {"max_tokens", s.maxTokens}, {"user", g.user()}}
	travel, marketing := topicNamed("travel"), topicNamed("marketing")
	for i := range g.turnCount(50, 5) {
		section := pick(r, planSections)
		q := "Write the " + section + " for Wayfarer. Focus on " + pick(r, appFeatures) + " and " + pick(r, appFeatures) + "."
		if i > 0 {
			q = pick(r, []string{"Now write the ", "Great. Next, the ", "Thanks. Please draft the "}) + section + ". " + g.expand("make sure it covers the {a} {tn} we discussed.", marketing)
		}
		t := travel
		if r.percent(50) {
			t = marketing
		}
		a := "## " + titleCase(section) + "\n\n" + g.answer(t, answerStyle{emoji: r.percent(15), length: r.between(6, 14)})
		if !g.say(s, []message{userMsg(q)}, a) {
			break
		}
	}
	return s
}

// Error output pasted into questions, as code templates (see fillCode).
var (
	jsonTraceback  = "Traceback (most recent call last):\n  File \"/srv/app/{noun}s.py\", line {num}{num}, in {verb}_{noun}s\n    record = json.loads(line)\njson.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column {num}{num} (char {num}{num})"
	errorTemplates = []string{
		"panic: runtime error: index out of range [{num}] with length {num}\n\ngoroutine 1 [running]:\nmain.{verb}{Noun}s(...)\n\t/home/dev/app/{noun}.go:{num}{num}\nmain.main()\n\t/home/dev/app/main.go:{num}{num} +0x1d",
		jsonTraceback,
		"./{noun}.go:{num}{num}:{num}: cannot use {field} (variable of type string) as int value in argument to {verb}{Noun}",
		"KeyError: '{field}'\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"C:\\Users\\dev\\project\\{noun}.py\", line {num}{num}, in <module>\n    main()",
	}
)

func (g *gen) coderSession() *session {
	r := g.r
	s := &session{model: g.pickModel([]*model{gpt41, gpt4o, claude37, gpt41Mini, gpt4oMini}, 40, 20, 15, 15, 10)}
	s.litellmOrder = r.percent(40)
	if r.percent(85) {
		s.system = []message{systemMsg(pick(r, coderPrompts))}
	}
	s.params = g.chatParams(s)
	t := topicNamed(pick(r, []string{"software", "software", "data", "math"}))
	windows := r.percent(15) // pastes with CRLF line endings
	for i := range g.turnCount(52, 7) {
		var q string
		switch {
		case i > 0:
			q = g.followUp(t)
		case r.percent(55):
			q = pick(r, []string{"Why does this fail?", "Can you fix this code?", "This is my code:", "I'm getting an error with this function."}) +
				"\n\n```\n" + g.code(t) + "\n```\n\nError:\n```\n" + g.fillCode(pick(r, errorTemplates), t) + "\n```"
		default:
			q = g.question(t)
		}
		if windows {
			q = strings.ReplaceAll(q, "\n", "\r\n")
		}
		a := g.paragraph(t, r.between(1, 4)) + "\n\n" + g.codeBlock(t) + "\n\n" + g.answer(t, answerStyle{length: r.between(1, 5)})
		if !g.say(s, []message{userMsg(q)}, strings.TrimSpace(a)) {
			break
		}
	}
	return s
}

func (g *gen) supportSession() *session {
	r := g.r
	s := &session{model: g.pickModel([]*model{gpt4o, gpt41, gpt4oMini}, 55, 30, 15), system: []message{systemMsg(supportPrompt)}}
	tools, cost := toolsJSON(supportTools)
	s.params = object{{"tools", tools}, {"tool_choice", "auto"}, {"parallel_tool_calls", true}, {"temperature", number("0.3")}, {"user", g.user()}}
	s.paramTokens = cost
	lookup, shipping := toolNamed(supportTools, "lookup_order"), toolNamed(supportTools, "get_shipping_status")
	refund, escalate := toolNamed(supportTools, "create_refund"), toolNamed(supportTools, "escalate_to_human")
	order := g.value("id:ORD", false).(string)
	name := pick(r, firstNames)
	// A tool round: the model calls def, the result comes back, and the
	// model answers from it.
	round := func(input []message, def *toolDef, fixed object) bool {
		args := g.call(def, false, fixed)
		c := toolCall{id: g.toolCallID(s.model.provider), name: def.name, args: compact.encode(args)}
		g.callTools(s, input, "", c)
		res := g.result(def, args, false)
		answer := pick(r, []string{"Thanks for waiting, ", "Thanks, ", "I checked, "}) + name + ". " + describe(res)
		if r.percent(50) {
			answer += " " + g.paragraph(topicNamed("marketing"), r.between(1, 2))
		}
		return g.say(s, []message{{role: "tool", toolCallID: c.id, content: compact.encode(res)}}, answer)
	}
	q := pick(r, []string{"Hi, this is " + name + ". Where is my order " + order + "? It was supposed to arrive on " + g.date() + ".",
		"Hello, my order " + order + " still hasn't shipped. What's going on?",
		"Can you check the status of " + order + " please?"})
	if !round([]message{userMsg(q)}, lookup, object{{"order_id", order}}) {
		return s
	}
	switch r.intn(4) {
	case 0:
		round([]message{userMsg("The jacket arrived damaged, the zipper is broken. Can I get a refund?")}, refund, object{{"order_id", order}, {"reason", "damaged"}})
	case 1:
		round([]message{userMsg("Can you give me the tracking details?")}, shipping, nil)
	case 2:
		round([]message{userMsg("This is the third time this happens. I want to talk to a person.")}, escalate, object{{"priority", "high"}})
	}
	if r.percent(40) {
		g.say(s, []message{userMsg(pick(r, []string{"Thanks!", "Great, thank you.", "ok thanks 👍"}))}, "You're welcome, "+name+"! Is there anything else I can help you with?")
	}
	return s
}

func (g *gen) functionsSession() *session {
	r := g.r
	s := &session{model: g.pickModel([]*model{llamaVLLM, gpt4oMini, llamaGroq, gpt41Nano, gpt4o}, 30, 30, 15, 10, 15)}
	s.litellmOrder = r.percent(55)
	zh := r.percent(15)
	if r.percent(45) {
		s.system = []message{systemMsg(functionsPrompt)}
	}
	defs := []*toolDef{pick(r, fcTools)}
	if r.percent(40) {
		if d := pick(r, fcTools); d != defs[0] {
			defs = append(defs, d)
		}
	}
	tools, cost := toolsJSON(defs)
	s.params = object{{"tools", tools}}
	s.paramTokens = cost
	if r.percent(70) {
		s.params = append(s.params, member{"tool_choice", pick(r, []string{"auto", "auto", "required"})})
	}
	if r.percent(30) {
		s.params = append(s.params, member{"parallel_tool_calls", r.percent(80)})
	}
	s.params = append(s.params, member{"temperature", pick(r, []number{"0", "1.0", "0.7"})})
	if r.percent(30) {
		s.params = append(s.params, member{"seed", 48151})
	}
	if r.percent(30) {
		s.params = append(s.params, member{"stream", false})
	}
	// Tool results come from Python services, written by json.dumps.
	resultStyle := pythonJSON
	if r.percent(40) {
		resultStyle = pythonUTF8
	}
	asParts := r.percent(35)
	ask := func(text string) message {
		if asParts {
			return message{role: "user", parts: []part{{text: text}}}
		}
		return userMsg(text)
	}
	for i, def := range defs {
		if i > 0 && r.percent(40) {
			break
		}
		request := "Hi, can you help me " + strings.ToLower(def.desc[:1]) + def.desc[1:] + "?"
		if zh {
			request = "你好，你能帮我" + pick(r, zhVerbs) + pick(r, zhObjects) + "吗？"
		}
		args := g.call(def, zh, nil)
		if r.percent(30) && len(args) > 0 {
			// The user leaves out an argument and the model asks for it.
			p := strings.ReplaceAll(args[0].key, "_", " ")
			if !g.say(s, []message{ask(request)}, "Sure, I can help with that. Could you tell me the "+p+"?") {
				return s
			}
			request = "The " + p + " is " + strings.Trim(compact.encode(args[0].val), "\"") + "."
		} else if !zh {
			request = strings.TrimSuffix(request, "?") + ". " + g.expand("I need it for the {tn}.", g.topic())
		}
		input := []message{ask(request)}
		res := g.result(def, args, zh)
		calls := []toolCall{{id: g.toolCallID(s.model.provider), name: def.name, args: compact.encode(args)}}
		results := []message{{role: "tool", toolCallID: calls[0].id, content: resultStyle.encode(res)}}
		if r.percent(15) {
			// Parallel calls: the same function twice, other arguments.
			args2 := g.call(def, zh, nil)
			calls = append(calls, toolCall{id: g.toolCallID(s.model.provider), name: def.name, args: compact.encode(args2)})
			results = append(results, message{role: "tool", toolCallID: calls[1].id, content: resultStyle.encode(g.result(def, args2, zh))})
		}
		g.callTools(s, input, "", calls...)
		answer := describe(res)
		if zh {
			answer = g.chineseParagraph(r.between(1, 3))
		}
		if !g.say(s, results, answer) {
			return s
		}
	}
	return s
}

func (g *gen) translatorSession() *session {
	r := g.r
	if r.percent(65) {
		s := &session{model: g.pickModel([]*model{claude35, claude37, gpt4o}, 60, 20, 20), system: []message{systemMsg(translatorPrompt)}}
		s.litellmOrder = r.percent(70)
		s.params = object{{"temperature", number("0.3")}}
		if r.percent(50) {
			s.maxTokens = 4096
			s.params = append(s.params, member{"max_tokens", s.maxTokens})
		}
		for range g.turnCount(30, 4) {
			n := r.between(2, 12)
			if !g.say(s, []message{userMsg(g.chineseParagraph(n))}, g.paragraph(g.topic(), n)) {
				break
			}
		}
		return s
	}
	s := &session{model: g.pickModel([]*model{gpt4oMini, gpt41Nano}, 70, 30)}
	s.litellmOrder = r.percent(50)
	if r.percent(50) {
		s.system = []message{systemMsg(romancePrompt)}
	}
	s.params = object{{"temperature", number("0")}}
	fr := r.percent(55)
	lang := "Spanish"
	if fr {
		lang = "French"
	}
	n := r.between(2, 8)
	g.say(s, []message{userMsg("Translate the following text into " + lang + ":\n\n" + g.paragraph(g.topic(), n))}, g.romanceParagraph(fr, n))
	return s
}

var (
	gameQuestions = []string{"Is your character a real person?", "Is it an animal?", "Is your character alive today?", "Is it something you can hold in your hand?", "Is your character known for sports?", "Is it from a movie or a TV show?", "Is your character European?", "Does it live in the water?", "Is your character a musician?", "Is it bigger than a car?", "Has your character won a major award?", "Is it used in a kitchen?", "Is your character older than 50?", "Is it associated with a particular country?", "Does your character appear in video games?"}
	gameAnswers   = []string{"Yes", "No", "yes", "no", "I don't know", "Probably", "Probably not", "Yes!", "nope", "not really"}
)

func (g *gen) gameSession() *session {
	r := g.r
	s := &session{model: g.pickModel([]*model{llamaGroq, gpt4oMini}, 75, 25), system: []message{systemMsg(gamePrompt)}}
	s.params = object{{"temperature", number("0.7")}, {"max_tokens", 256}, {"user", g.user()}}
	s.maxTokens = 256
	n := r.between(3, 10)
	input := userMsg(pick(r, []string{"Let's play! I'm thinking of someone.", "I'm ready. I have something in mind.", "start"}))
	for i := range n {
		q := strconv.Itoa(i+1) + ". " + pick(r, gameQuestions)
		if i == 0 {
			q = pick(r, []string{"Great, let's begin! ", "Challenge accepted! 🙂 ", "Okay! "}) + q
		}
		if i == n-1 {
			q = "Is it " + g.personName() + "? " + pick(r, []string{"🎉", "🤔", ""})
		}
		if !g.say(s, []message{input}, strings.TrimSpace(q)) {
			break
		}
		input = userMsg(pick(r, gameAnswers))
	}
	return s
}

// The coding agent.

func (g *gen) agentSession() *session {
	r := g.r
	s := &session{model: g.pickModel([]*model{claude37, gpt41, gpt4o}, 55, 35, 10), system: []message{systemMsg(agentPrompt)}}
	tools, cost := toolsJSON(agentTools)
	s.params = object{{"tools", tools}, {"tool_choice", "auto"}, {"max_tokens", 4096}, {"temperature", number("0")}}
	s.paramTokens = cost
	t := topicNamed("software")
	pkg, file := identWord(pick(r, t.nouns)), identWord(pick(r, nouns))
	path := "src/" + pkg + "/" + file + ".py"
	issue := "<issue>\n" + titleCase(g.expand("{tn} {vs} the wrong {n} when the {n} is {a}", t)) + "\n\n" + g.paragraph(t, r.between(2, 5)) +
		"\n\nSteps to reproduce:\n```python\nfrom " + pkg + "." + file + " import " + file + "_from_dict\n\nprint(" + file + "_from_dict({\"" + pick(r, nouns) + "\": None}))\n```\n\nExpected: a " + file + " with default values. Actual:\n```\n" +
		g.fillCode(jsonTraceback, t) + "\n```\n</issue>\n\nPlease fix the issue. Make sure the existing tests still pass."
	input := []message{userMsg(issue)}
	steps := r.between(3, 8)
	for i := range steps {
		var def *toolDef
		var args object
		var out string
		switch {
		case i == 0:
			def, args = toolSearch, object{{"pattern", file + "_from_dict"}, {"path", "src"}}
			out = g.searchOutput(pkg, file)
		case i == steps-1:
			def, args = toolShell, object{{"command", "python -m pytest tests/test_" + file + ".py -q"}}
			out = g.testOutput(file, true)
		default:
			switch r.weighted(45, 25, 30) {
			case 0:
				start := r.between(1, 120)
				def, args = toolOpen, object{{"path", path}, {"line", start}}
				out = g.fileView(path, start, t)
			case 1:
				start := r.between(20, 150)
				def, args = toolEdit, object{{"path", path}, {"start_line", start}, {"end_line", start + r.between(0, 6)}, {"new_text", g.fillCode(pick(r, pySnippets), t)}}
				out = "Lines replaced. The edited region now reads:\n" + g.fileView(path, start, t)
			default:
				def, args = toolShell, object{{"command", "python -m pytest tests/test_" + file + ".py -q -x"}}
				out = g.testOutput(file, false)
			}
		}
		c := toolCall{id: g.toolCallID(s.model.provider), name: def.name, args: compact.encode(args)}
		g.callTools(s, input, g.sentence(t), c)
		input = []message{{role: "tool", toolCallID: c.id, content: out}}
	}
	g.say(s, input, "The tests pass now. "+g.paragraph(t, r.between(2, 4))+"\n\nSummary of the change:\n"+g.bullets(t, r.between(2, 4), false))
	return s
}

// searchOutput is what search_code prints.
func (g *gen) searchOutput(pkg, file string) string {
	r := g.r
	var b strings.Builder
	n := r.between(2, 8)
	b.WriteString("Found " + strconv.Itoa(n) + " matches:\n")
	for range n {
		f := "src/" + pkg + "/" + file + ".py"
		if r.percent(40) {
			f = "tests/test_" + file + ".py"
		}
		b.WriteString(f + ":" + strconv.Itoa(r.between(1, 400)) + ":    " + pick(r, []string{"def ", "return ", "result = ", "assert "}) + file + "_from_dict(" + pick(r, []string{"data", "row", "{}", "payload"}) + ")\n")
	}
	return b.String()
}

// fileView is what open_file prints: a header and numbered lines of code.
func (g *gen) fileView(path string, start int, t *topic) string {
	r := g.r
	var b strings.Builder
	total := start + r.between(100, 300)
	b.WriteString("[File: " + path + " (" + strconv.Itoa(total) + " lines total)]\n")
	if start > 1 {
		b.WriteString("(" + strconv.Itoa(start-1) + " more lines above)\n")
	}
	n := start
	for n < start+r.between(40, 100) {
		for line := range strings.SplitSeq(g.fillCode(pick(r, pySnippets), t)+"\n", "\n") {
			b.WriteString(strconv.Itoa(n) + ":" + line + "\n")
			n++
		}
	}
	b.WriteString("(" + strconv.Itoa(total-n) + " more lines below)")
	return b.String()
}

// testOutput is pytest's output, colored as in a terminal.
func (g *gen) testOutput(file string, pass bool) string {
	r := g.r
	n := r.between(8, 40)
	if pass {
		return strings.Repeat(".", n) + " [100%]\n\x1b[32m" + strconv.Itoa(n) + " passed\x1b[0m in " + string(decimal(r.between(20, 900))) + "s"
	}
	fn := "test_" + file + "_" + pick(r, []string{"defaults", "roundtrip", "empty_input", "none_value"})
	return strings.Repeat(".", n/2) + "F\n=================================== FAILURES ===================================\n\x1b[1m\x1b[31m_" + fn + "_\x1b[0m\n\n    def " + fn + "():\n>       assert " + file + "_from_dict({}) == " + titleCase(file) + "()\nE       AssertionError: assert None == " + titleCase(file) + "(id=None)\n\ntests/test_" + file + ".py:" + strconv.Itoa(r.between(10, 200)) + ": AssertionError\n=========================== short test summary info ============================\nFAILED tests/test_" + file + ".py::" + fn + " - AssertionError\n\x1b[31m1 failed, " + strconv.Itoa(n/2) + " passed\x1b[0m in " + string(decimal(r.between(20, 900))) + "s"
}

func (g *gen) crewSession() *session {
	r := g.r
	role := pick(r, crewRoles)
	s := &session{model: g.pickModel([]*model{gpt4oMini, gpt4o, gpt41Mini}, 55, 30, 15), system: []message{systemMsg(role.prompt())}}
	s.litellmOrder = r.percent(80)
	s.params = object{{"stop", []string{"\nObservation:"}}}
	if r.percent(50) {
		s.params = append(s.params, member{"temperature", number("0.7")})
	}
	t := g.topic()
	task := "Current task: " + g.expand("{v} the {a} {tn} for the {n} in {city}", t) + ".\n\nExpected output: " + g.expand("a {a} report with {num} {tns}", t) + ".\nGive the full result as your final answer, not a summary of it.\n\nThought:"
	input := userMsg(task)
	steps := r.between(1, 4)
	for i := range steps {
		if i == steps-1 {
			g.say(s, []message{input}, "Thought: I have what I need.\nFinal Answer: "+g.answer(t, answerStyle{length: r.between(1, 4)}))
			break
		}
		query := g.expand("{a} {tn} {city}", t)
		action := "Thought: " + g.sentence(t) + "\nAction: web_search\nAction Input: " + pythonUTF8.encode(object{{"query", query}})
		if !g.say(s, []message{input}, action) {
			break
		}
		var obs strings.Builder
		obs.WriteString("Observation: ")
		for k := range r.between(2, 5) {
			obs.WriteString("\n\n" + strconv.Itoa(k+1) + ". " + titleCase(g.expand("the {a} {tn}", t)) + " — " + g.url(t) + "\n" + g.paragraph(t, r.between(1, 3)))
		}
		input = userMsg(obs.String())
	}
	return s
}

// Response formats of the extractor.
var (
	entitiesFormat = object{{"type", "json_schema"}, {"json_schema", object{
		{"name", "entities"},
		{"strict", true},
		{"schema", object{
			{"type", "object"},
			{"properties", object{
				{"people", object{{"type", "array"}, {"items", object{{"type", "string"}}}}},
				{"organizations", object{{"type", "array"}, {"items", object{{"type", "string"}}}}},
				{"locations", object{{"type", "array"}, {"items", object{{"type", "string"}}}}},
				{"dates", object{{"type", "array"}, {"items", object{{"type", "string"}, {"description", "ISO 8601 date"}}}}},
			}},
			{"required", []string{"people", "organizations", "locations", "dates"}},
			{"additionalProperties", false},
		}},
	}}}
	reviewFormat = object{{"type", "json_schema"}, {"json_schema", object{
		{"name", "task_review"},
		{"strict", true},
		{"schema", object{
			{"type", "object"},
			{"properties", object{
				{"score", object{{"type", "number"}, {"description", "Quality of the output from 0 to 10."}}},
				{"summary", object{{"type", "string"}, {"description", "One sentence on what the output does well or badly."}}},
				{"suggestions", object{{"type", "array"}, {"items", object{{"type", "string"}}}, {"description", "Concrete ways to improve similar outputs."}}},
			}},
			{"required", []string{"score", "summary", "suggestions"}},
			{"additionalProperties", false},
		}},
	}}}
)

func (g *gen) extractorSession() *session {
	r := g.r
	s := &session{model: g.pickModel([]*model{gpt41Mini, gpt4oMini, gpt41Nano}, 50, 35, 15), system: []message{systemMsg(extractorPrompt)}}
	s.litellmOrder = r.percent(70)
	t := g.topic()
	var q string
	var res object     // the JSON answer
	var call *toolCall // or the forced function call
	switch r.intn(4) {
	case 0:
		s.params = object{{"response_format", entitiesFormat}}
		people := []string{g.personName(), g.personName()}
		place, org, date := pick(r, cities), g.company(), g.date()
		q = "Extract the people, organizations, locations and dates from this text.\n\nText:\n" + people[0] + " met " + people[1] + " from " + org + " in " + place + " on " + date + ". " + g.paragraph(t, r.between(2, 6))
		res = object{{"people", people}, {"organizations", []string{org}}, {"locations", []string{place}}, {"dates", []string{date}}}
	case 1:
		s.params = object{{"response_format", reviewFormat}}
		q = "Review the output of the task below.\n\nTask:\n" + g.question(t) + "\n\nOutput:\n" + g.answer(t, answerStyle{length: r.between(1, 3)}) + "\n\nGive a score, a one-sentence summary and suggestions."
		res = object{{"score", r.between(3, 10)}, {"summary", g.sentence(t)}, {"suggestions", []string{g.sentence(t), g.sentence(t)}}}
	case 2:
		// A function made up for this one request and forced, so the
		// answer is a call of it.
		def := g.recordFunction(t)
		tools, cost := toolsJSON([]*toolDef{def})
		s.params = object{{"tools", tools}, {"tool_choice", object{{"type", "function"}, {"function", object{{"name", def.name}}}}}}
		s.paramTokens = cost
		q = "Record the details from this note:\n\n" + g.paragraph(t, r.between(2, 6))
		call = &toolCall{g.toolCallID(s.model.provider), def.name, compact.encode(g.call(def, false, nil))}
	default:
		s.params = object{{"response_format", object{{"type", "json_object"}}}}
		q = "Return a JSON object with the keys \"title\", \"tags\" and \"reading_time_minutes\" for this article:\n\n" + g.paragraph(t, r.between(4, 12))
		res = object{{"title", titleCase(g.expand("{a} {tns}", t))}, {"tags", []string{pick(r, t.nouns), pick(r, t.nouns)}}, {"reading_time_minutes", r.between(2, 12)}}
	}
	s.params = append(s.params, member{"temperature", number("0")})
	if call != nil {
		// OpenAI reports a forced call with finish_reason "stop".
		s.turns = []turn{{input: []message{userMsg(q)}, reply: message{role: "assistant", toolCalls: []toolCall{*call}}, finish: "stop"}}
		return s
	}
	out := compact.encode(res)
	if r.percent(30) {
		out = pythonUTF8.encode(res)
	}
	g.say(s, []message{userMsg(q)}, out)
	return s
}

// recordFunction makes up a function for storing a record about t: a name,
// and three to six typed fields.
func (g *gen) recordFunction(t *topic) *toolDef {
	r := g.r
	noun := identWord(pick(r, t.nouns))
	d := &toolDef{name: "record_" + noun, desc: "Store the " + noun + " details extracted from the user's text."}
	kinds := map[string]string{"string": "query", "number": "num:1-500", "integer": "int:1-100", "boolean": "bool", "array": "list:query"}
	for range r.between(3, 6) {
		name := strings.ReplaceAll(identWord(pick(r, nouns)), "-", "_")
		if slices.ContainsFunc(d.params, func(p param) bool { return p.name == name }) {
			continue
		}
		typ := pick(r, []string{"string", "string", "string", "number", "integer", "boolean", "array"})
		d.params = append(d.params, param{name, typ, g.expand("the {a} {n} of the ", t) + noun, kinds[typ], true})
	}
	return d
}

func (g *gen) docsSession() *session {
	r := g.r
	s := &session{model: g.pickModel([]*model{gpt41Nano, gpt4oMini, gpt41Mini}, 50, 35, 15), system: []message{systemMsg(docsPrompt)}}
	s.maxTokens = 1024
	s.params = object{{"temperature", number("0")}, {"max_tokens", s.maxTokens}}
	if r.percent(80) {
		s.stream = true
		s.params = append(s.params, member{"stream", true})
		if r.percent(80) {
			s.includeUsage = true
			s.params = append(s.params, member{"stream_options", object{{"include_usage", true}}})
		}
	}
	s.params = append(s.params, member{"user", g.user()})
	d := pick(r, g.docs)
	doc, t := d.chunks, d.topic
	for range g.turnCount(25, 3) {
		var b strings.Builder
		b.WriteString("Answer the question using only the context below.\n\nContext:\n")
		start, n := r.intn(len(doc)), r.between(2, 6)
		for i := range n {
			b.WriteString("[" + strconv.Itoa(i+1) + "] " + doc[(start+i)%len(doc)] + "\n\n")
		}
		b.WriteString("Question: " + g.expand(pick(r, questionTemplates), t))
		a := g.paragraph(t, r.between(1, 3)) + " [" + strconv.Itoa(r.between(1, n)) + "]"
		if !g.say(s, []message{userMsg(b.String())}, a) {
			break
		}
	}
	return s
}

var mathProblems = []string{
	"Find the derivative of f(x) = {c}x^{k} + \\sin(x) \\cdot e^{x}.",
	"Evaluate the integral \\int_0^{k} ({c}x^2 + 1)\\,dx.",
	"Does the series \\sum_{n=1}^{\\infty} \\frac{{c}}{n^{k}} converge? Explain.",
	"Solve the system {c}x + y = {k}, x - y = 1.",
	"A bag has {c} red and {k} blue marbles. Two are drawn without replacement. What is the probability both are red?",
}

func (g *gen) tutorSession() *session {
	r := g.r
	var s *session
	if r.percent(65) {
		s = &session{model: o3Mini, litellmOrder: true, system: []message{{role: "developer", content: tutorPrompt}}}
		s.params = object{{"reasoning_effort", pick(r, []string{"low", "low", "medium"})}}
	} else {
		s = &session{model: o1Mini}
		s.maxTokens = 8192
		s.params = object{{"max_completion_tokens", s.maxTokens}}
	}
	t := topicNamed("math")
	for range g.turnCount(30, 3) {
		c, k := strconv.Itoa(r.between(2, 9)), strconv.Itoa(r.between(2, 5))
		q := strings.NewReplacer("{c}", c, "{k}", k).Replace(pick(r, mathProblems))
		a := g.paragraph(t, r.between(1, 3)) + "\n\n$$\n\\frac{d}{dx}\\left(" + c + "x^{" + k + "}\\right) = " + c + " \\cdot " + k + "x^{" + k + "-1}\n$$\n\n" +
			g.numberedList(t, r.between(2, 4), false) + "\n\n**Answer:** $\\boxed{" + c + k + "}$"
		if !g.say(s, []message{userMsg(q)}, a) {
			break
		}
		s.turns[len(s.turns)-1].reasoning = 64 * r.between(2, 30)
	}
	return s
}

func (g *gen) visionSession() *session {
	r := g.r
	s := &session{model: g.pickModel([]*model{gpt4o, gpt4oMini, gpt41}, 55, 25, 20)}
	if r.percent(50) {
		s.system = []message{systemMsg(visionPrompt)}
	}
	s.maxTokens = 1024
	s.params = object{{"max_tokens", s.maxTokens}}
	t := g.topic()
	parts := []part{{text: g.expand(pick(r, []string{"What is in this picture?", "Describe this image.", "What's wrong with my {tn} in this photo?", "Can you read the text on this {tn}?"}), t)}}
	for range r.between(1, 2) {
		parts = append(parts, part{imageURL: "https://" + pick(r, domains) + "/uploads/" + g.date()[:7] + "/" + r.chars(hexDigits, 16) + ".jpg"})
	}
	if !g.say(s, []message{{role: "user", parts: parts}}, g.answer(t, answerStyle{plain: true, length: r.between(1, 3)})) {
		return s
	}
	if r.percent(40) {
		g.say(s, []message{userMsg(g.followUp(t))}, g.answer(t, answerStyle{length: r.between(1, 2)}))
	}
	return s
}

func (g *gen) summarizerSession() *session {
	r := g.r
	s := &session{model: g.pickModel([]*model{gpt35Turbo, gpt4Turbo, gpt4oMini}, 45, 30, 25)}
	s.litellmOrder = r.percent(50)
	if r.percent(60) {
		s.system = []message{systemMsg(summarizerPrompt)}
	}
	s.maxTokens = 512
	s.params = object{{"temperature", number("0.5")}, {"max_tokens", s.maxTokens}}
	t := g.topic()
	from, to := g.personName(), pick(r, firstNames)
	// An email pasted from a desktop client: CRLF line endings, typographic
	// quotes and bullets.
	email := "From: " + from + " <" + g.emailOf(from) + ">\nSubject: " + titleCase(g.expand("{a} {tn} update", t)) + "\n\nHi " + to + ",\n\n" +
		smarten(g.paragraph(t, r.between(2, 5))) + "\n\n"
	for range r.between(2, 5) {
		email += "• " + smarten(g.sentence(t)) + "\n"
	}
	email += "\n" + smarten(g.paragraph(t, r.between(1, 3))) + "\n\nBest,\n" + strings.Fields(from)[0]
	email = strings.ReplaceAll(email, "\n", "\r\n")
	a := "- " + g.sentence(t) + "\n- " + g.sentence(t) + "\n- " + g.expand("deadline: {the} {tn} is due on ", t) + g.date() + "."
	g.say(s, []message{userMsg("Summarize this email in three bullet points:\n\n" + email)}, a)
	return s
}
