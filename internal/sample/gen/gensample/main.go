// Command gensample writes the sample traffic of package gen to a file. With no
// flags it writes the file that package sample embeds:
//
//	go run ./gen/gensample -o sample.jsonl
//
// (run by go generate in internal/sample). -seed and -lines make other
// samples, for instance a larger one for a benchmark:
//
//	go run ./internal/sample/gen/gensample -seed 7 -lines 20000 -o /tmp/big.jsonl
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/m2m-go/m2m/internal/sample/gen"
)

func main() {
	out := flag.String("o", "sample.jsonl", "output file")
	seed := flag.Uint64("seed", gen.DefaultSeed, "generator seed")
	lines := flag.Int("lines", gen.DefaultLines, "number of records (lines) to write")
	flag.Parse()
	if flag.NArg() > 0 || *lines <= 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := os.WriteFile(*out, gen.Generate(*seed, *lines), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gensample:", err)
		os.Exit(1)
	}
}
