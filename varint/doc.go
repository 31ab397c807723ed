// Package varint encodes and decodes the unsigned LEB128 varints of the M2M
// protocol: the header fields of M2M v1 frames and the token-id streams of
// TokenNative messages.
//
// # Format
//
// A value is written in groups of 7 bits, least significant group first. Each
// byte holds one group in its low 7 bits; bit 7 is set on every byte except
// the last. 0 is 00, 127 is 7F, 128 is 80 01, 300 is AC 02. The protocol's
// values are uint32, so an encoding is 1 to [MaxLen] = 5 bytes long.
//
// # Decoding policy
//
// Encoders always write the shortest form, and the decoders here accept
// nothing else, so every value has exactly one encoding and decoding then
// re-encoding gives back the input byte for byte. The reference decoder is
// laxer; every frame it produces is still accepted. Exactly three errors
// exist, checked byte by byte in this order:
//
//   - [ErrTruncated]: the input ends inside a varint (its last byte has bit 7
//     set), including an empty input to [Uvarint].
//   - [ErrOverflow]: the value does not fit in 32 bits: the fifth byte is
//     above 0x0F, which covers a fifth byte with bit 7 set (a sixth byte
//     would follow).
//   - [ErrNonCanonical]: a varint of two or more bytes ends in 00, so a
//     shorter form exists (80 00 for 0, FF 00 for 127).
//
// The batch decoder reports the first bad varint as an [*Error] holding its
// byte offset, after appending every value before it.
//
// # Kernels
//
// The batch functions [AppendUvarints] and [DecodeUvarints] own the loop, so
// they can run an assembly kernel chosen once from the CPU's features: AVX-512
// (VBMI2) or AVX2 with BMI2 on amd64, NEON on arm64. Every kernel gives exactly
// the result and the error of the pure-Go code in varint_generic.go, which is
// compiled on every platform and is the specification; the tests and fuzz
// targets hold the kernels to it. The purego build tag leaves the assembly
// out, and M2M_KERNELS=varint=generic (or any kernel name) overrides the
// choice at run time; see package internal/cpu.
//
// All functions are safe for concurrent use and, given a dst with enough
// capacity, allocate nothing.
package varint
