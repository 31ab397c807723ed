package tokenizer

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/m2m-go/m2m/internal/sample"
)

// Differential tests: our encoder against the oracle, tiktoken-go
// (oracle_test.go), id for id, on every line of the embedded sample, of
// the corpus in M2M_CORPUS, on random texts, and under fuzzing.

// diffLines checks every line of text with every complete tokenizer, on
// all cores, and reports the first mismatches.
func diffLines(t *testing.T, text []byte, every int) {
	var lines [][]byte
	n := 0
	for line := range bytes.Lines(text) {
		if n++; n%every == 0 {
			lines = append(lines, bytes.TrimSuffix(line, []byte("\n")))
		}
	}
	for _, tok := range complete(t) {
		oracle(t, tok) // build it before the workers share it
		var (
			mu      sync.Mutex
			failed  []string
			next    = make(chan int)
			workers sync.WaitGroup
		)
		for range runtime.GOMAXPROCS(0) {
			workers.Go(func() {
				var ids []uint32
				for i := range next {
					var err error
					ids, err = tok.AppendEncode(ids[:0], lines[i])
					want := oracleIDs(t, tok, string(lines[i]))
					back, derr := tok.AppendDecode(nil, ids)
					if err != nil || derr != nil || !slices.Equal(ids, want) || !bytes.Equal(back, lines[i]) {
						mu.Lock()
						failed = append(failed, fmt.Sprintf("line %d: %v, %v; %d ids, tiktoken-go %d; round trip %v",
							(i+1)*every, err, derr, len(ids), len(want), bytes.Equal(back, lines[i])))
						mu.Unlock()
					}
				}
			})
		}
		for i := range lines {
			next <- i
		}
		close(next)
		workers.Wait()
		for _, f := range failed[:min(len(failed), 5)] {
			t.Errorf("%v: %s", tok.Encoding(), f)
		}
		t.Logf("%v: %d lines, %d differ", tok.Encoding(), len(lines), len(failed))
	}
}

// TestOracleSample compares every line of the sample embedded in the module
// (every seventh with -short).
func TestOracleSample(t *testing.T) {
	every := 1
	if testing.Short() {
		every = 7
	}
	diffLines(t, sample.JSONL(), every)
}

// TestOracleCJK compares the lines of the benchmarks' CJK text (cjkLines),
// which the embedded sample has little of.
func TestOracleCJK(t *testing.T) {
	diffLines(t, bytes.Join(cjkLines(256<<10).lines, []byte("\n")), 1)
}

// TestOracleCorpus compares every line of the JSONL file named by
// M2M_CORPUS, such as the dev corpus $CORPORA/dev.jsonl.
func TestOracleCorpus(t *testing.T) {
	text := corpus(t)
	if text == nil {
		t.Skip("set M2M_CORPUS to a JSONL file")
	}
	diffLines(t, text, 1)
}

// randomTokenText returns valid UTF-8 made of random tokens of tok, run
// together: text where BPE has many choices to make.
func randomTokenText(r *rand.Rand, tok Tokenizer, n int) string {
	b := tok.(*bpe)
	nRanks := specOf(b.enc).nRanks
	var s strings.Builder
	for s.Len() < n {
		if t := b.vocab.token(uint32(r.IntN(nRanks))); utf8.Valid(t) {
			s.Write(t)
		}
	}
	return s.String()
}

// TestOracleRandom compares the golden texts, texts of random characters
// from every class the split patterns tell apart, random tokens run
// together, and long runs.
func TestOracleRandom(t *testing.T) {
	for _, tok := range complete(t) {
		for _, text := range goldenTexts(t) {
			checkOracle(t, tok, text)
		}
		r := rand.New(rand.NewPCG(3, 4))
		for range 1000 {
			checkOracle(t, tok, randomSplitText(r, 1+r.IntN(40)))
			checkOracle(t, tok, randomTokenText(r, tok, 1+r.IntN(200)))
		}
		for _, unit := range []string{"a", "A", " ", "\n", "=", "ab", "é", "日", "😀", "\u0301", "1", " a"} {
			for _, n := range []int{100, 1000, 3000} {
				checkOracle(t, tok, strings.Repeat(unit, n))
			}
		}
	}
}

// FuzzEncode compares any valid UTF-8.
func FuzzEncode(f *testing.F) {
	for _, text := range goldenTexts(f) {
		f.Add(text)
	}
	for _, line := range cjkLines(4 << 10).lines {
		f.Add(string(line))
	}
	toks := complete(f)
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		for _, tok := range toks {
			checkOracle(t, tok, text)
		}
	})
}
