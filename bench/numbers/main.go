// Command numbers writes JSONL logs of LLM API traffic that is mostly
// numbers, which the dev corpora lack, for measuring what the archive
// does with them. The same seed writes the same bytes.
//
// -kind embeddings: each line a request of one to three inputs and its
// answer in OpenAI's shape, vectors of 1536 or 768 unit-length float32s
// printed as the API prints them (the shortest digits that read back as
// the same float32: -0.0069292835, 1.4305115e-05).
//
// -kind embeddings -base64: the same, asked for and answered with
// encoding_format "base64" (the OpenAI Python client's default): each
// vector its float32s' little-endian bytes in base64.
//
// -kind logprobs: each line a chat completion with logprobs, every token
// an object with its log probability and its two top alternatives', as
// float32s spread over six decades (-0.17968738, -4.4765835e-05).
//
//	go run ./bench/numbers -lines 1000 > emb.jsonl               # 33 MB
//	go run ./bench/numbers -kind logprobs -lines 3000 > lp.jsonl  # 56 MB
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
)

func main() {
	kind := flag.String("kind", "embeddings", "embeddings or logprobs")
	lines := flag.Int("lines", 1000, "number of lines to write")
	seed := flag.Uint64("seed", 1, "random seed")
	b64 := flag.Bool("base64", false, "embeddings: vectors in base64")
	flag.Parse()
	r := rand.New(rand.NewPCG(*seed, 2))
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	switch *kind {
	case "embeddings":
		embeddings(w, r, *lines, *b64)
	case "logprobs":
		logprobs(w, r, *lines)
	default:
		fmt.Fprintln(os.Stderr, "numbers: -kind is embeddings or logprobs")
		os.Exit(2)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "numbers:", err)
		os.Exit(1)
	}
}

func embeddings(w *bufio.Writer, r *rand.Rand, lines int, b64 bool) {
	words := []string{"the", "invoice", "customer", "refund", "policy", "shipping", "order", "account",
		"password", "reset", "delivery", "warranty", "product", "return", "support", "how", "do", "I"}
	var b, raw []byte
	vec := make([]float64, 1536)
	for i := range lines {
		model, dim := "text-embedding-3-small", 1536
		if i%3 == 0 {
			model, dim = "nomic-embed-text-v1.5", 768
		}
		n := 1 + r.IntN(3)
		b = fmt.Appendf(b[:0], `{"id":"req_%08x","created":%d,"request":{"model":"%s","input":[`, r.Uint32(), 1767225600+7*i, model)
		for k := range n {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			for j := range 5 + r.IntN(20) {
				if j > 0 {
					b = append(b, ' ')
				}
				b = append(b, words[r.IntN(len(words))]...)
			}
			b = append(b, '"')
		}
		b = append(b, ']')
		if b64 {
			b = append(b, `,"encoding_format":"base64"`...)
		}
		b = append(b, `},"response":{"object":"list","data":[`...)
		for k := range n {
			if k > 0 {
				b = append(b, ',')
			}
			b = fmt.Appendf(b, `{"object":"embedding","index":%d,"embedding":`, k)
			var norm float64
			for j := range dim {
				vec[j] = r.NormFloat64()
				norm += vec[j] * vec[j]
			}
			norm = math.Sqrt(norm)
			if b64 {
				raw = raw[:0]
				for j := range dim {
					raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(vec[j]/norm)))
				}
				b = append(base64.StdEncoding.AppendEncode(append(b, '"'), raw), `"}`...)
				continue
			}
			b = append(b, '[')
			for j := range dim {
				if j > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendFloat(b, float64(float32(vec[j]/norm)), 'g', -1, 32)
			}
			b = append(b, "]}"...)
		}
		tokens := 8 + r.IntN(60)
		b = fmt.Appendf(b, `],"model":"%s","usage":{"prompt_tokens":%d,"total_tokens":%d}}}`+"\n", model, tokens, tokens)
		w.Write(b)
	}
}

func logprobs(w *bufio.Writer, r *rand.Rand, lines int) {
	tokens := []string{"The", " answer", " is", " to", " reset", " your", " password", " from", " the",
		" account", " page", ".", " Then", " log", " in", " again", ","}
	var b []byte
	logprob := func() {
		v := -math.Abs(r.ExpFloat64() * math.Pow(10, -float64(r.IntN(6))))
		b = strconv.AppendFloat(b, float64(float32(v)), 'g', -1, 32)
	}
	for i := range lines {
		n := 20 + r.IntN(200)
		b = fmt.Appendf(b[:0], `{"id":"chatcmpl-%08x","object":"chat.completion","created":%d,"model":"gpt-4o-mini",`+
			`"choices":[{"index":0,"message":{"role":"assistant","content":"..."},"logprobs":{"content":[`, r.Uint32(), 1767225600+i)
		for j := range n {
			if j > 0 {
				b = append(b, ',')
			}
			t := tokens[r.IntN(len(tokens))]
			b = fmt.Appendf(b, `{"token":%q,"logprob":`, t)
			logprob()
			b = fmt.Appendf(b, `,"bytes":[%d],"top_logprobs":[{"token":%q,"logprob":`, t[0], t)
			logprob()
			b = fmt.Appendf(b, `},{"token":%q,"logprob":`, tokens[r.IntN(len(tokens))])
			logprob()
			b = append(b, "}]}"...)
		}
		b = fmt.Appendf(b, `]},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":%d}}`+"\n", 20+i%90, n)
		w.Write(b)
	}
}
