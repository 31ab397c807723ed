// Package brotli writes Brotli streams (RFC 7932) of one input at a time,
// for the payloads of M2M v1 frames: JSON records of a few hundred bytes
// to some tens of KiB, each compressed alone. Decoding is not here: any
// Brotli decoder reads these streams (the tests decode every one with
// go-brrr's and andybalholm/brotli's).
//
// It is built for that input rather than for Brotli's quality scale. One
// record at a time on the dev corpus of LLM API traffic (8,179 JSON
// lines, 20 MiB), it encodes about 1.4 times as fast as C libbrotli's
// design at quality 5 (go-brrr, which is as fast as C) and its streams are
// 2.7% smaller; quality 4 is faster than quality 5 and 6% larger, and
// slower than this package. What it does (bench/README.md has the
// measurements of each choice):
//
//   - one meta-block of up to 1 MiB, with one prefix code for each of
//     literals, commands and distances: no block splitting and no
//     context modeling of literals, which on records cost more time than
//     they save bytes; a stored meta-block where that is smaller;
//   - the smallest window that holds the input, which a decoder with
//     little memory will thank it for;
//   - greedy parsing: at each position the last four distances, then a
//     hash chain of up to 8 earlier positions with the same four bytes
//     (within 64 KiB), the copy of the best score (its bytes, less the
//     bits of its distance); failing that, where a word can start, the
//     longest word of the static dictionary (without transforms): JSON
//     text is full of them, and they are 12% of the ratio;
//   - prefix codes built from the used symbols only, their leaves sorted
//     by a counting pass: a small record's fixed cost.
//
// The static dictionary is the RFC's (Appendix A), embedded as
// dictionary.bin; TestDictionary checks its hash and that every word
// decodes to itself with both decoders.
package brotli
