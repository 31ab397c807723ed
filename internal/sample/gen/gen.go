// Package gen generates synthetic logged LLM API traffic: OpenAI-style
// JSONL of requests, responses, stream chunks and embeddings from a dozen
// client applications, as package sample describes the sample it embeds.
//
// [Generate] makes a sample of any size from any seed; the mix holds within
// a few percent for every seed. The output depends only on the seed and the
// number of lines: the generator draws every choice from one PCG stream
// (math/rand/v2's documented PCG-DXSM, and nothing derived from it that Go
// might change), uses no floating point, no maps in any order-dependent way
// and no clock, so it is byte for byte the same on every platform.
// [DefaultSeed] was picked among the first 300 seeds as one whose sample has
// every feature package sample lists and statistics close to the corpus.
//
// Command gensample writes a sample to a file; go generate in
// internal/sample runs it to make the embedded one. TestDocumentedStatistics
// checks the numbers package sample's documentation gives for it.
package gen

// The seed and size of the sample package sample embeds.
const (
	DefaultSeed  uint64 = 292
	DefaultLines int    = 450
)

// Generate returns lines records of synthetic traffic, one JSON object a
// line, each line ending in a newline; nil if lines is not positive. The
// same seed and lines always give the same bytes.
func Generate(seed uint64, lines int) []byte {
	if lines <= 0 {
		return nil
	}
	return newGen(seed, lines).run()
}
