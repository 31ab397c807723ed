package archive

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/internal/sample"
	"github.com/m2m-go/m2m/varint"
)

// write makes an archive of in, written in pieces of the given size.
func write(t testing.TB, in []byte, o Options, piece int) ([]byte, Counts) {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter(context.Background(), &out, o)
	if err != nil {
		t.Fatal(err)
	}
	for p := in; len(p) > 0; {
		n := min(piece, len(p))
		if _, err := w.Write(p[:n]); err != nil {
			t.Fatal(err)
		}
		p = p[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), w.Counts()
}

// split cuts in into its records, as a Writer does.
func split(in []byte) []string { return splitLong(in, MaxLine) }

// splitLong cuts in into its records, as a Writer whose lines are long
// past long bytes does (Options.longLine), written apart from it: lines,
// those of one JSON value pretty-printed joined (below); a record longer
// than long cut where a value ends at the top level of its text (before
// a comma at depth 1, or the bracket that closes it) once a piece holds
// minPiece bytes, else every MaxLine bytes, its line feed with its last
// piece, lines joined to it before the cut in its first.
func splitLong(in []byte, long int) []string {
	var recs []string
	rec, feeds := 0, 0 // where the record in progress starts, and the line feeds joined into it
	var open []byte    // brackets open after the lines joined
	for at := 0; at < len(in); {
		i := bytes.IndexByte(in[at:], '\n')
		if i < 0 {
			// The last line, no line feed: the rest is a record.
			recs = append(recs, cutPieces(in[rec:], long)...)
			rec = len(in)
			break
		}
		lineEnd := at + i
		line := in[at:lineEnd]
		if lineEnd-rec > long {
			if pieces := cutPieces(in[rec:lineEnd], long); len(pieces) > 1 {
				recs = append(recs, pieces[:len(pieces)-1]...)
				recs = append(recs, pieces[len(pieces)-1]+"\n")
				rec, at, open, feeds = lineEnd+1, lineEnd+1, nil, 0
				continue
			}
		}
		next := lineEnd + 1
		var ok bool
		t := bytes.Trim(line, " \t\r\n")
		switch {
		case len(open) == 0 && len(t) >= 2 && (t[0] == '{' || t[0] == '[') && (t[len(t)-1] == '}' || t[len(t)-1] == ']'):
			ok = false // a JSON line: a record
		default:
			open, ok = followBrackets(open, line)
			if !ok || lineEnd-rec >= maxGroup || feeds >= maxGroupLines {
				// Not one value: each line joined a record.
				for _, l := range bytes.SplitAfter(in[rec:next], []byte("\n")) {
					if len(l) > 0 {
						recs = append(recs, string(l))
					}
				}
				rec, at, open, feeds = next, next, nil, 0
				continue
			}
			last := bytes.TrimRight(bytes.TrimSuffix(bytes.TrimRight(line, " \t\r"), []byte(",")), " \t\r")
			element := len(last) > 0 && (last[len(last)-1] == '}' || last[len(last)-1] == ']')
			ok = len(open) > 0 && (bytes.Count(open, []byte("{")) > 0 || !element && lineEnd-rec < minPiece)
		}
		if ok {
			feeds++
		} else {
			recs = append(recs, string(in[rec:next]))
			rec, feeds = next, 0
		}
		at = next
	}
	if rec < len(in) { // lines joined, up to the end
		recs = append(recs, string(in[rec:]))
	}
	return recs
}

// followBrackets returns open, the brackets open before line, with those
// line opens and closes outside its strings, and false if it closes one
// not open, of another kind, nests past maxDepth, or ends in a string.
func followBrackets(open, line []byte) ([]byte, bool) {
	for j := 0; j < len(line); j++ {
		switch c := line[j]; c {
		case '"':
			for j++; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' {
					j++
				}
			}
			if j >= len(line) {
				return nil, false
			}
		case '{', '[':
			if len(open) == maxDepth {
				return nil, false
			}
			open = append(open, c)
		case '}', ']':
			if len(open) == 0 || open[len(open)-1] != c-2 {
				return nil, false
			}
			open = open[:len(open)-1]
		}
	}
	return open, true
}

// cutPieces cuts text, a record longer than long, where a value at its
// top level ends once a piece holds minPiece bytes, else every MaxLine
// bytes; text shorter is one piece.
func cutPieces(text []byte, long int) []string {
	var pieces []string
	p := 0
	if len(text) > long {
		depth, str, esc := 0, false, false
		for j, c := range text {
			cut := false
			switch {
			case str:
				str, esc = esc || c != '"', !esc && c == '\\'
			case c == '"':
				str = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
				cut = depth == 0
			case c == ',':
				cut = depth == 1
			}
			if cut && j-p >= minPiece {
				pieces = append(pieces, string(text[p:j]))
				p = j
			}
			if j+1-p > MaxLine {
				pieces = append(pieces, string(text[p:p+MaxLine]))
				p += MaxLine
			}
		}
	}
	return append(pieces, string(text[p:]))
}

// roundTrip checks that the archive of in decodes to in, whole and record
// by record in random order.
func roundTrip(t *testing.T, in []byte, o Options) []byte {
	t.Helper()
	packed, c := write(t, in, o, 1000)
	r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var back bytes.Buffer
	dc, err := r.Decode(context.Background(), &back, DecodeOptions{Workers: 3, Check: true})
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if !bytes.Equal(back.Bytes(), in) {
		t.Fatalf("Decode gave %d bytes, want %d", back.Len(), len(in))
	}
	recs := splitLong(in, o.longLen())
	lines := int64(bytes.Count(in, []byte("\n")))
	if len(in) > 0 && in[len(in)-1] != '\n' {
		lines++
	}
	if dc.Records != int64(len(recs)) || c.Records != dc.Records || dc.Bytes != int64(len(in)) || c.Bytes != dc.Bytes || c.Lines != lines || dc.Lines != lines {
		t.Errorf("counts: written %+v, read %+v, want %d records, %d lines", c, dc, len(recs), lines)
	}
	if r.Records() != int64(len(recs)) || r.ix.Lines != lines {
		t.Fatalf("%d records, %d lines in the index, want %d, %d", r.Records(), r.ix.Lines, len(recs), lines)
	}
	// Record by record, from a Reader of its own: frames decoded only as
	// far as the records need, not whole as Decode left them in r.
	r.Close()
	if r, err = NewReader(bytes.NewReader(packed), int64(len(packed))); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(len(in)), 3))
	var got []byte
	for _, i := range rng.Perm(len(recs)) {
		if got, err = r.AppendRecord(got[:0], int64(i)); err != nil || string(got) != recs[i] {
			t.Fatalf("record %d: %v, %.80q, want %.80q", i, err, got, recs[i])
		}
	}
	return packed
}

// bothLevels are the default level and LevelMax, or under -short (the
// race detector's run) the default level alone: the context model's pace
// is its own tests'.
func bothLevels() []Options {
	if testing.Short() {
		return []Options{{}}
	}
	return []Options{{}, {Level: LevelMax, ModelMemory: 16}}
}

// small are units that make many blocks, frames and segments of little
// input.
var small = Options{batch: 4 << 10, storeFrame: 8 << 10, segment: 3}

