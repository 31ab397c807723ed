//go:build !(amd64 || arm64) || purego

package varint

import "github.com/m2m-go/m2m/internal/cpu"

// kernels is empty: this build has no assembly, only the generic code.
var kernels []cpu.Kernel

func decode(dst []uint32, src []byte) (nd, ns int) { return decodeGeneric(dst, src) }

func encode(dst []byte, v []uint32) (nd, nv int) { return encodeGeneric(dst, v) }
