package tokenizer

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"go/build"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/m2m-go/m2m/internal/sample"
)

// Phrases for benchText: chat-API traffic is mostly English prose, some
// code and markup, and some other languages.
var benchPhrases = []string{
	"Can you help me write a function that parses the configuration file and returns a map of settings?",
	"Sure! Here is a short example in Python:\n\n```python\ndef parse(path):\n    with open(path) as f:\n        return dict(line.split('=', 1) for line in f if line.strip())\n```\n",
	"The quarterly report shows revenue grew by 12.5% to $4.2 million, while operating costs fell.",
	"Summarize the following article in three bullet points, keeping the tone neutral.",
	"I'm not sure that's right: the meeting was moved to Thursday at 3:30 PM, wasn't it?",
	"Translate to French: \"Where is the nearest train station?\" — « Où est la gare la plus proche ? »",
	"東京の天気は明日晴れる予定です。",
	"Привет! Как дела? Я изучаю программирование на Go.",
	"func (s *Server) Handle(w http.ResponseWriter, r *http.Request) {\n\tif err := s.auth(r); err != nil {\n\t\thttp.Error(w, err.Error(), 401)\n\t\treturn\n\t}\n}\n",
	"<div class=\"card\"><h2>Order #10442</h2><p>Status: shipped</p></div>",
	"Please list 5 ideas for a birthday party for a 7-year-old who loves dinosaurs 🦖.",
	"Error: connection refused (ECONNREFUSED) at 10.0.3.17:5432 after 3 retries",
}

// benchText returns n bytes (up to a character) of synthetic chat-API
// JSON built from benchPhrases with a fixed seed.
func benchText(n int) []byte {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	roles := []string{"system", "user", "assistant"}
	var b bytes.Buffer
	b.WriteString(`{"model":"gpt-4o","messages":[`)
	for b.Len() < n {
		fmt.Fprintf(&b, `{"role":%q,"content":%q},`, roles[r.IntN(3)], benchPhrases[r.IntN(len(benchPhrases))])
	}
	return validPrefix(b.Bytes()[:n])
}

// validPrefix cuts text at its last character boundary.
func validPrefix(text []byte) []byte {
	for !utf8.Valid(text) {
		text = text[:len(text)-1]
	}
	return text
}

// A benchLines is text to encode, as lines: each is encoded on its own, as
// a record of a JSONL file is.
type benchLines struct {
	name  string
	lines [][]byte
	size  int
}

func oneLine(name string, text []byte) benchLines {
	return benchLines{name, [][]byte{text}, len(text)}
}

// corpusLines returns the lines of the JSONL corpus named by M2M_CORPUS (at
// most its first 4 MiB; the dev corpus is $CORPORA/dev.jsonl),
// else those of the sample embedded in the module.
func corpusLines(t testing.TB) benchLines {
	t.Helper()
	text := corpus(t)
	if text == nil {
		return linesOf("sample", sample.JSONL(), nil)
	}
	if len(text) > 4<<20 {
		if k := bytes.IndexByte(text[4<<20-1:], '\n'); k >= 0 {
			text = text[:4<<20+k]
		}
	}
	return linesOf("corpus", text, nil)
}

// corpusCJKLines returns the lines of the whole corpus named by M2M_CORPUS
// that are more than a fifth CJK characters (85 lines, 182 KB, of the dev
// corpus), or false without M2M_CORPUS.
func corpusCJKLines(t testing.TB) (benchLines, bool) {
	t.Helper()
	text := corpus(t)
	if text == nil {
		return benchLines{}, false
	}
	return linesOf("corpuscjk", text, func(line []byte) bool {
		cjk, all := 0, 0
		for _, r := range string(line) {
			all++
			if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
				cjk++
			}
		}
		return cjk*5 > all
	}), true
}

