package tokenizer

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
)

// The ranks of cl100k_base and o200k_base, as published by OpenAI with
// tiktoken (MIT licence), in two files each (see decodeRanks): the tokens,
// and the layout of the tables with the split of each token (see
// merge.go). TestEmbeddedRanks checks that the tokens are the published
// files, whose SHA-256 is spec.sha256, and that the layout is what
// computeSplits and the tables find; with -update it writes both anew.
var (
	//go:embed ranks/cl100k_base.tokens
	cl100kTokens []byte
	//go:embed ranks/cl100k_base.layout
	cl100kLayout []byte
	//go:embed ranks/o200k_base.tokens
	o200kTokens []byte
	//go:embed ranks/o200k_base.layout
	o200kLayout []byte
)

// rankFiles are the embedded files of each encoding.
var rankFiles = map[Encoding]struct{ tokens, layout []byte }{
	Cl100kBase: {cl100kTokens, cl100kLayout},
	O200kBase:  {o200kTokens, o200kLayout},
}

// A spec is everything about an encoding except its ranks.
type spec struct {
	enc      Encoding
	o200k    bool              // split with the o200k_base pattern, else cl100k_base's
	sha256   string            // of the ranks file
	nRanks   int               // ids 0 to nRanks-1 are the ranks
	specials map[uint32]string // special ids and their text
}

var (
	cl100kSpec = &spec{
		enc:    Cl100kBase,
		sha256: "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
		nRanks: 100_256,
		specials: map[uint32]string{
			100257: "<|endoftext|>",
			100258: "<|fim_prefix|>",
			100259: "<|fim_middle|>",
			100260: "<|fim_suffix|>",
			100276: "<|endofprompt|>",
		},
	}
	o200kSpec = &spec{
		enc:    O200kBase,
		o200k:  true,
		sha256: "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
		nRanks: 199_998,
		specials: map[uint32]string{
			199999: "<|endoftext|>",
			200018: "<|endofprompt|>",
		},
	}
	llama3Spec = &spec{
		enc:      Llama3,
		sha256:   "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
		nRanks:   128_000,
		specials: llama3Specials(),
	}
)

// llama3Specials returns the 256 special tokens of Llama 3, dense from
// 128000, with the names of Llama 3.1 (and 3.2, 3.3). Llama 3.0 has the same
// ids but calls the slots 128004, 128008 and 128010 reserved tokens and
// numbers its reserved tokens differently (0 to 250).
func llama3Specials() map[uint32]string {
	m := map[uint32]string{
		128000: "<|begin_of_text|>",
		128001: "<|end_of_text|>",
		128002: "<|reserved_special_token_0|>",
		128003: "<|reserved_special_token_1|>",
		128004: "<|finetune_right_pad_id|>",
		128005: "<|reserved_special_token_2|>",
		128006: "<|start_header_id|>",
		128007: "<|end_header_id|>",
		128008: "<|eom_id|>",
		128009: "<|eot_id|>",
		128010: "<|python_tag|>",
	}
	for id := uint32(128011); id < 128256; id++ {
		m[id] = fmt.Sprintf("<|reserved_special_token_%d|>", id-128011+3)
	}
	return m
}

// A vocab maps every id of an encoding to its bytes.
type vocab struct {
	// locs holds where each token is in data: start<<8 | length. No token
	// is empty, so an unused id has length 0.
	locs []uint32
	data []byte // the tokens, in any order, then decodeWord-1 bytes of padding
}

// maxVocabData bounds the length of a vocab's data, whose offsets take 24
// bits in locs.
const maxVocabData = 1 << 24

// loc returns the location of a token of n bytes (1 to 255) that starts at
// data[start] (below maxVocabData).
func loc(start, n int) uint32 { return uint32(start)<<8 | uint32(n) }

// token returns the bytes of id, or nil if id is unused or out of range.
func (v *vocab) token(id uint32) []byte {
	if int64(id) >= int64(len(v.locs)) {
		return nil
	}
	l := v.locs[id]
	if l&0xff == 0 {
		return nil
	}
	return v.data[l>>8 : l>>8+l&0xff]
}

// parseRanks checks file against s.sha256 and parses it: one line
// "base64(token bytes) SP rank" per token, ranks 0 to s.nRanks-1 in order.
// The vocabulary it returns has the special ids too.
func parseRanks(s *spec, file []byte) (*vocab, error) {
	if sum := sha256.Sum256(file); hex.EncodeToString(sum[:]) != s.sha256 {
		return nil, fmt.Errorf("%w: %v ranks must hash to %s, got %x", ErrRanksMismatch, s.enc, s.sha256, sum)
	}
	v := &vocab{locs: make([]uint32, 0, s.enc.NVocab()), data: make([]byte, 0, len(file)/2)}
	var want []byte
	for line := range bytes.Lines(file) {
		b64, rank, ok := bytes.Cut(bytes.TrimSuffix(line, []byte("\n")), []byte(" "))
		id := len(v.locs)
		if want = strconv.AppendInt(want[:0], int64(id), 10); !ok || !bytes.Equal(rank, want) {
			return nil, fmt.Errorf("tokenizer: %v ranks: line %d is not %q", s.enc, id+1, "base64 "+strconv.Itoa(id))
		}
		var err error
		n := len(v.data)
		if v.data, err = base64.StdEncoding.AppendDecode(v.data, b64); err != nil || len(v.data) == n || len(v.data)-n > 255 || len(v.data) >= maxVocabData/2 {
			return nil, fmt.Errorf("tokenizer: %v ranks: line %d: bad token", s.enc, id+1)
		}
		v.locs = append(v.locs, loc(n, len(v.data)-n))
	}
	if n := len(v.locs); n != s.nRanks {
		return nil, fmt.Errorf("tokenizer: %v ranks: %d tokens, want %d", s.enc, n, s.nRanks)
	}
	addSpecials(v, s.specials, s.enc.NVocab())
	return v, nil
}

