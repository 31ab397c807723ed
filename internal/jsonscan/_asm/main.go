// Command _asm generates the amd64 string kernel of jsonscan,
// masks_amd64.s, and its Go declaration, masks_stubs_amd64.go, with avo.
// Regenerate with `go generate` in this directory; CI fails if the
// committed files differ.
//
// The kernel turns each 64 bytes of input into four 64-bit masks, a bit a
// byte, of what a string body must stop at or look at: quotes,
// backslashes, control and non-ASCII bytes, and the bytes that cannot end
// a two-byte escape (string_amd64.go says how the scanner uses them). Per
// 32 bytes: two VPCMPEQB for the quote and the backslash, one signed
// VPCMPGTB for the bytes below 0x20 or from 0x80 (negative as signed
// bytes), two VPSHUFB nibble lookups for the escapes, and a VPMOVMSKB per
// mask. VPMOVMSKB, eight a block, is what bounds its speed (about 16 GB/s
// in L1 on the Xeon of bench/README.md).
package main

//go:generate go run . -out ../masks_amd64.s -stubs ../masks_stubs_amd64.go -pkg jsonscan

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// simpleEscapes are the bytes that may follow a backslash in a two-byte
// escape.
const simpleEscapes = `"\/bfnrt`

// prefetch is how far ahead of the block it reads the kernel asks for the
// input to be brought into the cache: two of the scanner's 1,024-byte
// windows. The scanner reads a window's bytes again as it goes through
// them, in L1, and the hardware prefetchers do not run ahead of that; so
// each window started with misses to memory, and Scan over the
// development corpus was 13% faster with the hint (1,024 to 8,192 bytes
// measured the same). A prefetch past the end of the input does not fault.
const prefetch = 2048

func main() {
	ConstraintExpr("!purego")
	hiTab, loTab := escapeTables()

	TEXT("masksAVX2", NOSPLIT, "func(p []byte, tail *[64]byte, masks [][4]uint64)")
	Pragma("noescape")
	Doc(
		"masksAVX2 computes the masks of each 64-byte block of p, and then of",
		"tail unless it is nil, into masks, for CPUs with AVX2. Bit j of",
		"masks[k][0] is set iff byte j of block k is '\"'; of masks[k][1] iff it",
		"is '\\\\'; of masks[k][2] iff it is below 0x20 or 0x80 or above; of",
		"masks[k][3] iff it is not one of "+"`"+simpleEscapes+"`"+", the bytes that may follow",
		"a backslash in a two-byte escape. len(p) must be a multiple of 64, and",
		"masks must have room for every block. It reads only p and tail.",
	)
	ptr := Load(Param("p").Base(), GP64())
	n := Load(Param("p").Len(), GP64())
	last := Load(Param("tail"), GP64())
	out := Load(Param("masks").Base(), GP64())

	quote, backslash, space, nibble, hi, lo, zero := YMM(), YMM(), YMM(), YMM(), YMM(), YMM(), YMM()
	splat('"', quote)
	splat('\\', backslash)
	splat(' ', space)
	splat(0x0F, nibble)
	table(hiTab, hi)
	table(loTab, lo)
	VPXOR(zero, zero, zero)

	// half returns the four masks of the 32 bytes in, in the low 32 bits
	// of each register.
	half := func(in VecVirtual) (m [4]GPVirtual) {
		eq, bs, other, h, l := YMM(), YMM(), YMM(), YMM(), YMM()
		VPCMPEQB(quote, in, eq)
		VPCMPEQB(backslash, in, bs)
		VPCMPGTB(in, space, other) // signed: ' ' > b
		VPSRLW(U8(4), in, h)
		VPAND(nibble, h, h)
		VPSHUFB(h, hi, h)
		VPAND(nibble, in, l)
		VPSHUFB(l, lo, l)
		VPAND(h, l, l)
		VPCMPEQB(zero, l, l) // no bit in common: not a simple escape
		for j, v := range []VecVirtual{eq, bs, other, l} {
			m[j] = GP64()
			VPMOVMSKB(v, m[j].As32())
		}
		return m
	}

	SHRQ(U8(6), n)
	Label("loop")
	TESTQ(n, n)
	JZ(LabelRef("tail"))
	PREFETCHT0(Mem{Base: ptr, Disp: prefetch})
	in0, in1 := YMM(), YMM()
	VMOVDQU(Mem{Base: ptr}, in0)
	VMOVDQU(Mem{Base: ptr, Disp: 32}, in1)
	m0, m1 := half(in0), half(in1)
	for j := range m0 {
		SHLQ(U8(32), m1[j])
		ORQ(m1[j], m0[j])
		MOVQ(m0[j], Mem{Base: out, Disp: 8 * j})
	}
	ADDQ(U8(64), ptr)
	ADDQ(U8(32), out)
	DECQ(n)
	JMP(LabelRef("loop"))

	Label("tail")
	Comment("The tail, if any, is one more block.")
	TESTQ(last, last)
	JZ(LabelRef("done"))
	MOVQ(last, ptr)
	XORQ(last, last)
	MOVQ(U32(1), n)
	JMP(LabelRef("loop"))

	Label("done")
	VZEROUPPER()
	RET()

	Generate()
}

// escapeTables returns the lookups by a byte's high and by its low nibble
// whose AND is non-zero iff the byte is one of simpleEscapes: a bit for
// each high nibble they have, set in the low-nibble table at the low
// nibbles that go with it. A byte of 0x80 or more has a high nibble none
// of them has.
func escapeTables() (hi, lo [16]byte) {
	bit := map[byte]byte{}
	for _, c := range []byte(simpleEscapes) {
		h := c >> 4
		if _, ok := bit[h]; !ok {
			bit[h] = 1 << len(bit)
		}
		hi[h] = bit[h]
		lo[c&15] |= bit[h]
	}
	if len(bit) > 8 {
		panic("more high nibbles than bits in a byte")
	}
	return hi, lo
}

// splat sets y to 32 bytes of b. The kernel's constants are made in
// registers rather than loaded from memory: Scan calls the kernel once or
// twice for most records, often right after Brotli has had the caches,
// where each load of a constant could miss.
func splat(b byte, y VecVirtual) {
	r := GP32()
	MOVL(U32(0x01010101*uint32(b)), r)
	x := XMM()
	VMOVD(r, x)
	VPBROADCASTD(x, y)
}

// table sets y to t twice, a 16-entry lookup for VPSHUFB, which looks
// up in each 128-bit lane.
func table(t [16]byte, y VecVirtual) {
	var lo, hi uint64
	for i := 7; i >= 0; i-- {
		lo = lo<<8 | uint64(t[i])
		hi = hi<<8 | uint64(t[i+8])
	}
	r := GP64()
	x := XMM()
	MOVQ(U64(lo), r)
	VMOVQ(r, x)
	MOVQ(U64(hi), r)
	VPINSRQ(U8(1), r, x, x)
	VINSERTI128(U8(1), x, x.AsY(), y)
}
