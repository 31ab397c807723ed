// Command _asm generates the amd64 CRC-32/IEEE kernels, crc_amd64.s, and
// their Go declarations, crc_stubs_amd64.go, with avo. Regenerate with
// `go generate` in this directory; CI fails if the committed files differ.
//
// The kernels fold the input with carry-less multiplication (Intel's "Fast
// CRC Computation for Generic Polynomials Using PCLMULQDQ", in its
// bit-reflected form, as zlib and Linux use it): a vector of 128-bit lanes
// holds the CRC state of the bytes so far, and folding multiplies each lane
// by x^D mod P to move it D bits forward onto the next block, which is then
// XORed in. At the end the lanes are folded into one 128-bit value, the
// last partial block is merged with a byte shuffle, and a Barrett reduction
// leaves the 32-bit CRC. Every constant is computed below from P; none is
// copied from elsewhere.
package main

//go:generate go run . -out ../crc_amd64.s -stubs ../crc_stubs_amd64.go -pkg crc

import (
	"fmt"
	"math/bits"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// poly is the IEEE polynomial P (x^32 implied), in normal bit order.
const poly = 0x04C11DB7

// xpow returns x^n mod P, in normal bit order.
func xpow(n int) uint32 {
	v := uint32(1)
	for range n {
		carry := v&0x80000000 != 0
		v <<= 1
		if carry {
			v ^= poly
		}
	}
	return v
}

// k is the folding constant for a distance of n bits in the reflected
// domain: x^n mod P, bit-reflected, times x (one place up, because the
// product of two reflected values comes out one bit short).
func k(n int) uint64 { return uint64(bits.Reverse32(xpow(n))) << 1 }

// quotient returns floor(x^n / P), n <= 96, in normal bit order: the
// multiplier of a Barrett reduction.
func quotient(n int) uint64 {
	// Long division over a 128-bit remainder (hi, lo).
	p := uint64(1<<32 | poly)
	hi, lo := uint64(0), uint64(0)
	if n >= 64 {
		hi = 1 << (n - 64)
	} else {
		lo = 1 << n
	}
	var q uint64
	for i := n; i >= 32; i-- {
		var bit uint64
		if i >= 64 {
			bit = hi >> (i - 64) & 1
		} else {
			bit = lo >> i & 1
		}
		if bit == 0 {
			continue
		}
		q |= 1 << (i - 32)
		// Subtract P * x^(i-32).
		sh := i - 32
		if sh < 64 {
			lo ^= p << sh
			if sh > 31 {
				hi ^= p >> (64 - sh)
			}
		} else {
			hi ^= p << (sh - 64)
		}
	}
	return q
}

// reflect33 reverses the low 33 bits of v.
func reflect33(v uint64) uint64 { return bits.Reverse64(v) >> 31 }

// pReflected is P with its x^32 term, reflected over 33 bits.
func pReflected() uint64 { return reflect33(1<<32 | poly) }

// checkConstants compares the derivation with the values published with
// the method (Intel's paper, Linux crc32-pclmul), so a slip in the maths
// fails generation instead of producing a wrong kernel.
func checkConstants() {
	for _, c := range []struct {
		got, want uint64
	}{
		{k(4*128 + 32), 0x154442bd4}, {k(4*128 - 32), 0x1c6e41596},
		{k(128 + 32), 0x1751997d0}, {k(128 - 32), 0x0ccaa009e}, {k(64), 0x163cd6124},
		{pReflected(), 0x1db710641}, {reflect33(quotient(64)), 0x1f7011641},
		{bits.Reverse64(quotient(95)), 0xb4e5b025f7011641},
	} {
		if c.got != c.want {
			panic(fmt.Sprintf("constant %#x, want %#x", c.got, c.want))
		}
	}
}

// pairs emits a table of 128-bit lanes, each holding (lo, hi) constants.
func pairs(name string, lanes [][2]uint64) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i, l := range lanes {
		DATA(16*i, U64(l[0]))
		DATA(16*i+8, U64(l[1]))
	}
	return m
}

// foldPair is the constant pair that moves a 128-bit lane d bits forward:
// its low qword is multiplied by k(d+32), its high qword by k(d-32).
func foldPair(d int) [2]uint64 { return [2]uint64{k(d + 32), k(d - 32)} }

// repeat fills n lanes with the same pair.
func repeat(p [2]uint64, n int) [][2]uint64 {
	r := make([][2]uint64, n)
	for i := range r {
		r[i] = p
	}
	return r
}

func main() {
	checkConstants()
	ConstraintExpr("!purego")
	shared := sharedConsts()
	kernel("updateAVX512", 64, shared)
	kernel("updateAVX2", 32, shared)
	Generate()
}

type consts struct {
	k128, barrett, shuf Mem
}

