//go:build !purego

package crc

import (
	"hash/crc32"

	"github.com/m2m-go/m2m/internal/cpu"
	"github.com/m2m-go/m2m/internal/race"
)

// Dispatch flags, set by the cpu registry; at most one is true.
var usePMULL, useStdlib bool

var kernels = []cpu.Kernel{
	{Name: "pmull", Needs: []cpu.Feature{cpu.ASIMD, cpu.PMULL}, Use: &usePMULL},
	{Name: "stdlib", Use: &useStdlib},
}

// updatePMULL is updateGeneric (crc_generic.go) with PMULL folding; see
// crc_arm64.s. It needs len(p) >= 16 and reads only p.
//
//go:noescape
func updatePMULL(crc uint32, p []byte) uint32

// minPMULL is where folding should overtake hash/crc32's CRC32X loop: an
// estimate from the fixed cost of the final reduction (about 40 cycles
// against 8 bytes per cycle or two), not a measurement, for want of an
// arm64 machine to measure on.
const minPMULL = 256

func update(crc uint32, p []byte) uint32 {
	switch {
	case usePMULL && len(p) >= minPMULL:
		race.ReadSlice(p)
		return updatePMULL(crc, p)
	case usePMULL, useStdlib:
		return crc32.Update(crc, crc32.IEEETable, p)
	}
	return updateGeneric(crc, p)
}
