package gen

import (
	"strconv"
	"strings"
)

// Text synthesis: sentences from templates over the vocabularies in
// words.go, assembled into the kinds of text LLM traffic carries (questions,
// markdown answers with lists, headings and tables, code blocks, Chinese,
// French and Spanish). The text is not meant to make sense, only to have the
// word statistics, punctuation, line structure and escaping needs of the
// real thing.

// Sentence templates. expand replaces each {token}: {n} a noun, {ns} a
// plural noun, {tn} and {tns} the same from the topic's own nouns, {v} {vs}
// {ved} {ving} a verb and its forms, {a} an adjective, {adv} an adverb, {p}
// a preposition, {conn} a connective, {the} and {these} a singular and a
// plural determiner, {num} {pct} {money} {year} numbers, {name} and {city}
// proper names. Then a leading lowercase letter is capitalized and "a"
// becomes "an" before a vowel sound.
var (
	statementTemplates = []string{
		"{the} {a} {n} {vs} {the} {n} {p} {the} {n}.",
		"{conn} you can {v} {the} {n} by {ving} {the} {a} {tn}.",
		"most {tns} {v} {adv} when {the} {n} is {a}.",
		"if you {v} {the} {tn} too {adv}, {the} {n} will {v} {p} {the} {n}.",
		"this {vs} about {pct} of {these} {tns} {p} {the} {n}.",
		"it is {a} to {v} {the} {tn} before you {v} {these} {ns}.",
		"{the} {tn} {adv} {vs} {these} {a} {ns}, so {v} them {p} {the} {n}.",
		"a {a} {n} with {num} {tns} is usually enough to {v} {the} {tn}.",
		"when {name} {ved} {the} {tn} in {year}, {these} {ns} {ved} {adv}.",
		"{conn} {v} {the} {tn} and {v} {the} {tn} {p} {the} {n}.",
		"there are {num} {a} {ns} to {v} here: {the} {tn}, {the} {tn} and {the} {n}.",
		"you should {adv} {v} {the} {n} {p} {the} {a} {tn}.",
		"{the} {tn} {vs} {the} {n}, which {vs} {the} {a} {tn} {adv}.",
		"{conn} {the} {a} {tn} {vs} {these} {tns} {p} {city}.",
		"{ving} {the} {tn} {p} {the} {n} {vs} {the} {a} {n}.",
		"{conn} it helps to {v} {num} {ns} per {n} and {v} {the} {tn}.",
		"the {a} {tn} is {a}, but {the} {n} {vs} {adv} {a}.",
		"{conn} {these} {ns} that {name} {ved} are {adv} {a}.",
		"do not {v} {the} {tn} until {the} {n} is {a}.",
		"{the} {n} costs around {money} and {vs} {the} {a} {tn}.",
		"{ving} {the} {tn} {adv} {vs} {the} {n} {p} {the} {a} {n}.",
		"{name} {adv} {ved} {the} {a} {tn}, and {these} {ns} {ved} {p} {the} {n}.",
		"{these} {ns} {p} {the} {tn} {v} {adv}, so {the} {a} {n} {vs} {p} {num} {ns}.",
		"{conn} a {a}, {a} {tn} {vs} fewer {ns} than {the} {a} {n}.",
		"about {pct} of {ns} {v} {the} {tn} {p} {the} {n}, according to a {year} survey.",
		"the {n} of {the} {tn} {vs} how {adv} {these} {ns} {v}.",
		"to {v} {the} {tn}, {v} {the} {a} {n} and then {v} {these} {ns}.",
		"{the} {a} {n} {vs} {the} {tn} only if {these} {ns} are {a}.",
		"in {city}, {these} {a} {tns} {v} {adv} {p} {the} {n}.",
		"{the} {tn} and {the} {tn} both {v} {the} {a} {n}, but in {a} ways.",
		"unless {the} {n} is {a}, {v} {these} {tns} {p} {num} {ns}.",
		"{conn} {name} {vs} that {the} {a} {tn} {vs} {the} {n}.",
		"each {tn} {vs} roughly {num} {ns}, so plan {the} {n} {adv}.",
		"once {the} {tn} {vs} {the} {n}, {v} {these} {a} {ns} {adv}.",
		"the {a} part is {ving} {the} {tn} without {ving} {the} {n}.",
		"after {num} {ns}, {the} {tn} {adv} {vs} {a}.",
		"{v} {the} {tn} first; {these} {a} {ns} can wait until {the} {n} is {a}.",
		"{these} {ns} {ved} {adv} because {the} {tn} was too {a}.",
		"a {a} {tn} {vs} {the} {n}; a {a} one {vs} {these} {ns} instead.",
		"{conn} {these} {a} {ns} {p} {the} {tn} {v} {the} {n} {adv}.",
		"most {a} {ns} {v} {the} {tn}, and {num} out of 10 {v} {the} {a} {n}.",
		"{the} {tn} {vs} {money} per {n}, which {vs} {the} {a} {n} {p} {city}.",
		"you can {adv} {v} {the} {a} {tn} {p} {these} {ns} {p} {the} {n}.",
		"{ving} {these} {ns} {adv} {vs} {the} {a} {tn} {a} and {a}.",
		"the term \"{tn}\" usually means {the} {a} {n} {p} {the} {n}.",
		"{name} called it \"{the} {a} {tn}\", and {these} {ns} still {v} it that way.",
		"look for the \"{a} {n}\" option {p} {the} {tn} settings.",
	}
	questionTemplates = []string{
		"how do I {v} {the} {tn} {p} {the} {n}?",
		"what is the best way to {v} {the} {a} {tn}?",
		"can you explain why {the} {tn} {vs} {the} {n}?",
		"why does my {tn} keep {ving} after I {ved} the {n}?",
		"what's the difference between a {a} {tn} and a {a} {tn}?",
		"is it a good idea to {v} {the} {tn} {p} {the} {n}?",
		"could you give me {num} tips to {v} {the} {tn}?",
		"should I {v} the {tn} or {v} the {tn} first?",
		"how long does it take to {v} a {a} {tn}?",
		"what are the pros and cons of {ving} {the} {tn}?",
	}
	// Openers and closers around user questions and assistant answers.
	userOpeners       = []string{"Hi, ", "Hello! ", "Quick question: ", "Hey, ", "Thanks! ", "Okay, ", "Follow-up: "}
	answerOpeners     = []string{"Great question!", "Sure!", "Here's a practical overview.", "Good idea.", "Absolutely.", "Certainly!", "Here is a step-by-step plan."}
	answerClosers     = []string{"Let me know if you want me to go deeper on any of these points.", "I hope this helps!", "Would you like a more detailed version?", "Feel free to share more details and I can tailor this further.", "If you tell me more about your setup, I can be more specific."}
	followUps         = []string{"Can you make it shorter?", "Thanks, that helps. What about the {tn}?", "Could you add an example?", "Can you turn that into a checklist?", "What would you change for a {a} {tn}?", "And how do I {v} the {tn}?", "Please explain the second point in more detail.", "Can you put that in a table?"}
	determiners       = []string{"the", "the", "the", "the", "the", "a", "a", "a", "this", "your", "our", "that", "each", "their"}
	pluralDeterminers = []string{"the", "the", "the", "the", "these", "your", "our", "all", "some", "many", "those", "their", "most"}
	headingTemplates  = []string{"{A} {Tn}", "{Ving} the {Tn}", "Why {Tns} Matter", "Common {Tn} Mistakes", "Step {num}: {V} the {Tn}", "{A} {Tns}", "{Tn} Checklist", "Choosing a {Tn}"}
)