// corpus returns the file named by M2M_CORPUS, or nil if it is not set.
func corpus(t testing.TB) []byte {
	t.Helper()
	path := os.Getenv("M2M_CORPUS")
	if path == "" {
		return nil
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// linesOf returns the lines of text for which keep, if not nil, is true.
func linesOf(name string, text []byte, keep func([]byte) bool) benchLines {
	l := benchLines{name: name}
	for line := range bytes.Lines(text) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		if keep == nil || keep(line) {
			l.lines = append(l.lines, line)
			l.size += len(line)
		}
	}
	return l
}

// codeText returns about n bytes of Go source, from the standard library
// of the toolchain (it skips the benchmark without it).
func codeText(t testing.TB, n int) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(build.Default.GOROOT, "src", "net", "http", "server.go"))
	if err != nil {
		t.Skip("no Go source to read:", err)
	}
	return validPrefix(src[:min(n, len(src))])
}

// benchTexts returns the text classes of BenchmarkEncode.
func benchTexts(b *testing.B) []benchLines {
	texts := []benchLines{
		corpusLines(b),
		oneLine("chat", benchText(64<<10)),
		cjkLines(128 << 10),
		oneLine("code", codeText(b, 64<<10)),
	}
	if l, ok := corpusCJKLines(b); ok {
		texts = append(texts, l)
	}
	return texts
}

// An encoder is one implementation under benchmark.
type encoder struct {
	impl   string
	encode func(dst []uint32, text []byte) []uint32
}

// encoders returns ours and tiktoken-go's (the oracle) for tok.
func encoders(b *testing.B, tok Tokenizer) []encoder {
	o := oracle(b, tok)
	return []encoder{
		{"ours", func(dst []uint32, text []byte) []uint32 {
			dst, err := tok.AppendEncode(dst, text)
			if err != nil {
				b.Fatal(err)
			}
			return dst
		}},
		{"tiktoken-go", func(dst []uint32, text []byte) []uint32 {
			for _, id := range o.EncodeOrdinary(string(text)) {
				dst = append(dst, uint32(id))
			}
			return dst
		}},
	}
}

