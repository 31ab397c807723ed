package tokenizer

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

var update = flag.Bool("update", false, "write the embedded ranks (ranks/*.tokens, ranks/*.layout) anew")

// publishedText returns the first n ranks of v as OpenAI publishes them:
// "base64(token) SP rank" lines.
func publishedText(v *vocab, n int) []byte {
	var b []byte
	for id := range n {
		b = base64.StdEncoding.AppendEncode(b, v.token(uint32(id)))
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(id), 10)
		b = append(b, '\n')
	}
	return b
}

// encodeTokens writes the first n ranks of v, and the specials of s, in
// the form decodeRanks reads.
func encodeTokens(s *spec, v *vocab) []byte {
	n := s.nRanks
	b := binary.LittleEndian.AppendUint32(nil, uint32(n))
	ord := tokenOrder(v, n)
	for k := range n {
		b = append(b, byte(len(v.token(ord.at(k)))))
	}
	for k := range n {
		b = append(b, v.token(ord.at(k))...)
	}
	for id := n; id < s.enc.NVocab(); id++ {
		b = append(b, s.specials[uint32(id)]...)
	}
	return append(b, make([]byte, decodeWord-1)...)
}

// encodeLayout writes the layout of the first n ranks of v, whose splits
// are splits, in the form decodeRanks reads.
func encodeLayout(v *vocab, n int, splits splitTable) []byte {
	b := append(splits[:len(splits):len(splits)], tokenOrder(v, n)...)
	po := pairOrder(splits)
	b = binary.LittleEndian.AppendUint32(b, uint32(po.len()))
	return append(b, po...)
}

// pairOrder returns the order of the pair table of splits: of the tokens
// that have a split.
func pairOrder(splits splitTable) order {
	var ids []uint32
	for id := range uint32(len(splits) / 6) {
		if l, r := splits.left(id), splits.right(id); l < id && r < id {
			ids = append(ids, id)
		}
	}
	b := tableBits(len(ids))
	keys := make([]uint64, len(ids))
	for k, id := range ids {
		keys[k] = pairHash(splits.left(id), splits.right(id))>>(64-b)<<32 | uint64(id)
	}
	return homeOrder(keys, b)
}

// The embedded ranks are OpenAI's files, token for token (their SHA-256,
// written out again, is that of the published files), their splits are
// what computeSplits finds, and their orders those of the tables. With
// -update, the files are written anew from the embedded tokens:
//
//	go test ./tokenizer -run TestEmbeddedRanks -update
func TestEmbeddedRanks(t *testing.T) {
	for _, s := range []*spec{cl100kSpec, o200kSpec} {
		r, err := embedded(s)()
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(publishedText(r.vocab, s.nRanks)); hex.EncodeToString(sum[:]) != s.sha256 {
			t.Errorf("%v: the embedded ranks hash to %x, not to the published %s", s.enc, sum, s.sha256)
		}
		tb, err := newTables(r.vocab, s.nRanks, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := tb.computeSplits(s.nRanks); err != nil {
			t.Fatal(err)
		}
		lay := encodeLayout(r.vocab, s.nRanks, tb.splits)
		if !*update {
			if !bytes.Equal(lay, rankFiles[s.enc].layout) {
				t.Errorf("%v: the embedded layout is not the splits computeSplits finds and the orders of the tables", s.enc)
			}
			continue
		}
		for path, b := range map[string][]byte{
			filepath.Join("ranks", s.enc.String()+".tokens"): encodeTokens(s, r.vocab),
			filepath.Join("ranks", s.enc.String()+".layout"): lay,
		} {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s: %d bytes", path, len(b))
		}
	}
}

// Corrupt embedded ranks are an error, not a panic.
func TestDecodeRanksCorrupt(t *testing.T) {
	r, err := cl100kRanks()
	if err != nil {
		t.Fatal(err)
	}
	s := cl100kSpec
	good, lay := rankFiles[s.enc].tokens, rankFiles[s.enc].layout
	// Lengths that keep their total: a token too long, and an empty one.
	long, empty := bytes.Clone(good), bytes.Clone(good)
	ls := long[4 : 4+s.nRanks]
	for need, k := maxTokenLen+1-int(ls[0]), 1; need > 0; k++ {
		d := min(need, int(ls[k])-1)
		ls[0], ls[k], need = ls[0]+byte(d), ls[k]-byte(d), need-d
	}
	empty[4], empty[5] = empty[4]+empty[5], 0
	for name, b := range map[string][2][]byte{
		"empty":            {nil, lay},
		"short":            {good[:100], lay},
		"count":            {append(binary.LittleEndian.AppendUint32(nil, 7), good[4:]...), lay},
		"truncated":        {good[:len(good)-1], lay},
		"special":          {append(bytes.Clone(good[:len(good)-decodeWord]), 'x'), lay},
		"longer":           {append(bytes.Clone(good), 'x'), lay},
		"bad length":       {append(append(bytes.Clone(good[:4]), good[4]+1), good[5:]...), lay},
		"long token":       {long, lay},
		"empty token":      {empty, lay},
		"no layout":        {good, nil},
		"layout truncated": {good, lay[:len(lay)-1]},
		"layout longer":    {good, append(bytes.Clone(lay), 0)},
		"layout short":     {good, lay[:9*s.nRanks+3]},
		"pair count":       {good, append(append(bytes.Clone(lay[:9*s.nRanks]), 0, 0, 0, 1), lay[9*s.nRanks+4:]...)},
	} {
		if _, _, err := decodeRanks(s, b[0], b[1]); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A layout of the right size whose splits or orders are wrong.
	n := s.nRanks
	swap := func(o []byte, i, j int) []byte {
		o = bytes.Clone(o)
		for k := range 3 {
			o[3*i+k], o[3*j+k] = o[3*j+k], o[3*i+k]
		}
		return o
	}
	tokOrd, pairOrd := lay[6*n:9*n], lay[9*n+4:]
	for name, l := range map[string]*layout{
		"token order":     {r.layout.splits, swap(tokOrd, 0, n-1), pairOrd, nil},
		"token repeated":  {r.layout.splits, append(bytes.Clone(tokOrd[:3*n-3]), tokOrd[:3]...), pairOrd, nil},
		"pair order":      {r.layout.splits, tokOrd, swap(pairOrd, 0, len(pairOrd)/3-1), nil},
		"pair repeated":   {r.layout.splits, tokOrd, append(bytes.Clone(pairOrd[:len(pairOrd)-3]), pairOrd[:3]...), nil},
		"pair missing":    {r.layout.splits, tokOrd, pairOrd[:len(pairOrd)-3], nil},
		"split of higher": {append(bytes.Clone(r.layout.splits[:6*1000]), append([]byte{0xff, 0xff, 0x00}, r.layout.splits[6*1000+3:]...)...), tokOrd, pairOrd, nil},
	} {
		if _, err := newTables(r.vocab, n, l); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