var nasty = map[string]string{
	"empty":            "",
	"one newline":      "\n",
	"blank lines":      "\n\n{\"a\":1}\n\n\n",
	"crlf":             "{\"model\":\"m\",\"messages\":[]}\r\n{\"b\":2}\r\n\r\n",
	"no final newline": "{\"a\":1}\n{\"model\":\"x\"}",
	"not json":         "hello\n{\"a\":\n[1,2\nnull\n\"string\"\n",
	"invalid utf-8":    "{\"a\":\"\xff\xfe" + strings.Repeat("z", 80) + "\"}\n\xc3\x28\n",
	"markers":          "{\"a\":\"\x00\x01\x02" + strings.Repeat("z", 80) + "\"}\n\x01\x02\n",
	"nul bytes":        "\x00\x00\n{\"a\":\"\\u0000\"}\n",
	"repeats":          strings.Repeat(`{"k":"`+strings.Repeat("v", 100)+`","o":{"x":"`+strings.Repeat("w", 70)+`"}}`+"\n", 50),
	"deep":             strings.Repeat("[", 70) + strings.Repeat(`"`+strings.Repeat("d", 64)+`",`, 3) + "1" + strings.Repeat("]", 70) + "\n",
	"escapes":          `{"s":"` + strings.Repeat(`\"\\\n\u00e9`, 30) + `"}` + "\n",
	"whitespace":       " { \"a\" : [ \"" + strings.Repeat("x", 70) + "\" , 1 ] }  \r\n",
	"numbers":          embeddings(3, 200) + "{\"v\":[0.5,\"\x03\",1e-7,0.10,1.0E+5]}\n" + embeddings(2, 100),
	"inner json":       innerJSONLines(),
	"pretty": "[\n  {\n    \"a\": \"" + strings.Repeat("p", 70) + "\",\n    \"b\": [\n      \"" + strings.Repeat("q", 70) + "\"\n    ]\n  },\n  \"" +
		strings.Repeat("p", 70) + "\" \n  \"\\\"cut \"" + strings.Repeat("r", 70) + "\n]\n",
	"jq": "{\r\n  \"model\": \"m\",\r\n  \"messages\": [\r\n    {\"c\": \"" + strings.Repeat("j", 70) + "\"}\r\n  ]\r\n}\r\n" +
		"{\n  \"a\": [\n    [],\n    {}\n  ]\n}\n\n{\n  \"b\": \"" + strings.Repeat("k", 70) + "\"\n}",
	"indented array": "[\n  {\n    \"a\": \"" + strings.Repeat("i", 70) + "\"\n  },\n  [\n    1,\n    2\n  ],\n  \"s\",\n  3,\n" +
		strings.Repeat("  \""+strings.Repeat("n", 30)+"\",\n", 12) + "  {}\n]\n",
	"unbalanced":    "f() {\n  x = 1;\n}\ng() {\n  y = \"z\n}\n[\n  1\n}\n" + strings.Repeat("{", 70) + "\n" + strings.Repeat("}", 70) + "\n]\n{\n",
	"joined at end": "{\n  \"a\": [\n    1,\n",
	"image": `{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` +
		base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xde\xad\xbe\xef", 30))) + `"}}]}` + "\n",
	"csv": "id,payload\r\n1,\"{\"\"a\"\":\"\"" + strings.Repeat("p", 70) + "\"\",\"\"b\"\":[\"\"" + strings.Repeat("q", 70) + "\"\"]}\"\r\n" +
		"\"{\"\"a\"\":\"\"" + strings.Repeat("p", 70) + "\"\",\"\"c\"\":{\"\"d\"\":\"\"" + strings.Repeat("r", 70) + "\"\"}}\";7\n" +
		"3,\"{\"\"a\"\":\"\"" + strings.Repeat("p", 70) + "\"\",\"\"b\"\":[\"\"" + strings.Repeat("q", 70) + "\"\"]}\"x\n" +
		"4,\"{\"\"a\"\": \"\"" + strings.Repeat("s", 70) + "\" }\",5\n" +
		"5,\"{\"\"a\"\":\"\"\x01" + strings.Repeat("t", 70) + "\"\",\"\"b\"\":\"\"" + strings.Repeat("u", 70) + "\"\"}\"\n" +
		"6,\"[\"\"" + strings.Repeat("v", 70) + "\"\",\"\"" + strings.Repeat("w", 70) + "\"\"]\"\t8\n" +
		"7,\"{\"\"a\"\":\"\"" + strings.Repeat("p", 70) + "\"\"}\n",
	"prefixes": strings.Repeat("data: {\"a\":\""+strings.Repeat("p", 70)+"\"}\n\n", 3) + "data: [DONE]\n" +
		"[12:00] {\"b\":[\"" + strings.Repeat("q", 70) + "\"]} \r\n" + "x {\"c\":\"" + strings.Repeat("r", 70) + "\"} y\n" +
		"  \x01 {\"d\":\"" + strings.Repeat("s", 70) + "\"}\n" + "{ {\"e\":\"" + strings.Repeat("t", 70) + "\"}\n",
}

// innerJSONLines are records that hold JSON text in strings: escaped once,
// twice, with a line feed after it (Docker's logs), and two that cannot be
// taken apart (a marker inside, non-ASCII both raw and escaped).
func innerJSONLines() string {
	v := `{"a":"` + strings.Repeat("x", 70) + `","b":{"c":"` + strings.Repeat("é", 40) + `"},"d":["` + strings.Repeat("y", 70) + `"]}`
	once, _ := json.Marshal(v)
	twice, _ := json.Marshal(`{"inner":` + string(once) + `,"pad":"` + strings.Repeat("z", 70) + `"}`)
	long := `\"` + strings.Repeat("w", 70) + `\"`
	return `{"body":` + string(once) + "}\n" + `{"body":` + string(twice) + "}\n" +
		`{"log":` + string(once[:len(once)-1]) + `\n"}` + "\n" +
		`{"bad":"{\"k\":` + long + `,\"m\":\"\u0001` + long[2:] + `}"}` + "\n" +
		`{"mixed":"{\"k\":\"\u00e9é` + long[2:] + `,\"j\":` + long + `}"}` + "\n"
}

// embeddings is n JSON lines of float32 vectors of dim numbers, as an
// embeddings API answers.
func embeddings(n, dim int) string {
	r := rand.New(rand.NewPCG(uint64(n), uint64(dim)))
	var b []byte
	for range n {
		b = append(b, `{"object":"embedding","embedding":[`...)
		for i := range dim {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, float64(float32(r.NormFloat64()*0.03)), 'g', -1, 32)
		}
		b = append(b, "]}\n"...)
	}
	return string(b)
}

// logprobs is n JSON lines of chat completions with logprobs: every token
// an object of the same shape, a template of its own.
func logprobs(n int) string {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	tokens := []string{"The", " answer", " is", " to", " reset", " your", " password", "."}
	var b []byte
	for i := range n {
		b = fmt.Appendf(b, `{"id":"chatcmpl-%d","choices":[{"logprobs":{"content":[`, i)
		for j := range 50 + r.IntN(50) {
			if j > 0 {
				b = append(b, ',')
			}
			t, u := tokens[r.IntN(len(tokens))], tokens[r.IntN(len(tokens))]
			b = fmt.Appendf(b, `{"token":%q,"logprob":%.4f,"bytes":[%d],"top_logprobs":[{"token":%q,"logprob":%.3f}]}`,
				t, -r.ExpFloat64(), t[0], u, -r.ExpFloat64())
		}
		b = append(b, "]}}]}\n"...)
	}
	return string(b)
}

// TestShaped: templates frames of many entries of a few shapes are
// shaped, and come back, at each level.
func TestShaped(t *testing.T) {
	in := []byte(logprobs(60))
	for _, o := range []Options{{}, small, {Level: LevelMax, ModelMemory: 16}} {
		packed := roundTrip(t, in, o)
		shaped := templateFrames(t, packed, coderShapes)
		// Frames of 8 KiB gain less than the tenth that pays for shaping.
		if shaped == 0 && o.storeFrame == 0 {
			t.Errorf("level %d: no frame shaped", o.Level)
		}
		checkTransformCounts(t, in, o, packed, -1, shaped)
	}
}

// templateFrames counts the templates frames of packed whose coder has
// flag.
func templateFrames(t *testing.T, packed []byte, flag byte) int {
	t.Helper()
	n := 0
	for _, b := range blocksOf(t, packed) {
		if b[0] != kindTemplates {
			continue
		}
		if f, _ := storeFrameOf(t, b); f.coder&flag != 0 {
			n++
		}
	}
	return n
}

// storeFrameOf returns the frame of b, a store block's body, and what
// follows it (its ends).
func storeFrameOf(t testing.TB, b []byte) (frame, []byte) {
	t.Helper()
	_, k1, _ := varint.Uvarint64(b[1:])
	_, k2, _ := varint.Uvarint64(b[1+k1:])
	f, rest, err := parseFrame(b[1+k1+k2:], math.MaxInt)
	if err != nil {
		t.Fatal(err)
	}
	return f, rest
}