// expand fills a template's tokens with words of topic t.
func (g *gen) expand(tpl string, t *topic) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tpl, '{')
		if i < 0 {
			b.WriteString(tpl)
			break
		}
		j := strings.IndexByte(tpl[i:], '}') + i
		b.WriteString(tpl[:i])
		b.WriteString(g.token(tpl[i+1:j], t))
		tpl = tpl[j+1:]
	}
	return fixArticles(b.String())
}

// token returns one word or phrase for a template token. A capitalized
// token name gives a Title Cased result.
func (g *gen) token(name string, t *topic) string {
	if name != "" && name[0] >= 'A' && name[0] <= 'Z' {
		return titleCase(g.token(strings.ToLower(name[:1])+name[1:], t))
	}
	r := g.r
	switch name {
	case "n":
		return g.noun(t)
	case "ns":
		return pluralOf(g.noun(t))
	case "tn":
		return pick(r, t.nouns)
	case "tns":
		return pluralOf(pick(r, t.nouns))
	case "v":
		return g.verb(t)
	case "vs":
		return thirdPerson(g.verb(t))
	case "ved":
		return past(g.verb(t))
	case "ving":
		return gerund(g.verb(t))
	case "a":
		return g.adjective(t)
	case "adv":
		return g.adverb(t)
	case "p":
		return pick(r, prepositions)
	case "conn":
		return pick(r, connectives)
	case "the":
		return pick(r, determiners)
	case "these":
		return pick(r, pluralDeterminers)
	case "num":
		return strconv.Itoa(r.between(2, 12))
	case "pct":
		return strconv.Itoa(r.between(5, 95)) + "%"
	case "money":
		return "$" + strconv.Itoa(r.between(5, 900)) + pick(r, []string{"", "", ".99", ".50", "0", ",000"})
	case "year":
		return strconv.Itoa(r.between(2015, 2025))
	case "name":
		return pick(r, firstNames)
	case "city":
		return pick(r, cities)
	}
	panic("sample: unknown template token {" + name + "}")
}

