// Package jsonscan validates one JSON value and extracts the M2M v1 header
// fields from it in a single pass, without allocating.
//
// The M2M v1 encoder calls [Scan] once per record. Scan decides whether the
// record is JSON the protocol accepts and, in the same pass, fills a
// caller-owned [Fields] with everything the encoder needs to classify the
// record as a request or a response and to write its routing or response
// header. Section numbers (§) refer to the protocol notes in
// docs/protocol.md.
//
// # Acceptance
//
// The reference encoder parses every record with serde_json 1.0 into a
// serde_json::Value and rejects what that rejects (§3.11);
// Scan accepts exactly the same inputs, within tighter limits:
//
//   - RFC 8259 JSON: exactly one value of any kind (object, array, string,
//     number, true, false, null), with only space, tab, LF and CR around it.
//     A byte order mark, an empty or all-whitespace input, and anything
//     after the value are errors ([ErrSyntax]).
//   - Strings: no raw byte below 0x20; only the escapes \" \\ \/ \b \f \n
//     \r \t and \uXXXX; the raw bytes must be valid UTF-8 ([ErrUTF8]:
//     overlong forms, encoded surrogates and code points above U+10FFFF
//     are invalid); a \u escape of a high surrogate must be followed at
//     once by a \u escape of a low surrogate, and a low surrogate may not
//     come first ([ErrSurrogate]). Keys follow the same rules.
//   - Numbers: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and within
//     serde_json's f64 range ([ErrNumberRange]). The reference does not
//     enable serde_json's float_roundtrip feature (neither does any crate
//     it depends on, as far as their manifests show), so its numbers are
//     parsed the fast, not correctly rounded, way (the exact rule is in
//     number.go): the leading digits that fit a uint64 significand, a
//     decimal exponent, and float64(significand) × 10^exponent in one
//     rounded multiplication, which must not be infinite. In practice: any
//     integer or fraction is accepted up to about 1.797693134862315e308 in
//     magnitude, 1e309 and beyond are rejected, and tiny values such as
//     1e-400 are accepted (they underflow to zero). Within a few units in
//     the last place of math.MaxFloat64 the verdict can differ from a
//     correctly rounded parser's: 1.7976931348623158e308 is rejected
//     although it rounds to math.MaxFloat64, and so are some longer
//     spellings of math.MaxFloat64 itself; the tests pin such cases.
//   - Duplicate keys are allowed (the last occurrence wins for extraction).
//   - Limits (see [Limits]; the defaults are the protocol's, §8): nesting
//     depth of arrays and objects at most 32, string tokens (keys too) at
//     most 10 MiB of raw bytes, arrays at most 10,000 elements. Exceeding
//     one is [ErrDepth], [ErrStringTooLong] or [ErrArrayTooLong], each
//     matching [ErrLimit]. serde_json itself allows a depth of 127 and has
//     no other limit, so with Limits{MaxDepth: 127, MaxStringLen: -1,
//     MaxArrayLen: -1} Scan accepts exactly the texts the reference
//     accepts.
//
// Errors are reported as an [*Error] carrying the byte offset and one of
// the sentinel errors. Scanning stops at the first problem in input order;
// a string's length is checked at its closing quote, an array's length at
// the element one past the limit, the depth at the bracket one too deep.
//
// # Extraction
//
// Scan fills [Fields] exactly as the reference's header code reads the
// parsed value (§3.5, §3.7, §3.9, §3.11): lookups are in the top-level
// object only; a value of the wrong type counts as absent (a "model" that
// is not a string gives no model) while flags that test only for a key
// count it whatever its value; serde_json's map keeps the last of
// duplicate keys at every level, so a later key replaces everything an
// earlier one with the same name contributed. Both the request fields and
// the response fields are filled, whatever the classification; the codec
// chooses ([Fields.IsResponse] is the §3.11 rule).
//
// The "unsigned integer" test of max_tokens and the usage counts is
// serde_json's as_u64: a literal without sign, fraction or exponent whose
// value fits in a uint64 (so -0, 10.0, 1e3 and 18446744073709551616 are
// not), truncated to uint32 for the header. content_hint is the wrapping
// uint32 sum of decoded (unescaped) UTF-8 lengths, computed while
// validating, without decoding.
//
// HAS_COST_ESTIMATE ([RespCostEstimate]) is set whenever "usage" is
// present, as the reference encoder sets it, so [Fields.ResponseFlags] is
// the reference's response flag word as written; the encoder computes the
// cost itself.
//
// # Performance
//
// String bodies, about 96 % of the bytes of LLM API traffic, are skipped
// sixteen bytes at a time with SWAR arithmetic on 64-bit words, stopping
// only at quotes, backslashes, control characters and non-ASCII bytes;
// UTF-8 is validated only where non-ASCII bytes occur. On amd64 with AVX2
// a kernel (the "jsonscan" kernels of internal/cpu; generated by _asm)
// instead marks, a kilobyte of input at a time, the quotes, backslashes,
// control and non-ASCII bytes and the bytes that can end a two-byte
// escape, one bit a byte; a string then ends at its first quote when
// nothing comes before it, and otherwise its body is taken 64 bytes at a
// time, the escapes worked out from the backslashes' bits, so that the
// loop stops only at the closing quote, at \u escapes and at what needs
// checking byte by byte (non-ASCII runs, errors). It returns what the
// generic code returns for every input, errors and their offsets
// included; the tests hold it to that. With the purego build tag, or on
// other architectures, only the generic code is built. Numbers, literals
// and structure are handled inline by one loop with an explicit stack of
// open containers (so deep input cannot overflow the goroutine stack), and
// only the containers on the header's paths carry extraction state.
//
// Scan is safe for concurrent use with distinct Fields values. With a
// Fields reused across calls it allocates nothing once the Fields' buffers
// have grown to the largest record, except to return an error.
package jsonscan
