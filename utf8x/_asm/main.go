// Command _asm generates the amd64 UTF-8 validation kernel, valid_amd64.s,
// and its Go declaration, valid_stubs_amd64.go, with avo. Regenerate with
// `go generate` in this directory; CI fails if the committed files differ.
//
// The kernel checks 32 bytes at a time with three table lookups per byte
// (the method of Keiser and Lemire, "Validating UTF-8 in less than one
// instruction per byte", 2021): every error UTF-8 can have in two bytes
// next to each other is a set of pairs whose first byte's high nibble,
// first byte's low nibble and second byte's high nibble each lie in a set
// of their own (see classes), so each error gets a bit, and a 16-entry
// table for each of the three nibbles says which errors its value allows;
// a pair is wrong where the three lookups, ANDed, leave a bit. What pairs
// cannot see, a third or fourth byte of a sequence that must be a
// continuation, is checked against the bytes two and three back. The
// tables are made below from the classes; none is copied from elsewhere.
package main

//go:generate go run . -out ../valid_amd64.s -stubs ../valid_stubs_amd64.go -pkg utf8x

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// A class is a set of pairs of bytes (b1, b2) that UTF-8 never holds next
// to each other: those with b1>>4 in hi1, b1&15 in lo1 and b2>>4 in hi2.
type class struct {
	name          string
	hi1, lo1, hi2 []int
}

func span(a, b int) []int {
	var s []int
	for i := a; i <= b; i++ {
		s = append(s, i)
	}
	return s
}

func union(s ...[]int) []int {
	var u []int
	for _, x := range s {
		u = append(u, x...)
	}
	return u
}

var (
	all   = span(0, 15)
	ascii = span(0, 7)   // high nibbles of 0x00-0x7F
	cont  = span(8, 11)  // of continuation bytes, 0x80-0xBF
	lead  = span(12, 15) // of lead bytes (and 0xF8-0xFF, never valid)
	other = union(ascii, lead)
)

// classes are the errors of two adjacent bytes, one bit each, in the
// order of their bits. twoConts must be the last (bit 7): where the byte
// two or three back starts a sequence of three or four bytes, a
// continuation after a continuation is what UTF-8 needs, and the kernel
// flips that bit there.
var classes = []class{
	{"a lead byte not followed by a continuation", lead, all, other},
	{"a continuation after an ASCII byte", ascii, all, cont},
	{"C0, C1: overlong two-byte sequences", []int{0xC}, []int{0, 1}, cont},
	{"E0 80-9F: overlong three-byte sequences", []int{0xE}, []int{0}, []int{8, 9}},
	{"ED A0-BF: surrogates", []int{0xE}, []int{0xD}, []int{0xA, 0xB}},
	{"F0 80-8F: overlong four-byte sequences; F5-FF 80-8F: past U+10FFFF", []int{0xF}, union([]int{0}, span(5, 15)), []int{8}},
	{"F4-FF 90-BF: past U+10FFFF", []int{0xF}, span(4, 15), []int{9, 0xA, 0xB}},
	{"a continuation after a continuation", cont, all, cont},
}

// tables returns the three lookups: by b1's high nibble, b1's low nibble
// and b2's high nibble, the bits of the classes each value is in.
func tables() (hi1, lo1, hi2 [16]byte) {
	if len(classes) != 8 {
		panic("one class for each bit of a byte")
	}
	for bit, c := range classes {
		for _, v := range c.hi1 {
			hi1[v] |= 1 << bit
		}
		for _, v := range c.lo1 {
			lo1[v] |= 1 << bit
		}
		for _, v := range c.hi2 {
			hi2[v] |= 1 << bit
		}
	}
	return
}

