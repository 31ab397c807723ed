// Package ppm is a context-model coder for text: prediction by partial
// matching (PPM) of bytes, with an arithmetic (range) coder, in pure Go.
// It knows nothing of JSON or archives; package archive uses it for the
// text streams of its smallest level.
//
// The model predicts each byte from the longest context (the bytes before
// it, up to Options.Order of them) that has been seen before, falling back
// to shorter ones (escaping) when the byte is new there, as PPMd does:
//
//   - contexts live in a tree in one arena of Options.Memory MiB, made as
//     they first occur, and a context seen once remembers where in the text
//     it was, so the second time it starts out knowing what followed;
//   - whether a context has the byte at all (escape or not) is a binary
//     decision whose probability is learned from the context's statistics
//     (secondary escape estimation): how many symbols it has and their
//     counts, its order, how many more its shorter context has, whether a
//     longer one just escaped, and the class of the last byte;
//   - a symbol new to a context starts with a count that reflects how
//     likely it was where it was found (information inheritance);
//   - symbols seen in a longer context are excluded in the shorter ones;
//   - a match model predicts the byte that followed the last occurrence of
//     the last eight bytes, and is consulted only while matches of its
//     length have been right more than 15 times in 16: near-duplicate text
//     costs a fraction of a bit a byte.
//
// Encoder and decoder run the same model, so they are equally fast. When
// the arena is full the model starts afresh, at the same byte on both
// sides.
//
// # Format
//
//	data = version (1) | order (1) | uvarint memory_mib | uvarint raw_len | crc32 (4) | range-coded bytes
//
// A decoder refuses data whose memory exceeds Options.MaxMemory (512 MiB
// by default), whose length exceeds what the caller allows, or whose
// output does not match its CRC-32; it reads nothing past its input and
// never panics.
package ppm
