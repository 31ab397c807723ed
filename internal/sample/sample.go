// Package sample is the project's own sample of logged LLM API traffic,
// made by a seeded generator of OpenAI-style JSONL logs (package gen) and
// embedded here, so that tests, benchmarks and demos need no private data.
//
// # The sample
//
// [JSONL] returns the embedded file, sample.jsonl: 450 lines, 1,178,370 bytes,
// one compact JSON record a line, as an API gateway logs requests and
// responses. All of its text is synthesized (see gen/words.go and gen/text.go); it
// copies nothing from the development corpus, whose shapes and statistics
// it imitates. The mix of records is that of the development corpus:
//
//	246 chat completion requests          54.7 %
//	131 chat.completion responses         29.1 %
//	 50 chat.completion.chunk events      11.1 %  (one stream)
//	 23 embedding requests                 5.1 %  (as there, no embedding responses)
//
// Line lengths in bytes, here and in the development corpus:
//
//	            p10   p25   p50    p75    p90    max
//	sample      323   613  1225   2896   5541  44727
//	corpus      315   657  1402   2616   5352  58508
//
// Traffic comes from a dozen client applications (plain chat, a long-form
// planning assistant, a coding assistant, a support desk and a
// function-calling bot with tools, translators, a guessing game, a coding
// agent, a ReAct research crew, JSON extraction, a retrieval-augmented
// documentation bot, a math tutor on reasoning models, image questions, an
// email summarizer), with several conversations open at a time:
//
//   - Conversations re-send their whole history with every turn, and their
//     turns are interleaved with other traffic, a few to a few dozen lines
//     apart: 115 of the 246 requests (47 %; 45 % in the corpus) begin with all
//     the messages of an earlier request. Some requests are sent twice, as
//     clients retry.
//   - Apps send the same system prompt and tool schemas with every request:
//     225 requests carry one of 31 distinct system or developer prompts, the
//     commonest 23 times; 55 carry one of 12 distinct "tools" arrays, the
//     commonest 23 times. A few prompts and schemas are made for a single
//     session.
//   - Requests name gpt-4.1, gpt-4o, gpt-4o-mini, gpt-4.1-mini and -nano,
//     gpt-4-turbo, gpt-3.5-turbo, o1-mini, o3-mini, Claude 3.5 and 3.7 models
//     and Llama 3.1; embeddings use text-embedding-3-small and others. They
//     carry temperature, top_p, max_tokens or max_completion_tokens, stream
//     and stream_options, tools, tool_choice (also the object form),
//     parallel_tool_calls, response_format (text, json_object, json_schema),
//     seed, user, stop and reasoning_effort; system, developer, user,
//     assistant and tool messages; content-part arrays with image_url parts;
//     assistant tool_calls with JSON-encoded arguments and tool results.
//     Keys come in the OpenAI SDK's order ("model" first), or, for Python
//     clients behind LiteLLM, "messages", "model" and the rest sorted.
//   - Responses come in the formats of OpenAI (dated model names,
//     system_fingerprint, usage with cached and reasoning token details,
//     occasional refusals), of LiteLLM serving Anthropic models, of vLLM and
//     of Groq, with finish reasons stop, tool_calls, length and
//     content_filter, "created" times that never go back and token counts
//     that add up. The stream has a role chunk, content a token at a time, a
//     finish chunk and a usage chunk.
//   - Text is English prose, markdown (lists, headings, tables), Go, Python,
//     SQL and JSON in code blocks, math in LaTeX, Chinese, French and
//     Spanish, names and places with accents, emoji and typographic
//     punctuation, CRLF line ends, tab-indented code, terminal output with
//     ANSI escapes, and tool results written by Python's json.dumps (", ",
//     ": " and, in some, \u escapes). Strings are escaped as JSON.stringify
//     and json.dumps(ensure_ascii=False) escape them: non-ASCII text stays
//     raw UTF-8, '/' and '<' are not escaped.
//
// Compressed, the sample is about as redundant as a megabyte of the
// corpus, a little more: gzip -9 makes it 4.3 times smaller, zstd -19 7.8
// times, xz -9 7.9 times (megabyte slices of the corpus: 3.7 to 4.2, 6.0 to
// 7.3, 6.2 to 7.5).
//
// gen's tests check every number above but the compression ratios, and
// the presence of every feature listed.
//
// # Generating
//
// The sample is made by package gen (internal/sample/gen), from
// gen.DefaultSeed; regenerate it after changing the generator with
//
//	go generate ./internal/sample
//
// and update the numbers above and in gen's TestDocumentedStatistics;
// TestEmbeddedUpToDate fails while the file and its generator disagree.
package sample

import _ "embed"

//go:generate go run ./gen/gensample -o sample.jsonl

//go:embed sample.jsonl
var embedded []byte

// JSONL returns the embedded sample, gen.Generate(gen.DefaultSeed,
// gen.DefaultLines). Each call returns a new copy, which the caller may
// modify.
func JSONL() []byte { return append([]byte(nil), embedded...) }