// checkTransformCounts checks that the Writer's counts and the Reader's
// Contents both count split templates frames split and shaped ones
// shaped (-1: not checked).
func checkTransformCounts(t *testing.T, in []byte, o Options, packed []byte, split, shaped int) {
	t.Helper()
	_, wc := write(t, in, o, 1000)
	r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := r.Contents()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []StreamCounts{wc.Streams[StreamTemplates], c.Streams[StreamTemplates]} {
		if split >= 0 && sc.Split != int64(split) || shaped >= 0 && sc.Shaped != int64(shaped) {
			t.Errorf("level %d: counts say %d split, %d shaped; the frames %d, %d", o.Level, sc.Split, sc.Shaped, split, shaped)
		}
	}
	// The numbers' columns: as many bytes said by the writer as found by
	// the reader, some if any frame is split, and not all of them.
	w, g := wc.Streams[StreamTemplates], c.Streams[StreamTemplates]
	if w.Numbers != g.Numbers || split >= 0 && (split > 0) != (g.Numbers > 0) || g.Numbers >= g.Packed {
		t.Errorf("level %d: numbers' columns of %d bytes written, %d found, of %d; %d frames split", o.Level, w.Numbers, g.Numbers, g.Packed, split)
	}
}

// TestNumbers: frames that are mostly numbers have them split out, at
// each level, and come back; they are smaller for it.
// TestImages: images inline in requests (data URLs of random bytes, as a
// JPEG's compressed data is to any coder) cost about their bytes, the
// strings frames' base64 taken out as bytes (package numcol's blobs), at
// both levels; as text they cost 6.1-6.5 bits a character.
func TestImages(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var in []byte
	raw := 0
	for i := range 60 {
		img := make([]byte, 3000+r.IntN(7000))
		for j := range img {
			img[j] = byte(r.Uint32())
		}
		raw += len(img)
		in = fmt.Appendf(in, `{"model":"gpt-4o","messages":[{"role":"user","content":[{"type":"text","text":"What is in image %d?"},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,%s"}}]}]}`+"\n",
			i, base64.StdEncoding.EncodeToString(img))
	}
	for _, o := range bothLevels() {
		packed := roundTrip(t, in, o)
		_, c := write(t, in, o, 1<<20)
		if c.Streams[StreamStrings].Split == 0 || len(packed) > raw+raw/200 {
			t.Errorf("level %d: %d strings frames split, %d bytes for %d of images", o.Level, c.Streams[StreamStrings].Split, len(packed), raw)
		}
	}
}

// TestBase64Vectors: embeddings answered in base64 (the OpenAI client's
// default) are float32s in the columns, about 3.4 bytes a number: with
// frames large enough that their words table holds two- and three-letter
// runs of base64, words coded inside the vectors had left numcol none
// to take since layout 5 (5.5 bytes a number; bench/README.md).
func TestBase64Vectors(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var in []byte
	const n, dim = 400, 1536
	vec := make([]byte, 4*dim)
	for i := range n {
		for j := range dim {
			binary.LittleEndian.PutUint32(vec[4*j:], math.Float32bits(float32(r.NormFloat64()*0.03)))
		}
		in = fmt.Appendf(in, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":"%s"}],"model":"text-embedding-3-small","usage":{"prompt_tokens":%d}}`+"\n",
			base64.StdEncoding.EncodeToString(vec), i)
	}
	packed := roundTrip(t, in, Options{})
	if len(packed) > n*dim*36/10 {
		t.Errorf("%d bytes for %d float32s: %.2f a number", len(packed), n*dim, float64(len(packed))/(n*dim))
	}
}

// TestIds: random ids (a completion's and a request's UUID in a
// skeleton, a tool call's in an object stored as a template) are split
// out as their bits, at both levels, and records come back whole and one
// by one (a prefix of such a frame decoded). The same log with every id
// the same says what the ids cost: within 5% of their bits (55.8 bytes a
// record), where as text zstd's level 3 spent 69.2 bytes and the context
// model 64.5.
func TestIds(t *testing.T) {
	const n = 3000
	const b62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	log := func(random bool) []byte {
		r := rand.New(rand.NewPCG(5, 6))
		id := func(alphabet string, k int) string {
			b := make([]byte, k)
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
				if !random {
					b[i] = alphabet[i%len(alphabet)]
				}
			}
			return string(b)
		}
		var in []byte
		for i := range n {
			u := id("0123456789abcdef", 32)
			in = fmt.Appendf(in, `{"id":"chatcmpl-%s","object":"chat.completion","created":%d,"model":"gpt-4o-mini","request_id":"%s-%s-%s-%s-%s","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_%s","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":%d,"completion_tokens":2}}`+"\n",
				id(b62, 29), 1740000000+i, u[:8], u[8:12], u[12:16], u[16:20], u[20:], id(b62, 24), 10+i%7)
		}
		return in
	}
	const bits = (174 + 128 + 144) / 8.0 // 29 and 24 base62 characters, a UUID
	for _, o := range bothLevels() {
		var cost [2]int64
		for k, random := range []bool{true, false} {
			in := log(random)
			roundTrip(t, in, o)
			_, c := write(t, in, o, 1<<20)
			cost[k] = c.Streams[StreamSkeletons].Packed + c.Streams[StreamTemplates].Packed
			if random && (c.Streams[StreamSkeletons].Split == 0 || c.Streams[StreamTemplates].Split == 0) {
				t.Errorf("level %d: %d skeletons and %d templates frames split", o.Level, c.Streams[StreamSkeletons].Split, c.Streams[StreamTemplates].Split)
			}
		}
		if got := float64(cost[0]-cost[1]) / n; got > 1.05*bits {
			t.Errorf("level %d: ids cost %.1f bytes a record, their bits %.1f", o.Level, got, bits)
		} else {
			t.Logf("level %d: ids cost %.1f bytes a record, their bits %.1f", o.Level, got, bits)
		}
	}
}

// TestIdsPredictable: ids that are unique, so split out where they are
// a share of the bytes, but follow each other (a counter in hex) cost
// zstd a byte or two each as text and their bits split out: at the zstd
// levels the frames stay whole (splitPays says no, and the coding of the
// whole frame wins), and the log comes back the same.
func TestIdsPredictable(t *testing.T) {
	var in []byte
	for i := range 3000 {
		in = fmt.Appendf(in, `{"id":"req_a%031x","object":"chat.completion","created":%d,"model":"gpt-4o-mini","usage":{"prompt_tokens":%d,"completion_tokens":2}}`+"\n",
			i, 1740000000+i, 10+i%7)
	}
	roundTrip(t, in, Options{})
	packed, c := write(t, in, Options{}, 1<<20)
	if split := c.Streams[StreamSkeletons].Split; split != 0 {
		t.Errorf("%d skeletons frames split", split)
	}
	if len(packed)*12 > len(in) {
		t.Errorf("%d bytes for %d", len(packed), len(in))
	}
}

func TestNumbers(t *testing.T) {
	in := []byte(embeddings(40, 1536))
	for _, o := range []Options{{}, {Level: LevelMax, ModelMemory: 16}} {
		packed := roundTrip(t, in, o)
		split := templateFrames(t, packed, coderNumbers)
		checkTransformCounts(t, in, o, packed, split, -1)
		// Numbers of ~11 bytes as text, 4 bytes of bits and a kind split.
		if split == 0 || len(packed)*3 > len(in) {
			t.Errorf("level %d: %d frames split, %d bytes for %d", o.Level, split, len(packed), len(in))
		}
	}
}

func TestRoundTripNasty(t *testing.T) {
	for name, in := range nasty {
		maxSmall := small
		maxSmall.Level = LevelMax
		for _, o := range []Options{{}, small, {MinSize: 8, batch: 64}, {Level: LevelMax}, maxSmall} {
			t.Run(name, func(t *testing.T) { roundTrip(t, []byte(in), o) })
		}
	}
}

