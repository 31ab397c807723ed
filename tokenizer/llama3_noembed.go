//go:build !llama3

package tokenizer

// Without the llama3 build tag, no Llama 3 ranks are built in.
var (
	llama3Model                 []byte
	llama3License, llama3Notice string
)
