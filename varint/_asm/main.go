// Command _asm generates the amd64 varint kernels, varint_amd64.s, and their
// Go declarations, varint_stubs_amd64.go, with avo. Each kernel follows the
// contract of its generic twin in varint_generic.go; the comments here say
// how, step by step. Regenerate with `go generate` in this directory; CI
// fails if the committed files differ from what this program writes.
package main

//go:generate go run . -out ../varint_amd64.s -stubs ../varint_stubs_amd64.go -pkg varint

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// VPCMPUB predicates.
const (
	cmpLE  = 2
	cmpNLE = 6 // greater than
)

// VPTERNLOG truth table for dst = C ? dst : B, with the operands in Go order
// (imm, C, B, dst).
const ternSelect = 0xE4

func main() {
	ConstraintExpr("!purego")
	decodeAVX512VBMI2()
	decodeAVX2()
	encodeAVX512VBMI2()
	encodeAVX2()
	Generate()
}

// bytesTable emits a 64-byte read-only table with f(i) at byte i.
func bytesTable(name string, f func(i int) byte) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i := range 64 {
		DATA(i, U8(f(i)))
	}
	return m
}

// broadcastD fills a vector register with the 32-bit constant c in every
// lane. It goes through an XMM register: VPBROADCASTD from a general
// register exists only in AVX-512, and AVX2 kernels use this too.
func broadcastD(c uint32, v VecVirtual) VecVirtual {
	r, x := GP32(), XMM()
	MOVL(U32(c), r)
	VMOVD(r, x)
	VPBROADCASTD(x, v)
	return v
}

// broadcastQ fills a vector register with the 64-bit constant c in every
// lane; see broadcastD.
func broadcastQ(c uint64, v VecVirtual) VecVirtual {
	r, x := GP64(), XMM()
	MOVQ(U64(c), r)
	VMOVQ(r, x)
	VPBROADCASTQ(x, v)
	return v
}

// constQ loads a 64-bit constant into a fresh register.
func constQ(c uint64) GPVirtual {
	r := GP64()
	MOVQ(U64(c), r)
	return r
}

// windowChecks emits the validation shared by both decoders. A window is 64
// bytes starting on a varint boundary; cont has bit i set when byte i has
// bit 7 set, and cmask covers the bytes of the window's complete varints,
// which it consumes. It jumps to bail when the window holds a non-canonical
// varint (a 00 byte that continues a varint), a varint of six or more bytes,
// or a five-byte varint above 32 bits; generic code then finds and reports
// that error. zero and big load the masks of 00 bytes and of bytes above
// 0x0F. The result is nonzero when the window holds five-byte varints,
// whose values need more than the four bytes of a 32-bit lane.
func windowChecks(cont, cmask GPVirtual, zero, big func() GPVirtual, bail string) GPVirtual {
	r4, t := GP64(), GP64()
	Comment("r4: first bytes of runs of four continuation bytes, i.e. of varints", "of five bytes or more.")
	MOVQ(cont, r4)
	for _, s := range []uint64{1, 2, 3} {
		MOVQ(cont, t)
		SHRQ(U8(s), t)
		ANDQ(t, r4)
	}
	ANDQ(cmask, r4)

	Comment("bad: 00 bytes preceded by a continuation byte. The byte before the", "window ends a varint, so bit 0 of cont<<1 is rightly clear.")
	bad := GP64()
	MOVQ(cont, bad)
	SHLQ(U8(1), bad)
	ANDQ(zero(), bad)
	ANDQ(cmask, bad)
	JNZ(LabelRef(bail))

	TESTQ(r4, r4)
	JZ(LabelRef(bail + "_checked"))
	Comment("A fifth continuation byte means six bytes or more: overflow.")
	MOVQ(cont, t)
	SHRQ(U8(4), t)
	TESTQ(r4, t)
	JNZ(LabelRef(bail))
	Comment("The fifth byte may hold only the top 4 bits of a uint32.")
	MOVQ(r4, t)
	SHLQ(U8(4), t)
	TESTQ(big(), t)
	JNZ(LabelRef(bail))
	Label(bail + "_checked")
	return r4
}

// decoderState is where a decoder is: p is the next byte of src and out the
// next slot of dst. Keeping pointers instead of base, length and index frees
// the registers the window checks need.
type decoderState struct {
	p, pend, out, outEnd GPVirtual
}

