package archive

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/internal/sample"
)

// stringEndRef is stringEnd's specification: a byte at a time, a
// backslash taking the byte after it.
func stringEndRef(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '"':
			return j + 1
		case '\\':
			j++
		}
	}
	return -1
}

func TestStringEnd(t *testing.T) {
	for _, s := range []string{
		`""`, `"a"`, `"\""`, `"\\"`, `"\\\""`, `"\\\\"x`, `"\"\\"`, `"a\`, `"a\"`, `"\\\\\"\\"`,
		`"`, `"abc`, `"a"b"`, `"\u0022"`, `"` + string(bytes.Repeat([]byte(`\\`), 100)) + `"`,
		`"` + string(bytes.Repeat([]byte(`\"`), 100)) + `"`, `"` + string(bytes.Repeat([]byte("x"), 5000)) + `\" "`,
	} {
		src := []byte(s)
		if got, want := stringEnd(src, 0), stringEndRef(src, 0); got != want {
			t.Errorf("stringEnd(%q) = %d, want %d", s, got, want)
		}
		// Not at the start of the text: a run of backslashes before the
		// opening quote is not the string's.
		src = append([]byte(`\\\`), src...)
		if got, want := stringEnd(src, 3), stringEndRef(src, 3); got != want {
			t.Errorf("stringEnd(%q, 3) = %d, want %d", src, got, want)
		}
	}
}

func FuzzStringEnd(f *testing.F) {
	f.Add([]byte(`"a\"b\\"c`), uint8(0))
	f.Add([]byte(`x\\"\\\"\"\\\\"`), uint8(3))
	f.Fuzz(func(t *testing.T, p []byte, at uint8) {
		i := int(at)
		if i >= len(p) {
			return
		}
		p[i] = '"' // stringEnd is called at a quote
		if got, want := stringEnd(p, i), stringEndRef(p, i); got != want {
			t.Fatalf("stringEnd(%q, %d) = %d, want %d", p, i, got, want)
		}
	})
}

// BenchmarkAppendTree scans the lines of the test sample into their
// values' trees, as the writer's scanners do.
func BenchmarkAppendTree(b *testing.B) {
	lines := bytes.Split(sample.JSONL(), []byte("\n"))
	total := 0
	for _, l := range lines {
		total += len(l)
	}
	b.SetBytes(int64(total))
	var nodes []node
	var in inner
	for b.Loop() {
		in.text = in.text[:0]
		for _, l := range lines {
			nodes, _ = appendLine(nodes[:0], l, 64, &in)
		}
	}
}

// TestAppendLine: a line's value is all of it or, after a prefix of other
// text, an object running to its end; else its strings that end as JSON
// strings do are its values. Its stored values are the same spans either
// way.
func TestAppendLine(t *testing.T) {
	long := `"` + strings.Repeat("a", 70) + `"`
	obj := `{"k":` + long + `,"n":[1,2]}`
	for _, c := range []struct {
		line  string
		array bool // the line an array of obj: obj is a value too
		none  bool // no value
	}{
		{line: obj},
		{line: "  " + obj + " \r"},
		{line: "data: " + obj},
		{line: "2026-11-30T12:00:00.123Z INFO gateway: " + obj},
		{line: "[2026-11-30 12:00:00] " + obj},
		{line: "[" + obj + "]", array: true},
		{line: strings.Repeat("x", 250) + obj}, // a prefix within maxPrefix
		// Not JSON, nor JSON after a prefix: the string alone.
		{line: "data: " + obj + " trailing"},
		{line: "data: {" + obj},
		{line: obj[:len(obj)-1]}, // cut short
		{line: strings.Repeat("x", 256) + obj},
		{line: `    "content": ` + long},
		{line: `    "content": ` + long + ",\r"},
		{line: `    ` + long}, // a value, but no value inside it
		{line: "data: [DONE]", none: true},
		{line: "event: message\n", none: true},
		{line: `he said ` + long + `, then left`},
		{line: `he said ` + long + ` and left`, none: true}, // a quotation
		{line: `he said ` + long + `.`, none: true},
		{line: `the quote ` + long[:60], none: true}, // not closed
	} {
		nodes, ok := appendLine([]node{{start: 9}}, []byte(c.line), 64, nil)
		if c.none {
			if ok || len(nodes) != 1 || nodes[0].start != 9 {
				t.Errorf("%.60q: %v %v, want no value", c.line, ok, nodes)
			}
			continue
		}
		if !ok {
			t.Errorf("%.60q: no value", c.line)
			continue
		}
		// The root is the whole line; the object, if it is the root's
		// value, has no node of its own.
		at := int32(strings.Index(c.line, long))
		want := []node{{start: 9}, {0, int32(len(c.line)), 3, 0, 0}, {at, at + int32(len(long)), 3, 0, 0}}
		if c.array {
			want = []node{{start: 9}, {0, int32(len(c.line)), 4, 0, 0}, {1, int32(1 + len(obj)), 4, 0, 0}, {at, at + int32(len(long)), 4, 0, 0}}
		}
		if !slices.Equal(nodes, want) {
			t.Errorf("%.60q: nodes %v, want %v", c.line, nodes, want)
		}
	}
}

// TestListedText: strings that read as text are listed from half the
// minimum size, other strings and objects from it; an object too short to
// list keeps its place in its parent's text, its strings of text listed
// in its place.
func TestListedText(t *testing.T) {
	text := `"a short prompt, sent again and again"`   // 38 bytes: text
	id := `"chatcmpl-AbCdEfGhIjKlMnOpQrStUvWxYz0123"`  // 41: no space, escape or byte past 0x7F
	escaped := `"{\"city\":\"Paris\",\"unit\":\"C\"}"` // an escape: text
	short := `"too short to store"`                    // 20: under half of 64
	line := `{"t":` + text + `,"i":` + id + `,"e":` + escaped + `,"s":` + short + `,"o":{"q":` + text + `},"p":{"n":[1,2,3],"id":` + id + `}}`
	nodes, ok := appendLine([]node{{start: 9}}, []byte(line), 64, nil)
	if !ok {
		t.Fatal("no value")
	}
	at := func(s string, from int) int32 { return int32(from + strings.Index(line[from:], s)) }
	t1 := at(text, 0)
	e := at(escaped, 0)
	t2 := at(text, int(t1)+1)
	want := []node{{start: 9}, {0, int32(len(line)), 5, 0, 0},
		{t1, t1 + int32(len(text)), 3, 0, 0},
		{e, e + int32(len(escaped)), 4, 0, 0},
		{t2, t2 + int32(len(text)), 5, 0, 0}}
	if !slices.Equal(nodes, want) {
		t.Errorf("nodes %v, want %v", nodes, want)
	}
	url := `"https:\/\/example.com\/a\/b"` // slashes escaped: not text
	for _, s := range []string{text, id, escaped, short, url, `"\\"`, `"x\/y\n"`, `"é"`} {
		if got, want := isText([]byte(s[1:len(s)-1])), s != id && s != url; got != want {
			t.Errorf("isText(%s) = %v", s, got)
		}
	}
}
