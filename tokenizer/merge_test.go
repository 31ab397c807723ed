package tokenizer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// computeSplits finds the split of every token, in rank order: the
// two tokens, both of lower rank and both made by BPE, that are a valid
// pair (what BPE makes of the token's bytes without the token itself). At
// most one split of a token's bytes is valid; a token without one is
// never made by BPE (noSplit).
func (t *bpeTables) computeSplits(nRanks int) error {
	b := tableBits(nRanks)
	t.pairs = &pairTable{slots: make([]uint64, 1<<b+nRanks+1), shift: 64 - b, filter: newFilter(nRanks)}
	t.splits = make(splitTable, 6*nRanks)
	for id := range uint32(nRanks) {
		tok := t.vocab.token(id)
		if len(tok) > maxTokenLen {
			return fmt.Errorf("%w: token %d has %d bytes", errBadRanks, id, len(tok))
		}
		t.splits.set(id, tokenSplit{noSplit, noSplit})
		if len(tok) == 1 {
			t.splits.set(id, tokenSplit{id, id})
			continue
		}
		for k := len(tok) - 1; k > 0; k-- {
			l, ok := t.tokens.lookup(tok[:k])
			if !ok || l >= id || !t.splits.made(l) {
				continue
			}
			r, ok := t.tokens.lookup(tok[k:])
			if !ok || r >= id || !t.splits.made(r) {
				continue
			}
			if t.valid(l, r) {
				t.splits.set(id, tokenSplit{l, r})
				t.pairs.add(l, r, id)
				break
			}
		}
	}
	return nil
}

// A tokenSplit is the split of a token in a splitTable.
type tokenSplit struct{ left, right uint32 }

func (s splitTable) get(id uint32) tokenSplit { return tokenSplit{s.left(id), s.right(id)} }

func (s splitTable) set(id uint32, t tokenSplit) {
	i := 6 * int(id)
	s[i], s[i+1], s[i+2] = byte(t.left), byte(t.left>>8), byte(t.left>>16)
	s[i+3], s[i+4], s[i+5] = byte(t.right), byte(t.right>>8), byte(t.right>>16)
}

// add records that a and b merge into m, into a table with room past its
// home slots for every key.
func (t *pairTable) add(a, b, m uint32) {
	k := pairKey(a, b)
	t.filter.add(k * hashMul)
	i := k * hashMul >> t.shift
	for t.slots[i] != 0 {
		i++
	}
	t.slots[i] = k<<pairIDBits | uint64(m+1)
}