func loadDecoderState() decoderState {
	s := decoderState{GP64(), GP64(), GP64(), GP64()}
	Load(Param("src").Base(), s.p)
	Load(Param("src").Len(), s.pend)
	ADDQ(s.p, s.pend)
	Load(Param("dst").Base(), s.out)
	Load(Param("dst").Len(), s.outEnd)
	LEAQ(Mem{Base: s.out, Index: s.outEnd, Scale: 4}, s.outEnd)
	return s
}

// windowFits jumps to done unless count more values fit in dst.
func (s decoderState) windowFits(stop GPVirtual, done string) {
	count, left := GP64(), GP64()
	POPCNTQ(stop, count)
	MOVQ(s.outEnd, left)
	SUBQ(s.out, left)
	SHRQ(U8(2), left)
	CMPQ(count, left)
	JA(LabelRef(done))
}

// storeResults returns nd and ns, the distance travelled in dst and src.
func (s decoderState) storeResults() {
	base := GP64()
	Load(Param("dst").Base(), base)
	SUBQ(base, s.out)
	SHRQ(U8(2), s.out)
	Store(s.out, ReturnIndex(0))
	Load(Param("src").Base(), base)
	SUBQ(base, s.p)
	Store(s.p, ReturnIndex(1))
}

// oneByteWindow jumps to fast when every byte of the window ends a varint:
// 64 one-byte values need no gathering and no checks, only widening.
func oneByteWindow(stop GPVirtual, fast string) {
	CMPQ(stop, I8(-1))
	JE(LabelRef(fast))
}

// widenWindow stores the 64 bytes at p as 64 uint32s at out, and moves past
// them, with width-byte VPMOVZXBD steps.
func (s decoderState) widenWindow(width int, vec func() VecVirtual, store func(...Op)) {
	for off := 0; off < 64; off += width / 4 {
		v := vec()
		VPMOVZXBD(Mem{Base: s.p, Disp: off}, v)
		store(v, Mem{Base: s.out, Disp: 4 * off})
	}
	ADDQ(U8(64), s.p)
	ADDQ(U32(256), s.out)
}

// consumedMask returns the mask of the bytes of a window's complete varints:
// those up to its last stop byte.
func consumedMask(stop GPVirtual) GPVirtual {
	lz, cmask := GP64(), GP64()
	LZCNTQ(stop, lz)
	MOVQ(I64(-1), cmask)
	SHRXQ(lz, cmask, cmask)
	return cmask
}

// advance moves p past a window's complete varints.
func (s decoderState) advance(stop GPVirtual) {
	lz := GP64()
	LZCNTQ(stop, lz)
	ADDQ(U8(64), s.p)
	SUBQ(lz, s.p)
}

