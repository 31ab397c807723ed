// Command embeddings writes a JSONL log of embeddings API traffic, for
// measuring what the archive does with float vectors (the dev corpora
// have none): each line a request of one to three inputs and its answer
// in OpenAI's shape, vectors of 1536 or 768 unit-length float32s printed
// as the API prints them (the shortest digits that read back as the same
// float32: -0.0069292835, 1.4305115e-05). The same seed writes the same
// bytes.
//
//	go run ./bench/embeddings -lines 2000 > emb.jsonl   # 65 MB
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
)

func main() {
	lines := flag.Int("lines", 2000, "number of lines to write")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	r := rand.New(rand.NewPCG(*seed, 2))
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	words := []string{"the", "invoice", "customer", "refund", "policy", "shipping", "order", "account",
		"password", "reset", "delivery", "warranty", "product", "return", "support", "how", "do", "I"}
	var b []byte
	vec := make([]float64, 1536)
	for i := range *lines {
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
		b = append(b, `]},"response":{"object":"list","data":[`...)
		for k := range n {
			if k > 0 {
				b = append(b, ',')
			}
			b = fmt.Appendf(b, `{"object":"embedding","index":%d,"embedding":[`, k)
			var norm float64
			for j := range dim {
				vec[j] = r.NormFloat64()
				norm += vec[j] * vec[j]
			}
			norm = math.Sqrt(norm)
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
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "embeddings:", err)
		os.Exit(1)
	}
}
