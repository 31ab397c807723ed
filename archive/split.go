package archive

import (
	"bytes"
	"math"
)

// maxDepth bounds the nesting the subtree scanner follows: a line nested
// deeper is kept as text, whole.
const maxDepth = 64

// A node is one JSON value of a line: its byte span, and where the nodes
// of its subtree end in the pre-order list (children follow their parent).
// A string that is JSON text escaped (escape.go) has x, one past where
// that text, unescaped, starts in the scan's unescaped text, and its
// dialect; its one child is that text's root value, whose span and those
// of its own children are in the text unescaped, not the line.
type node struct {
	start, end int32
	skip       int32 // index of the first node after this one's subtree
	x          int32
	dialect    byte
}

// maxInnerText bounds the strings of JSON text a batch's lines have
// unescaped.
const maxInnerText = 2 * MaxLine

// inner is where a line's strings of JSON text go unescaped, or nil where
// they are not looked for.
type inner struct {
	text []byte // the texts unescaped, one after another (node.x)
	back []byte // scratch: a text escaped again, to compare
}

// maxPrefix bounds the text a line may hold before its JSON value.
const maxPrefix = 256

// appendLine appends the values of the line src to dst as appendTree
// does, the root (the whole line) first. The value is either all of the
// line, whitespace around it aside, or an object that starts at the first
// '{' of the line's first maxPrefix bytes and runs to its end, after text
// of any other kind: the lines of logs that put a timestamp, a level and
// a logger's name before each request or response, or "data: " (server-
// sent events, as a proxy logs a stream). The prefix stays in the root's
// text, the record's skeleton, as its keys do; without it such a log was
// kept as lines of text, no value stored once (dev100 behind CRI's
// prefix: 8.09x at level 3, now 16.13x; bench/README.md). Either may be
// followed by a comma, which stays there too: an element of an array
// written a line, or lines (Writer.joins), an element. A line that is
// neither has its strings listed (appendStrings).
func appendLine(dst []node, src []byte, min int, in *inner) ([]node, bool) {
	v := trimComma(src)
	nodes, ok := appendTree(dst, v, 0, min, 0, in)
	if ok && len(nodes)-len(dst) == 1 && v[skipSpace(v, 0)] == '"' {
		// A string alone (an array's element, pretty-printed): itself.
		return appendStrings(dst, src, min, in)
	}
	if !ok {
		if p := prefixed(v); p != nil {
			nodes, ok = appendTree(dst, v, len(v)-len(p), min, 0, in)
		}
	}
	if !ok {
		return appendStrings(dst, src, min, in)
	}
	nodes[len(dst)].end = int32(len(src)) // the comma in the root's text
	return nodes, true
}

// trimComma returns src without the comma that ends it, whitespace aside,
// if one does.
func trimComma(src []byte) []byte {
	j := len(src)
	for j > 0 && isSpace(src[j-1]) {
		j--
	}
	if j > 0 && src[j-1] == ',' {
		return src[:j-1]
	}
	return src
}

// prefixed returns what may be the JSON object of the line src after a
// prefix of other text: src from the first '{' of its first maxPrefix
// bytes, if it does not start with one (but for whitespace); or nil.
func prefixed(src []byte) []byte {
	i := skipSpace(src, 0)
	if i == len(src) || src[i] == '{' {
		return nil
	}
	head := src[i+1:]
	if len(head) > maxPrefix-i-1 {
		head = head[:max(0, maxPrefix-i-1)]
	}
	j := bytes.IndexByte(head, '{')
	if j < 0 {
		return nil
	}
	return src[i+1+j:]
}

