package tokenizer

import (
	"slices"
	"sync"
	"testing"

	"github.com/pkoukk/tiktoken-go"
)

// The oracle is github.com/pkoukk/tiktoken-go, which matches OpenAI's
// tiktoken id for id on the golden texts: its split pattern runs on the
// backtracking regexp engine regexp2, and it merges each piece as tiktoken
// does, in time quadratic in the piece's length. It is built here from the
// same ranks as ours, with its constructors, so that its loader (which
// downloads ranks) is never used.
var oracles sync.Map // Encoding to *tiktoken.Tiktoken

// oracle returns tiktoken-go's encoder of tok's encoding and ranks.
func oracle(t testing.TB, tok Tokenizer) *tiktoken.Tiktoken {
	t.Helper()
	if o, ok := oracles.Load(tok.Encoding()); ok {
		return o.(*tiktoken.Tiktoken)
	}
	b := tok.(*bpe)
	s := specOf(b.enc)
	ranks := make(map[string]int, s.nRanks)
	for id := range s.nRanks {
		ranks[string(b.vocab.token(uint32(id)))] = id
	}
	pattern := cl100kPattern
	if s.o200k {
		pattern = o200kPattern
	}
	core, err := tiktoken.NewCoreBPE(ranks, nil, pattern)
	if err != nil {
		t.Fatal(err)
	}
	o := tiktoken.NewTiktoken(core, &tiktoken.Encoding{Name: s.enc.String(), PatStr: pattern, MergeableRanks: ranks}, nil)
	oracles.Store(tok.Encoding(), o)
	return o
}

// specOf returns the spec of enc.
func specOf(enc Encoding) *spec {
	return map[Encoding]*spec{Cl100kBase: cl100kSpec, O200kBase: o200kSpec, Llama3: llama3Spec}[enc]
}

// oracleIDs returns the oracle's ids of text.
func oracleIDs(t testing.TB, tok Tokenizer, text string) []uint32 {
	t.Helper()
	ids := oracle(t, tok).EncodeOrdinary(text)
	out := make([]uint32, len(ids))
	for i, id := range ids {
		out[i] = uint32(id)
	}
	return out
}

// checkOracle fails t if tok does not encode text as the oracle does, or
// does not decode the ids back to text.
func checkOracle(t testing.TB, tok Tokenizer, text string) {
	t.Helper()
	got, err := tok.AppendEncode(nil, []byte(text))
	if err != nil {
		t.Fatalf("%v: encode %q: %v", tok.Encoding(), text, err)
	}
	if want := oracleIDs(t, tok, text); !slices.Equal(got, want) {
		t.Fatalf("%v: %q\n got %v\nwant %v (tiktoken-go)", tok.Encoding(), text, got, want)
	}
	if back, err := tok.AppendDecode(nil, got); err != nil || string(back) != text {
		t.Fatalf("%v: %q decodes to %q, %v", tok.Encoding(), text, back, err)
	}
}
