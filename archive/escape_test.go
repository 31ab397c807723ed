package archive

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// goJSON is s as encoding/json writes it, quotes taken off: the HTML
// dialect, or with html false the one JavaScript, Rust and Python (with
// ensure_ascii=False) write.
func goJSON(t testing.TB, s string, html bool) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(html)
	if err := e.Encode(s); err != nil {
		t.Fatal(err)
	}
	return b.String()[1 : b.Len()-2]
}

// TestEscapeDialects: strings of JSON text as the common encoders write
// them are taken apart, in the dialect that writes them again.
// csvRoundTrip checks CSV's dialect on x: escaped, it is taken apart as
// x, and read by encoding/csv as x (a field between quotes); and any x
// taken apart is written again as itself.
func csvRoundTrip(t *testing.T, x []byte) {
	s := appendEscaped(nil, x, escCSV, 2*len(x))
	got, ok := appendCSV(nil, s)
	if !ok && !hasMarker(x) || ok && !bytes.Equal(got, x) {
		t.Fatalf("%q in CSV's dialect %q taken apart as %q, %v", x, s, got, ok)
	}
	if !bytes.ContainsAny(x, "\r\n") {
		rec, err := csv.NewReader(bytes.NewReader([]byte(`"` + string(s) + `"`))).Read()
		if err != nil || len(rec) != 1 || rec[0] != string(x) {
			t.Fatalf("%q in CSV's dialect %q: encoding/csv reads %q, %v", x, s, rec, err)
		}
	}
	if got, ok := appendCSV(nil, x); ok {
		if again := appendEscaped(nil, got, escCSV, len(x)); !bytes.Equal(again, x) {
			t.Fatalf("%q taken apart in CSV's dialect as %q, written again as %q", x, got, again)
		}
	}
}

// TestCSVDialect: a field as encoding/csv writes it comes back; a quote
// not doubled, or a marker, is refused.
func TestCSVDialect(t *testing.T) {
	text := `{"role":"user","content":"say ""hi"", \"twice\", a,b; \t"}`
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{text})
	w.Flush()
	field := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	if field[0] != '"' || field[len(field)-1] != '"' {
		t.Fatalf("encoding/csv wrote %q", field)
	}
	got, ok := appendCSV([]byte("pre"), field[1:len(field)-1])
	if !ok || string(got) != "pre"+text || string(appendEscaped(nil, got[3:], escCSV, 1<<20)) != string(field[1:len(field)-1]) {
		t.Fatalf("%q taken apart as %q, %v", field, got, ok)
	}
	for _, s := range []string{`a"b`, `"`, `a""b"`, "\x01\"\"", "\x00"} {
		if x, ok := appendCSV([]byte("pre"), []byte(s)); ok || string(x) != "pre" {
			t.Errorf("%q taken apart as %q", s, x)
		}
	}
	csvRoundTrip(t, []byte(text))
}