// appendStrings appends the root (the whole line) and the JSON strings of
// at least min bytes of src, a line that is not a JSON value, to dst, and
// reports whether it found any: a line of JSON pretty-printed (a data
// set's file of one array), a record cut short. A string is a quote, then
// bytes up to the next quote that no backslash escapes, then the line's
// end or what may follow a JSON value or key (',', ':', ']', '}'): not a
// quotation in prose.
func appendStrings(dst []node, src []byte, min int, in *inner) ([]node, bool) {
	root := len(dst)
	t := treeScan{src: src, nodes: append(dst, node{}), min: int32(min), in: in}
	for i := 0; i < len(src); {
		q := bytes.IndexByte(src[i:], '"')
		if q < 0 {
			break
		}
		if p := i + q; t.in != nil && (p == 0 || isCSVSep(src[p-1])) && p+1 < len(src) && (src[p+1] == '{' || src[p+1] == '[') {
			if end := t.csvField(p); end > 0 {
				i = end
				continue
			}
		}
		n, x := t.mark()
		if i = t.child(i+q, 1); i < 0 {
			t.undo(n, x) // a quote not closed
			break
		}
		// Only a string as JSON ends one: at the line's end, or before
		// what comes after a value or key (not a quotation in prose).
		if j := skipSpace(src, i); j < len(src) && src[j] != ',' && src[j] != ':' && src[j] != ']' && src[j] != '}' {
			t.undo(n, x)
		}
	}
	if len(t.nodes)-root < 2 {
		return t.nodes[:root], false
	}
	t.nodes[root] = node{start: 0, end: int32(len(src)), skip: int32(len(t.nodes))}
	return t.nodes, true
}

// appendTree appends the values of the JSON text src[from:] to dst in
// pre-order, keeping only those at least min bytes long (smaller ones
// stay in their parent's text), the root (the whole of src, src[:from]
// included) always first; skips are indexes in the whole of dst. It
// reports false, and returns dst as it was, if src[from:] is not one
// well-formed value, optionally surrounded by whitespace. It checks
// structure (brackets, strings, escapes), not the grammar of numbers and
// literals: the archive stores the bytes themselves, and needs only spans
// that begin and end where values do. depth is the root's nesting, and in
// its strings of JSON text go unescaped (nil: not looked for).
func appendTree(dst []node, src []byte, from, min, depth int, in *inner) ([]node, bool) {
	root := len(dst)
	t := treeScan{src: src, nodes: dst, min: int32(min), in: in}
	i := skipSpace(src, from)
	t.nodes = append(t.nodes, node{})
	end := t.value(i, depth)
	if end < 0 || skipSpace(src, end) != len(src) {
		return t.nodes[:root], false
	}
	// The root spans the whole line, whitespace around the value included.
	t.nodes[root] = node{start: 0, end: int32(len(src)), skip: int32(len(t.nodes))}
	return t.nodes, true
}

type treeScan struct {
	src   []byte
	nodes []node
	min   int32
	in    *inner
}

// mark returns how many nodes and bytes of unescaped text t has, for
// undo to go back to.
func (t *treeScan) mark() (nodes, text int) {
	if t.in != nil {
		text = len(t.in.text)
	}
	return len(t.nodes), text
}

func (t *treeScan) undo(nodes, text int) {
	t.nodes = t.nodes[:nodes]
	if t.in != nil {
		t.in.text = t.in.text[:text]
	}
}

