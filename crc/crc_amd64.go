//go:build !purego

package crc

import (
	"hash/crc32"

	"github.com/m2m-go/m2m/internal/cpu"
	"github.com/m2m-go/m2m/internal/race"
)

// Dispatch flags, set by the cpu registry; at most one is true.
var useAVX512, useAVX2, useStdlib bool

var kernels = []cpu.Kernel{
	{
		Name:  "avx512",
		Needs: []cpu.Feature{cpu.AVX512F, cpu.AVX512VL, cpu.VPCLMULQDQ, cpu.PCLMULQDQ, cpu.AVX2},
		Use:   &useAVX512,
	},
	{
		Name:  "avx2",
		Needs: []cpu.Feature{cpu.AVX2, cpu.VPCLMULQDQ, cpu.PCLMULQDQ},
		Use:   &useAVX2,
	},
	{Name: "stdlib", Use: &useStdlib},
}

// Below these sizes hash/crc32 is as fast, as BenchmarkChecksum measures.
const (
	minAVX512 = 16
	minAVX2   = 16
)

func update(crc uint32, p []byte) uint32 {
	switch {
	case useAVX512 && len(p) >= minAVX512:
		race.ReadSlice(p)
		return updateAVX512(crc, p)
	case useAVX2 && len(p) >= minAVX2:
		race.ReadSlice(p)
		return updateAVX2(crc, p)
	case useAVX512, useAVX2, useStdlib:
		return crc32.Update(crc, crc32.IEEETable, p)
	}
	return updateGeneric(crc, p)
}
