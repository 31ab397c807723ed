// Command scramble writes many distinct copies of a JSONL corpus, to make
// large corpora with the statistics of a small one: in copy k, the letters
// inside JSON strings go through a substitution of their own (one
// permutation of a-z and one of A-Z, drawn from k), escape sequences
// untouched. Within a copy, what repeats (a re-sent history, a system
// prompt) still repeats; across copies, nothing does exactly, and text
// compresses as well as the original's.
//
//	go run ./bench/scramble -copies 440 < dev.jsonl | m2m-batch --archive -c > big.m2m
//
// makes an archive of about 1 GiB from the 20 MiB dev corpus, for the
// random access benchmark (see bench/README.md).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
)

func main() {
	copies := flag.Int("copies", 10, "number of copies to write")
	flag.Parse()
	src, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scramble:", err)
		os.Exit(1)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	buf := make([]byte, len(src))
	for k := range *copies {
		w.Write(scramble(buf, src, substitution(uint64(k))))
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "scramble:", err)
		os.Exit(1)
	}
}

// substitution returns copy k's byte map: the identity for copy 0, else a
// permutation of each case's letters.
func substitution(k uint64) *[256]byte {
	var m [256]byte
	for i := range m {
		m[i] = byte(i)
	}
	if k == 0 {
		return &m
	}
	rng := rand.New(rand.NewPCG(k, 0x5c4a3b1e))
	for _, base := range []byte{'a', 'A'} {
		p := rng.Perm(26)
		for i, j := range p {
			m[base+byte(i)] = base + byte(j)
		}
	}
	return &m
}

// scramble maps the letters of the JSON string values of src into dst,
// leaving keys, everything outside strings, and every escape sequence as
// they are.
func scramble(dst, src []byte, m *[256]byte) []byte {
	dst = append(dst[:0], src...)
	for i := 0; i < len(src); i++ {
		if src[i] != '"' {
			continue
		}
		end := stringEnd(src, i)
		if !isKey(src, end) {
			for j := i + 1; j < end; j++ {
				switch c := src[j]; {
				case c == '\\' && j+1 < end && src[j+1] == 'u':
					j += 5
				case c == '\\':
					j++
				default:
					dst[j] = m[c]
				}
			}
		}
		i = end
	}
	return dst
}

// stringEnd returns the index of the quote that closes the string opened
// at src[i], or the end of the line.
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '"', '\n':
			return j
		case '\\':
			j++
		}
	}
	return len(src)
}

// isKey reports whether the string closed at src[end] is an object key.
func isKey(src []byte, end int) bool {
	for j := end + 1; j < len(src); j++ {
		switch src[j] {
		case ' ', '\t', '\r':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}
