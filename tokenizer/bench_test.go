package tokenizer

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"unicode/utf8"
)

var benchSizes = []struct {
	name string
	n    int
}{{"256B", 256}, {"4KiB", 4 << 10}, {"64KiB", 64 << 10}}

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

// benchText returns n bytes (up to a character) of synthetic chat-API JSON
// built from benchPhrases with a fixed seed.
func benchText(n int) []byte {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	roles := []string{"system", "user", "assistant"}
	var b bytes.Buffer
	b.WriteString(`{"model":"gpt-4o","messages":[`)
	for b.Len() < n {
		fmt.Fprintf(&b, `{"role":%q,"content":%q},`, roles[r.IntN(3)], benchPhrases[r.IntN(len(benchPhrases))])
	}
	text := b.Bytes()[:n]
	for !utf8.Valid(text) {
		text = text[:len(text)-1]
	}
	return text
}

func benchTokenizers(b *testing.B) []Tokenizer {
	toks := []Tokenizer{get(b, Cl100kBase), get(b, O200kBase)}
	if l := llama3(b, false); l != nil {
		toks = append(toks, l)
	}
	return toks
}

// reportTokens reports tokens/s; call it after the loop, which resets the
// timer and user metrics on its first call.
func reportTokens(b *testing.B, tokensPerOp int) {
	b.ReportMetric(float64(tokensPerOp)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

func BenchmarkEncode(b *testing.B) {
	for _, tok := range benchTokenizers(b) {
		for _, size := range benchSizes {
			b.Run(fmt.Sprintf("enc=%v/size=%s", tok.Encoding(), size.name), func(b *testing.B) {
				text := benchText(size.n)
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

func BenchmarkDecode(b *testing.B) {
	for _, tok := range benchTokenizers(b) {
		for _, size := range benchSizes {
			b.Run(fmt.Sprintf("enc=%v/size=%s", tok.Encoding(), size.name), func(b *testing.B) {
				text := benchText(size.n)
				ids, err := tok.AppendEncode(nil, text)
				if err != nil {
					b.Fatal(err)
				}
				dst := make([]byte, 0, len(text))
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					dst, _ = tok.AppendDecode(dst[:0], ids)
				}
				reportTokens(b, len(ids))
			})
		}
	}
}

// BenchmarkEncodeCorpus encodes every line of the JSONL corpus named by
// M2M_CORPUS (at most its first 4 MiB), such as the dev corpus of
// /work/shared/corpus/dev.jsonl.
func BenchmarkEncodeCorpus(b *testing.B) {
	path := os.Getenv("M2M_CORPUS")
	if path == "" {
		b.Skip("set M2M_CORPUS to a JSONL file")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	total := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() && total < 4<<20 {
		lines = append(lines, bytes.Clone(sc.Bytes()))
		total += len(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	for _, tok := range benchTokenizers(b) {
		b.Run("enc="+tok.Encoding().String(), func(b *testing.B) {
			var ids []uint32
			refused := 0
			b.SetBytes(int64(total))
			for b.Loop() {
				ids, refused = ids[:0], 0
				for _, line := range lines {
					var err error
					if ids, err = tok.AppendEncode(ids, line); err != nil {
						refused++
					}
				}
			}
			reportTokens(b, len(ids))
			b.ReportMetric(float64(refused), "refused/op")
		})
	}
}

// BenchmarkLoad measures the first use of an embedded encoding:
// decompressing, checking and parsing its ranks and building the encoder.
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