func (g *gen) noun(t *topic) string {
	if g.r.percent(60) {
		return pick(g.r, t.nouns)
	}
	return pick(g.r, nouns)
}

func (g *gen) verb(t *topic) string {
	if g.r.percent(35) {
		return pick(g.r, t.verbs)
	}
	return pick(g.r, verbs)
}

// fixArticles capitalizes the first letter of s and turns "a" into "an"
// before a vowel sound.
func fixArticles(s string) string {
	words := strings.Split(s, " ")
	for i := 0; i+1 < len(words); i++ {
		if (words[i] == "a" || words[i] == "A") && vowelSound(words[i+1]) {
			words[i] += "n"
		}
	}
	s = strings.Join(words, " ")
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

func vowelSound(w string) bool {
	w = strings.ToLower(w)
	for _, p := range []string{"uni", "use", "usu", "eu", "one", "once"} {
		if strings.HasPrefix(w, p) {
			return false
		}
	}
	return w != "" && (strings.IndexByte("aeiou", w[0]) >= 0 || strings.HasPrefix(w, "hour") || strings.HasPrefix(w, "honest"))
}

func titleCase(s string) string {
	words := strings.Split(s, " ")
	for i, w := range words {
		if w != "" && w[0] >= 'a' && w[0] <= 'z' && (i == 0 || len(w) > 3) {
			words[i] = string(w[0]-'a'+'A') + w[1:]
		}
	}
	return strings.Join(words, " ")
}

// Inflection of the regular words in words.go; the maps there list the
// exceptions.

func pluralOf(n string) string {
	head, last := "", n
	if i := strings.LastIndexByte(n, ' '); i >= 0 {
		head, last = n[:i+1], n[i+1:]
	}
	if p, ok := irregularPlural[last]; ok {
		return head + p
	}
	switch {
	case strings.HasSuffix(last, "s") || strings.HasSuffix(last, "x") || strings.HasSuffix(last, "ch") || strings.HasSuffix(last, "sh"):
		return n + "es"
	case strings.HasSuffix(last, "y") && !strings.ContainsRune("aeiou", rune(last[len(last)-2])):
		return n[:len(n)-1] + "ies"
	}
	return n + "s"
}

// verbSplit separates a phrasal verb ("warm up") into the verb and the rest.
func verbSplit(v string) (verb, rest string) {
	if i := strings.IndexByte(v, ' '); i >= 0 {
		return v[:i], v[i:]
	}
	return v, ""
}

func thirdPerson(v string) string {
	verb, rest := verbSplit(v)
	return pluralOf(verb) + rest
}

// doubles reports whether verb doubles its final consonant before -ed and
// -ing: one-syllable verbs ending consonant, vowel, consonant (stop,
// tag), and the exceptions listed in words.go (commit, transfer).
func doubles(verb string) bool {
	if doubling[verb] {
		return true
	}
	isVowel := func(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }
	n := len(verb)
	if n < 3 || strings.IndexByte("wxy", verb[n-1]) >= 0 || isVowel(verb[n-1]) || !isVowel(verb[n-2]) || isVowel(verb[n-3]) {
		return false
	}
	groups := 0
	for i := range n {
		if isVowel(verb[i]) && (i == 0 || !isVowel(verb[i-1])) {
			groups++
		}
	}
	return groups == 1
}

func past(v string) string {
	verb, rest := verbSplit(v)
	if p, ok := irregularPast[verb]; ok {
		return p + rest
	}
	switch {
	case doubles(verb):
		return verb + verb[len(verb)-1:] + "ed" + rest
	case strings.HasSuffix(verb, "e"):
		return verb + "d" + rest
	case strings.HasSuffix(verb, "y") && !strings.ContainsRune("aeiou", rune(verb[len(verb)-2])):
		return verb[:len(verb)-1] + "ied" + rest
	}
	return verb + "ed" + rest
}

func gerund(v string) string {
	verb, rest := verbSplit(v)
	switch {
	case doubles(verb):
		return verb + verb[len(verb)-1:] + "ing" + rest
	case strings.HasSuffix(verb, "ee"):
		return verb + "ing" + rest
	case strings.HasSuffix(verb, "e"):
		return verb[:len(verb)-1] + "ing" + rest
	}
	return verb + "ing" + rest
}

// sentence returns one declarative sentence about t: from a template, or
// from the phrase grammar below, which varies the sentence skeleton too.
func (g *gen) sentence(t *topic) string {
	r := g.r
	if r.percent(50) {
		return g.expand(pick(r, statementTemplates), t)
	}
	s := g.clause(t)
	if r.percent(25) {
		s = pick(r, connectives) + " " + s
	}
	if r.percent(35) {
		s += pick(r, clauseLinks) + g.clause(t)
	}
	return fixArticles(s + ".")
}

var (
	clauseLinks  = []string{", and ", ", but ", ", so ", " because ", " while ", ", although ", " when ", " until ", ", which means "}
	modals       = []string{"can", "should", "will", "might", "must", "could", "would", "can", "will", "should"}
	subjectWords = []string{"you", "we", "they", "most teams", "many people"}
)

// clause returns subject, verb phrase and optional complements, with the
// verb agreeing with the subject.
func (g *gen) clause(t *topic) string {
	r := g.r
	var subj string
	singular := r.percent(55)
	switch {
	case singular && r.percent(15):
		subj = pick(r, firstNames)
	case singular:
		subj = g.nounPhrase(t, false)
	case r.percent(30):
		subj = pick(r, subjectWords)
	default:
		subj = g.nounPhrase(t, true)
	}
	var vp string
	switch r.intn(6) {
	case 0, 1:
		v := g.verb(t)
		if singular {
			v = thirdPerson(v)
		}
		vp = v + " " + g.nounPhrase(t, r.percent(40))
	case 2:
		vp = pick(r, modals) + " " + g.verb(t) + " " + g.nounPhrase(t, r.percent(40))
	case 3:
		vp = past(g.verb(t)) + " " + g.nounPhrase(t, r.percent(40))
	case 4:
		be := "are"
		if singular {
			be = "is"
		}
		vp = be + " " + g.adjective(t)
	default:
		vp = pick(r, modals) + " " + g.adverb(t) + " " + g.verb(t) + " " + g.nounPhrase(t, r.percent(40))
	}
	s := subj + " " + vp
	if r.percent(45) {
		s += " " + pick(r, prepositions) + " " + g.nounPhrase(t, r.percent(40))
	}
	if r.percent(15) {
		s += " " + g.adverb(t)
	}
	return s
}

// nounPhrase returns a determiner, maybe an adjective or a modifier noun,
// and a noun, singular or plural.
func (g *gen) nounPhrase(t *topic, plural bool) string {
	r := g.r
	det := pick(r, determiners)
	if plural {
		det = pick(r, pluralDeterminers)
		if r.percent(12) {
			det = strconv.Itoa(r.between(2, 40))
		}
	}
	np := det + " "
	n := g.noun(t)
	switch r.intn(4) {
	case 0:
		np += g.adjective(t) + " "
	case 1:
		if m := identWord(pick(r, t.nouns)); !strings.Contains(n, m) {
			np += m + " "
		}
	}
	if plural {
		n = pluralOf(n)
	}
	np += n
	if r.percent(18) {
		np += " of " + g.nounPhrase(t, r.percent(50))
	}
	return np
}

// adverb returns an adverb, often one derived from an adjective.
func (g *gen) adverb(t *topic) string {
	if g.r.percent(40) {
		if a := g.adjective(t); !strings.ContainsAny(a, " -") && !strings.HasSuffix(a, "ly") {
			return adverbOf(a)
		}
	}
	return pick(g.r, adverbs)
}

// adverbOf derives an adverb from an adjective: quick, quickly; simple,
// simply; basic, basically; easy, easily.
func adverbOf(a string) string {
	switch {
	case strings.HasSuffix(a, "ic"):
		return a + "ally"
	case strings.HasSuffix(a, "le"):
		return a[:len(a)-1] + "y"
	case strings.HasSuffix(a, "y"):
		return a[:len(a)-1] + "ily"
	}
	return a + "ly"
}

func (g *gen) adjective(t *topic) string {
	if g.r.percent(40) {
		return pick(g.r, t.adjectives)
	}
	return pick(g.r, adjectives)
}

// paragraph returns n sentences about t.
func (g *gen) paragraph(t *topic, n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = g.sentence(t)
	}
	return strings.Join(s, " ")
}