func decodeAVX512VBMI2() {
	TEXT("decodeAVX512VBMI2", NOSPLIT, "func(dst []uint32, src []byte) (nd, ns int)")
	Pragma("noescape")
	Doc(
		"decodeAVX512VBMI2 is decodeGeneric (varint_generic.go) for CPUs with",
		"AVX-512 F, BW, VL, VBMI and VBMI2, BMI1, BMI2, LZCNT and POPCNT.",
		"It decodes 64-byte windows: the stop bytes (bit 7 clear) give the end",
		"of every varint in one VPCOMPRESSB, VPERMB gathers each varint's bytes",
		"into a 32-bit lane (64-bit for five-byte varints), and shifts merge the",
		"7-bit groups. Loads past the end of src are masked, so it never reads",
		"outside src, and stores are masked, so it writes only dst[:nd]. It",
		"stops at the window that holds a malformed or truncated varint, and",
		"before a window whose values do not fit in dst.",
	)
	iotaTab := bytesTable("decodeIota", func(i int) byte { return byte(i) })
	Comment("Byte i takes byte i-1: turns \"end of varint j\" into \"start of j+1\".")
	prevTab := bytesTable("decodePrev", func(i int) byte { return byte(max(i-1, 0)) })
	Comment("Byte i of a chunk's gather index names varint i/4 (32-bit lanes) or", "i/8 (64-bit lanes) of the chunk.")
	by4 := GLOBL("decodeBy4", RODATA|NOPTR)
	for i := range 256 {
		DATA(i, U8(byte(i/4)))
	}
	by8 := bytesTable("decodeBy8", func(i int) byte { return byte(i / 8) })

	st := loadDecoderState()
	iota, prev := ZMM(), ZMM()
	VMOVDQU64(iotaTab, iota)
	VMOVDQU64(prevTab, prev)
	ones := broadcastD(0x01010101, ZMM())
	low7 := broadcastD(0x7f7f7f7f, ZMM())
	top4 := broadcastD(0x0f0f0f0f, ZMM())
	word7 := broadcastD(0x007f007f, ZMM())        // low 7 bits of each 16-bit lane
	mergeW := broadcastD(0x40000001, ZMM())       // VPMADDWD: lo + hi<<14
	seq4 := broadcastD(0x03020100, ZMM())         // bytes 0..3 of a 32-bit lane
	seq8 := broadcastQ(0x0706050403020100, ZMM()) // bytes 0..7 of a 64-bit lane
	quad28 := broadcastQ(0x0fffffff, ZMM())       // low 28 bits of a 64-bit lane
	by16 := make([]VecVirtual, 4)                 // chunk q: varints 16q..16q+15
	for q := range by16 {
		by16[q] = ZMM()
		VMOVDQU64(by4.Offset(64*q), by16[q])
	}
	step8 := broadcastD(0x08080808, ZMM())
	notFirst := K()
	{
		r := GP64()
		MOVQ(I64(-2), r)
		KMOVQ(r, notFirst)
	}

	Label("avx512_window")
	data, avail := ZMM(), GP64()
	MOVQ(st.pend, avail)
	SUBQ(st.p, avail)
	JZ(LabelRef("avx512_done"))
	CMPQ(avail, U8(64))
	JAE(LabelRef("avx512_full"))
	Comment("Fewer than 64 bytes left: a masked load reads only src's bytes.")
	{
		r, kload := GP64(), K()
		MOVQ(I64(-1), r)
		BZHIQ(avail, r, avail)
		KMOVQ(avail, kload)
		VMOVDQU8_Z(Mem{Base: st.p}, kload, data)
		JMP(LabelRef("avx512_loaded"))
	}
	Label("avx512_full")
	MOVQ(I64(-1), avail)
	VMOVDQU8(Mem{Base: st.p}, data)
	Label("avx512_loaded")

	kcont, cont, stop := K(), GP64(), GP64()
	VPMOVB2M(data, kcont)
	KMOVQ(kcont, cont)
	ANDNQ(avail, cont, stop)
	JZ(LabelRef("avx512_done")) // no varint ends in this window
	st.windowFits(stop, "avx512_done")
	oneByteWindow(stop, "avx512_bytes")
	wide := windowChecks(cont, consumedMask(stop),
		func() GPVirtual {
			k, r := K(), GP64()
			VPTESTNMB(data, data, k)
			KMOVQ(k, r)
			return r
		},
		func() GPVirtual {
			k, r := K(), GP64()
			VPCMPUB(U8(cmpNLE), top4, data, k)
			KMOVQ(k, r)
			return r
		},
		"avx512_done")

	Comment("ends: byte j = offset of the last byte of varint j; starts: of its first.")
	kstop, ends, starts := K(), ZMM(), ZMM()
	KMOVQ(stop, kstop)
	VPCOMPRESSB_Z(iota, kstop, ends)
	VPADDB(ones, ends, starts)
	VPERMB_Z(starts, prev, notFirst, starts)
	TESTQ(wide, wide)
	JNZ(LabelRef("avx512_wide"))

	Comment("chunk gathers the varints named by idx into a vector, merges their", "groups with merge, and stores the first min(n, lanes) of them at", "disp(out) with store.")
	chunk := func(idx, seq VecVirtual, n GPVirtual, disp int, merge func(v VecVirtual), store func(v VecVirtual, k OpmaskVirtual, m Mem)) {
		g, e, v, kin, kst, r := ZMM(), ZMM(), ZMM(), K(), K(), GP64()
		VPERMB(starts, idx, g)
		VPADDB(seq, g, g)
		VPERMB(ends, idx, e)
		VPCMPUB(U8(cmpLE), e, g, kin) // byte is part of the varint
		VPERMB_Z(data, g, kin, v)
		VPANDD(low7, v, v)
		merge(v)
		MOVQ(I64(-1), r)
		BZHIQ(n, r, r)
		KMOVQ(r, kst)
		store(v, kst, Mem{Base: st.out, Disp: disp})
	}
	merge14 := func(v VecVirtual) VecVirtual {
		t := ZMM()
		VPSRLW(U8(1), v, t)
		VPTERNLOGD(U8(ternSelect), word7, t, v) // 16-bit lanes: b0 | b1<<7
		VPMADDWD(mergeW, v, v)                  // 32-bit lanes: 4 groups
		return t
	}

	Comment("Up to four chunks of 16 varints, unrolled.")
	{
		n := GP64()
		POPCNTQ(stop, n)
		for q := range by16 {
			chunk(by16[q], seq4, n, 64*q, func(v VecVirtual) { merge14(v) },
				func(v VecVirtual, k OpmaskVirtual, m Mem) { VMOVDQU32(v, k, m) })
			if q < len(by16)-1 {
				CMPQ(n, U8(16))
				JBE(LabelRef("avx512_stored"))
				SUBQ(U8(16), n)
			}
		}
		Label("avx512_stored")
		POPCNTQ(stop, n)
		LEAQ(Mem{Base: st.out, Index: n, Scale: 4}, st.out)
	}
	JMP(LabelRef("avx512_next"))

	Comment("Chunks of eight varints in 64-bit lanes, in a loop: five-byte", "varints are rare, and registers are short.")
	Label("avx512_wide")
	{
		idx, n := ZMM(), GP64()
		VMOVDQU64(by8, idx)
		POPCNTQ(stop, n)
		Label("avx512_chunk8")
		chunk(idx, seq8, n, 0,
			func(v VecVirtual) {
				t := merge14(v)
				VPSRLQ(U8(4), v, t)
				VPTERNLOGQ(U8(ternSelect), quad28, t, v) // bits 28-31 from byte 4
			},
			func(v VecVirtual, k OpmaskVirtual, m Mem) { VPMOVQD(v, k, m) })
		ADDQ(U8(32), st.out)
		VPADDB(step8, idx, idx)
		SUBQ(U8(8), n)
		JG(LabelRef("avx512_chunk8"))
		LEAQ(Mem{Base: st.out, Index: n, Scale: 4}, st.out) // back over unused lanes
	}

	Label("avx512_next")
	st.advance(stop)
	JMP(LabelRef("avx512_window"))

	Label("avx512_bytes")
	st.widenWindow(64, ZMM, VMOVDQU64)
	JMP(LabelRef("avx512_window"))

	Label("avx512_done")
	st.storeResults()
	VZEROUPPER()
	RET()
}

