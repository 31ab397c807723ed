// Command gen writes the sample traffic of package sample to a file. With no
// flags it writes the file that package embeds:
//
//	go run ./gen -o sample.jsonl
//
// (run by go generate in internal/sample). -seed and -lines make other
// samples, for instance a larger one for a benchmark:
//
//	go run ./internal/sample/gen -seed 7 -lines 20000 -o /tmp/big.jsonl
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/m2m-go/m2m/internal/sample"
)

func main() {
	out := flag.String("o", "sample.jsonl", "output file")
	seed := flag.Uint64("seed", sample.DefaultSeed, "generator seed")
	lines := flag.Int("lines", sample.DefaultLines, "number of records (lines) to write")
	flag.Parse()
	if flag.NArg() > 0 || *lines <= 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := os.WriteFile(*out, sample.Generate(*seed, *lines), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
