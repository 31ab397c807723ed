//go:build !amd64 || purego

package jsonscan

import "github.com/m2m-go/m2m/internal/cpu"

// kernels is empty: this build has no assembly, only the generic code.
var kernels []cpu.Kernel

// window holds nothing on this build: there is no kernel to compute masks.
type window struct{}

func (*window) reset() {}

// scanString is the generic [scanString].
func (*window) scanString(src []byte, i int) (end, saved int, kind errKind) {
	return scanString(src, i)
}
