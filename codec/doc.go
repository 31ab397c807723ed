// Package codec implements the wire formats of the M2M Protocol: M2M v1
// frames, Brotli messages, passthrough and detection, and decoding of the
// legacy Token v1 and zlib messages. It interoperates with the Rust
// reference (infernet-org/m2m-protocol v0.4.0): each decodes what the
// other writes, and the headers of our frames of requests and responses
// are the reference's byte for byte, but where the reference's decoder
// would misread its own bytes (a max_tokens flag with no value after it);
// with the reference's Brotli (WithQuality(5)) the whole frames are. Stream chunks, errors and embedding requests
// and responses get the Stream, Error and Embedding schemas the protocol
// defines, which the reference's encoder never writes (it gives them
// Request or Response headers); WithReferenceSchemas writes the
// reference's bytes instead. It is strict where the reference is lax.
//
// # Formats
//
//   - M2M v1 (#M2M|1|): a 20-byte fixed header, a routing (request) or
//     response header readable without decompression, payload length and
//     CRC-32 of the JSON, and the JSON itself, Brotli-compressed from 100
//     bytes on. Binary form: the prefix and the
//     bytes. String form: the prefix and the padded standard base64 of the
//     bytes after it, which is what the reference's engine carries.
//   - Brotli (#M2M[v3.0]|DATA:): base64 of a Brotli stream of any text.
//   - None: the text itself, passed through.
//   - TokenNative (#TK|): BPE token ids; see AppendTokenNative.
//   - Token v1 (#T1|) and zlib (#M2M[v2.0]|DATA:): decoded, never written.
//     Token v1 is lossy by design; decoding follows the reference's last
//     dialect and re-serialises with sorted keys, as its engine did.
//
// Detect reads the prefix. Text with no prefix is passthrough; text with a
// prefix of the family that nobody can decode (#M2M|2|, the dictionary and
// M3 codecs) is ErrInvalidCodec rather than passed through, and encoders
// never pass through text that starts with any prefix, since a decoder
// would not give it back.
//
// Two selections choose a format for the caller. AppendAuto follows the
// protocol's auto-selection rules (M2M v1 for LLM API payloads, Brotli for
// large repetitive text, passthrough for short text, TokenNative for small
// payloads where it is smaller). AppendHydra (the specification's
// compress_with_hydra) predicts each format's size from one cheap pass over
// the text with linear models fitted offline (package internal/hydra) and
// encodes only the smallest: about 5-9% fewer bytes than AppendAuto on LLM
// traffic, and faster, but never an M2M v1 frame, so it suits storage
// rather than routing, where a frame's header is read without
// decompressing. Neither is a wire format: decoders need nothing to read
// what they write.
//
// # Schemas
//
// The encoder derives the header from the JSON in one pass (see HeaderOf
// for which schema a JSON shape gets): requests and responses exactly as
// the reference does (docs/protocol.md §3.7-3.11), and the
// schemas the reference only decodes (stream chunks, errors, embeddings)
// with the header the reference's decoder expects for them.
//
// # Strictness
//
// Decoders reject, with an *Error wrapping ErrInvalidCodec, ErrMalformed,
// ErrIntegrity or ErrLimit, and never with a panic or partial output:
// truncated frames, a header_len that the schema's fields do not fill
// exactly, unknown schema or security bytes, reserved bytes or flag bits
// that are not zero, non-canonical varints and base64, invalid UTF-8, CRC
// mismatches, bytes after a frame or after a Brotli stream, payloads that
// are not JSON, and anything over the limits. Plain decoders refuse HMAC
// and AEAD frames instead of ignoring their security.
//
// The reference's encoder writes two layouts that a strict reading of the
// header would reject: it skips messages with unknown roles in the role
// list, and it sets HAS_MAX_TOKENS without writing a value when max_tokens
// is null, a float or negative. Decoders accept them, and say so in
// Header.Quirks, when the canonical layout does not fit and one of them
// does. Our encoder never writes them: an unknown role gets a placeholder (tool,
// the role of the legacy "function" messages) so the role list always
// matches msg_count, the flag is set only with a
// value, and model and id strings are cut to 255 bytes on a UTF-8
// boundary in the header (the payload keeps them whole). Every frame it
// writes reads the same under the reference's lenient decoder and under
// this package's strict one.
//
// # Limits
//
// Limits defaults to the protocol's: 16 MiB per message and per decoded
// text, JSON nesting 32, strings of 10 MiB, arrays of 10,000 elements.
// Decompression streams into the output and stops as soon as it passes
// the limit; past 1 MiB it reads into chunks, joined at the end, so a
// Brotli or zlib bomb costs the limit once (and Brotli its window, up to
// 16 MiB), not the two to three times of a doubling buffer. Formats
// whose decoding expands by a known amount measure it before writing any
// output: TokenNative measures the text of its ids (three bytes of id can
// stand for 128 bytes of text), Token v1 its control characters (31 bytes
// each) and its output, which it writes without building the JSON's tree
// (objects of more than MaxArray members are refused, since it must list
// them to sort them). No message costs memory out of proportion to the
// limits.
//
// # Brotli
//
// M2M v1 payloads and Brotli messages are compressed by package brotli,
// an encoder of ours for one record at a time, and decompressed with
// github.com/molecule-man/go-brrr. On the dev corpus, one record at a
// time, package brotli encodes about 1.4 times as fast as go-brrr at the
// reference's quality 5 (which is as fast as C libbrotli) and its streams
// are 2.7% smaller: it spends no time on block splitting or context
// modeling, which small records do not repay, and what that saves goes to
// the static dictionary and to fast prefix codes, a small record's fixed
// cost (bench/README.md). The wire format does not fix the encoder: the
// reference's decoder reads any Brotli stream, and its document says to
// compare decoded payloads, not compressed bytes.
//
// WithQuality and WithWindow choose go-brrr's encoder instead, at the
// quality and window asked for. At the reference's quality 5 and window
// 22, and at quality 6, it writes the same bytes as andybalholm/brotli's
// Writer and as C libbrotli 1.0.9's one-shot BrotliEncoderCompress for
// inputs under 1 MiB (all 8,179 records of dev.jsonl, and at quality 5 all
// 40,452 of dev100.jsonl; from 1 MiB on, and at quality 4, the three
// differ, by under 0.01% in size), so that frames are the reference's byte
// for byte. go-brrr encodes about 1.8 times as fast as andybalholm/brotli's
// Writer, the encoder before it, and decodes about twice as fast; all
// allocate nothing per record once pooled. andybalholm's NewWriterV2
// encoder is faster than its Writer but its streams are 13% larger.
// andybalholm/brotli stays in the tests as a cross-check: every encoder's
// streams decode with every decoder, damaged streams are refused by all
// alike, and FuzzBrotli pits them against each other. The measurements
// are in bench/README.md.
//
// # Performance
//
// Encoders and Decoders are reusable and not safe for concurrent use: keep
// one per goroutine. They pool their Brotli state and scratch buffers and
// append to the caller's dst, so steady-state work allocates nothing,
// Brotli included. The JSON scan that validates the text and extracts the
// header fields is one pass (package internal/jsonscan). Brotli is most of
// the cost of a frame, and of a small record's the fixed cost of its
// Huffman codes; the scan, header and CRC are 5 to 10% of a 200-byte
// record's frame and less of larger ones'.
package codec
