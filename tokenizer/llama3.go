package tokenizer

import (
	"fmt"
	"io"
	"os"
	"slices"
)

// Llama3Env is the environment variable that [Get] reads for the path of
// Meta's Llama 3 tokenizer.model.
const Llama3Env = "M2M_LLAMA3_TOKENIZER"

// sharedIDs is the number of ids that Llama 3 shares with cl100k_base: ids 0
// to 100255 are the same tokens in both (Meta kept OpenAI's ranks and added
// its own after them).
const sharedIDs = 100_256

// llama3FileSize is the size of Meta's tokenizer.model.
const llama3FileSize = 2_183_982

// LoadLlama3 reads Meta's Llama 3 ranks from the file at path and returns a
// Llama 3 tokenizer. The file is "original/tokenizer.model" of any Llama 3,
// 3.1, 3.2 or 3.3 model (lines "base64(token bytes) SP rank"; 2,183,982
// bytes), and it must hash to the SHA-256 of that file (else
// [ErrRanksMismatch]), because a peer decoding "L" uses exactly those ids.
// The ranks are Meta's, under the Llama 3 Community License; this package
// does not ship them.
//
// Each call reads and parses the file again (about 0.15 s). [Get] caches
// the tokenizer of [Llama3Env] instead.
func LoadLlama3(path string) (Tokenizer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: Llama 3 ranks: %w", err)
	}
	defer f.Close()
	// Read one byte more than the right size, so a wrong file of any size
	// is caught by the checksum without being read whole.
	file, err := io.ReadAll(io.LimitReader(f, llama3FileSize+1))
	if err != nil {
		return nil, fmt.Errorf("tokenizer: Llama 3 ranks: %w", err)
	}
	t, err := newLlama3(file)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return t, nil
}

func newLlama3(file []byte) (*bpe, error) {
	v, err := parseRanks(llama3Spec, file)
	if err != nil {
		return nil, err
	}
	return newBPE(llama3Spec, v, nil)
}

// EmbeddedLlama3 reports whether this program was built with the llama3
// build tag, which embeds Meta's Llama 3 ranks, and if so returns the NOTICE
// and LICENSE files embedded with them. A program built so redistributes
// Llama Materials: it must show the notice ("Built with Meta Llama 3") and
// ship the licence.
func EmbeddedLlama3() (notice, license string, ok bool) {
	return llama3Notice, llama3License, llama3Model != nil
}

// defaultLlama3 returns the Llama 3 tokenizer of Get: from the file named
// by Llama3Env, else from the ranks embedded by the llama3 build tag, else
// one that can only decode.
func defaultLlama3() (*bpe, error) {
	if path := os.Getenv(Llama3Env); path != "" {
		t, err := LoadLlama3(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Llama3Env, err)
		}
		return t.(*bpe), nil
	}
	if llama3Model != nil {
		return newLlama3(llama3Model)
	}
	return llama3DecodeOnly()
}

// llama3DecodeOnly returns a Llama 3 tokenizer built without Meta's ranks:
// it decodes the ids shared with cl100k_base and the special ids, and
// reports ErrLlama3Unavailable for everything else. That is enough to decode
// every "L" stream of the reference implementation that holds no special
// ids, since those streams are cl100k_base ids (see the package
// documentation).
func llama3DecodeOnly() (*bpe, error) {
	r, err := cl100kRanks()
	if err != nil {
		return nil, err
	}
	// cl100k_base's specials follow its ranks' tokens.
	cl := r.vocab
	end := 0
	for _, l := range cl.locs[:sharedIDs] {
		end = max(end, int(l>>8+l&0xff))
	}
	v := &vocab{
		locs: slices.Grow(slices.Clone(cl.locs[:sharedIDs]), Llama3.NVocab()-sharedIDs),
		data: slices.Clone(cl.data[:end]),
	}
	addSpecials(v, llama3Spec.specials, Llama3.NVocab())
	return &bpe{enc: Llama3, vocab: v, missing: ErrLlama3Unavailable}, nil
}