// question returns a user's question about t, sometimes with an opener and
// some context before it.
func (g *gen) question(t *topic) string {
	var b strings.Builder
	if g.r.percent(30) {
		b.WriteString(pick(g.r, userOpeners))
	}
	if g.r.percent(45) {
		b.WriteString(g.paragraph(t, g.r.between(1, 3)))
		b.WriteString(" ")
	}
	q := g.expand(pick(g.r, questionTemplates), t)
	if strings.HasSuffix(b.String(), ", ") {
		q = strings.ToLower(q[:1]) + q[1:]
	}
	b.WriteString(q)
	return b.String()
}

// followUp returns a later user turn in a conversation about t.
func (g *gen) followUp(t *topic) string {
	if g.r.percent(60) {
		return g.expand(pick(g.r, followUps), t)
	}
	return g.question(t)
}

// answerStyle controls how an assistant formats an answer.
type answerStyle struct {
	emoji  bool // headings and list items may carry emoji
	smart  bool // typographic quotes and dashes (’ “ ” —)
	plain  bool // no markdown: paragraphs only
	length int  // rough number of blocks: 1 is a short reply, 8 a long one
}

// answer returns an assistant answer about t: an opening line, a few
// markdown blocks (paragraphs, lists, sections, tables, code), a closer.
func (g *gen) answer(t *topic, st answerStyle) string {
	r := g.r
	var blocks []string
	if r.percent(55) {
		blocks = append(blocks, pick(r, answerOpeners)+" "+g.paragraph(t, r.between(1, 2)))
	}
	for range st.length {
		if st.plain {
			blocks = append(blocks, g.paragraph(t, r.between(2, 5)))
			continue
		}
		switch r.weighted(30, 22, 18, 16, 5, 9) {
		case 0:
			blocks = append(blocks, g.paragraph(t, r.between(2, 6)))
		case 1:
			blocks = append(blocks, g.numberedList(t, r.between(3, 6), st.emoji))
		case 2:
			blocks = append(blocks, g.bullets(t, r.between(2, 5), st.emoji))
		case 3:
			h := g.expand(pick(r, headingTemplates), t)
			if st.emoji && r.percent(50) {
				h = pick(r, emoji) + " " + h
			}
			blocks = append(blocks, "### "+h+"\n\n"+g.paragraph(t, r.between(1, 3)))
		case 4:
			blocks = append(blocks, g.table(t))
		case 5:
			if t.code {
				blocks = append(blocks, g.codeBlock(t))
			} else {
				blocks = append(blocks, g.paragraph(t, r.between(1, 3)))
			}
		}
	}
	if r.percent(10) {
		blocks = append(blocks, pick(r, []string{"Source: ", "More details: ", "See also "})+g.url(t))
	}
	if r.percent(50) {
		blocks = append(blocks, pick(r, answerClosers))
	}
	s := strings.Join(blocks, "\n\n")
	if st.smart {
		s = smarten(s)
	}
	return s
}

