//go:build !purego

package utf8x

import (
	"unicode/utf8"

	"github.com/m2m-go/m2m/internal/cpu"
	"github.com/m2m-go/m2m/internal/race"
)

// useAVX2 is the dispatch flag, set by the cpu registry.
var useAVX2 bool

var kernels = []cpu.Kernel{{Name: "avx2", Needs: []cpu.Feature{cpu.AVX2}, Use: &useAVX2}}

// minVector is the shortest input the kernel takes, from BenchmarkValid:
// below it unicode/utf8, whose loop takes 8 ASCII bytes a step and has no
// call into assembly nor a tail to copy, is as fast.
const minVector = 32

func valid(p []byte) bool {
	if !useAVX2 || len(p) < minVector {
		return utf8.Valid(p)
	}
	race.ReadSlice(p)
	n := len(p) &^ 31
	var tail [32]byte
	copy(tail[:], p[n:])
	return validAVX2(p[:n], &tail)
}