// value returns the end of the value at src[i], or -1.
func (t *treeScan) value(i, depth int) int {
	src := t.src
	if i >= len(src) {
		return -1
	}
	switch src[i] {
	case '"':
		return stringEnd(src, i)
	case '{', '[':
		return t.container(i, depth)
	}
	j := i
	for j < len(src) && !isDelim(src[j]) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// isText reports whether s, a string's bytes, holds a space, an escape
// other than \/ or a byte past 0x7F: text (a short prompt or answer, a
// tool's arguments), which recurs, not an id, a hash or a URL (whose
// slashes some encoders escape), which is made to be unique, and stored
// would cost a reference where it is and an entry among text.
func isText(s []byte) bool {
	for i, c := range s {
		if c == ' ' || c >= 0x80 || c == '\\' && (i+1 == len(s) || s[i+1] != '/') {
			return true
		}
	}
	return false
}

// child scans a member value or element at src[i] and lists it if it is
// long enough: min bytes, or for a string that reads as text, half that
// (a short prompt or answer recurs where an id, a hash or a number does
// not: strings of 32 to 63 bytes so stored made dev100's archives 0.4-0.7%
// smaller, bench/README.md).
func (t *treeScan) child(i, depth int) int {
	at := len(t.nodes)
	t.nodes = append(t.nodes, node{start: int32(i)})
	end := t.value(i, depth)
	if end < 0 {
		return -1
	}
	switch n, str := int32(end-i), t.src[i] == '"'; {
	case n < t.min/2 || n < t.min && str && !isText(t.src[i+1:end-1]):
		// Too small to store by itself: so are all its children.
		t.nodes = t.nodes[:at]
		return end
	case n < t.min && !str:
		// An object or array too small to store (its numbers, a short
		// id, make most such unique), whose strings of text may be: it
		// stays in its parent's text, they are listed in its place.
		copy(t.nodes[at:], t.nodes[at+1:])
		t.nodes = t.nodes[:len(t.nodes)-1]
		for k := at; k < len(t.nodes); k++ {
			t.nodes[k].skip--
		}
		return end
	}
	if t.in != nil && t.src[i] == '"' && (t.src[i+1] == '{' || t.src[i+1] == '[') {
		t.unescaped(at, t.src[i+1:end-1], depth)
	}
	t.nodes[at].end, t.nodes[at].skip = int32(end), int32(len(t.nodes))
	return end
}

// unescaped lists the values of s, the text of the string of node at, if
// it is JSON text escaped (escape.go) that holds a value to store: its
// root, then those values, after node at.
func (t *treeScan) unescaped(at int, s []byte, depth int) {
	in := t.in
	x0 := len(in.text)
	if x0+len(s) > maxInnerText {
		// Strings of JSON text nested as deep as a line allows each hold
		// much of it: past a batch's worth, the rest stays strings.
		return
	}
	text, dialect, ok := appendUnescaped(in.text, s, &in.back)
	if !ok {
		return
	}
	in.text = text
	n := len(t.nodes)
	nodes, ok := appendTree(t.nodes, text[x0:], 0, int(t.min), depth+1, in)
	if !ok || len(nodes)-n < 3 {
		in.text = in.text[:x0]
		return
	}
	t.nodes = nodes
	t.nodes[at].x, t.nodes[at].dialect = int32(x0)+1, dialect
}

// csvField lists the field of CSV starting at src[p], a quote, if its
// text, its quotes doubled (escape.go), is JSON text holding a value to
// store (one is enough: the field is stored as nothing else, where a
// string of JSON text with one is stored whole), and the field ends the
// line or another separator follows it:
// a node of the field, as a string of JSON text in CSV's dialect, then
// those values. It returns the field's end, or -1 (nothing listed).
func (t *treeScan) csvField(p int) int {
	src := t.src
	end := csvFieldEnd(src, p)
	if end < 0 || end < len(src) && !isCSVSep(src[end]) && !(src[end] == '\r' && end+1 == len(src)) || int32(end-p) < t.min {
		return -1
	}
	in := t.in
	x0 := len(in.text)
	if x0+end-p > maxInnerText {
		return -1
	}
	text, ok := appendCSV(in.text, src[p+1:end-1])
	if !ok {
		return -1
	}
	in.text = text
	at := len(t.nodes)
	t.nodes = append(t.nodes, node{start: int32(p)})
	nodes, ok := appendTree(t.nodes, text[x0:], 0, int(t.min), 1, in)
	if !ok || len(nodes)-at < 3 {
		in.text, t.nodes = in.text[:x0], t.nodes[:at]
		return -1
	}
	t.nodes = nodes
	t.nodes[at].x, t.nodes[at].dialect = int32(x0)+1, dialects[escCSV]
	t.nodes[at].end, t.nodes[at].skip = int32(end), int32(len(t.nodes))
	return end
}

// appendCSVJSON appends the text of the first field of CSV in line whose
// text starts with '{', its quotes undoubled, to dst, and reports whether
// there is one: what a record of a CSV file is listed by.
func appendCSVJSON(dst, line []byte) ([]byte, bool) {
	for i := 0; i+1 < len(line); {
		q := bytes.Index(line[i:], []byte(`"{`))
		if q < 0 {
			return dst, false
		}
		p := i + q
		if p > 0 && !isCSVSep(line[p-1]) {
			i = p + 1
			continue
		}
		end := csvFieldEnd(line, p)
		if end < 0 {
			return dst, false
		}
		return appendCSV(dst, line[p+1:end-1])
	}
	return dst, false
}

// csvFieldEnd returns the end of the field of CSV starting at src[p], a
// quote: past the quote that is not doubled; or -1.
func csvFieldEnd(src []byte, p int) int {
	end := p + 1
	for {
		k := bytes.IndexByte(src[end:], '"')
		if k < 0 {
			return -1
		}
		end += k + 1
		if end == len(src) || src[end] != '"' {
			return end
		}
		end++ // a quote doubled
	}
}

// eachMember calls f with the value of each member of the object v (JSON
// text, whitespace around it aside), until f returns true or v turns out
// no object.
func eachMember(v []byte, f func(value []byte) bool) {
	t := treeScan{src: v, min: math.MaxInt32} // values skipped, none listed
	i := skipSpace(v, 0)
	if i == len(v) || v[i] != '{' {
		return
	}
	for i = skipSpace(v, i+1); i < len(v) && v[i] == '"'; {
		j := stringEnd(v, i)
		if j < 0 {
			return
		}
		if j = skipSpace(v, j); j == len(v) || v[j] != ':' {
			return
		}
		j = skipSpace(v, j+1)
		end := t.value(j, 1)
		if end < 0 || f(v[j:end]) {
			return
		}
		if i = skipSpace(v, end); i == len(v) || v[i] != ',' {
			return
		}
		i = skipSpace(v, i+1)
	}
}

// isCSVSep reports whether c separates fields of CSV: ',' (or ';', as
// spreadsheets of some locales write it, or a tab).
func isCSVSep(c byte) bool { return c == ',' || c == ';' || c == '\t' }

// stringEnd returns the end of the string starting at the quote src[i],
// or -1 if it has none. A quote ends it unless an odd run of backslashes
// comes right before it (each escapes the next byte). Quotes are looked
// for with bytes.IndexByte, which the runtime vectorizes: the strings of
// LLM traffic run to kilobytes, and going a byte at a time was a tenth of
// an archive's compression (bench/README.md).
func stringEnd(src []byte, i int) int {
	for j := i + 1; ; j++ {
		q := bytes.IndexByte(src[j:], '"')
		if q < 0 {
			return -1
		}
		j += q
		k := j // the run of backslashes before src[j] is src[k:j]: src[i] is a quote
		for src[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 0 {
			return j + 1
		}
	}
}

func isDelim(c byte) bool {
	return c == ',' || c == ']' || c == '}' || c == ':' || isSpace(c) || c == '"' || c == '{' || c == '['
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(src []byte, i int) int {
	for i < len(src) && isSpace(src[i]) {
		i++
	}
	return i
}

// container returns the end of the object or array starting at src[i],
// listing its member values or elements.
func (t *treeScan) container(i, depth int) int {
	src := t.src
	if depth >= maxDepth {
		return -1
	}
	open, close := src[i], byte(']')
	if open == '{' {
		close = '}'
	}
	j := skipSpace(src, i+1)
	if j < len(src) && src[j] == close {
		return j + 1
	}
	for {
		if open == '{' {
			if j >= len(src) || src[j] != '"' {
				return -1
			}
			if j = stringEnd(src, j); j < 0 {
				return -1
			}
			j = skipSpace(src, j)
			if j >= len(src) || src[j] != ':' {
				return -1
			}
			j = skipSpace(src, j+1)
		}
		end := t.child(j, depth+1)
		if end < 0 {
			return -1
		}
		j = skipSpace(src, end)
		if j >= len(src) {
			return -1
		}
		switch src[j] {
		case ',':
			j = skipSpace(src, j+1)
		case close:
			return j + 1
		default:
			return -1
		}
	}
}
