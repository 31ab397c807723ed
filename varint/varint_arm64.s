//go:build !purego

// Hand-written NEON kernels for arm64. Each follows its generic twin in
// varint_generic.go exactly: same values, and it stops where that stops or
// earlier, at a window boundary, leaving the rest to the generic code.

#include "textflag.h"

// Byte weights for building a 64-bit mask from four compare results: after
// masking with these, three rounds of pairwise adds leave byte k holding the
// bits of bytes 8k..8k+7.
DATA decodeWeights<>+0(SB)/8, $0x8040201008040201
DATA decodeWeights<>+8(SB)/8, $0x8040201008040201
GLOBL decodeWeights<>(SB), RODATA|NOPTR, $16

// Continuation bits for a varint of k+1 bytes, k = 0..4.
DATA encodeCont<>+0(SB)/8, $0x0000000000
DATA encodeCont<>+8(SB)/8, $0x0000000080
DATA encodeCont<>+16(SB)/8, $0x0000008080
DATA encodeCont<>+24(SB)/8, $0x0000808080
DATA encodeCont<>+32(SB)/8, $0x0080808080
GLOBL encodeCont<>(SB), RODATA|NOPTR, $40

// Decoder registers.
#define p R0       // next byte of src
#define pend R1    // end of src
#define out R2     // next slot of dst
#define outEnd R3  // end of dst
#define cont R4    // window: bytes with bit 7 set
#define stop R5    // window: bytes that end a varint
#define cmask R6   // window: bytes of complete varints
#define rstop R10  // stop, bit-reversed; consumed from the top
#define s R11      // offset of the current varint in the window
#define top R12    // 1<<63

// MASK64(op, k, dst) compares V0-V3 with Vk byte by byte (op is VCMTST or
// VCMEQ) and leaves in dst a 64-bit mask with bit i set for byte i.
#define MASK64(op, k, dst) \
	op	V0.B16, k.B16, V4.B16; \
	op	V1.B16, k.B16, V5.B16; \
	op	V2.B16, k.B16, V6.B16; \
	op	V3.B16, k.B16, V7.B16; \
	VAND	V10.B16, V4.B16, V4.B16; \
	VAND	V10.B16, V5.B16, V5.B16; \
	VAND	V10.B16, V6.B16, V6.B16; \
	VAND	V10.B16, V7.B16, V7.B16; \
	VADDP	V5.B16, V4.B16, V4.B16; \
	VADDP	V7.B16, V6.B16, V6.B16; \
	VADDP	V6.B16, V4.B16, V4.B16; \
	VADDP	V4.B16, V4.B16, V4.B16; \
	VMOV	V4.D[0], dst

// WIDEN16(v) zero-extends the 16 bytes of v to uint32s and stores them at out.
#define WIDEN16(v) \
	VUXTL	v.B8, V4.H8; \
	VUXTL2	v.B16, V5.H8; \
	VUXTL	V4.H4, V12.S4; \
	VUXTL2	V4.H8, V13.S4; \
	VUXTL	V5.H4, V14.S4; \
	VUXTL2	V5.H8, V15.S4; \
	VST1.P	[V12.S4, V13.S4, V14.S4, V15.S4], 64(out)

// func decodeNEON(dst []uint32, src []byte) (nd, ns int)
//
// decodeNEON decodes 64-byte windows. NEON compares give the window's
// continuation, zero and high-nibble masks, which validate it as the amd64
// kernels do; then each varint is one 8-byte load, masked to its length,
// whose 7-bit groups UBFX/BFI merge, and the loop carries only the stop
// bitmap. A window of 64 one-byte values is widened with VUXTL instead. It
// reads up to 8 bytes past a window, so it runs only while 72 bytes of src
// remain, and only while dst has room for 64 values.
TEXT ·decodeNEON(SB), NOSPLIT, $0-64
	MOVD	dst_base+0(FP), out
	MOVD	dst_len+8(FP), outEnd
	ADD	outEnd<<2, out, outEnd
	MOVD	src_base+24(FP), p
	MOVD	src_len+32(FP), pend
	ADD	p, pend, pend
	VMOVI	$0x80, V8.B16
	VEOR	V9.B16, V9.B16, V9.B16
	MOVD	$decodeWeights<>(SB), R7
	VLD1	(R7), [V10.B16]
	VMOVI	$0xf0, V11.B16
	MOVD	$0x8000000000000000, top

window:
	SUB	p, pend, R7
	CMP	$72, R7
	BLO	done
	SUB	out, outEnd, R7
	CMP	$256, R7
	BLO	done
	VLD1	(p), [V0.B16, V1.B16, V2.B16, V3.B16]
	MASK64(VCMTST, V8, cont)
	MVN	cont, stop
	CBZ	stop, done      // no varint ends in this window
	CMN	$1, stop
	BEQ	onebyte         // 64 one-byte varints
	CLZ	stop, R7
	MOVD	$-1, cmask
	LSR	R7, cmask, cmask

	// A 00 byte that continues a varint makes it non-canonical.
	MASK64(VCMEQ, V9, R7)
	LSL	$1, cont, R8
	AND	R7, R8, R8
	TST	cmask, R8
	BNE	done

	// R8: first bytes of runs of four continuation bytes (five-byte
	// varints, or longer).
	AND	cont>>1, cont, R8
	AND	cont>>2, R8, R8
	AND	cont>>3, R8, R8
	AND	cmask, R8, R8
	CBZ	R8, decode
	TST	cont>>4, R8     // a fifth continuation byte: six bytes or more
	BNE	done
	MASK64(VCMTST, V11, R9)
	LSL	$4, R8, R8
	TST	R9, R8          // a fifth byte above 0x0F overflows uint32
	BNE	done