// reportTokens reports tokens/s; call it after the loop, which resets the
// timer and user metrics on its first call.
func reportTokens(b *testing.B, tokensPerOp int) {
	b.ReportMetric(float64(tokensPerOp)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkEncode compares our encoder with tiktoken-go's on each text
// class, with a reused dst: the corpus (M2M_CORPUS, else the embedded
// sample) line by line, synthetic chat JSON in English, varied CJK chat
// JSON line by line (cjkLines), Go source, and with M2M_CORPUS the CJK
// lines of the corpus.
func BenchmarkEncode(b *testing.B) {
	texts := benchTexts(b)
	for _, tok := range complete(b) {
		for _, enc := range encoders(b, tok) {
			for _, text := range texts {
				b.Run(fmt.Sprintf("impl=%s/enc=%v/text=%s", enc.impl, tok.Encoding(), text.name), func(b *testing.B) {
					ids := make([]uint32, 0, text.size)
					b.SetBytes(int64(text.size))
					b.ReportAllocs()
					for b.Loop() {
						ids = ids[:0]
						for _, line := range text.lines {
							ids = enc.encode(ids, line)
						}
					}
					reportTokens(b, len(ids))
				})
			}
		}
	}
}

// BenchmarkEncodeOnce encodes 4 MiB of varied CJK chat JSON lines
// (cjkLines) once per iteration, validCache cleared before each: text seen
// for the first time, as a server sees it. BenchmarkEncode encodes the same
// 128 KiB again and again, so that its caches, and the processor's, end up
// holding what that text needs; here they hold only what the text repeats.
func BenchmarkEncodeOnce(b *testing.B) {
	text := cjkLines(4 << 20)
	for _, tok := range complete(b) {
		b.Run("impl=ours/enc="+tok.Encoding().String()+"/text=cjk4MiB", func(b *testing.B) {
			tb := tok.(*bpe).tables
			ids := make([]uint32, 0, text.size)
			b.SetBytes(int64(text.size))
			b.ReportAllocs()
			for b.Loop() {
				if tb.validCache != nil { // Llama 3 does not backtrack
					b.StopTimer()
					for i := range tb.validCache {
						tb.validCache[i] = atomic.Uint32{}
					}
					b.StartTimer()
				}
				ids = ids[:0]
				for _, line := range text.lines {
					ids, _ = tok.AppendEncode(ids, line)
				}
			}
			reportTokens(b, len(ids))
		})
	}
}

// worstTexts returns n bytes of each of the texts that are hardest on
// tiktoken: one character repeated (one piece), base64 of random bytes
// (short pieces, few of them tokens) and random Unicode characters (long
// pieces of letters, bytes that rarely merge).
func worstTexts(n int) map[string][]byte {
	r := rand.New(rand.NewPCG(5, uint64(n)))
	raw := make([]byte, n/4*3)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	var u strings.Builder
	for u.Len() < n {
		if c := rune(r.IntN(utf8.MaxRune + 1)); utf8.ValidRune(c) {
			u.WriteRune(c)
		}
	}
	return map[string][]byte{
		"repeat":  bytes.Repeat([]byte("a"), n),
		"base64":  []byte(base64.StdEncoding.EncodeToString(raw)),
		"unicode": validPrefix([]byte(u.String())[:n]),
	}
}

// BenchmarkEncodeWorstCase measures how our encoding time grows with the
// length of the worst texts (worstTexts), from 64 KiB to 4 MiB: linearly.
// tiktoken-go takes hours on a megabyte of one letter, so it is not run.
func BenchmarkEncodeWorstCase(b *testing.B) {
	for _, tok := range complete(b) {
		for _, size := range []struct {
			name string
			n    int
		}{{"64KiB", 64 << 10}, {"256KiB", 256 << 10}, {"1MiB", 1 << 20}, {"4MiB", 4 << 20}} {
			texts := worstTexts(size.n)
			for _, kind := range []string{"repeat", "base64", "unicode"} {
				b.Run(fmt.Sprintf("impl=ours/enc=%v/text=%s/size=%s", tok.Encoding(), kind, size.name), func(b *testing.B) {
					text := texts[kind]
					ids, err := tok.AppendEncode(nil, text)
					if err != nil {
						b.Fatal(err)
					}
					b.SetBytes(int64(len(text)))
					b.ReportAllocs()
					for b.Loop() {
						ids, _ = tok.AppendEncode(ids[:0], text)
					}
					reportTokens(b, len(ids))
				})
			}
		}
	}
}

// BenchmarkDecode compares our decoder, into a reused dst, with
// tiktoken-go's.
func BenchmarkDecode(b *testing.B) {
	text := benchText(64 << 10)
	for _, tok := range complete(b) {
		ids, err := tok.AppendEncode(nil, text)
		if err != nil {
			b.Fatal(err)
		}
		o := oracle(b, tok)
		ints := make([]int, len(ids))
		for i, id := range ids {
			ints[i] = int(id)
		}
		for _, impl := range []string{"ours", "tiktoken-go"} {
			b.Run(fmt.Sprintf("impl=%s/enc=%v/text=chat", impl, tok.Encoding()), func(b *testing.B) {
				dst := make([]byte, 0, len(text)+decodeWord)
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					if impl == "ours" {
						dst, _ = tok.AppendDecode(dst[:0], ids)
					} else {
						dst = append(dst[:0], o.Decode(ints)...)
					}
				}
				reportTokens(b, len(ids))
			})
		}
	}
}

// BenchmarkLoad measures the first use of an embedded encoding:
// decompressing, checking and parsing its ranks and building the tables.
func BenchmarkLoad(b *testing.B) {
	for _, s := range []*spec{cl100kSpec, o200kSpec} {
		b.Run("enc="+s.enc.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				freshEmbedded(b, s)
			}
		})
	}
}