func TestRoundTripSample(t *testing.T) {
	in := sample.JSONL()
	packed := roundTrip(t, in, Options{})
	roundTrip(t, in, small)
	roundTrip(t, in, Options{Level: 1, Workers: 1})
	if len(packed)*4 > len(in) {
		t.Errorf("archive of %d bytes for %d of input", len(packed), len(in))
	}
	// The context model's frames are smaller still, and read the same way.
	if max := roundTrip(t, in, Options{Level: LevelMax, ModelMemory: 16}); len(max)*10 > len(packed)*9 {
		t.Errorf("LevelMax: %d bytes, level 3: %d", len(max), len(packed))
	}
	// Any number of workers writes the same bytes.
	for _, w := range []int{1, 2, 5} {
		o := small
		o.Workers = w
		if got, _ := write(t, in, o, 777); !bytes.Equal(got, roundTrip(t, in, small)) {
			t.Errorf("%d workers wrote different bytes", w)
		}
	}
}

// TestLastFrameInHalves: a stream's last strings frame of splitMin bytes
// or more, coded in halves (appendText), is the same bytes on any number
// of workers, and reads back.
func TestLastFrameInHalves(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	vocab := make([]string, 3000)
	for i := range vocab {
		b := make([]byte, 3+rng.IntN(8))
		for j := range b {
			b[j] = 'a' + byte(rng.IntN(26))
		}
		vocab[i] = string(b)
	}
	var in []byte
	for i := 0; len(in) < 3<<20; i++ {
		var text []byte
		for len(text) < 200 {
			text = append(append(text, vocab[rng.IntN(len(vocab))]...), ' ')
		}
		in = fmt.Appendf(in, `{"n":%d,"messages":[{"role":"user","content":"%s"}]}`+"\n", i, text)
	}
	packed := roundTrip(t, in, Options{Workers: 1})
	largest := 0
	for _, b := range blocksOf(t, packed) {
		if b[0] == kindStrings {
			f, _ := storeFrameOf(t, b)
			largest = max(largest, f.rawLen)
		}
	}
	if largest < splitMin {
		t.Fatalf("the largest strings frame %d bytes, under splitMin", largest)
	}
	for _, w := range []int{2, 3} {
		if got := roundTrip(t, in, Options{Workers: w}); !bytes.Equal(got, packed) {
			t.Errorf("%d workers wrote different bytes from 1", w)
		}
	}
}

// TestLongLines: lines longer than MaxLine are cut into records of MaxLine
// bytes, and come back.
func TestLongLines(t *testing.T) {
	if testing.Short() {
		t.Skip("34 MiB")
	}
	long := strings.Repeat("y", MaxLine)
	for _, in := range []string{
		long + "\n" + long + "z\n" + `{"a":1}`,
		long + long + long + "x",
		long + "\n",
		long,
		`{"a":"` + strings.Repeat("q", MaxLine-8) + `"}` + "\n" + `{"a":"` + strings.Repeat("q", MaxLine-8) + `"}`,
		// One array of records on a line: cut where each ends.
		"[" + strings.Repeat(`{"a":"`+strings.Repeat("r", 300)+`"}, `, MaxLine/300) + "{}]\n",
	} {
		roundTrip(t, []byte(in), Options{})
	}
}

// TestCounts: a Writer's counts, and what a Reader finds in the file.
func TestCounts(t *testing.T) {
	in := sample.JSONL()
	packed, c := write(t, in, Options{}, 1<<20)
	r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Contents()
	if err != nil {
		t.Fatal(err)
	}
	if got.Streams != c.Streams || got.Records != c.Records || got.Lines != c.Lines || got.Bytes != c.Bytes ||
		got.Strings != c.Strings || got.Templates != c.Templates || got.Repeats != c.Repeats || int64(got.Blocks) != c.Blocks {
		t.Errorf("written %+v\nfound %+v", c, got)
	}
	if got.Schemas[codec.SchemaRequest] != 246 || got.Models["gpt-4.1"] == 0 {
		t.Errorf("schemas %v, models %v", got.Schemas, got.Models)
	}
	var sum int64
	for s := range numStreams {
		sum += c.Streams[s].Packed
	}
	if c.Strings == 0 || c.Templates == 0 || c.Refs <= c.Strings+c.Templates || sum == 0 || sum > int64(len(packed)) ||
		c.Streams[StreamCRCs].Raw > 4*c.Records || c.Streams[StreamCRCs].Raw%4 != 0 || c.Streams[StreamIndex].Raw <= c.Records {
		t.Errorf("counts: %+v", c)
	}
}

// TestTable: every value stored is found again while the table is below
// its largest size, whatever the seeds; at its largest, what is let go is
// what was used longest ago.
func TestTable(t *testing.T) {
	h := newHasher()
	tb := newTable()
	const n = 300_000
	key := func(i int) key { return h.sum([]byte(fmt.Sprint("value ", i))) }
	for i := range n {
		tb.insert(key(i), uint32(i))
	}
	for i := range n {
		if id, ok := tb.find(key(i)); !ok || id != uint32(i) {
			t.Fatalf("value %d: %d, %v", i, id, ok)
		}
	}
	if len(tb.slots) > 4*n {
		t.Errorf("%d slots for %d values", len(tb.slots), n)
	}
	// At its largest, a full table still finds what it was told last.
	for i := n; i < maxTableSlots+n; i++ {
		tb.insert(key(i), uint32(i))
	}
	if len(tb.slots) != maxTableSlots {
		t.Errorf("%d slots, over the %d most", len(tb.slots), maxTableSlots)
	}
	for i := maxTableSlots + n - 1000; i < maxTableSlots+n; i++ {
		if id, ok := tb.find(key(i)); !ok || id != uint32(i) {
			t.Fatalf("recent value %d: %d, %v", i, id, ok)
		}
	}
}

// TestSchedule: Decode's order takes up every records block and store
// frame once, records blocks in file order, and each store frame before
// any records block that follows the frame depth before it of its kind
// (the frame before it: whose records may refer to it).
func TestSchedule(t *testing.T) {
	packed, _ := write(t, sample.JSONL(), small, 1<<20)
	r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for depth := 1; depth <= 3; depth++ {
		t.Run(fmt.Sprint("depth=", depth), func(t *testing.T) { testSchedule(t, r, depth) })
	}
}

func testSchedule(t *testing.T, r *Reader, depth int) {
	var order []int
	if err := r.schedule(depth, r.plainCopies(), func(b, _ int) error { order = append(order, b); return nil }); err != nil {
		t.Fatal(err)
	}
	pos := map[int]int{}
	for i, b := range order {
		if _, dup := pos[b]; dup {
			t.Fatalf("block %d taken up twice", b)
		}
		pos[b] = i
	}
	frames, lastRecords := 0, -1
	for k, fs := range r.frames {
		frames += len(fs)
		for i, f := range fs {
			if _, ok := pos[f.block]; !ok {
				t.Fatalf("store frame %d (block %d) not taken up", i, f.block)
			}
			if i < depth {
				continue
			}
			// The first records block after frame i-depth in the file.
			for b := fs[i-depth].block + 1; b < f.block; b++ {
				if r.ix.BlockRecords(b) > 0 {
					if pos[f.block] > pos[b] {
						t.Errorf("kind %d frame %d (block %d) after records block %d", k, i, f.block, b)
					}
					break
				}
			}
		}
	}
	records := 0
	for b := range r.ix.Blocks() {
		if r.ix.BlockRecords(b) == 0 {
			continue
		}
		records++
		if p, ok := pos[b]; !ok || p < lastRecords {
			t.Fatalf("records block %d out of order or missing", b)
		} else {
			lastRecords = p
		}
	}
	if frames < 4 || records < 4 {
		t.Fatalf("%d store frames, %d records blocks: too few to test", frames, records)
	}
	if len(order) != frames+records+r.plains {
		t.Fatalf("%d blocks taken up, want %d", len(order), frames+records+r.plains)
	}
}