decode:
	RBIT	stop, rstop
	MOVD	ZR, s

varint:
	CLZ	rstop, R13      // e: offset of this varint's last byte
	MOVD	(p)(s), R14
	LSR	R13, top, R15
	BIC	R15, rstop, rstop
	ADD	$1, R13, R13
	SUB	s, R13, R15     // its length
	LSL	$3, R15, R15
	MOVD	$64, R16
	SUB	R15, R16, R15
	LSL	R15, R14, R14   // keep its bytes only
	LSR	R15, R14, R14
	AND	$0x7f, R14, R16
	UBFX	$8, R14, $7, R17
	BFI	$7, R17, $7, R16
	UBFX	$16, R14, $7, R17
	BFI	$14, R17, $7, R16
	UBFX	$24, R14, $7, R17
	BFI	$21, R17, $7, R16
	UBFX	$32, R14, $4, R17
	BFI	$28, R17, $4, R16
	MOVW.P	R16, 4(out)
	MOVD	R13, s
	CBNZ	rstop, varint

	CLZ	stop, R7        // move past the window's last stop byte
	MOVD	$64, R8
	SUB	R7, R8, R8
	ADD	R8, p, p
	B	window

onebyte:
	WIDEN16(V0)
	WIDEN16(V1)
	WIDEN16(V2)
	WIDEN16(V3)
	ADD	$64, p, p
	B	window

done:
	MOVD	dst_base+0(FP), R7
	SUB	R7, out, out
	LSR	$2, out, out
	MOVD	out, nd+48(FP)
	MOVD	src_base+24(FP), R7
	SUB	R7, p, p
	MOVD	p, ns+56(FP)
	RET

#undef p
#undef pend
#undef out

// Encoder registers.
#define out R0      // next byte of dst
#define end R1      // end of dst
#define p R2        // next value of v
#define pend R3     // end of v
#define groups R4   // 0x7f in each of the five bytes
#define highs R5    // 0x80 in each of the five bytes
#define conts R6    // encodeCont

// VALUE writes the varint of the value at p with one 8-byte store at out:
// UBFX/BFI spread its 7-bit groups over five bytes, and the highest nonzero
// byte gives the length and the continuation bits.
#define VALUE \
	MOVWU.P	4(p), R7; \
	AND	$0x7f, R7, R8; \
	UBFX	$7, R7, $7, R9; \
	BFI	$8, R9, $7, R8; \
	UBFX	$14, R7, $7, R9; \
	BFI	$16, R9, $7, R8; \
	UBFX	$21, R7, $7, R9; \
	BFI	$24, R9, $7, R8; \
	UBFX	$28, R7, $4, R9; \
	BFI	$32, R9, $4, R8; \
	ADD	groups, R8, R9; \
	AND	highs, R9, R9; \
	ORR	$0x80, R9, R9; \
	CLZ	R9, R9; \
	MOVD	$63, R10; \
	SUB	R9, R10, R10; \
	LSR	$3, R10, R10; \
	MOVD	(conts)(R10<<3), R9; \
	ORR	R9, R8, R8; \
	MOVD	R8, (out); \
	ADD	$1, R10, R10; \
	ADD	R10, out, out

// func encodeNEON(dst []byte, v []uint32) (nd, nv int)
//
// encodeNEON looks at eight values at a time: if all are below 0x80, VUZP1
// narrows them to bytes for one 8-byte store; otherwise, and for the last
// values, VALUE writes one varint at a time. It stops when fewer than 8
// bytes of dst remain; encodeGeneric finishes.
TEXT ·encodeNEON(SB), NOSPLIT, $0-64
	MOVD	dst_base+0(FP), out
	MOVD	dst_len+8(FP), end
	ADD	out, end, end
	MOVD	v_base+24(FP), p
	MOVD	v_len+32(FP), pend
	ADD	pend<<2, p, pend
	MOVD	$0x7f7f7f7f7f, groups
	MOVD	$0x8080808080, highs
	MOVD	$encodeCont<>(SB), conts

eight:
	SUB	p, pend, R7
	CMP	$32, R7
	BLO	one
	SUB	out, end, R7
	CMP	$48, R7         // eight five-byte varints, the last store spanning eight
	BLO	one
	VLD1	(p), [V0.S4, V1.S4]
	VORR	V1.B16, V0.B16, V2.B16
	VMOV	V2.D[0], R7
	VMOV	V2.D[1], R8
	ORR	R8, R7, R7
	MOVD	$0xffffff80ffffff80, R8
	TST	R8, R7
	BNE	slow
	VUZP1	V1.H8, V0.H8, V2.H8
	VUZP1	V2.B16, V2.B16, V2.B16
	VMOV	V2.D[0], R7
	MOVD.P	R7, 8(out)
	ADD	$32, p, p
	B	eight

slow:
	MOVD	$8, R11
slowvalue:
	VALUE
	SUBS	$1, R11, R11
	BNE	slowvalue
	B	eight

one:
	CMP	pend, p
	BHS	encdone
	SUB	out, end, R7
	CMP	$8, R7
	BLO	encdone
	VALUE
	B	one

encdone:
	MOVD	dst_base+0(FP), R7
	SUB	R7, out, out
	MOVD	out, nd+48(FP)
	MOVD	v_base+24(FP), R7
	SUB	R7, p, p
	LSR	$2, p, p
	MOVD	p, nv+56(FP)
	RET