func TestEscapeDialects(t *testing.T) {
	text := "{\"role\":\"user\",\"content\":\"a/b <tag> & \\\"q\\\" é 漢字 😀 \u2028 tab\\t\"}\n"
	for _, c := range []struct {
		name    string
		escaped string
		dialect byte
	}{
		// JSON.stringify, Rust's serde_json, Python's with ensure_ascii=False.
		{"javascript", goJSON(t, strings.ReplaceAll(text, "\u2028", ""), false), 0},
		{"go without HTML", goJSON(t, text, false), escLines},
		{"go", goJSON(t, text, true), escHTML | escLines},
		// Python's json.dumps(text), ensure_ascii by default.
		{"python", `{\"role\":\"user\",\"content\":\"a/b <tag> & \\\"q\\\" \u00e9 \u6f22\u5b57 \ud83d\ude00 \u2028 tab\\t\"}\n`, escASCII},
		// Java's, upper-case hex.
		{"java", `{\"role\":\"user\",\"content\":\"a/b <tag> & \\\"q\\\" \u00E9 \u6F22\u5B57 \uD83D\uDE00 \u2028 tab\\t\"}\n`, escASCII | escUpper},
		// PHP's json_encode: '/' escaped, non-ASCII too.
		{"php", `{\"role\":\"user\",\"content\":\"a\/b <tag> & \\\"q\\\" \u00e9 \u6f22\u5b57 \ud83d\ude00 \u2028 tab\\t\"}\n`, escASCII | escSlash},
	} {
		x, dialect, ok := appendUnescaped([]byte("pre"), []byte(c.escaped), new([]byte))
		text := text
		if c.name == "javascript" {
			text = strings.ReplaceAll(text, "\u2028", "")
		}
		if !ok || string(x) != "pre"+text || dialect != dialects[c.dialect] {
			t.Errorf("%s: %q, %c, %v; want %c", c.name, x, dialect, ok, dialects[c.dialect])
			continue
		}
		if got := appendEscaped(nil, x[3:], c.dialect, 1<<20); string(got) != c.escaped {
			t.Errorf("%s: escaped again %q", c.name, got)
		}
	}
	for _, s := range []string{
		`\u00e9\u00E9`,                                // hex of both cases
		`\ud83d`, `\ude00`, `\ud83dx`, `\ud83d\u0041`, // surrogates alone
		`é\u00e9`,                  // non-ASCII raw and escaped
		`\u0001`, `\u0000`, "\x02", // markers
		`\x41`, `\`, `\u12`, `\u12g4`, // not escapes
		`\u0008`, `\u000a`, `\u0041`, // escapes no encoder writes
		`<\u003c`, // '<' raw and escaped
	} {
		if x, _, ok := appendUnescaped([]byte("pre"), []byte(s), new([]byte)); ok || string(x) != "pre" {
			t.Errorf("%q: taken apart as %q", s, x)
		}
	}
}

func flagsOf(t *testing.T, dialect byte) byte {
	f, ok := dialectFlags(dialect)
	if !ok {
		t.Fatalf("dialect %q", dialect)
	}
	return f
}

// FuzzEscape: a text escaped in any dialect comes back, and what is taken
// apart is written again byte for byte, as encoding/json reads it.
func FuzzEscape(f *testing.F) {
	f.Add([]byte("{\"a\":\"é😀</>&\u2028\\\"\x1f\"}\n"), byte(0))
	f.Add([]byte("\xff\xfe{}"), byte(15))
	f.Add([]byte(`{"a":"b ""c"""}`), byte(escCSV))
	f.Fuzz(func(t *testing.T, x []byte, flags byte) {
		flags %= byte(len(dialects))
		if flags == escCSV {
			csvRoundTrip(t, x)
			return
		}
		var back []byte
		s := appendEscaped(nil, x, flags, len(x)*12)
		got, dialect, ok := appendUnescaped(nil, s, &back)
		if !ok {
			if !hasMarker(x) {
				t.Fatalf("%q escaped as %q (%#x) not taken apart", x, s, flags)
			}
			return
		}
		if !bytes.Equal(got, x) {
			t.Fatalf("%q escaped as %q (%#x) taken apart as %q", x, s, flags, got)
		}
		if again := appendEscaped(nil, got, flagsOf(t, dialect), len(s)); !bytes.Equal(again, s) {
			t.Fatalf("%q: written again as %q in %#x", s, again, dialect)
		}
		if utf8.Valid(x) {
			var y string
			if err := json.Unmarshal([]byte(`"`+string(s)+`"`), &y); err != nil || y != string(x) {
				t.Fatalf("%q: encoding/json reads %q, %v", s, y, err)
			}
		}
		// Any string at all: what is taken apart is written again.
		if got, dialect, ok := appendUnescaped(nil, x, &back); ok {
			if again := appendEscaped(nil, got, flagsOf(t, dialect), len(x)); !bytes.Equal(again, x) {
				t.Fatalf("%q taken apart as %q, written again as %q", x, got, again)
			}
			if utf8.Valid(x) {
				var y string
				if err := json.Unmarshal([]byte(`"`+string(x)+`"`), &y); err == nil && y != string(got) {
					t.Fatalf("%q taken apart as %q, encoding/json reads %q", x, got, y)
				}
			}
		}
	})
}
