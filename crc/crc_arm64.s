//go:build !purego

// Hand-written PMULL kernel for arm64. It follows the amd64 kernels (see
// crc/_asm/main.go for the method and how every constant is derived) with
// 128-bit vectors: four accumulators fold 64 bytes per step, then 16-byte
// blocks, then the last partial block is merged with TBL, and a Barrett
// reduction leaves the CRC. Its result is updateGeneric's (crc_generic.go).

#include "textflag.h"

// Folding constants, each lane (lo, hi) = (k(d+32), k(d-32)) for a move of
// d bits, k(n) = reflect32(x^n mod P) << 1; then the Barrett pair and masks.
DATA crcArm<>+0(SB)/8, $0x0000000154442bd4   // d = 512: one 64-byte step
DATA crcArm<>+8(SB)/8, $0x00000001c6e41596
DATA crcArm<>+16(SB)/8, $0x000000003db1ecdc  // d = 384: accumulator 0 onto 3
DATA crcArm<>+24(SB)/8, $0x0000000174359406
DATA crcArm<>+32(SB)/8, $0x00000000f1da05aa  // d = 256: accumulator 1 onto 3
DATA crcArm<>+40(SB)/8, $0x000000015a546366
DATA crcArm<>+48(SB)/8, $0x00000001751997d0  // d = 128: one 16-byte step
DATA crcArm<>+56(SB)/8, $0x00000000ccaa009e
DATA crcArm<>+64(SB)/8, $0x00000000ccaa009e  // k(96), alone in the low lane
DATA crcArm<>+72(SB)/8, $0
DATA crcArm<>+80(SB)/8, $0x0000000163cd6124  // k(64)
DATA crcArm<>+88(SB)/8, $0
DATA crcArm<>+96(SB)/8, $0x00000001f7011641  // Barrett mu = x^64 div P, reflected
DATA crcArm<>+104(SB)/8, $0
DATA crcArm<>+112(SB)/8, $0x00000001db710641 // P, reflected
DATA crcArm<>+120(SB)/8, $0
DATA crcArm<>+128(SB)/8, $0x00000000ffffffff // low 32 bits
DATA crcArm<>+136(SB)/8, $0
GLOBL crcArm<>(SB), RODATA|NOPTR, $144

// TBL indexes for the last partial block of r bytes: 16 bytes loaded at
// offset r shift left by 16-r bytes, at offset 16+r shift right by r bytes
// (0x80 is out of range: TBL gives 0).
DATA crcShuf<>+0(SB)/8, $0x8080808080808080
DATA crcShuf<>+8(SB)/8, $0x8080808080808080
DATA crcShuf<>+16(SB)/8, $0x0706050403020100
DATA crcShuf<>+24(SB)/8, $0x0f0e0d0c0b0a0908
DATA crcShuf<>+32(SB)/8, $0x8080808080808080
DATA crcShuf<>+40(SB)/8, $0x8080808080808080
GLOBL crcShuf<>(SB), RODATA|NOPTR, $48

// Byte masks: 16 bytes loaded at offset r have 0xff in their top r bytes.
DATA crcHigh<>+0(SB)/8, $0
DATA crcHigh<>+8(SB)/8, $0
DATA crcHigh<>+16(SB)/8, $-1
DATA crcHigh<>+24(SB)/8, $-1
GLOBL crcHigh<>(SB), RODATA|NOPTR, $32

#define p R1      // next byte of input
#define n R2      // bytes left
#define zero V31  // all zeros

// FOLD(v, k, next, t): v = v.lo*k.lo ^ v.hi*k.hi ^ next, moving v forward
// by k's distance onto next.
#define FOLD(v, k, next, t) \
	VPMULL	k.D1, v.D1, t.Q1; \
	VPMULL2	k.D2, v.D2, v.Q1; \
	VEOR	t.B16, v.B16, v.B16; \
	VEOR	next.B16, v.B16, v.B16

