// Command traffic writes JSONL logs of two shapes of LLM traffic the dev
// corpora lack, for measuring what the archive does with them. The same
// seed writes the same bytes.
//
// -kind stream: streamed chat completions logged a chunk a line, as a
// gateway that records server-sent events writes them: OpenAI's
// chat.completion.chunk objects, one a word of the answer, the first with
// the role, the last with the finish reason and the usage.
//
// -kind tokens: a tokenized chat data set, as fine-tuning pipelines keep
// one: each line a conversation's token ids (cl100k) up to one of its
// assistant turns, so that the lines of a conversation of several turns
// repeat its earlier turns' ids.
//
//	go run ./bench/traffic -kind stream -lines 80000 > sse.jsonl   # 19 MB
//	go run ./bench/traffic -kind tokens -lines 4000 > ids.jsonl    # 16 MB
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/m2m-go/m2m/tokenizer"
)

func main() {
	kind := flag.String("kind", "stream", "stream or tokens")
	lines := flag.Int("lines", 10000, "number of lines to write")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	r := rand.New(rand.NewPCG(*seed, 3))
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	var err error
	switch *kind {
	case "stream":
		stream(w, r, *lines)
	case "tokens":
		err = tokens(w, r, *lines)
	default:
		err = fmt.Errorf("-kind is stream or tokens")
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "traffic:", err)
		os.Exit(1)
	}
}

var words = strings.Fields(`the of and to in is that for it as with was on be by this are from or at
an which have not but can has more all their will one about also other new some when if time were
what there been would its into only so than these may they use any like our most such make first
well used data model system user function value code file error test request response token output
input result customer order refund account policy support product delivery query table index cache`)

// sentence appends a sentence of n words to b.
func sentence(b []byte, r *rand.Rand, n int) []byte {
	for i := range n {
		w := words[r.IntN(len(words))]
		if i == 0 {
			b = append(b, strings.ToUpper(w[:1])...)
			w = w[1:]
		} else {
			b = append(b, ' ')
		}
		b = append(b, w...)
	}
	return append(b, '.')
}

func alnum(b []byte, r *rand.Rand, n int) []byte {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	for range n {
		b = append(b, chars[r.IntN(len(chars))])
	}
	return b
}

func stream(w *bufio.Writer, r *rand.Rand, lines int) {
	var id, head, b []byte
	for i := 0; i < lines; {
		id = alnum(append(id[:0], "chatcmpl-"...), r, 29)
		model := []string{"gpt-4o-2024-08-06", "gpt-4o-mini-2024-07-18", "gpt-4.1-2025-04-14"}[r.IntN(3)]
		head = fmt.Appendf(head[:0], `{"id":"%s","object":"chat.completion.chunk","created":%d,"model":"%s","system_fingerprint":"fp_%s","choices":[{"index":0,"delta":`,
			id, 1767225600+13*i, model, alnum(nil, r, 10))
		fmt.Fprintf(w, `%s{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}`+"\n", head)
		n := 10 + r.IntN(200)
		for k := range n {
			b = b[:0]
			if k > 0 && r.IntN(12) == 0 {
				b = append(b, '.')
			}
			if k > 0 {
				b = append(b, ' ')
			}
			b = append(b, words[r.IntN(len(words))]...)
			fmt.Fprintf(w, `%s{"content":"%s"},"logprobs":null,"finish_reason":null}]}`+"\n", head, b)
		}
		prompt := 20 + r.IntN(2000)
		fmt.Fprintf(w, `%s{},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`+"\n", head, prompt, n, prompt+n)
		i += n + 2
	}
}

func tokens(w *bufio.Writer, r *rand.Rand, lines int) error {
	tok, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		return err
	}
	var text []byte
	var ids, prev []uint32
	for i := 0; i < lines; {
		text = append(text[:0], "<|im_start|>system\n"...)
		text = sentence(text, r, 10+r.IntN(30))
		turns := 1 + r.IntN(6)
		for t := 0; t < turns && i < lines; t, i = t+1, i+1 {
			text = append(text, "<|im_end|>\n<|im_start|>user\n"...)
			text = sentence(text, r, 5+r.IntN(40))
			text = append(text, "<|im_end|>\n<|im_start|>assistant\n"...)
			start := len(text)
			for range 1 + r.IntN(6) {
				text = append(sentence(text, r, 6+r.IntN(20)), ' ')
			}
			prev = ids
			if ids, err = tok.AppendEncode(ids[:0:0], text); err != nil {
				return err
			}
			labels, err := tok.AppendEncode(nil, text[:start])
			if err != nil {
				return err
			}
			fmt.Fprintf(w, `{"id":"conv%06d-%d","input_ids":[`, i-t, t)
			for k, id := range ids {
				if k > 0 {
					w.WriteByte(',')
				}
				fmt.Fprint(w, id)
			}
			fmt.Fprintf(w, "],\"labels_from\":%d,\"prefix_of_previous\":%d}\n", len(labels), commonPrefix(prev, ids))
		}
	}
	return nil
}

func commonPrefix(a, b []uint32) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