// TestStoreFrameSizes: at the zstd levels a templates frame holds at most
// half what a strings frame does; at LevelMax as much. At a textLevel the
// first strings frame, the others' dictionary, holds twice as much.
func TestStoreFrameSizes(t *testing.T) {
	var in []byte
	rng := rand.New(rand.NewPCG(11, 12))
	word := func() string {
		b := make([]byte, 70)
		for i := range b {
			b[i] = 'a' + byte(rng.IntN(26))
		}
		return string(b)
	}
	for i := range 2000 {
		in = fmt.Appendf(in, `{"n":%d,"messages":[{"role":"user","content":"%s"},{"role":"assistant","content":"%s"}]}`+"\n", i, word(), word())
	}
	for _, c := range []struct {
		level int
		most  [2]int // raw bytes of a frame, strings and templates
	}{{0, [2]int{64 << 10, 32 << 10}}, {4, [2]int{64 << 10, 32 << 10}}, {2, [2]int{64 << 10, 32 << 10}}, {LevelMax, [2]int{64 << 10, 64 << 10}}} {
		packed, _ := write(t, in, Options{Level: c.level, ModelMemory: 1, storeFrame: 64 << 10}, 1<<20)
		var largest [2]int
		first := 0 // the first strings frame's raw bytes
		for _, b := range blocksOf(t, packed) {
			s := 0
			switch b[0] {
			case kindStrings:
			case kindTemplates:
				s = 1
			default:
				continue
			}
			f, _ := storeFrameOf(t, b)
			if s == 0 && first == 0 {
				first = f.rawLen
				continue
			}
			largest[s] = max(largest[s], f.rawLen)
		}
		dictMost := c.most[0]
		if c.level == 0 || textLevel(c.level) {
			dictMost *= 2
		}
		if first > dictMost || first < dictMost*7/8 {
			t.Errorf("level %d: first strings frame %d bytes, want at most %d and nearly that", c.level, first, dictMost)
		}
		for s, name := range []string{"strings", "templates"} {
			if largest[s] > c.most[s] || largest[s] < c.most[s]*7/8 {
				t.Errorf("level %d: largest %s frame %d bytes, want at most %d and nearly that", c.level, name, largest[s], c.most[s])
			}
		}
	}
}

// TestTailJoins: at LevelMax a strings frame that reaches its size takes
// up to a quarter more of it if the stream ends meanwhile, else closes
// where it reached its size; at the zstd levels it closes there (the
// first, at a textLevel, at twice the size).
func TestTailJoins(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	// Each line stores one string of 102 bytes: 103 bytes of a frame with
	// its end, 159 of them to a frame of 16 KiB, 39 to a quarter of it.
	lines := func(n int) []byte {
		var in []byte
		for i := range n {
			b := make([]byte, 100)
			for j := range b {
				b[j] = 'a' + byte(rng.IntN(26))
			}
			in = fmt.Appendf(in, `{"n":%d,"c":"%s"}`+"\n", i, b)
		}
		return in
	}
	for _, c := range []struct {
		level, lines int
		want         []int // entries of each strings frame
	}{
		{LevelMax, 100, []int{100}},
		{LevelMax, 159 + 39, []int{198}},
		{LevelMax, 159 + 40, []int{159, 40}},
		{LevelMax, 3*159 + 20, []int{159, 159, 179}},
		{LevelMax, 2*159 + 100, []int{159, 159, 100}},
		{3, 2*159 + 159 + 39, []int{318, 159, 39}},
		{2, 159 + 39, []int{159, 39}},
	} {
		in := lines(c.lines)
		o := Options{Level: c.level, ModelMemory: 1, storeFrame: 16 << 10}
		packed, _ := write(t, in, o, 1<<20)
		var got []int
		for _, b := range blocksOf(t, packed) {
			if b[0] != kindStrings {
				continue
			}
			_, k, _ := varint.Uvarint64(b[1:])
			n, _, _ := varint.Uvarint64(b[1+k:])
			got = append(got, int(n))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("level %d, %d lines: strings frames of %v entries, want %v", c.level, c.lines, got, c.want)
		}
		roundTrip(t, in, o)
	}
}

