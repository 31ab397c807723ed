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
// # Encoding
//
// Encoding is exact BPE as OpenAI's tiktoken does it (encode_ordinary),
// written here, in time linear in the text whatever the text (n log n for
// Llama 3's long pieces):
//
//   - The split pattern of each encoding (the regexp that cuts text into
//     pieces before BPE) is implemented by hand, character class by
//     character class, with a table lookup per ASCII byte and a fast path
//     for ASCII words (split.go). Llama 3 splits as cl100k_base does.
//   - A piece that is a token is that token: one of 256 bytes, one of the
//     65,536 pairs of bytes, or found in a hash table, whose Bloom filter
//     first rules out most pieces that are no token (which spares random
//     text a cache miss per piece).
//   - Other pieces are merged. tiktoken finds each merge by scanning all
//     pairs of the piece, in time quadratic in its length. For cl100k_base
//     and o200k_base, pieces of up to 16 bytes are merged that way, with
//     the ranks of merges taken from a table of token pairs (rankmerge.go),
//     and longer ones, and those that start with a character of three
//     bytes (CJK), by the backtracking algorithm of GitHub's Rust crate
//     bpe (merge.go), linear in the piece's length. That needs, for each
//     token, the two tokens BPE merges into it, of lower rank; Meta's Llama
//     3 tokens are not all so, and Llama 3 merges its longer pieces with a
//     heap instead (n log n). Backtracking looks for the longest token at
//     each position; at a character of three bytes, one word per
//     character gives its own token and the lengths of the others that
//     start with it, and a filter of the tokens by length and first bytes
//     rules out most of those lengths before the token table, or for
//     words of two to four such characters a small table of their own, is
//     probed. Before that, a piece is cut where no token reaches across
//     the boundary between two characters of three bytes (cut.go): BPE
//     never merges across such a boundary, so each part is merged alone,
//     and a part of one character takes the tokens its table entry holds.
//     Whether a token crosses is known by the character before and the
//     first byte of the one after, and where only tokens that hold both
//     characters whole could cross, by a filter of such pairs: 88% of
//     the boundaries of CJK chat text are cuts for cl100k_base, 66% for
//     o200k_base, whose vocabulary holds CJK words (by the first byte
//     alone, 82% and 40%).
//   - Text repeats itself, and two small caches exploit it exactly: the
//     tokens of the short pieces merged lately, by their bytes, one cache
//     per P (piececache.go), and backtracking's verdicts on pairs of
//     tokens, shared by all goroutines in atomic words (validCached).
//
// github.com/pkoukk/tiktoken-go, which matches tiktoken on the golden
// texts of testdata/golden, is the tests' oracle: ours must give its ids
// on the golden texts, the embedded sample, every line of the corpus in
// M2M_CORPUS, and under fuzzing. The package does not use it.
//
// The ranks of cl100k_base and o200k_base, as OpenAI publishes them, are
// embedded in the package with the split of each token and the order in
// which the hash tables hold them (ranks/, 5.9 MB in all, uncompressed:
// the ids compress by only 15-30 %, and the first Get then reads them in
// place). TestEmbeddedRanks checks them against the SHA-256 of the
// published files and against the splits and orders computed anew, and
// writes them with
//
//	go test ./tokenizer -run TestEmbeddedRanks -update
//
// The first Get of an encoding lays its tables out in the stored orders,
// one pass each, checking them (corrupt data is an error); a program that
// never tokenizes pays nothing. Nothing is ever downloaded.
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
// The split pattern works on characters, and tiktoken turns invalid UTF-8
// into U+FFFD, so text that is not valid UTF-8 is refused with a
// [*TextError] wrapping [ErrInvalidUTF8]. Every valid UTF-8 text,
// control characters and U+007F included, decodes back to itself byte for
// byte. Decoding does not check UTF-8: ids that no text encodes to may
// decode to invalid UTF-8, which a caller that wants text must reject.
//
// # Performance and concurrency
//
// Measured on an AMD EPYC (Zen 3, 2 vCPUs shared with other work, load
// 1-3.8; go1.26.8) against tiktoken-go in the same runs, on one core
// (BenchmarkEncode, medians of 12), in MiB/s of text, with the speed-up:
//
//	text                       cl100k_base        o200k_base
//	dev corpus, line by line   73.2 (21.4x)       61.0 (23.3x)
//	chat JSON                  149.8 (40.9x)      129.7 (46.9x)
//	Go source                  81.2 (24.4x)       84.1 (33.3x)
//	CJK chat JSON lines        60.9 (15.8x)       40.3 (15.8x)
//	CJK lines of the corpus    67.6 (17.6x)       46.7 (17.7x)
//
// CJK is the slowest: its pieces are long runs of letters, which
// backtracking merges character by character, and its many distinct
// tokens and pairs of tokens each cost cache misses in the token table
// and in valid's tables. The CJK chat JSON is made up, as varied as the
// CJK lines of the dev corpus (cjkLines): ten phrases repeated, as the
// class used to be, let the caches answer almost everything.
//
// tiktoken-go takes hours on a megabyte of one letter; the worst texts here
// take (BenchmarkEncodeWorstCase, medians of 12, 1 MiB and, for linearity,
// 4 MiB): one letter repeated 3.5-3.9 ms (14-15 ms for 4 MiB), random
// base64 31.8 and 27.1 ms (127 and 110 ms), random Unicode characters 15.8
// and 20.4 ms (63 and 84 ms); the backtracking needs a bit of memory per
// byte of a piece. Llama 3 ran at 63 MiB/s on the corpus and 35 MiB/s on
// CJK; its heap merge took 212 ms and about 40 bytes of memory per byte
// for a megabyte of one letter, and random base64 27 ms (commit 0d20ba6).
//
// With a reused dst, AppendEncode allocates nothing. The first Get of an
// encoding, in a fresh process, takes 7.7-10.9 ms for cl100k_base and
// 12.6-17.6 ms for o200k_base (22-23 ms at a load of 2-2.5, most of it the
// kernel mapping fresh memory), and keeps 7.2 and 13.0 MiB of heap besides
// the 1.9 and 4.0 MB of embedded data. Decoding runs at about 1.2 GB/s (325
// million tokens/s), 8 times tiktoken-go, and allocates nothing when dst
// has room. An id of three bytes on the wire can stand for a token of 128
// bytes, so callers that bound the text measure it first with DecodedLen,
// which allocates nothing. Tokenizers are safe for concurrent use.
package tokenizer