func (g *gen) numberedList(t *topic, n int, withEmoji bool) string {
	lines := make([]string, n)
	for i := range lines {
		title := g.expand(pick(g.r, headingTemplates), t)
		if withEmoji && g.r.percent(30) {
			title += " " + pick(g.r, emoji)
		}
		lines[i] = strconv.Itoa(i+1) + ". **" + title + "**: " + g.paragraph(t, g.r.between(1, 2))
	}
	return strings.Join(lines, "\n")
}

func (g *gen) bullets(t *topic, n int, withEmoji bool) string {
	lines := make([]string, n)
	for i := range lines {
		mark := "- "
		if withEmoji && g.r.percent(40) {
			mark = "- " + pick(g.r, emoji) + " "
		}
		lines[i] = mark + g.sentence(t)
	}
	return strings.Join(lines, "\n")
}

func (g *gen) table(t *topic) string {
	r := g.r
	cols := []string{titleCase(pick(r, t.nouns)), "Cost", "Effort", "Notes"}
	var b strings.Builder
	b.WriteString("| " + strings.Join(cols, " | ") + " |\n|---|---|---|---|")
	for range r.between(2, 5) {
		b.WriteString("\n| " + titleCase(g.expand("{a} {tn}", t)) + " | " + g.token("money", t) + " | " +
			pick(r, []string{"Low", "Medium", "High"}) + " | " + g.expand("{v} {the} {n}", t) + " |")
	}
	return b.String()
}

