//go:build llama3

package tokenizer

import _ "embed"

// Built with -tags llama3: Meta's Llama 3 ranks, with the licence and notice
// that must accompany them. See llama3data/README.md for how to put them
// there.
var (
	//go:embed llama3data/tokenizer.model
	llama3Model []byte
	//go:embed llama3data/LICENSE
	llama3License string
	//go:embed llama3data/NOTICE
	llama3Notice string
)