func decodeAVX2() {
	TEXT("decodeAVX2", NOSPLIT, "func(dst []uint32, src []byte) (nd, ns int)")
	Pragma("noescape")
	Doc(
		"decodeAVX2 is decodeGeneric (varint_generic.go) for CPUs with AVX2,",
		"BMI1, BMI2, LZCNT and POPCNT. Two VPMOVMSKB give the stop bits of a",
		"64-byte window; each varint is then one 8-byte load, BZHI and PEXT,",
		"and the loop carries only the bitmap. It reads up to 8 bytes past a",
		"window, so it decodes windows only while 72 bytes of src remain and",
		"leaves the tail to decodeGeneric. It stops at the window that holds a",
		"malformed varint, and before a window whose values do not fit in dst.",
	)
	st := loadDecoderState()
	groups := constQ(0x0000007f7f7f7f7f)
	zeroV := YMM()
	VPXOR(zeroV, zeroV, zeroV)
	top4 := broadcastD(0x0f0f0f0f, YMM())

	Label("avx2_window")
	{
		rem := GP64()
		MOVQ(st.pend, rem)
		SUBQ(st.p, rem)
		CMPQ(rem, U8(72))
		JB(LabelRef("avx2_done"))
	}
	lo, hi := YMM(), YMM()
	VMOVDQU(Mem{Base: st.p}, lo)
	VMOVDQU(Mem{Base: st.p, Disp: 32}, hi)
	Comment("mask64 combines the VPMOVMSKB of both halves.")
	mask64 := func(a, b VecVirtual) GPVirtual {
		r, t := GP64(), GP64()
		VPMOVMSKB(a, r.As32())
		VPMOVMSKB(b, t.As32())
		SHLQ(U8(32), t)
		ORQ(t, r)
		return r
	}
	cont := mask64(lo, hi)
	stop := GP64()
	MOVQ(cont, stop)
	NOTQ(stop)
	TESTQ(stop, stop)
	JZ(LabelRef("avx2_done"))
	st.windowFits(stop, "avx2_done")
	oneByteWindow(stop, "avx2_bytes")
	windowChecks(cont, consumedMask(stop),
		func() GPVirtual {
			a, b := YMM(), YMM()
			VPCMPEQB(zeroV, lo, a)
			VPCMPEQB(zeroV, hi, b)
			return mask64(a, b)
		},
		func() GPVirtual {
			a, b := YMM(), YMM()
			VPCMPGTB(top4, lo, a) // signed, but stop bytes are below 0x80
			VPCMPGTB(top4, hi, b)
			return mask64(a, b)
		},
		"avx2_done") // PEXT takes five-byte varints in its stride

	Comment("One varint per step: bytes [s, e) of the window, e from the bitmap.")
	s, m := GP64(), GP64()
	MOVQ(stop, m)
	XORQ(s, s)
	Label("avx2_varint")
	e, x, nb := GP64(), GP64(), GP64()
	TZCNTQ(m, e)
	MOVQ(Mem{Base: st.p, Index: s, Scale: 1}, x)
	INCQ(e)
	MOVQ(e, nb)
	SUBQ(s, nb)
	SHLQ(U8(3), nb)
	BZHIQ(nb, x, x)
	PEXTQ(groups, x, x)
	MOVL(x.As32(), Mem{Base: st.out})
	ADDQ(U8(4), st.out)
	MOVQ(e, s)
	BLSRQ(m, m)
	JNZ(LabelRef("avx2_varint"))

	st.advance(stop)
	JMP(LabelRef("avx2_window"))

	Label("avx2_bytes")
	st.widenWindow(32, YMM, func(ops ...Op) { VMOVDQU(ops[0], ops[1]) })
	JMP(LabelRef("avx2_window"))

	Label("avx2_done")
	st.storeResults()
	VZEROUPPER()
	RET()
}