func sharedConsts() consts {
	c := consts{
		k128:    pairs("crcFold128", [][2]uint64{foldPair(128)}),
		barrett: pairs("crcBarrett", [][2]uint64{{bits.Reverse64(quotient(95)), pReflected()}}),
	}
	// Byte-shift shuffles for the last partial block: loading 16 bytes at
	// offset r gives "shift left by 16-r bytes", at 16+r "shift right by r";
	// 0x80 selects zero (and, as a VPBLENDVB mask, the other operand).
	c.shuf = GLOBL("crcShuffle", RODATA|NOPTR)
	for i := range 48 {
		b := byte(0x80)
		if i >= 16 && i < 32 {
			b = byte(i - 16)
		}
		DATA(i, U8(b))
	}
	return c
}

// kernel emits one update function working in vectors of width bytes (64
// for zmm, 32 for ymm), with four accumulators for long inputs.
func kernel(name string, width int, c consts) {
	lanes := width / 16
	wide := func() VecVirtual {
		if width == 64 {
			return ZMM()
		}
		return YMM()
	}
	feature := map[int]string{64: "AVX-512 F and VL, VPCLMULQDQ", 32: "AVX2 and VPCLMULQDQ"}[width]
	TEXT(name, NOSPLIT, "func(crc uint32, p []byte) uint32")
	Pragma("noescape")
	Doc(
		fmt.Sprintf("%s is updateGeneric (crc_generic.go) for CPUs with %s", name, feature),
		fmt.Sprintf("(and PCLMULQDQ): it folds %d-byte vectors, four at a time from %d bytes,", width, 4*width),
		"then 16-byte blocks, then merges the last partial block with a shuffle",
		"and ends with a Barrett reduction. It needs len(p) >= 16 and reads",
		"only p.",
	)
	crcTables := func(suffix string, d int) Mem {
		return pairs(fmt.Sprintf("crc%s%d", suffix, width), repeat(foldPair(d), lanes))
	}
	k4 := crcTables("Fold4x", 8*4*width)
	k3 := crcTables("Fold3x", 8*3*width)
	k2 := crcTables("Fold2x", 8*2*width)
	k1 := crcTables("Fold1x", 8*width)
	Comment("Lane j of the last vector moves (lanes-1-j)*128 bits to the last lane;", "the last lane's pair is zero, and the lane itself is XORed in instead.")
	var lanePairs [][2]uint64
	for j := range lanes {
		if j == lanes-1 {
			lanePairs = append(lanePairs, [2]uint64{0, 0})
		} else {
			lanePairs = append(lanePairs, foldPair(128*(lanes-1-j)))
		}
	}
	kLanes := pairs(fmt.Sprintf("crcLanes%d", width), lanePairs)

	Comment("fold moves v forward by the distance of the constants in kv and XORs", "in next: v = v.lo*k.lo ^ v.hi*k.hi ^ next.")
	fold := func(v, kv VecVirtual, next Op) {
		var t VecVirtual
		switch v.Size() {
		case 16:
			t = XMM()
		default:
			t = wide()
		}
		VPCLMULQDQ(U8(0x11), kv, v, t)
		VPCLMULQDQ(U8(0x00), kv, v, v)
		if v.Size() == 64 {
			VPTERNLOGD(U8(0x96), next, t, v)
		} else {
			VPXOR(next, v, v)
			VPXOR(t, v, v)
		}
	}
	loadK := func(m Mem) VecVirtual {
		kv := wide()
		if width == 64 {
			VMOVDQU64(m, kv)
		} else {
			VMOVDQU(m, kv)
		}
		return kv
	}
	loadV := func(m Mem, v VecVirtual) {
		if v.Size() == 64 {
			VMOVDQU64(m, v)
		} else {
			VMOVDQU(m, v)
		}
	}

	crc := GP32()
	Load(Param("crc"), crc)
	NOTL(crc)
	p := Load(Param("p").Base(), GP64())
	n := Load(Param("p").Len(), GP64())
	x0 := XMM() // the inverted CRC, zero-extended: XORed into the first bytes
	VMOVD(crc, x0)
	l := func(s string) string { return name + "_" + s }

	CMPQ(n, U32(width))
	JB(LabelRef(l("xmm_start")))
	v := wide()
	CMPQ(n, U32(4*width))
	JB(LabelRef(l("one_start")))

	Comment("Four accumulators, 4*width bytes per step.")
	acc := []VecVirtual{v, wide(), wide(), wide()}
	for i, a := range acc {
		loadV(Mem{Base: p, Disp: i * width}, a)
	}
	if width == 64 {
		VPXORQ(x0.AsZ(), acc[0], acc[0]) // VMOVD zeroed x0 above 32 bits
	} else {
		VPXOR(x0.AsY(), acc[0], acc[0])
	}
	ADDQ(U32(4*width), p)
	SUBQ(U32(4*width), n)
	{
		kv := loadK(k4)
		CMPQ(n, U32(4*width))
		JB(LabelRef(l("combine")))
		Label(l("four"))
		for i, a := range acc {
			fold(a, kv, Mem{Base: p, Disp: i * width})
		}
		ADDQ(U32(4*width), p)
		SUBQ(U32(4*width), n)
		CMPQ(n, U32(4*width))
		JAE(LabelRef(l("four")))
	}
	Label(l("combine"))
	Comment("Fold the first three accumulators onto the fourth, in parallel.")
	for i, m := range []Mem{k3, k2, k1} {
		fold(acc[i], loadK(m), acc[3])
		acc[3] = acc[i]
	}
	if width == 64 {
		VMOVDQU64(acc[3], v)
	} else {
		VMOVDQU(acc[3], v)
	}
	JMP(LabelRef(l("one")))

	Comment("One accumulator, width bytes per step.")
	Label(l("one_start"))
	loadV(Mem{Base: p}, v)
	if width == 64 {
		VPXORQ(x0.AsZ(), v, v)
	} else {
		VPXOR(x0.AsY(), v, v)
	}
	ADDQ(U32(width), p)
	SUBQ(U32(width), n)
	Label(l("one"))
	{
		kv := loadK(k1)
		CMPQ(n, U32(width))
		JB(LabelRef(l("lanes")))
		Label(l("one_loop"))
		fold(v, kv, Mem{Base: p})
		ADDQ(U32(width), p)
		SUBQ(U32(width), n)
		CMPQ(n, U32(width))
		JAE(LabelRef(l("one_loop")))
	}

	Comment("Fold the lanes of v into one 128-bit value x.")
	Label(l("lanes"))
	x := XMM()
	{
		kv, t := loadK(kLanes), wide()
		VPCLMULQDQ(U8(0x11), kv, v, t)
		VPCLMULQDQ(U8(0x00), kv, v, kv)
		if width == 64 {
			y, yt := YMM(), YMM()
			VEXTRACTI32X4(U8(3), v, x) // the last lane, unmoved
			VPXORQ(t, kv, kv)
			VEXTRACTI64X4(U8(1), kv, yt)
			VPXOR(yt, kv.AsY(), y)
			VEXTRACTI128(U8(1), y, t.AsX())
			VPTERNLOGD(U8(0x96), t.AsX(), y.AsX(), x)
		} else {
			VEXTRACTI128(U8(1), v, x)
			VPXOR(t.AsX(), x, x)
			VPXOR(kv.AsX(), x, x)
		}
	}
	JMP(LabelRef(l("blocks")))

	Comment("Fewer than width bytes: start from one 16-byte block.")
	Label(l("xmm_start"))
	VMOVDQU(Mem{Base: p}, x)
	VPXOR(x0, x, x)
	ADDQ(U8(16), p)
	SUBQ(U8(16), n)

	Comment("16-byte blocks.")
	Label(l("blocks"))
	k128 := XMM()
	VMOVDQU(c.k128, k128)
	CMPQ(n, U8(16))
	JB(LabelRef(l("tail")))
	Label(l("block"))
	fold(x, k128, Mem{Base: p})
	ADDQ(U8(16), p)
	SUBQ(U8(16), n)
	CMPQ(n, U8(16))
	JAE(LabelRef(l("block")))

	Comment("The last r = n bytes (0 < r < 16): the message now ends with x's 16", "bytes and then r more. Its last 16 bytes, b, are x shifted down r", "bytes with the r new bytes above; the r bytes of x that fall out, a,", "sit at the top of a block of their own, folded onto b.")
	Label(l("tail"))
	TESTQ(n, n)
	JZ(LabelRef(l("reduce")))
	{
		tab, last, right, left, b := GP64(), XMM(), XMM(), XMM(), XMM()
		LEAQ(c.shuf, tab)
		VMOVDQU(Mem{Base: p, Index: n, Scale: 1, Disp: -16}, last)
		VMOVDQU(Mem{Base: tab, Index: n, Scale: 1, Disp: 16}, right)
		VMOVDQU(Mem{Base: tab, Index: n, Scale: 1}, left)
		VPSHUFB(right, x, b)
		VPBLENDVB(right, last, b, b)
		VPSHUFB(left, x, x)
		fold(x, k128, b)
	}

	Comment("128 bits to 32. Register bit t of x holds the coefficient of", "x^(127-t). Folding the low qword H by x^96 mod P onto the high one L", "leaves V = H*(x^96 mod P) + L*x^32, of degree < 96, with bit t", "holding x^(95-t): V1 = floor(V/x^32) in the low qword, V0 in bits", "64-95. Barrett then needs two products: the quotient", "q = floor(V1*mu/x^63), mu = floor(x^95/P) (exact for deg V < 96),", "which lands in the low qword of the product with mu reflected over", "64 bits, and the low 32 terms of q*P, which land in bits 64-95 with", "P reflected over 33 bits, next to V0. (The CRC is V mod P =", "V0 + (q*P mod x^32); zlib's and Intel's reductions take four", "products, this one three, as Linux's crc-pclmul template does.)")
	Label(l("reduce"))
	{
		t, kb := XMM(), XMM()
		VPCLMULQDQ(U8(0x10), k128, x, t) // H * (x^96 mod P)
		VPSRLDQ(U8(8), x, x)
		VPXOR(t, x, x)
		VMOVDQU(c.barrett, kb)
		VPCLMULQDQ(U8(0x00), kb, x, t) // q = V1 * mu
		VPCLMULQDQ(U8(0x10), kb, t, t) // q * P
		VPXOR(t, x, x)
		VPEXTRD(U8(2), x, crc)
	}
	NOTL(crc)
	Store(crc, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