func main() {
	ConstraintExpr("!purego")
	hi1, lo1, hi2 := tables()
	t1, t2, t3 := table("utf8Hi1", hi1), table("utf8Lo1", lo1), table("utf8Hi2", hi2)
	nibble, third, fourth, top := splat("utf8Nibble", 0x0F), splat("utf8Third", 0xE0-0x80), splat("utf8Fourth", 0xF0-0x80), splat("utf8Top", 0x80)

	incomplete := endsTable()

	TEXT("validAVX2", NOSPLIT, "func(p []byte, tail *[32]byte) bool")
	Pragma("noescape")
	Doc(
		"validAVX2 reports whether p followed by tail is valid UTF-8, as",
		"unicode/utf8.Valid does, for CPUs with AVX2. len(p) must be a multiple",
		"of 32; tail holds the bytes after it, zero-padded: a zero byte ends an",
		"incomplete sequence as an error, so the padding checks that the input",
		"does not end inside one. It reads only p and tail.",
	)
	ptr := Load(Param("p").Base(), GP64())
	n := Load(Param("p").Len(), GP64())
	last := Load(Param("tail"), GP64())

	mask, tab1, tab2, tab3 := YMM(), YMM(), YMM(), YMM()
	VMOVDQU(nibble, mask)
	VMOVDQU(t1, tab1)
	VMOVDQU(t2, tab2)
	VMOVDQU(t3, tab3)
	sub3, sub4, bit7 := YMM(), YMM(), YMM()
	VMOVDQU(third, sub3)
	VMOVDQU(fourth, sub4)
	VMOVDQU(top, bit7)
	// ends is over the last three bytes of a block only where they start
	// a sequence longer than the block holds: F0 or more three bytes from
	// its end, E0 or more two bytes from it, C0 or more at it.
	ends := YMM()
	VMOVDQU(incomplete, ends)
	prev, errs := YMM(), YMM()
	VPXOR(prev, prev, prev) // before the input: ASCII
	VPXOR(errs, errs, errs)

	// check ORs into errs the errors of the 32 bytes in, whose 32 bytes
	// before are prev: emitted in the loop and again for the tail.
	check := func(in VecVirtual) {
		// Lanes: [prev's high 16 bytes, in's low 16], so that VPALIGNR,
		// which works in 128-bit lanes, shifts the bytes before each lane in.
		t := YMM()
		VPERM2I128(U8(0x21), in, prev, t)
		p1, p2, p3 := YMM(), YMM(), YMM()
		VPALIGNR(U8(15), t, in, p1) // the byte before each
		VPALIGNR(U8(14), t, in, p2) // two before
		VPALIGNR(U8(13), t, in, p3) // three before

		a, b, c := YMM(), YMM(), YMM()
		VPSRLW(U8(4), p1, a)
		VPAND(mask, a, a)
		VPSHUFB(a, tab1, a)
		VPAND(mask, p1, b)
		VPSHUFB(b, tab2, b)
		VPSRLW(U8(4), in, c)
		VPAND(mask, c, c)
		VPSHUFB(c, tab3, c)
		VPAND(a, b, a)
		VPAND(c, a, a) // the classes of each pair

		// Bit 7 where the byte two back is E0 or more, or three back F0 or
		// more: this byte must be a continuation, and so must the one
		// before it, which the pairs flagged as two continuations.
		VPSUBUSB(sub3, p2, b)
		VPSUBUSB(sub4, p3, c)
		VPOR(b, c, b)
		VPAND(bit7, b, b)
		VPXOR(b, a, a)
		VPOR(a, errs, errs)
	}

	in := YMM()
	mask7 := GP32()
	Label("loop")
	TESTQ(n, n)
	JZ(LabelRef("tail"))
	VMOVDQU(Mem{Base: ptr}, in)
	VPMOVMSKB(in, mask7)
	TESTL(mask7, mask7)
	JNZ(LabelRef("other"))
	Comment("ASCII: no pair of its bytes is wrong; only what came before may have",
		"ended inside a sequence, which these bytes do not go on.")
	t := YMM()
	VPSUBUSB(ends, prev, t)
	VPOR(t, errs, errs)
	JMP(LabelRef("next"))
	Label("other")
	check(in)
	Label("next")
	VMOVDQU(in, prev)
	ADDQ(U8(32), ptr)
	SUBQ(U8(32), n)
	JMP(LabelRef("loop"))

	Label("tail")
	VMOVDQU(Mem{Base: last}, in)
	check(in)
	VPTEST(errs, errs)
	ok := GP8()
	SETEQ(ok)
	VZEROUPPER()
	Store(ok, ReturnIndex(0))
	RET()

	Generate()
}

// table is a 16-entry lookup, twice: VPSHUFB looks up in each 128-bit lane.
func table(name string, t [16]byte) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i := range 32 {
		DATA(i, U8(t[i%16]))
	}
	return m
}

// endsTable is 32 bytes, each over a block's byte at the same place only
// where a sequence it starts would run past the block: 0xFF but for the
// last three, 0xEF, 0xDF and 0xBF.
func endsTable() Mem {
	m := GLOBL("utf8Incomplete", RODATA|NOPTR)
	for i := range 32 {
		v := byte(0xFF)
		switch i {
		case 29:
			v = 0xEF
		case 30:
			v = 0xDF
		case 31:
			v = 0xBF
		}
		DATA(i, U8(v))
	}
	return m
}

// splat is 32 bytes of b.
func splat(name string, b byte) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i := range 4 {
		DATA(8*i, U64(0x0101010101010101*uint64(b)))
	}
	return m
}