// refBPE merges piece as tiktoken does: repeatedly the adjacent pair whose
// bytes are the token of lowest rank, the leftmost on a tie. It returns the
// tokens and the last pair merged (noSplit if none was).
func refBPE(t *bpeTables, piece []byte) (ids []uint32, last tokenSplit) {
	bounds := make([]int, len(piece)+1) // part i is piece[bounds[i]:bounds[i+1]]
	for i := range bounds {
		bounds[i] = i
	}
	rank := func(i int) uint32 { // of parts i and i+1 merged
		if id, ok := t.tokens.lookup(piece[bounds[i]:bounds[i+2]]); ok {
			return id
		}
		return math.MaxUint32
	}
	last = tokenSplit{noSplit, noSplit}
	for len(bounds) > 2 {
		best, at := uint32(math.MaxUint32), -1
		for i := 0; i+2 < len(bounds); i++ {
			if r := rank(i); r < best {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		l, _ := t.tokens.lookup(piece[bounds[at]:bounds[at+1]])
		r, _ := t.tokens.lookup(piece[bounds[at+1]:bounds[at+2]])
		last = tokenSplit{l, r}
		bounds = slices.Delete(bounds, at+1, at+2)
	}
	for i := 0; i+1 < len(bounds); i++ {
		id, _ := t.tokens.lookup(piece[bounds[i]:bounds[i+1]])
		ids = append(ids, id)
	}
	return ids, last
}

// In the vocabularies that backtrack, every token is what tiktoken's merge
// makes of its bytes, and its split, found in rank order with parts of
// lower rank, is that merge's last step: backtracking rests on this.
func TestSplitsExact(t *testing.T) {
	if testing.Short() {
		t.Skip("merges every token of two vocabularies")
	}
	for _, tok := range complete(t) {
		tb := tok.(*bpe).tables
		if tb.splits == nil {
			continue
		}
		unmade := 0
		for id := range uint32(len(tb.splits) / 6) {
			s := tb.splits.get(id)
			b := tb.vocab.token(id)
			if len(b) == 1 {
				continue
			}
			ids, last := refBPE(tb, b)
			made := len(ids) == 1 && ids[0] == id
			switch {
			case s.left == noSplit && made:
				t.Fatalf("%v: token %d %q has no split, but BPE makes it from %v", tok.Encoding(), id, b, last)
			case s.left == noSplit:
				unmade++
			case !made || last != s:
				t.Fatalf("%v: token %d %q has split %v; BPE makes %v, last from %v", tok.Encoding(), id, b, s, ids, last)
			}
		}
		if unmade > 0 {
			t.Errorf("%v: %d tokens that BPE never makes", tok.Encoding(), unmade)
		}
	}
}

// Llama 3 cannot backtrack: BPE makes some of Meta's tokens from a token
// of higher rank.
func TestLlama3Unordered(t *testing.T) {
	tb := llama3(t, true).(*bpe).tables
	if ids, last := refBPE(tb, []byte(".:.:")); !slices.Equal(ids, []uint32{100421}) || last != (tokenSplit{105051, 25}) {
		t.Errorf(".:.: merges to %v from %v; want 100421 from 105051 and 25", ids, last)
	}
	if tb.splits != nil {
		t.Error("Llama 3 backtracks")
	}
}

// randomPiece returns a piece made to stress the merge: random tokens run
// together, runs of one token, or random bytes from a small alphabet.
func randomPiece(r *rand.Rand, tb *bpeTables, nRanks int) []byte {
	var b []byte
	n := 1 + r.IntN(300)
	switch r.IntN(4) {
	case 0:
		for len(b) < n {
			b = append(b, tb.vocab.token(uint32(r.IntN(nRanks)))...)
		}
	case 1:
		unit := tb.vocab.token(uint32(r.IntN(nRanks)))
		b = []byte(strings.Repeat(string(unit), 1+n/len(unit)))
	case 2:
		alphabet := "ab \n=Aé日"
		for range n {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
	default:
		for range n {
			b = append(b, byte(r.Uint32()))
		}
	}
	return b
}

// appendBPE and both of appendMerge's ways give tiktoken's tokens for any
// bytes, not only the pieces of the split pattern.
func TestBPEExact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	done := make([]uint64, 1<<10)
	var s mergeScratch
	for _, tok := range complete(t) {
		tb := tok.(*bpe).tables
		check := func(how string, piece []byte, got []uint32) {
			t.Helper()
			if want, _ := refBPE(tb, piece); !slices.Equal(got[1:], want) || got[0] != 7 {
				t.Fatalf("%v, %s: %q\n got %v\nwant %v", tok.Encoding(), how, piece, got[1:], want)
			}
		}
		for range 3000 {
			piece := randomPiece(r, tb, specOf(tok.Encoding()).nRanks)
			if tb.splits != nil {
				check("backtracking", piece, tb.appendBPE([]uint32{7}, piece, done))
			}
			check("heap", piece, tb.appendHeapMerge([]uint32{7}, piece, &s))
			if len(piece) <= smallPiece {
				check("scan", piece, tb.appendScanMerge([]uint32{7}, piece))
			}
		}
	}
}

// Tables built without the embedded layout, as for Llama 3 (the token
// table sorts its own order; pieces are merged as tiktoken does), encode
// as the embedded ones do.
func TestWithoutLayout(t *testing.T) {
	for _, s := range []*spec{cl100kSpec, o200kSpec} {
		r, err := embedded(s)()
		if err != nil {
			t.Fatal(err)
		}
		plain, err := newBPE(s, r.vocab, nil)
		if err != nil {
			t.Fatal(err)
		}
		tok := get(t, s.enc)
		texts := corpusLines(t).lines
		for _, text := range worstTexts(4 << 10) {
			texts = append(texts, text)
		}
		for _, text := range texts {
			want := encode(t, tok, string(text))
			if got := encode(t, plain, string(text)); !slices.Equal(got, want) {
				t.Fatalf("%v: %q: %v without the layout, %v with it", s.enc, text, got, want)
			}
		}
	}
}