// encoderState is where an encoder is: out walks dst and p walks v; end and
// pend are their limits.
type encoderState struct {
	out, end, p, pend GPVirtual
}

func loadEncoderState() encoderState {
	s := encoderState{GP64(), GP64(), GP64(), GP64()}
	Load(Param("dst").Base(), s.out)
	Load(Param("dst").Len(), s.end)
	ADDQ(s.out, s.end)
	Load(Param("v").Base(), s.p)
	Load(Param("v").Len(), s.pend)
	LEAQ(Mem{Base: s.p, Index: s.pend, Scale: 4}, s.pend)
	return s
}

// fits jumps to label unless `values` more values and `bytes` more bytes
// of room remain.
func (s encoderState) fits(values, bytes int, label string) {
	t := GP64()
	LEAQ(Mem{Base: s.p, Disp: 4 * values}, t)
	CMPQ(t, s.pend)
	JA(LabelRef(label))
	LEAQ(Mem{Base: s.out, Disp: bytes}, t)
	CMPQ(t, s.end)
	JA(LabelRef(label))
}

// storeResults returns nd and nv, the distance travelled in dst and v.
func (s encoderState) storeResults() {
	base := GP64()
	Load(Param("dst").Base(), base)
	SUBQ(base, s.out)
	Store(s.out, ReturnIndex(0))
	Load(Param("v").Base(), base)
	SUBQ(base, s.p)
	SHRQ(U8(2), s.p)
	Store(s.p, ReturnIndex(1))
}

