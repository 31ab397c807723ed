// Command _asm generates zenc's amd64 prefetch hints, prefetch_amd64.s,
// and their Go declarations, prefetch_stubs_amd64.go, with avo.
// Regenerate with `go generate` in this directory; CI fails if the
// committed files differ.
//
// The match finder's reads are misses of the cache at random: a row of
// the table a few positions ahead, and a search's candidates, each in
// its own line of the input. Asked for before they are read (PREFETCHT0),
// their misses overlap one another and the work between. Go has no
// prefetch of its own outside the runtime, and a call into assembly costs
// more than the instruction, so each call asks for several lines.
package main

//go:generate go run . -out ../prefetch_amd64.s -stubs ../prefetch_stubs_amd64.go -pkg zenc

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

func main() {
	ConstraintExpr("!purego")

	TEXT("prefetch2", NOSPLIT|NOFRAME, "func(p, q *byte)")
	Pragma("noescape")
	Doc("prefetch2 asks for the cache lines at p and q: a row's tags and its positions.")
	p := Load(Param("p"), GP64())
	q := Load(Param("q"), GP64())
	PREFETCHT0(Mem{Base: p})
	PREFETCHT0(Mem{Base: q})
	RET()

	TEXT("prefetchAt", NOSPLIT|NOFRAME, "func(base *byte, offs *int32, n int)")
	Pragma("noescape")
	Doc("prefetchAt asks for the cache lines at base+offs[i], i < n: a search's candidates.")
	base := Load(Param("base"), GP64())
	offs := Load(Param("offs"), GP64())
	n := Load(Param("n"), GP64())
	TESTQ(n, n)
	JLE(LabelRef("done"))
	Label("loop")
	off := GP64()
	MOVLQSX(Mem{Base: offs}, off)
	PREFETCHT0(Mem{Base: base, Index: off, Scale: 1})
	ADDQ(Imm(4), offs)
	DECQ(n)
	JNZ(LabelRef("loop"))
	Label("done")
	RET()

	Generate()
}
