//go:build !amd64 || purego

package utf8x

import (
	"unicode/utf8"

	"github.com/m2m-go/m2m/internal/cpu"
)

// kernels is empty: this build has no assembly, only unicode/utf8.
var kernels []cpu.Kernel

func valid(p []byte) bool { return utf8.Valid(p) }