func encodeAVX512VBMI2() {
	TEXT("encodeAVX512VBMI2", NOSPLIT, "func(dst []byte, v []uint32) (nd, nv int)")
	Pragma("noescape")
	Doc(
		"encodeAVX512VBMI2 is encodeGeneric (varint_generic.go) for CPUs with",
		"AVX-512 F, BW, VL, VBMI and VBMI2, BMI2 and POPCNT. Sixteen values",
		"per step: if all are below 0x80, VPMOVDB packs them; otherwise, in two",
		"halves, VPMULTISHIFTQB spreads each value's 7-bit groups over the",
		"bytes of a 64-bit lane, the nonzero bytes give the lengths, and",
		"VPCOMPRESSB packs the varints. The last values go eight at a time with",
		"masked loads. Stores are masked: it writes only dst[:nd]. It stops",
		"before a step that does not fit in dst.",
	)
	smear := GLOBL("encodeSmear", RODATA|NOPTR)
	DATA(0, U64(0x3f3f3f3f3f3f3f3f))
	DATA(8, U64(0x0f0f0f0f0f0f0f0f))
	DATA(16, U64(0x0101010101010101))

	st := loadEncoderState()
	Comment("Byte i of each lane takes bits 7i..7i+7 of the value.")
	spread := broadcastQ(0x312a231c150e0700, ZMM())
	low7 := broadcastD(0x7f7f7f7f, ZMM())
	high := broadcastD(0x80808080, ZMM())
	notByte := broadcastD(0xffffff80, ZMM())
	m7f := constQ(0x7f7f7f7f7f7f7f7f)

	Comment("lanes encodes the eight values in the 64-bit lanes of x, keeping the", "bytes in limit, and stores them at out. With check, it first jumps to", "enc512_done unless they fit.")
	lanes := func(x VecVirtual, limit Op, check bool) {
		VPMULTISHIFTQB(x, spread, x)
		VPANDQ(low7, x, x)
		knz, r, t := K(), GP64(), GP64()
		VPTESTMB(x, x, knz)
		KMOVQ(knz, r)
		Comment("Smear each lane's highest nonzero-group bit downwards: then bit j", "of a lane is set iff some group >= j is nonzero.")
		for _, sm := range []struct {
			shift uint64
			mask  Op
		}{{1, m7f}, {2, smear}, {4, smear.Offset(8)}} {
			MOVQ(r, t)
			SHRQ(U8(sm.shift), t)
			ANDQ(sm.mask, t)
			ORQ(t, r)
		}
		cont, n := GP64(), GP64()
		MOVQ(r, cont) // a byte continues iff a higher group is nonzero
		SHRQ(U8(1), cont)
		ANDQ(m7f, cont)
		ORQ(smear.Offset(16), r) // a byte is written iff it continues or ends a varint
		ANDQ(limit, r)
		POPCNTQ(r, n)
		if check {
			MOVQ(st.end, t)
			SUBQ(st.out, t)
			CMPQ(n, t)
			JA(LabelRef("enc512_done"))
		}
		kc, kv, ks, withHigh, packed := K(), K(), K(), ZMM(), ZMM()
		KMOVQ(cont, kc)
		VPORQ(high, x, withHigh)
		VPBLENDMB(withHigh, x, kc, x)
		KMOVQ(r, kv)
		VPCOMPRESSB_Z(x, kv, packed)
		MOVQ(I64(-1), t)
		BZHIQ(n, t, t)
		KMOVQ(t, ks)
		VMOVDQU8(packed, ks, Mem{Base: st.out})
		ADDQ(n, st.out)
	}

	Comment("Sixteen values at a time while 80 bytes of room remain.")
	Label("enc512_sixteen")
	st.fits(16, 80, "enc512_eight")
	{
		z, k, b := ZMM(), K(), XMM()
		VMOVDQU32(Mem{Base: st.p}, z)
		VPTESTMD(notByte, z, k)
		KORTESTW(k, k)
		JNZ(LabelRef("enc512_spread"))
		VPMOVDB(z, b)
		VMOVDQU(b, Mem{Base: st.out})
		ADDQ(U8(16), st.out)
		ADDQ(U8(64), st.p)
		JMP(LabelRef("enc512_sixteen"))
	}
	Label("enc512_spread")
	for _, half := range []int{0, 32} {
		x := ZMM()
		VPMOVZXDQ(Mem{Base: st.p, Disp: half}, x)
		lanes(x, I8(-1), false)
	}
	ADDQ(U8(64), st.p)
	JMP(LabelRef("enc512_sixteen"))

	Comment("The rest eight at a time, loaded masked: missing lanes are zero, and", "their bytes are left out of the output.")
	Label("enc512_eight")
	{
		left, limit, kin, y, x := GP64(), GP64(), K(), YMM(), ZMM()
		MOVQ(st.pend, left)
		SUBQ(st.p, left)
		SHRQ(U8(2), left)
		JZ(LabelRef("enc512_done"))
		CMPQ(left, U8(8))
		MOVQ(U32(8), limit)
		CMOVQCC(limit, left) // left = min(left, 8)
		MOVQ(I64(-1), limit)
		BZHIQ(left, limit, limit)
		KMOVQ(limit, kin)
		VMOVDQU32_Z(Mem{Base: st.p}, kin, y)
		VPMOVZXDQ(y, x)
		SHLQ(U8(3), left)
		MOVQ(I64(-1), limit)
		BZHIQ(left, limit, limit)
		lanes(x, limit, true)
		SHRQ(U8(1), left) // 4 bytes per value
		ADDQ(left, st.p)
	}
	JMP(LabelRef("enc512_eight"))

	Label("enc512_done")
	st.storeResults()
	VZEROUPPER()
	RET()
}