// func updatePMULL(crc uint32, p []byte) uint32
//
// updatePMULL is updateGeneric for CPUs with PMULL. It needs len(p) >= 16
// and reads only p.
TEXT ·updatePMULL(SB), NOSPLIT, $0-36
	MOVWU	crc+0(FP), R0
	MVNW	R0, R0
	MOVD	p_base+8(FP), p
	MOVD	p_len+16(FP), n
	VEOR	zero.B16, zero.B16, zero.B16
	VEOR	V16.B16, V16.B16, V16.B16
	VMOV	R0, V16.S[0]          // the inverted CRC, XORed into the first bytes
	MOVD	$crcArm<>(SB), R3
	VLD1.P	64(R3), [V20.B16, V21.B16, V22.B16, V23.B16] // d = 512, 384, 256, 128
	VLD1	(R3), [V24.B16, V25.B16, V26.B16, V27.B16]   // k(96), k(64), mu, P
	ADD	$64, R3, R3
	VLD1	(R3), [V28.B16]                              // low 32 bits

	CMP	$64, n
	BLO	blocks_start

	// Four accumulators, 64 bytes per step.
	VLD1.P	64(p), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR	V16.B16, V0.B16, V0.B16
	SUB	$64, n, n
	CMP	$64, n
	BLO	combine
four:
	VLD1.P	64(p), [V4.B16, V5.B16, V6.B16, V7.B16]
	FOLD(V0, V20, V4, V8)
	FOLD(V1, V20, V5, V9)
	FOLD(V2, V20, V6, V10)
	FOLD(V3, V20, V7, V11)
	SUB	$64, n, n
	CMP	$64, n
	BHS	four
combine:
	FOLD(V0, V21, V3, V8)  // accumulator 0 onto 3, 384 bits on
	FOLD(V1, V22, V0, V9)  // accumulator 1, 256 bits on
	FOLD(V2, V23, V1, V10) // accumulator 2, 128 bits on
	VMOV	V2.B16, V3.B16
	B	blocks

blocks_start:
	VLD1.P	16(p), [V3.B16]
	VEOR	V16.B16, V3.B16, V3.B16
	SUB	$16, n, n

	// 16-byte blocks; the state is in V3.
blocks:
	CMP	$16, n
	BLO	tail
	VLD1.P	16(p), [V4.B16]
	FOLD(V3, V23, V4, V8)
	SUB	$16, n, n
	B	blocks

	// The last r = n bytes (0 < r < 16): b is the state shifted down r
	// bytes with the last r input bytes above; a holds the r bytes that fell
	// out, at the top of a block folded onto b.
tail:
	CBZ	n, reduce
	ADD	n, p, R4
	SUB	$16, R4, R4
	VLD1	(R4), [V5.B16]       // the input's last 16 bytes
	MOVD	$crcShuf<>(SB), R4
	ADD	n, R4, R4
	VLD1	(R4), [V6.B16]       // shift left by 16-r
	ADD	$16, R4, R4
	VLD1	(R4), [V7.B16]       // shift right by r
	MOVD	$crcHigh<>(SB), R4
	ADD	n, R4, R4
	VLD1	(R4), [V12.B16]      // the top r bytes
	VTBL	V7.B16, [V3.B16], V13.B16
	VAND	V12.B16, V5.B16, V5.B16
	VORR	V5.B16, V13.B16, V13.B16
	VTBL	V6.B16, [V3.B16], V3.B16
	FOLD(V3, V23, V13, V8)

	// 128 bits to 32: the low qword onto the high one (96 bits left), the
	// low 32 bits onto the rest (64 left), then Barrett.
reduce:
	VPMULL	V24.D1, V3.D1, V8.Q1    // lo * k(96)
	VEXT	$8, zero.B16, V3.B16, V3.B16
	VEOR	V8.B16, V3.B16, V3.B16
	VAND	V28.B16, V3.B16, V8.B16
	VEXT	$4, zero.B16, V3.B16, V3.B16
	VPMULL	V25.D1, V8.D1, V8.Q1    // low 32 bits * k(64)
	VEOR	V8.B16, V3.B16, V3.B16
	VAND	V28.B16, V3.B16, V8.B16
	VPMULL	V26.D1, V8.D1, V8.Q1    // * mu
	VAND	V28.B16, V8.B16, V8.B16
	VPMULL	V27.D1, V8.D1, V8.Q1    // * P
	VEOR	V8.B16, V3.B16, V3.B16
	VMOV	V3.S[1], R0
	MVNW	R0, R0
	MOVW	R0, ret+32(FP)
	RET