// TestRecordsBlocks: at LevelMax a records block takes batches until its
// skeletons are a quarter of a batch long; at the zstd levels it is one
// batch, whose skeletons are shorter than the batch.
func TestRecordsBlocks(t *testing.T) {
	in := sample.JSONL()[:300000]
	const batch = 16 << 10
	var blocks [2]int
	for i, level := range []int{3, LevelMax} {
		o := Options{Level: level, ModelMemory: 1, batch: batch}
		packed, _ := write(t, in, o, 1<<20)
		ix, err := container.OpenIndex(bytes.NewReader(packed), int64(len(packed)), nil)
		if err != nil {
			t.Fatal(err)
		}
		var skels []int
		for b := range ix.Blocks() {
			blk, err := ix.Block(b)
			if err != nil {
				t.Fatal(err)
			}
			if blk.Body[0] != kindRecords {
				continue
			}
			h, err := parseRecords(blk.Body, blk.Records, b)
			if err != nil {
				t.Fatal(err)
			}
			skels = append(skels, h.skel.rawLen)
		}
		blocks[i] = len(skels)
		for k, n := range skels {
			if level == LevelMax && k < len(skels)-1 && n < batch/4 {
				t.Errorf("LevelMax: records block %d of %d has %d bytes of skeletons, under a quarter of a batch", k, len(skels), n)
			}
			if level != LevelMax && n > batch {
				t.Errorf("level %d: records block %d has %d bytes of skeletons, more than a batch", level, k, n)
			}
		}
		roundTrip(t, in, o)
	}
	if blocks[1] < 2 || blocks[1]*2 > blocks[0] {
		t.Errorf("%d records blocks at LevelMax, %d at level 3: want several, and under half as many", blocks[1], blocks[0])
	}
	// Empty lines leave no skeletons: a block still ends where its
	// index's columns (six bytes a line, its CRC-32 four) reach a
	// quarter of a batch, here each batch's 8,192 lines.
	empty := bytes.Repeat([]byte("\n"), 40*batch)
	o := Options{Level: LevelMax, ModelMemory: 1, batch: batch}
	packed, _ := write(t, empty, o, 1<<20)
	ix, err := container.OpenIndex(bytes.NewReader(packed), int64(len(packed)), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for b := range ix.Blocks() {
		if blk, err := ix.Block(b); err == nil && blk.Body[0] == kindRecords {
			n++
		}
	}
	if want := len(empty) / (batch / 2); n < want {
		t.Errorf("%d empty lines in %d records blocks, want one a batch (%d)", len(empty), n, want)
	}
	roundTrip(t, empty, o)
}

// TestEmptyLines: a batch ends after half its size in lines, whatever
// their bytes, so that 13 million empty lines (a records block's CRC-32s
// of 52 MB, over what a reader takes of a frame, as one batch) make an
// archive that reads back.
func TestEmptyLines(t *testing.T) {
	if testing.Short() {
		t.Skip("13 MB of empty lines")
	}
	in := bytes.Repeat([]byte("\n"), 13<<20)
	packed, _ := write(t, in, Options{Level: 1}, 1<<20)
	r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var back bytes.Buffer
	if _, err := r.Decode(context.Background(), &back, DecodeOptions{Workers: 2, Check: true}); err != nil || !bytes.Equal(back.Bytes(), in) {
		t.Fatalf("Decode: %v, %d bytes back of %d", err, back.Len(), len(in))
	}
	for _, i := range []int64{0, 5 << 20, 13<<20 - 1} {
		if line, err := r.AppendRecord(nil, i); err != nil || len(line) != 1 {
			t.Fatalf("record %d: %v, %q", i, err, line)
		}
	}
}

// TestFrameDict: the dictionary a store block's head names, read as
// dictAhead reads it, is its frame's, for every store block and a head of
// storeHead bytes or the whole body, whichever is shorter.
func TestFrameDict(t *testing.T) {
	in := sample.JSONL()
	dicts := 0
	for _, o := range []Options{small, {batch: 4 << 10, storeFrame: 8 << 10, segment: 3, Level: LevelMax, ModelMemory: 1}} {
		packed, _ := write(t, in, o, 1000)
		for _, b := range blocksOf(t, packed) {
			if b[0] != kindStrings && b[0] != kindTemplates {
				continue
			}
			f, _ := storeFrameOf(t, b)
			dict, coder, ok := headDict(b[:min(len(b), storeHead)])
			if !ok || dict != f.dict || coder != f.coder {
				t.Fatalf("headDict: %d, coder %#x (%v); the frame's dictionary %d, coder %#x", dict, coder, ok, f.dict, f.coder)
			}
			if dict >= 0 {
				dicts++
			}
		}
	}
	if dicts == 0 {
		t.Fatal("no frame with a dictionary: nothing tested")
	}
	for _, head := range []string{"", "S", "S\x80", "S\x01\x02", "S\x01\x02\x01\x80"} {
		if _, _, ok := headDict([]byte(head)); ok {
			t.Errorf("headDict(%q) ok, but it is cut short", head)
		}
	}
}

// TestPPMDictPrefix: a ppm frame's dictionary is the first ppmDict bytes
// of its dictionary frame, whole or record by record; made short here,
// where the dictionary frames are longer.
func TestPPMDictPrefix(t *testing.T) {
	defer func(n int) { ppmDict = n }(ppmDict)
	ppmDict = 3000
	in := sample.JSONL()[:300000]
	o := Options{batch: 4 << 10, storeFrame: 8 << 10, segment: 3, Level: LevelMax, ModelMemory: 1}
	packed := roundTrip(t, in, o)
	cut := 0
	for _, b := range blocksOf(t, packed) {
		if b[0] == kindStrings {
			if f, _ := storeFrameOf(t, b); f.dict >= 0 && f.coder&^coderFlags == coderPPM {
				cut++
			}
		}
	}
	if cut == 0 {
		t.Fatal("no ppm frame with a dictionary: nothing tested")
	}
}

// TestGrowing: what is decoded of a ppm frame being decoded whole is
// handed on as it is (growingFrames): a frame whose dictionary is its
// start is decoded, and its entries are read for Decode, as soon as that
// much of it is, not once all of it is; and both are what they would be
// from the frame decoded alone.
func TestGrowing(t *testing.T) {
	defer func(n, step int) { ppmDict, prefixStep = n, step }(ppmDict, prefixStep)
	ppmDict, prefixStep = 3000, 1000
	packed, _ := write(t, sample.JSONL()[:300000], Options{batch: 4 << 10, storeFrame: 8 << 10, segment: 3, Level: LevelMax, ModelMemory: 1}, 1000)
	open := func() *Reader {
		r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := open()
	defer r.Close()
	alone := open()
	defer alone.Close()
	bodies := blocksOf(t, packed)
	// whileDecoding decodes frame a whole on a goroutine, stopped once it
	// has handed on ppmDict bytes or more, and calls f meanwhile; f must
	// not wait for the rest of a.
	whileDecoding := func(a storeFrame, f func()) {
		r.cache.init(cacheBudget)
		handed, release := make(chan struct{}), make(chan struct{})
		r.growing.testHook = func(b, n int) {
			if b == a.block && n >= ppmDict && handed != nil {
				close(handed)
				handed = nil
				<-release
			}
		}
		defer func() { r.growing.testHook = nil }()
		wait := handed
		decodedA := make(chan error)
		go func() {
			_, err := r.store(0, a, 0)
			decodedA <- err
		}()
		<-wait
		done := make(chan struct{})
		go func() {
			f()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("waited for all of frame %d", a.block)
		}
		close(release)
		if err := <-decodedA; err != nil {
			t.Fatal(err)
		}
	}
	dicts, entries := 0, 0
	for _, a := range r.frames[0] {
		if f, _ := storeFrameOf(t, bodies[a.block]); f.coder != coderPPM || f.rawLen <= 2*ppmDict {
			continue
		}
		whole, err := alone.store(0, a, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Its entries in its first ppmDict bytes, as Decode reads them.
		n := sort.Search(len(whole.ends), func(i int) bool { return int(whole.ends[i]) >= ppmDict })
		if n == 0 {
			continue
		}
		whileDecoding(a, func() {
			var last recent
			for id := a.first; id < a.first+uint32(n); id++ {
				text, _, err := r.entry(0, id, &last, true)
				if want, _ := whole.text(id - a.first); err != nil || !bytes.Equal(text, want) {
					t.Errorf("entry %d of frame %d: %q, %v; want %q", id, a.block, text, err, want)
				}
			}
		})
		entries++
		for _, b := range r.frames[0] {
			if f, _ := storeFrameOf(t, bodies[b.block]); f.coder&^coderFlags != coderPPM || f.dict != a.block {
				continue
			}
			want, err := alone.store(0, b, 0)
			if err != nil {
				t.Fatal(err)
			}
			whileDecoding(a, func() {
				got, err := r.store(0, b, 0)
				if err != nil || !bytes.Equal(got.raw, want.raw) {
					t.Errorf("frame %d with frame %d's start decoding: %v", b.block, a.block, err)
				}
			})
			dicts++
			break
		}
	}
	if dicts == 0 || entries == 0 {
		t.Fatalf("%d frames with a dictionary, %d frames read for entries: nothing tested", dicts, entries)
	}
}

// TestStorePrefix: storePrefix decodes a frame at least n bytes far, and
// what it gives is the frame's start, also where n falls in an entry
// longer than a step of the frame's ends.
func TestStorePrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	long := make([]byte, 3*endStep)
	for i := range long {
		long[i] = byte('a' + rng.IntN(26))
	}
	text := sample.JSONL()
	at := bytes.IndexByte(text[len(text)/3:], '\n') + len(text)/3 + 1
	in := append(append(append(bytes.Clone(text[:at]), `{"long":"`...), long...), `"}`+"\n"...)
	in = append(in, text[at:]...)
	packed, _ := write(t, in, Options{storeFrame: 1 << 20}, 1000)
	whole, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	steps := 0
	for _, f := range whole.frames[0] {
		all, err := whole.store(0, f, 0)
		if err != nil {
			t.Fatal(err)
		}
		steps = max(steps, len(all.raw)/endStep)
		ns := []int{0, 1, len(all.raw) - 1, len(all.raw), len(all.raw) + 1}
		for n := endStep / 2; n < len(all.raw); n += endStep / 2 {
			ns = append(ns, n-1, n, n+1)
		}
		for _, n := range ns {
			r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
			if err != nil {
				t.Fatal(err)
			}
			s, err := r.storePrefix(0, f, n)
			r.Close()
			if err != nil || len(s.raw) < min(n, len(all.raw)) || !bytes.Equal(s.raw, all.raw[:len(s.raw)]) {
				t.Fatalf("frame %d, %d bytes asked: %d given, %v", f.block, n, len(s.raw), err)
			}
		}
	}
	if steps < 3 {
		t.Fatalf("frames of at most %d steps: too short to test", steps)
	}
}

// TestDictKey: the frames of a segment take their words dictionary's coded
// text from the cache under dictKey, decoded without expanding it; the
// dictionary frame's raw bytes, asked for later, are expanded from that
// same text, not decoded again.
func TestDictKey(t *testing.T) {
	packed, _ := write(t, sample.JSONL(), small, 1000)
	r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := range r.frames[0] {
		r.frames[0][i].plain = 0 // dictionaries decoded, not read from their copies (TestPlainCopies)
	}
	tested := 0
	for _, f := range r.frames[0] { // strings frames
		dict, coder, ok := r.frameDict(f.block)
		if !ok || dict < 0 || coder&coderWords == 0 {
			continue
		}
		text, table, err := r.dictionary(0, f, dict, false)
		if err != nil || table == nil {
			t.Fatalf("dictionary of block %d: %v (table %v)", f.block, err, table != nil)
		}
		if _, ok := r.cache.peek(dictKey(dict)); !ok {
			t.Fatalf("dictionary block %d not under its key", dict)
		}
		if _, ok := r.cache.peek(dict); ok {
			continue // decoded whole for an earlier frame
		}
		i := slices.IndexFunc(r.frames[0], func(g storeFrame) bool { return g.block == dict })
		s, err := r.store(0, r.frames[0][i], 0)
		if err != nil || !s.complete {
			t.Fatalf("dictionary block %d whole: %v", dict, err)
		}
		if len(s.words.text) != len(text) || len(text) > 0 && &s.words.text[0] != &text[0] {
			t.Fatalf("dictionary block %d: its coded text decoded again", dict)
		}
		tested++
	}
	if tested == 0 {
		t.Fatal("no words frame with a dictionary: nothing tested")
	}
}

func TestCacheWait(t *testing.T) {
	var c cache
	c.init(1 << 20)
	if _, ok := c.wait(1); ok {
		t.Fatal("wait found a block never loaded")
	}
	if _, ok := c.peek(1); ok {
		t.Fatal("wait loaded a block")
	}
	loading, release := make(chan struct{}), make(chan struct{})
	go c.get(1, func() (any, int, error) { close(loading); <-release; return "one", 3, nil })
	<-loading
	got := make(chan any)
	go func() { v, _ := c.wait(1); got <- v }()
	select {
	case v := <-got:
		t.Fatalf("wait returned %v before the load ended", v)
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	if v := <-got; v != "one" {
		t.Fatalf("wait returned %v, want the loaded value", v)
	}
}

// heldReaderAt is an io.ReaderAt whose reads wait for release once held,
// and that fails a test if it is read once sealed.
type heldReaderAt struct {
	t       *testing.T
	r       *bytes.Reader
	held    atomic.Bool
	entered chan struct{} // a held read has begun
	release chan struct{}
	sealed  atomic.Bool
}

func (h *heldReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if h.sealed.Load() {
		h.t.Errorf("read at %d after Close returned", off)
	}
	if h.held.Load() {
		h.entered <- struct{}{}
		<-h.release
	}
	return h.r.ReadAt(p, off)
}

// TestCloseReads: Close waits for a read of the ReaderAt under way in the
// background (dictAhead's), and none begins after it returns, though
// what was read may still be decoding then.
func TestCloseReads(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // dictAhead needs two
	packed, _ := write(t, sample.JSONL(), small, 1000)
	h := &heldReaderAt{t: t, r: bytes.NewReader(packed), entered: make(chan struct{}), release: make(chan struct{})}
	r, err := NewReader(h, int64(len(packed)))
	if err != nil {
		t.Fatal(err)
	}
	k := slices.IndexFunc(r.frames[0], func(f storeFrame) bool {
		dict, _, ok := r.frameDict(f.block)
		return ok && dict >= 0
	})
	if k < 0 {
		t.Fatal("no strings frame with a dictionary: nothing tested")
	}
	h.held.Store(true)
	r.dictAhead(r.frames[0][k].block - 1)
	<-h.entered
	closed := make(chan struct{})
	go func() {
		r.Close()
		h.sealed.Store(true)
		close(closed)
	}()
	select {
	case <-closed:
		t.Fatal("Close returned while a read was under way")
	case <-time.After(20 * time.Millisecond):
	}
	h.held.Store(false)
	close(h.release)
	<-closed
	time.Sleep(20 * time.Millisecond) // for a read begun after Close to show
}

// TestPrefixedLines: JSON records behind a prefix on their lines (a log's
// timestamp and level, an event stream's "data: ") have their values
// stored once and are listed as the same records without it are, and
// come back byte for byte.
func TestPrefixedLines(t *testing.T) {
	in := sample.JSONL()
	plainPacked, plain := write(t, in, Options{}, 1<<20)
	pr, err := NewReader(bytes.NewReader(plainPacked), int64(len(plainPacked)))
	if err != nil {
		t.Fatal(err)
	}
	listed, err := pr.Contents()
	pr.Close()
	if err != nil || len(listed.Schemas) == 0 {
		t.Fatalf("the sample: listed %v, %v", listed.Schemas, err)
	}
	lines := bytes.SplitAfter(in, []byte("\n"))
	for _, prefix := range []string{"2026-11-30T12:00:%02d.000Z INFO gateway: ", "data: ", "[2026-11-30 12:%02d] "} {
		var p []byte
		for i, l := range lines {
			if len(l) > 0 {
				p = append(append(p, strings.ReplaceAll(prefix, "%02d", strconv.Itoa(10+i%50))...), l...)
			}
		}
		for _, o := range bothLevels() {
			packed := roundTrip(t, p, o)
			_, c := write(t, p, o, 1<<20)
			// A prefix that changes from line to line makes records that
			// repeated one before them records of their own: more
			// references, but the same values stored.
			same := !strings.Contains(prefix, "%")
			if c.Kept != plain.Kept || c.Strings != plain.Strings || c.Templates != plain.Templates ||
				same && (c.Refs != plain.Refs || c.Repeats != plain.Repeats) || c.Refs < plain.Refs {
				t.Errorf("%q: kept %d, %d strings, %d templates, %d references, %d repeats; without the prefix %d, %d, %d, %d, %d",
					prefix, c.Kept, c.Strings, c.Templates, c.Refs, c.Repeats, plain.Kept, plain.Strings, plain.Templates, plain.Refs, plain.Repeats)
			}
			r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
			if err != nil {
				t.Fatal(err)
			}
			// Listed as the records themselves are.
			if got, err := r.Contents(); err != nil || !maps.Equal(got.Schemas, listed.Schemas) || !maps.Equal(got.Models, listed.Models) {
				t.Errorf("%q: listed %v %v, %v; the records themselves %v %v", prefix, got.Schemas, got.Models, err, listed.Schemas, listed.Models)
			}
			r.Close()
		}
	}
}

// TestInnerJSON: records that hold other records as strings of JSON text
// (a gateway's log of request and response bodies, a container runtime's
// log lines) have the values inside stored once, as the records
// themselves do, in every encoder's dialect, and come back byte for byte.
func TestInnerJSON(t *testing.T) {
	in := sample.JSONL()
	_, plain := write(t, in, Options{}, 1<<20)
	lines := bytes.SplitAfter(in, []byte("\n"))
	for name, wrap := range map[string]func(i int, line []byte) []byte{
		"gateway": func(i int, line []byte) []byte {
			body, _ := json.Marshal(string(bytes.TrimSuffix(line, []byte("\n"))))
			return fmt.Appendf(nil, `{"ts":%d,"status":200,"body":%s}`+"\n", 1764460800+i, body)
		},
		"docker": func(i int, line []byte) []byte {
			log, _ := json.Marshal(string(line)) // the line feed in it, escaped
			return fmt.Appendf(nil, `{"log":%s,"stream":"stdout","time":"2026-11-30T12:00:%02d.000Z"}`+"\n", log, i%60)
		},
		"python": func(i int, line []byte) []byte {
			// ensure_ascii: every rune past U+007F escaped, lower-case hex.
			body, _ := json.Marshal(string(bytes.TrimSuffix(line, []byte("\n"))))
			var ascii []byte
			for _, r := range string(body) {
				switch {
				case r > 0xFFFF:
					r -= 0x10000
					ascii = fmt.Appendf(ascii, `\u%04x\u%04x`, 0xD800+r>>10, 0xDC00+r&0x3FF)
				case r > 0x7F && r != '\u2028' && r != '\u2029':
					ascii = fmt.Appendf(ascii, `\u%04x`, r)
				default:
					ascii = utf8.AppendRune(ascii, r)
				}
			}
			html := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&")
			return fmt.Appendf(nil, `{"request": %s, "id": %d}`+"\n", html.Replace(string(ascii)), i)
		},
	} {
		var p []byte
		for i, l := range lines {
			if len(l) > 1 {
				p = append(p, wrap(i, l)...)
			}
		}
		for _, o := range bothLevels() {
			roundTrip(t, p, o)
			_, c := write(t, p, o, 1<<20)
			// The values inside are those of the sample's records, stored
			// once each; the bodies are templates, one each, the records
			// whose bodies hold no value kept as strings.
			if c.Strings < plain.Strings || c.Strings > plain.Strings+plain.Kept+5 || c.Templates < plain.Templates+plain.Records/2 {
				t.Errorf("%s, level %d: %d strings, %d templates; the sample's records %d, %d",
					name, o.Level, c.Strings, c.Templates, plain.Strings, plain.Templates)
			}
		}
	}
}

// TestPrettyJSON: the lines of a JSON value pretty-printed are one
// record (Writer.joins), taken apart as the value on a line is: the
// sample's records indented one after another (as jq writes them) and as
// one indented array (as json.dump(indent=2) does) store the strings the
// records on their lines do, list the same models, and compress within a
// fifth of them, where each line a record (before) cost twice as much.
func TestPrettyJSON(t *testing.T) {
	in := sample.JSONL()
	ref := sampleArchive(t)
	var jq, array bytes.Buffer
	array.WriteString("[\n")
	objects := 0
	for _, l := range bytes.SplitAfter(in, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\n"))
		if json.Indent(&jq, l, "", "  ") != nil {
			jq.Write(l)
		}
		jq.WriteByte('\n')
		if json.Valid(l) {
			if objects++; objects > 1 {
				array.WriteString(",\n")
			}
			array.WriteString("  ")
			json.Indent(&array, l, "  ", "  ")
		}
	}
	array.WriteString("\n]\n")
	ref.like(t, "jq", jq.Bytes(), 6, 5)
	ref.like(t, "array", array.Bytes(), 6, 5)
}

// archived is an archive at the default level, its counts and listing.
type archived struct {
	packed []byte
	counts Counts
	list   *Contents
}

// sampleArchive is the sample's own archive: that of its records on their
// lines, which a test of the sample in another shape compares with.
func sampleArchive(t *testing.T) archived {
	packed, c := write(t, sample.JSONL(), Options{}, 1<<20)
	return archived{packed, c, contents(t, packed)}
}

// like checks in, the sample's records in another shape, at both levels:
// it comes back (roundTrip, which counts its lines too) and stores the
// strings its records do, and at the default level lists their schemas
// and models and takes at most num/den of their archive's bytes.
func (a archived) like(t *testing.T, name string, in []byte, num, den int) {
	t.Helper()
	for _, o := range bothLevels() {
		roundTrip(t, in, o)
		packed, c := write(t, in, o, 1<<20)
		if c.Strings != a.counts.Strings {
			t.Errorf("%s, level %d: %d strings stored, the records on their lines %d", name, o.Level, c.Strings, a.counts.Strings)
		}
		if o.Level == LevelMax {
			continue
		}
		list := contents(t, packed)
		if !maps.Equal(list.Models, a.list.Models) || !maps.Equal(list.Schemas, a.list.Schemas) {
			t.Errorf("%s: listed %v %v, the records on their lines %v %v", name, list.Schemas, list.Models, a.list.Schemas, a.list.Models)
		}
		if len(packed) > len(a.packed)*num/den {
			t.Errorf("%s: %d bytes, the records on their lines %d", name, len(packed), len(a.packed))
		}
	}
}

// TestJoinBounds: lines joined up to maxGroupLines line feeds, or
// maxGroup bytes, are no value pretty-printed: each is a record, and
// brackets are counted again from the next line (an object's members then
// a record each).
func TestJoinBounds(t *testing.T) {
	many := "{\n" + strings.Repeat("  \"k\": 1,\n", maxGroupLines+10) + "  \"z\": 2\n}\n"
	long := "{\n" + strings.Repeat("  \"k\": \""+strings.Repeat("v", 1000)+"\",\n", maxGroup/1000+10) + "  \"z\": 2\n}\n"
	for name, in := range map[string]string{"lines": many, "bytes": long} {
		packed := roundTrip(t, []byte(in), Options{})
		r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
		if err != nil {
			t.Fatal(err)
		}
		if n := int64(strings.Count(in, "\n")); r.Records() != n {
			t.Errorf("%s: %d records of %d lines, want a line each", name, r.Records(), n)
		}
		r.Close()
	}
}

// TestNestedListing: a record that names no model is listed by the first
// object among its members' values, or theirs, that does: the sample as
// OpenAI's Batch input (the request its "body") and output (its
// "response"'s "body") lists the schemas and models of its records.
func TestNestedListing(t *testing.T) {
	in := sample.JSONL()
	plain := sampleArchive(t).list
	var batch []byte
	n := 0
	for _, l := range bytes.Split(bytes.TrimSuffix(in, []byte("\n")), []byte("\n")) {
		if !json.Valid(l) || l[0] != '{' {
			batch = append(append(batch, l...), '\n')
			continue
		}
		if n++; n%2 == 0 {
			batch = fmt.Appendf(batch, `{"custom_id":"request-%d","method":"POST","url":"/v1/chat/completions","body":%s}`+"\n", n, l)
		} else {
			batch = fmt.Appendf(batch, `{"id":"batch_req_%d","custom_id":"request-%d","response":{"status_code":200,"request_id":"r%d","body":%s},"error":null}`+"\n", n, n, n, l)
		}
	}
	packed := roundTrip(t, batch, Options{})
	list := contents(t, packed)
	if !maps.Equal(list.Models, plain.Models) || !maps.Equal(list.Schemas, plain.Schemas) {
		t.Errorf("listed %v %v, the records on their lines %v %v", list.Schemas, list.Models, plain.Schemas, plain.Models)
	}
}

// contents lists the archive packed.
func contents(t *testing.T, packed []byte) *Contents {
	t.Helper()
	r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := r.Contents()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCSV: JSON in a field of CSV (a warehouse's export of a log: an id,
// a time, the request), its quotes doubled, is taken apart as the JSON
// itself: the sample so exported, as Python's csv module writes it (CRLF)
// and as encoding/csv does (LF, a field that needs no quotes bare), stores
// the strings its records do, lists the same models, and compresses
// within a tenth of them.
func TestCSV(t *testing.T) {
	in := sample.JSONL()
	ref := sampleArchive(t)
	var crlf, lf bytes.Buffer
	w := csv.NewWriter(&lf)
	crlf.WriteString("id,time,payload\r\n")
	w.Write([]string{"id", "time", "payload"})
	for i, l := range bytes.Split(bytes.TrimSuffix(in, []byte("\n")), []byte("\n")) {
		fmt.Fprintf(&crlf, "%d,2026-03-01T08:%02d:00Z,\"%s\"\r\n", i, i%60, bytes.ReplaceAll(l, []byte(`"`), []byte(`""`)))
		w.Write([]string{strconv.Itoa(i), string(l), "ok"})
	}
	w.Flush()
	ref.like(t, "python", crlf.Bytes(), 11, 10)
	ref.like(t, "go", lf.Bytes(), 11, 10)
}

// TestCutValues: a line longer than the writer's bound (MaxLine, here
// made small) is cut where its values at the top level end, each piece a
// record whose values are stored as a line's: a data set's one array of
// records stores the values its records do on lines of their own.
func TestCutValues(t *testing.T) {
	in := sample.JSONL()
	_, plain := write(t, in, Options{}, 1<<20)
	var recs [][]byte
	for _, l := range bytes.Split(in, []byte("\n")) {
		if json.Valid(l) {
			recs = append(recs, l)
		}
	}
	array := append(append([]byte("["), bytes.Join(recs, []byte(", "))...), "]\n"...)
	long := Options{longLine: 4 << 10, batch: 64 << 10}
	roundTrip(t, array, long)
	_, c := write(t, array, long, 5000)
	if c.Strings != plain.Strings || c.Records < int64(len(recs))/2 || c.Kept > 2 {
		t.Errorf("one array: %d records (%d kept), %d strings; the records on their lines %d strings", c.Records, c.Kept, c.Strings, plain.Strings)
	}
	// Lines of other kinds, cut where their values end or at MaxLine.
	for _, line := range []string{
		"[" + strings.Repeat("1.5,", 3000) + "2]",
		`{"a":[` + strings.Repeat(`"[\"{,}]",`, 1000) + `"x"],"b":` + strings.Repeat(`{"c":"`+strings.Repeat("d", 80)+`"},`, 100) + `{}}`,
		strings.Repeat(`]},"\`, 2000) + "[" + strings.Repeat("x,", 3000),
		strings.Repeat(`[{"e":"`+strings.Repeat("f", 300)+`"}], `, 100),
		"no JSON here, " + strings.Repeat("just text, ", 1000),
	} {
		for _, o := range []Options{long, {longLine: 1000, batch: 2000, storeFrame: 4000, segment: 2}} {
			roundTrip(t, []byte(line+"\n"+line), o)
		}
	}
}