func encodeAVX2() {
	TEXT("encodeAVX2", NOSPLIT, "func(dst []byte, v []uint32) (nd, nv int)")
	Pragma("noescape")
	Doc(
		"encodeAVX2 is encodeGeneric (varint_generic.go) for CPUs with AVX2,",
		"BMI2 and LZCNT. It looks at eight values at a time: if all are below",
		"0x80 they are packed to bytes and stored at once; otherwise, one value",
		"at a time, PDEP spreads its 7-bit groups over five bytes, the highest",
		"nonzero byte gives the length, and one 8-byte store writes the varint.",
		"It stops when fewer than 8 bytes of dst remain; encodeGeneric finishes.",
	)
	st := loadEncoderState()
	out, p := st.out, st.p
	groups := constQ(0x0000007f7f7f7f7f)
	highs := constQ(0x0000008080808080)
	notByte := broadcastD(0xffffff80, YMM())

	Comment("value emits the encoding of the value at p as an 8-byte store at out.")
	value := func() {
		x, y, nz, hb := GP64(), GP64(), GP64(), GP64()
		MOVL(Mem{Base: p}, x.As32())
		PDEPQ(groups, x, y)
		Comment("Bit 7 of each nonzero group's byte, plus byte 0, which always counts.")
		MOVQ(y, nz)
		ADDQ(groups, nz)
		ANDQ(highs, nz)
		ORQ(U32(0x80), nz)
		BSRQ(nz, hb) // 7, 15, 23, 31 or 39: the last byte's bit 7
		SUBQ(U8(7), hb)
		BZHIQ(hb, highs, nz) // continuation bits of the bytes below it
		ORQ(nz, y)
		MOVQ(y, Mem{Base: out})
		SHRQ(U8(3), hb)
		LEAQ(Mem{Base: out, Index: hb, Scale: 1, Disp: 1}, out)
		ADDQ(U8(4), p)
	}
	Comment("Eight values at a time while 48 bytes of room remain (eight varints", "of five bytes, the last store spanning eight).")
	Label("avx2enc_eight")
	st.fits(8, 48, "avx2enc_one")
	y, lo := YMM(), XMM()
	VMOVDQU(Mem{Base: p}, y)
	VPTEST(notByte, y)
	JNZ(LabelRef("avx2enc_slow"))
	VEXTRACTI128(U8(1), y, lo)
	VPACKUSDW(lo, y.AsX(), lo)
	VPACKUSWB(lo, lo, lo)
	VMOVQ(lo, Mem{Base: out})
	ADDQ(U8(8), out)
	ADDQ(U8(32), p)
	JMP(LabelRef("avx2enc_eight"))
	Label("avx2enc_slow")
	{
		n := GP64()
		MOVQ(U32(8), n)
		Label("avx2enc_slow_value")
		value()
		DECQ(n)
		JNZ(LabelRef("avx2enc_slow_value"))
	}
	JMP(LabelRef("avx2enc_eight"))

	Comment("The rest one at a time, while 8 bytes of room remain.")
	Label("avx2enc_one")
	st.fits(1, 8, "avx2enc_done")
	value()
	JMP(LabelRef("avx2enc_one"))

	Label("avx2enc_done")
	st.storeResults()
	VZEROUPPER()
	RET()
}