// smarten replaces ASCII apostrophes, double quotes and spaced hyphens with
// their typographic forms, as word processors and some models write them.
func smarten(s string) string {
	var b strings.Builder
	open := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			b.WriteString("’")
		case c == '"':
			if open {
				b.WriteString("“")
			} else {
				b.WriteString("”")
			}
			open = !open
		case c == ' ' && strings.HasPrefix(s[i:], " - "):
			b.WriteString(" — ")
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Code. Templates use {Noun} (CamelCase), {noun} (lower case, one word),
// {verb}, {Verb}, {field}, {Field}, {num} and {sentence}; see fillCode.
var (
	goSnippets = []string{
		"func {Verb}{Noun}s(items []{Noun}, limit int) ([]{Noun}, error) {\n\tif limit <= 0 {\n\t\treturn nil, fmt.Errorf(\"{verb} {noun}s: invalid limit %d\", limit)\n\t}\n\tout := make([]{Noun}, 0, len(items))\n\tfor _, it := range items {\n\t\tif it.{Field} == \"\" {\n\t\t\tcontinue\n\t\t}\n\t\tout = append(out, it)\n\t\tif len(out) == limit {\n\t\t\tbreak\n\t\t}\n\t}\n\treturn out, nil\n}",
		"type {Noun} struct {\n\tID        string    `json:\"id\"`\n\t{Field}   string    `json:\"{field}\"`\n\tCount     int       `json:\"count\"`\n\tCreatedAt time.Time `json:\"created_at\"`\n}\n\n// Validate reports whether the {noun} can be saved.\nfunc (x *{Noun}) Validate() error {\n\tif x.ID == \"\" {\n\t\treturn errors.New(\"{noun}: missing id\")\n\t}\n\tif x.Count < 0 || x.Count > {num}00 {\n\t\treturn fmt.Errorf(\"{noun} %s: count %d out of range\", x.ID, x.Count)\n\t}\n\treturn nil\n}",
		"func handle{Noun}(w http.ResponseWriter, r *http.Request) {\n\tvar req {Noun}Request\n\tif err := json.NewDecoder(r.Body).Decode(&req); err != nil {\n\t\thttp.Error(w, err.Error(), http.StatusBadRequest)\n\t\treturn\n\t}\n\tlog.Printf(\"{verb} {noun} %q\\n\", req.{Field})\n\tw.Header().Set(\"Content-Type\", \"application/json\")\n\tjson.NewEncoder(w).Encode(map[string]any{\"ok\": true, \"{field}\": req.{Field}})\n}",
		"func {verb}All(ctx context.Context, ids []string) error {\n\tg, ctx := errgroup.WithContext(ctx)\n\tg.SetLimit({num})\n\tfor _, id := range ids {\n\t\tg.Go(func() error {\n\t\t\treturn {verb}One(ctx, id)\n\t\t})\n\t}\n\treturn g.Wait()\n}",
	}
	pySnippets = []string{
		"import json\nfrom pathlib import Path\n\n\ndef {verb}_{noun}s(path: str, limit: int = {num}) -> list[dict]:\n    \"\"\"{sentence}\"\"\"\n    results = []\n    for line in Path(path).read_text(encoding=\"utf-8\").splitlines():\n        if not line.strip():\n            continue\n        record = json.loads(line)\n        if record.get(\"{field}\") is None:\n            continue\n        results.append(record)\n        if len(results) >= limit:\n            break\n    return results",
		"import re\n\nPATTERN = re.compile(r\"^(\\d{4})-(\\d{2})-(\\d{2})\\s+(\\w+):\\s*(.*)$\")\n\n\ndef parse_{noun}(line):\n    m = PATTERN.match(line)\n    if m is None:\n        raise ValueError(f\"bad {noun} line: {line!r}\")\n    year, month, day, {field}, rest = m.groups()\n    return {\"date\": f\"{year}-{month}-{day}\", \"{field}\": {field}, \"text\": rest.strip()}",
		"import pandas as pd\n\ndf = pd.read_csv(\"{noun}s.csv\", parse_dates=[\"created_at\"])\nsummary = (\n    df[df[\"{field}\"].notna()]\n    .groupby(\"{field}\")[\"amount\"]\n    .agg([\"count\", \"mean\", \"sum\"])\n    .sort_values(\"sum\", ascending=False)\n)\nprint(summary.head({num}))",
		"class {Noun}Cache:\n    def __init__(self, max_items={num}00):\n        self.max_items = max_items\n        self._items = {}\n\n    def get(self, key):\n        return self._items.get(key)\n\n    def put(self, key, value):\n        if len(self._items) >= self.max_items:\n            self._items.pop(next(iter(self._items)))\n        self._items[key] = value",
	}
	otherSnippets = []string{
		"sql\nSELECT {field}, COUNT(*) AS n, AVG(amount) AS avg_amount\nFROM {noun}s\nWHERE created_at >= '2024-01-01'\nGROUP BY {field}\nORDER BY n DESC\nLIMIT {num};",
		"bash\ngo test ./... -run 'Test{Noun}' -count=1\ngrep -rn \"{verb}{Noun}\" --include='*.go' . | head -n {num}",
		"json\n{\n  \"{field}\": \"{verb}\",\n  \"limit\": {num},\n  \"enabled\": true,\n  \"tags\": [\"{noun}\", \"{field}\"]\n}",
	}
)

// codeBlock returns a fenced code block in Go, Python, SQL, shell or JSON.
func (g *gen) codeBlock(t *topic) string {
	switch g.r.weighted(40, 40, 20) {
	case 0:
		return "```go\n" + g.fillCode(pick(g.r, goSnippets), t) + "\n```"
	case 1:
		return "```python\n" + g.fillCode(pick(g.r, pySnippets), t) + "\n```"
	}
	return "```" + g.fillCode(pick(g.r, otherSnippets), t) + "\n```"
}

// code returns a bare source snippet (no fence), Go or Python.
func (g *gen) code(t *topic) string {
	if g.r.percent(50) {
		return g.fillCode(pick(g.r, goSnippets), t)
	}
	return g.fillCode(pick(g.r, pySnippets), t)
}

// fillCode substitutes identifiers into a code template. Braces that are
// not one of its placeholders (Go blocks, Python dicts, regexps) are kept.
func (g *gen) fillCode(tpl string, t *topic) string {
	noun := identWord(pick(g.r, t.nouns))
	verb := identWord(pick(g.r, verbs))
	field := identWord(pick(g.r, nouns))
	for field == noun {
		field = identWord(pick(g.r, nouns))
	}
	return strings.NewReplacer(
		"{Noun}", titleCase(noun), "{noun}", noun,
		"{Verb}", titleCase(verb), "{verb}", verb,
		"{Field}", titleCase(field), "{field}", field,
		"{num}", strconv.Itoa(g.r.between(2, 9)),
		"{sentence}", g.sentence(t),
	).Replace(tpl)
}

// identWord turns a phrase into one lower-case identifier word.
func identWord(s string) string {
	if i := strings.LastIndexAny(s, " -"); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// Other languages.

func (g *gen) chineseSentence() string {
	r := g.r
	s := pick(r, zhSubjects) + pick(r, zhAdverbs) + pick(r, zhVerbs) + pick(r, zhObjects)
	switch r.intn(3) {
	case 0:
		s = pick(r, zhTimes) + "，" + s
	case 1:
		s = pick(r, zhLinks) + "，" + s
	}
	return s + pick(r, []string{"。", "。", "。", "！", "？"})
}

func (g *gen) chineseParagraph(n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(g.chineseSentence())
	}
	return b.String()
}

// romanceParagraph returns n French (fr) or Spanish sentences.
func (g *gen) romanceParagraph(fr bool, n int) string {
	subj, verb, obj, tail := esSubjects, esVerbs, esObjects, esTails
	if fr {
		subj, verb, obj, tail = frSubjects, frVerbs, frObjects, frTails
	}
	s := make([]string, n)
	for i := range s {
		s[i] = pick(g.r, subj) + " " + pick(g.r, verb) + " " + pick(g.r, obj) + " " + pick(g.r, tail) + "."
	}
	return strings.Join(s, " ")
}

// Names, places and identifiers.

func (g *gen) personName() string { return pick(g.r, firstNames) + " " + pick(g.r, lastNames) }

func (g *gen) email() string { return g.emailOf(g.personName()) }

// emailOf returns an email address for a person's name.
func (g *gen) emailOf(name string) string {
	return strings.ToLower(strings.ReplaceAll(asciiFold(name), " ", ".")) + "@" + pick(g.r, domains)
}

func (g *gen) company() string {
	return titleCase(identWord(pick(g.r, topics[g.r.intn(len(topics))].nouns))) + " " + pick(g.r, companySuffixes)
}

func (g *gen) url(t *topic) string {
	slug := strings.ReplaceAll(g.expand("{tn} {n}", t), " ", "-")
	return "https://" + pick(g.r, domains) + "/" + t.name + "/" + strings.ToLower(slug)
}

func (g *gen) date() string {
	return "2025-" + pad2(g.r.between(1, 12)) + "-" + pad2(g.r.between(1, 28))
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// asciiFold drops accents and apostrophes so a name can go into an email
// address.
func asciiFold(s string) string {
	return strings.NewReplacer("á", "a", "ã", "a", "ç", "c", "é", "e", "è", "e", "ë", "e", "í", "i",
		"ó", "o", "ö", "o", "ø", "o", "ü", "u", "ć", "c", "ł", "l", "ń", "n", "'", "").Replace(s)
}
