//go:build !(amd64 || arm64) || purego

package crc

import (
	"hash/crc32"

	"github.com/m2m-go/m2m/internal/cpu"
)

// useStdlib is the dispatch flag set by the cpu registry: this build has no
// assembly of ours, but hash/crc32 may have its own.
var useStdlib bool

var kernels = []cpu.Kernel{{Name: "stdlib", Use: &useStdlib}}

func update(crc uint32, p []byte) uint32 {
	if useStdlib {
		return crc32.Update(crc, crc32.IEEETable, p)
	}
	return updateGeneric(crc, p)
}
