// Package tokenizer converts text to the BPE token ids that TokenNative
// messages carry, and back, exactly and offline. The TokenNative wire codec
// (the #TK| prefix, base64 and varints) is built on it in package codec.
//
// # Encodings
//
// [Get] returns the [Tokenizer] of an [Encoding]:
//
//	encoding     wire  ranks (ids)        special ids                  unused ids             NVocab
//	cl100k_base  C, 0  100,256 (0–100255) 100257–100260, 100276        100256, 100261–100275  100,277
//	o200k_base   O, 1  199,998 (0–199997) 199999, 200018               199998, 200000–200017  200,019
//	Llama 3      L, 2  128,000 (0–127999) 128000–128255 (256 tokens)   none                   128,256
//
// The wire column is the tokenizer character of the text form (#TK|C|…)
// and the tokenizer byte of the binary form. Llama 3's first 100,256 ranks
// are cl100k_base's, id for id, and it splits text with the same pattern.
//
// # Ranks and loading
//
// Encoding is done by github.com/pkoukk/tiktoken-go: its split pattern
// (with the backtracking regexp engine github.com/dlclark/regexp2) and its
// byte-pair merge, which match OpenAI's tiktoken id for id on the golden
// texts of testdata/golden. The encoders are built directly with
// tiktoken-go's constructors from ranks this package loads; decoding uses a
// flat table of its own.
//
// The ranks of cl100k_base and o200k_base, as OpenAI publishes them, are
// embedded in the package, zstd-compressed (2 MB, in ranks/). The first Get
// of an encoding decompresses them, checks their SHA-256 and parses them
// (about 60 ms for cl100k_base and 130 ms for o200k_base, allocating 17
// and 34 MB); a program that never tokenizes pays nothing. tiktoken-go's
// own loader would download the ranks over HTTP and write them to a cache
// directory. This package never calls it, and at init it installs a loader
// in its place that serves tiktoken.GetEncoding from the embedded ranks and
// refuses every other encoding, so that other code in the program cannot
// make tiktoken-go use the network either (short of installing a loader of
// its own).
//
// # Llama 3 and its licence
//
// Meta's Llama 3 ranks are "Llama Materials" under the Llama 3 Community
// License, whose terms bind whoever redistributes them (a copy of the
// licence, a NOTICE file, "Built with Meta Llama 3"). This package
// therefore neither contains nor embeds them by default. They are the file
// original/tokenizer.model of any Llama 3, 3.1, 3.2 or 3.3 model (lines
// "base64(token bytes) SP rank", SHA-256
// 82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55; every
// file is checked against it), and a program can supply them in three
// ways:
//
//   - [LoadLlama3] reads them from a path;
//   - [Get](Llama3) reads them from the path in the environment variable
//     M2M_LLAMA3_TOKENIZER ([Llama3Env]);
//   - building with -tags llama3 embeds them, with their LICENSE and NOTICE,
//     from llama3data/ in this package's directory, where they must be put
//     first (see llama3data/README.md; the files are git-ignored and the
//     default build does not need them). [EmbeddedLlama3] returns the
//     notice such a program must display.
//
// Without the ranks, Get(Llama3) returns a tokenizer that cannot encode
// ([ErrLlama3Unavailable]) but decodes the ids Llama 3 shares with
// cl100k_base and the special ids. The special ids have the names of Llama
// 3.1 (<|eot_id|> is 128009, <|python_tag|> is 128010); Llama 3.0 calls some
// of those slots reserved tokens, but the ids are the same.
//
// # Llama 3 streams of the reference implementation
//
// The Rust reference implementation writes cl100k_base ids under "L": it
// has no Llama tokenizer. Since ids below 100256 are the same tokens in
// both vocabularies, a Llama 3 decoder here decodes those streams to the
// same text, with or without Meta's ranks. The exception is a text that
// contained a special-token string, which the reference encodes as a
// cl100k_base special id. In Llama 3 those ids are ordinary tokens of
// Meta's, so with the ranks such a stream decodes to other bytes, and
// without them it fails with ErrLlama3Unavailable. No decoder can tell the
// two meanings apart. With the ranks, 100257 (<|endoftext|>) decodes to
// "\xd8\xa7\xd9" ("ا" and part of another letter, so the text is no longer
// valid UTF-8), 100258 (<|fim_prefix|>) to "\xe0\xb8\xb2\xe0\xb8" (invalid
// too), 100259 and 100260 (<|fim_middle|>, <|fim_suffix|>) to "џ" and
// "џџ", and 100276 (<|endofprompt|>) to "ब", silently. A peer that must read
// such streams faithfully should decode "L" from the reference with
// cl100k_base.
//
// # Ordinary text, special ids and UTF-8
//
// Text is always encoded as ordinary text, as tiktoken's encode_ordinary
// does: "<|endoftext|>" in a payload is thirteen characters, never a
// special id, so decoding always gives back the payload. Decoding accepts
// special ids all the same and turns them into their text, as streams of
// the reference implementation hold them. An id outside the vocabulary,
// including the unused ids inside the range, is an [*IDError].
//
// The split pattern works on characters, and tiktoken-go would turn
// invalid UTF-8 into U+FFFD, so text that is not valid UTF-8 is refused
// with an [*TextError] wrapping [ErrInvalidUTF8]. Every valid UTF-8 text,
// control characters and U+007F included, decodes back to itself byte for
// byte. Decoding does not check UTF-8: ids that no text encodes to may
// decode to invalid UTF-8, which a caller that wants text must reject.
//
// # Bounded cost: MaxRun
//
// tiktoken-go (like tiktoken itself) merges each piece of the split text in
// time quadratic in the piece's length: a 16 KiB run of one letter takes
// about 0.2 s, and 4 MiB would take hours. Long pieces are common in LLM
// traffic: base64 blobs whose zero bytes make runs of "A", whitespace and
// separator lines, ASCII art. So AppendEncode first scans the text (about
// 120 MB/s, checking UTF-8 on the way) for its longest run, a substring that
// bounds every piece, of one of three kinds:
//
//   - letters (\p{L}, and for o200k_base combining marks too), which may
//     gain a leading character and a contraction suffix such as 's;
//   - whitespace (\s);
//   - other characters ([^\s\p{L}\p{N}]: punctuation, symbols, emoji,
//     controls), with the newlines (and for o200k_base slashes) after them.
//
// Digits never form pieces longer than three. A text with a run longer than
// [MaxRun] = 1024 bytes is refused with [ErrPieceTooLong]; a codec then
// picks another format for it. No piece is then longer than MaxRun + 16
// bytes, and the worst text that is accepted, all runs of MaxRun, encodes
// at about 1.4 MB/s (0.7 µs a byte), where typical text runs at 4 to 5
// MB/s. Measured on an AMD EPYC (2 cores, go1.26.8) with 64 KiB of runs of
// one character, each run followed by a digit (BenchmarkEncodeWorstCase,
// cl100k_base and o200k_base alike):
//
//	run length   64 B           256 B          1024 B
//	letters      7.1–7.7 MB/s   4.2–4.3 MB/s   1.4–1.5 MB/s
//	spaces       9.5–10.6 MB/s  3.8 MB/s       1.4 MB/s
//	punctuation  12–13 MB/s     3.9–4.0 MB/s   1.4 MB/s
//
// The split pattern itself runs in linear time on such text (regexp2 alone
// keeps 3 to 100 MB/s from 16 KiB to 1 MiB for every kind of run, digits
// slowest), so the merge is the only quadratic step. On the dev corpus of
// chat-API JSON, 2 records out of 8,179 hold a run longer than 1024 bytes
// (a base64 blob and Braille-blank art) and 99% have none longer than 145.
//
// # Performance and concurrency
//
// Encoding runs at 4 to 5 MB/s (1.0 to 1.3 million tokens/s) on one core
// and allocates, since tiktoken-go works on strings and rune slices. Decoding
// runs at about 1 GB/s (250 million tokens/s) and allocates nothing when
// dst has room. An id of three bytes on the wire can stand for a token of
// 128 bytes, so callers that bound the text measure it first with
// DecodedLen, which allocates nothing.
// Tokenizers are safe for concurrent use.
package tokenizer
