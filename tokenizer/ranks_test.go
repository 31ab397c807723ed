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

	"github.com/klauspost/compress/zstd"
)

var update = flag.Bool("update", false, "write the embedded ranks (ranks/*.bpe.zst) anew")

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

// encodeRanks writes the first n ranks of v and their splits in the form
// decodeRanks reads.
func encodeRanks(v *vocab, n int, splits splitTable) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(n))
	for id := range n {
		b = append(b, byte(len(v.token(uint32(id)))))
	}
	b = append(b, splits...)
	return append(b, v.data[:v.offs[n]]...)
}

// The embedded ranks are OpenAI's files, token for token (their SHA-256,
// written out again, is that of the published files), and their splits
// are what computeSplits finds. With -update, they are written anew from
// the embedded tokens and computeSplits.
func TestEmbeddedRanks(t *testing.T) {
	for _, s := range []*spec{cl100kSpec, o200kSpec} {
		zst := map[*spec][]byte{cl100kSpec: cl100kZst, o200kSpec: o200kZst}[s]
		r, err := embedded(s, zst)()
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
		if !*update && !bytes.Equal(tb.splits, r.splits) {
			t.Errorf("%v: the embedded splits are not those computeSplits finds", s.enc)
		}
		if !*update {
			continue
		}
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		out := enc.EncodeAll(encodeRanks(r.vocab, s.nRanks, tb.splits), nil)
		path := filepath.Join("ranks", s.enc.String()+".bpe.zst")
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: %d bytes", path, len(out))
	}
}

// Corrupt binary ranks are an error, not a panic.
func TestDecodeRanksCorrupt(t *testing.T) {
	r, err := cl100kRanks()
	if err != nil {
		t.Fatal(err)
	}
	good := encodeRanks(r.vocab, cl100kSpec.nRanks, r.splits)
	for name, b := range map[string][]byte{
		"empty":      nil,
		"short":      good[:100],
		"count":      append(binary.LittleEndian.AppendUint32(nil, 7), good[4:]...),
		"truncated":  good[:len(good)-1],
		"longer":     append(bytes.Clone(good), 'x'),
		"bad length": append(append(bytes.Clone(good[:4]), 2), good[5:]...),
	} {
		if _, _, err := decodeRanks(cl100kSpec, b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
