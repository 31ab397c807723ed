package main

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/internal/sample"
)

// reshape runs kind over in with seed 1.
func reshape(t *testing.T, kind string, in []byte) []byte {
	t.Helper()
	r, err := newReshaper(kind, 1)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := r.run(bytes.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestReshape rewrites the embedded sample each way: a line out for each
// line in (an event and a blank line for sse), every one JSON where it
// was but behind logline's and sse's prefixes; batch and gateway lines
// hold the line they wrap byte for byte, bodies as a string, logline and
// sse after their prefix, and anthropic's responses are messages or
// stream events; the same seed writes the same bytes.
func TestReshape(t *testing.T) {
	in := append(sample.JSONL(), "not json\n{\"model\":\"x\",\"messages\":\"oops\"}\n"...)
	lines := bytes.Split(bytes.TrimSuffix(in, []byte("\n")), []byte("\n"))
	for _, kind := range []string{"anthropic", "batch", "gateway", "bodies", "logline", "sse"} {
		out := reshape(t, kind, in)
		if !bytes.Equal(out, reshape(t, kind, in)) {
			t.Errorf("%s: two runs wrote different bytes", kind)
		}
		if kind == "sse" {
			// An event a line, and a blank line after each.
			out = bytes.ReplaceAll(out, []byte("}\n\n"), []byte("}\n"))
		}
		got := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
		if len(got) != len(lines) {
			t.Fatalf("%s: %d lines out of %d", kind, len(got), len(lines))
		}
		types := map[string]int{}
		for i, line := range got {
			var obj map[string]json.RawMessage
			if json.Unmarshal(lines[i], &obj) != nil || obj == nil {
				if !bytes.Equal(line, lines[i]) {
					t.Errorf("%s: line %d, not an object, was changed", kind, i)
				}
				continue
			}
			switch kind {
			case "logline", "sse":
				// The line itself after a prefix.
				prefix, ok := bytes.CutSuffix(line, lines[i])
				if !ok || kind == "sse" && string(prefix) != "data: " || kind == "logline" && !bytes.HasSuffix(prefix, []byte("Z stdout F ")) {
					t.Fatalf("%s: line %d is not the line behind a prefix: %.200s", kind, i, line)
				}
				continue
			}
			obj = nil // Unmarshal into a map adds to what it holds
			if err := json.Unmarshal(line, &obj); err != nil {
				t.Fatalf("%s: line %d: %v: %.200s", kind, i, err, line)
			}
			switch kind {
			case "bodies":
				var body string
				if json.Unmarshal(obj["request"], &body) != nil && json.Unmarshal(obj["response"], &body) != nil || body != string(lines[i]) {
					t.Fatalf("bodies: line %d does not hold the line it wraps as a string: %.200s", i, line)
				}
			case "batch", "gateway":
				var body json.RawMessage
				if kind == "batch" {
					body = obj["body"]
					var resp map[string]json.RawMessage
					if body == nil && json.Unmarshal(obj["response"], &resp) == nil {
						body = resp["body"]
					}
				} else if body = obj["request"]; body == nil {
					body = obj["response"]
				}
				if !bytes.Equal(body, lines[i]) {
					t.Fatalf("%s: line %d does not hold the line it wraps: %.200s", kind, i, line)
				}
			case "anthropic":
				var typ string
				json.Unmarshal(obj["type"], &typ)
				types[typ]++
				if obj["choices"] != nil {
					t.Fatalf("line %d is still OpenAI's: %.200s", i, line)
				}
			}
		}
		if kind == "anthropic" && (types["message"] == 0 || types["content_block_delta"] == 0 || types[""] == 0) {
			t.Errorf("anthropic: lines by type %v: want requests, messages and stream events", types)
		}
	}
}

// TestReshapeIndented: pretty writes each JSON line indented, the text
// lines as they were, and array the JSON lines as one indented array;
// compacted again, each value is its line.
func TestReshapeIndented(t *testing.T) {
	in := append(sample.JSONL(), "not json\n[1, {\"a\": \"b\"}]\n"...)
	var values [][]byte
	for _, l := range bytes.Split(bytes.TrimSuffix(in, []byte("\n")), []byte("\n")) {
		if json.Valid(l) {
			var c bytes.Buffer
			json.Compact(&c, l)
			values = append(values, c.Bytes())
		}
	}
	var elems []json.RawMessage
	out := reshape(t, "array", in)
	if err := json.Unmarshal(out, &elems); err != nil || len(elems) != len(values) || !bytes.HasPrefix(out, []byte("[\n  {\n    \"")) {
		t.Fatalf("array: %v, %d elements of %d: %.100q", err, len(elems), len(values), out)
	}
	for i, e := range elems {
		var c bytes.Buffer
		if json.Compact(&c, e); !bytes.Equal(c.Bytes(), values[i]) {
			t.Fatalf("array: element %d is %.100s, want %.100s", i, c.Bytes(), values[i])
		}
	}
	out = reshape(t, "pretty", in)
	if !bytes.Contains(out, []byte("\nnot json\n")) || bytes.Count(out, []byte("\n")) < 5*len(values) {
		t.Fatalf("pretty: %d lines for %d values", bytes.Count(out, []byte("\n")), len(values))
	}
	d := json.NewDecoder(bytes.NewReader(bytes.Replace(out, []byte("\nnot json\n"), []byte("\n"), 1)))
	for i := range values {
		var v json.RawMessage
		var c bytes.Buffer
		if err := d.Decode(&v); err != nil || json.Compact(&c, v) != nil || !bytes.Equal(c.Bytes(), values[i]) {
			t.Fatalf("pretty: value %d: %v, %.100s, want %.100s", i, err, c.Bytes(), values[i])
		}
	}
}

// TestReshapeImages: images attaches an image to some user messages (as
// many as one in seven, give or take), the same message the same image,
// its text kept as the content's first part; every other byte of the line
// is as it was.
func TestReshapeImages(t *testing.T) {
	in := sample.JSONL()
	out := reshape(t, "images", in)
	lines := bytes.Split(bytes.TrimSuffix(in, []byte("\n")), []byte("\n"))
	got := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
	if len(got) != len(lines) {
		t.Fatalf("%d lines out of %d", len(got), len(lines))
	}
	images, byText := 0, map[string]string{}
	for i, line := range got {
		if bytes.Equal(line, lines[i]) {
			continue
		}
		images++
		pre := bytes.Index(line, []byte(`[{"type":"text","text":`))
		end := bytes.Index(line, []byte(`"}}]`))
		if pre < 0 || end < 0 || !bytes.Equal(line[:pre], lines[i][:pre]) || !bytes.HasSuffix(lines[i], line[end+4:]) {
			t.Fatalf("line %d: not the line with an image in one place: %.200s", i, line)
		}
		var parts []struct {
			Text     string `json:"text"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		if err := json.Unmarshal(line[pre:end+4], &parts); err != nil || len(parts) != 2 {
			t.Fatalf("line %d: content %v", i, err)
		}
		text := line[pre+len(`[{"type":"text","text":`) : bytes.Index(line, []byte(`},{"type":"image_url"`))]
		b64, ok := strings.CutPrefix(parts[1].ImageURL.URL, "data:image/jpeg;base64,")
		img, err := base64.StdEncoding.DecodeString(b64)
		if !ok || err != nil || len(img) < 2048 || len(img) > 30<<10 || !bytes.Contains(lines[i], text) {
			t.Fatalf("line %d: image of %d bytes (%v), text %s", i, len(img), err, text)
		}
		if prev, ok := byText[string(text)]; ok && prev != b64 {
			t.Errorf("line %d: another image for the same message", i)
		}
		byText[string(text)] = b64
	}
	if images == 0 || images > len(lines)/3 {
		t.Errorf("%d images in %d lines", images, len(lines))
	}
}

// TestReshapeCSV: csv writes a header and a row a line, which
// encoding/csv reads back: the line as the third field.
func TestReshapeCSV(t *testing.T) {
	in := append(sample.JSONL(), "not json, \"quoted\"\n"...)
	lines := bytes.Split(bytes.TrimSuffix(in, []byte("\n")), []byte("\n"))
	out := reshape(t, "csv", in)
	rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil || len(rows) != len(lines)+1 || rows[0][2] != "payload" || !bytes.HasSuffix(out, []byte("\r\n")) {
		t.Fatalf("%v, %d rows for %d lines", err, len(rows), len(lines))
	}
	for i, l := range lines {
		if rows[i+1][2] != string(l) {
			t.Fatalf("row %d: %.100q, want %.100q", i+1, rows[i+1][2], l)
		}
	}
}
