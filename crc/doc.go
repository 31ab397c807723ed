// Package crc computes CRC-32/IEEE, the checksum M2M v1 frames carry over
// the original JSON: the zlib, PNG and Ethernet CRC (reflected polynomial
// 0xEDB88320, initial value and final XOR 0xFFFFFFFF), as Go's
// hash/crc32.ChecksumIEEE and Rust's crc32fast compute it.
//
// Records in LLM traffic logs are mostly 100 B to 30 KiB, and hash/crc32's
// fastest path starts at 1 KiB, so this package adds its own kernels:
// carry-less-multiply folding over 512-bit (AVX-512 VPCLMULQDQ) or 256-bit
// (AVX2 VPCLMULQDQ) vectors on amd64, and PMULL on arm64. hash/crc32 is
// registered as a kernel too. Each kernel takes only the sizes where it
// measures fastest: on amd64 the folding kernels from 16 bytes, the
// generic code below that (hash/crc32's call overhead makes it slower
// there) and, on CPUs without VPCLMULQDQ, hash/crc32 from 64 bytes; on
// arm64 PMULL from 256 bytes and hash/crc32's CRC32 instructions below
// (an estimate: no arm64 machine was at hand to measure). The pure-Go twin in
// crc_generic.go (slicing-by-8) is compiled everywhere and is what the
// tests hold every kernel to, together with hash/crc32 itself.
//
// The purego build tag leaves out this package's assembly (hash/crc32
// keeps its own); M2M_KERNELS=crc=stdlib, crc=generic or any kernel name
// overrides the choice at run time. See package internal/cpu.
//
// All functions are safe for concurrent use and do not allocate.
package crc
