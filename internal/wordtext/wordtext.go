// Package wordtext makes the texts that package words, and the coders that
// use it, are tested on: made-up prose, and inputs of every kind a word
// transform meets (words to replace or none, bytes that are codes,
// escapes, words too long to be words).
package wordtext

import (
	"bytes"
	"math/rand/v2"

	"github.com/m2m-go/m2m/internal/sample"
)

// Prose returns n bytes of made-up English: capitalized sentences of
// words drawn from a vocabulary of v, some used much more than others.
func Prose(n, v int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	vocab := make([]string, v)
	for i := range vocab {
		w := make([]byte, 2+rng.IntN(9))
		for j := range w {
			w[j] = byte('a' + rng.IntN(26))
		}
		vocab[i] = string(w)
	}
	var b []byte
	for len(b) < n {
		for i := range 3 + rng.IntN(12) {
			w := vocab[int(float64(len(vocab))*rng.Float64()*rng.Float64())]
			if i == 0 {
				w = string(w[0]-0x20) + w[1:]
			}
			b = append(append(b, w...), ' ')
		}
		b = append(b[:len(b)-1], ". "...)
	}
	return b[:n]
}

// Rare is prose with every byte value once at its end: codes a table
// takes from the rarest bytes, escaped.
func Rare() []byte {
	rare := bytes.Clone(Prose(150000, 200))
	for c := range 256 {
		rare = append(rare, byte(c))
	}
	return rare
}

// Texts returns inputs by name, for a transform whose words are at most
// maxLen letters: "random", "empty" and "word" have no word worth a code,
// the others have.
func Texts(maxLen int) map[string][]byte {
	var all []byte
	for i := range 7000 {
		all = append(append(all, byte(i)), "the words are here "...)
	}
	random := make([]byte, 200000)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	x := string(bytes.Repeat([]byte("x"), maxLen))
	return map[string][]byte{
		"empty":  nil,
		"word":   []byte("hello"),
		"sample": sample.JSONL(),
		"prose":  Prose(200000, 1000),
		"all":    all,
		"rare":   Rare(),
		"random": random,
		// The longest word, and one letter more, which is no word.
		"long":    bytes.Repeat([]byte("Supercalifragilisticexpialidocious "+x+" "+x+"y "), 1600),
		"edges":   bytes.Repeat([]byte("Word word WORD wOrd word"), 6000),
		"escapes": append(bytes.Repeat([]byte(`"Hello,\nWorld\n\nThe \"end\" \\n \\\nEnd\u00e9\`), 5000), '\\'),
	}
}