// addSpecials extends v to n ids: the ids in specials get their text, all
// others stay unused.
func addSpecials(v *vocab, specials map[uint32]string, n int) {
	for id := len(v.locs); id < n; id++ {
		s := specials[uint32(id)]
		v.locs = append(v.locs, loc(len(v.data), len(s)))
		v.data = append(v.data, s...)
	}
	// AppendDecode copies short tokens 16 bytes at a time.
	v.data = append(v.data, make([]byte, decodeWord-1)...)
}

// newBPE returns the tokenizer of s over v; it backtracks if l (see
// newTables) is not nil, else it merges as tiktoken does (rankmerge.go).
func newBPE(s *spec, v *vocab, l *layout) (*bpe, error) {
	t, err := newTables(v, s.nRanks, l)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", err, s.enc)
	}
	return &bpe{
		enc:     s.enc,
		split:   splitter{o200k: s.o200k, classes: classes()},
		tables:  t,
		vocab:   v,
		missing: ErrUnknownID,
	}, nil
}

// The embedded ranks of an encoding with n ranks, of which m have a split
// (see layout), are two files, with numbers little-endian. The tokens,
// ranks/<encoding>.tokens, are in the order of the token table (see
// order), in which the table reads them:
//
//	n         4 bytes
//	lengths   n bytes: the length of each token
//	tokens    the bytes of the tokens
//	specials  the text of the special ids, in id order
//	padding   decodeWord-1 zero bytes (see AppendDecode)
//
// The layout, ranks/<encoding>.layout, is:
//
//	splits    n × 6 bytes: the splitTable
//	order     n × 3 bytes: the order of the token table
//	m         4 bytes
//	order     m × 3 bytes: the order of the pair table
//
// Both are stored as they are and used in place: loading them copies,
// decompresses, sorts and searches nothing, and the tables are laid out in
// the stored orders, each in one pass that checks it. They take 5.9 MB for
// the two encodings; zstd would make that about 4.1 MB, but decompressing
// the tokens alone took 4 ms of o200k_base's first Get (then 25 ms), and
// the ids of the layout compress by only 15 to 30 %.

// decodeRanks reads s's ranks, tokens and lay (see above). The vocabulary
// it returns, with the special ids, shares the memory of tokens, and the
// layout that of lay.
func decodeRanks(s *spec, tokens, lay []byte) (*vocab, *layout, error) {
	bad := fmt.Errorf("tokenizer: embedded %v ranks are corrupt", s.enc)
	n := s.nRanks
	if len(tokens) < 4+n || int(binary.LittleEndian.Uint32(tokens)) != n || len(lay) < 9*n+4 || len(tokens) >= maxVocabData {
		return nil, nil, bad
	}
	l := &layout{splits: splitTable(lay[:6*n]), tokenOrder: order(lay[6*n : 9*n])}
	if m := binary.LittleEndian.Uint32(lay[9*n:]); uint64(len(lay)) != uint64(9*n+4)+3*uint64(m) {
		return nil, nil, bad
	}
	l.pairOrder = order(lay[9*n+4:])
	lengths, data := tokens[4:4+n], tokens[4+n:]
	l.lengths = lengths
	v := &vocab{locs: make([]uint32, n, s.enc.NVocab()), data: data}
	start := 0
	for k, length := range lengths {
		id := l.tokenOrder.at(k)
		if int(id) >= n || length == 0 || length > maxTokenLen {
			return nil, nil, bad
		}
		v.locs[id] = loc(start, int(length))
		start += int(length)
	}
	for id := n; id < s.enc.NVocab(); id++ {
		text := s.specials[uint32(id)]
		if start > len(data) || !bytes.HasPrefix(data[start:], []byte(text)) {
			return nil, nil, bad
		}
		v.locs = append(v.locs, loc(start, len(text)))
		start += len(text)
	}
	if len(data)-start != decodeWord-1 {
		return nil, nil, bad
	}
	return v, l, nil
}

// embeddedRanks are ranks built into the package.
type embeddedRanks struct {
	vocab  *vocab
	layout *layout
}

// embedded returns a loader of the ranks of s built into the package, which
// reads them once, on first use.
func embedded(s *spec) func() (*embeddedRanks, error) {
	return sync.OnceValues(func() (*embeddedRanks, error) {
		v, l, err := decodeRanks(s, rankFiles[s.enc].tokens, rankFiles[s.enc].layout)
		if err != nil {
			return nil, err
		}
		return &embeddedRanks{v, l}, nil
	})
}

var (
	cl100kRanks = embedded(cl100kSpec)
	o200kRanks  = embedded(o200kSpec)
)

// defaults are the loaders behind Get.
var defaults = [...]func() (*bpe, error){
	Cl100kBase: sync.OnceValues(func() (*bpe, error) { return fromEmbedded(cl100kSpec, cl100kRanks) }),
	O200kBase:  sync.OnceValues(func() (*bpe, error) { return fromEmbedded(o200kSpec, o200kRanks) }),
	Llama3:     sync.OnceValues(defaultLlama3),
}

func fromEmbedded(s *spec, load func() (*embeddedRanks, error)) (*bpe, error) {
	r, err := load()
	if err != nil {
		return nil, err
	}
	return newBPE(s, r.vocab, r.layout)
}
