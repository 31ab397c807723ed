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

// Size dispatch, from BenchmarkChecksum on an AMD Zen 5 (README.md): the
// folding kernels need 16 bytes and beat everything from there; below that
// the table-driven generic code is 2.5 times faster than hash/crc32, whose
// call costs about 11 ns before it reads a byte. On CPUs without
// VPCLMULQDQ, hash/crc32 (SSE 4.2 PCLMULQDQ from 64 bytes on) takes over
// from the generic code at 64 bytes, where it starts to win.
const (
	minFold   = 16
	minStdlib = 64
)

func update(crc uint32, p []byte) uint32 {
	switch {
	case useAVX512 && len(p) >= minFold:
		race.ReadSlice(p)
		return updateAVX512(crc, p)
	case useAVX2 && len(p) >= minFold:
		race.ReadSlice(p)
		return updateAVX2(crc, p)
	case useStdlib && len(p) >= minStdlib:
		if crc == 0 {
			// Checksum: ChecksumIEEE skips the table checks of Update, a
			// few nanoseconds that show below 1 KiB.
			return crc32.ChecksumIEEE(p)
		}
		return crc32.Update(crc, crc32.IEEETable, p)
	}
	return updateGeneric(crc, p)
}
