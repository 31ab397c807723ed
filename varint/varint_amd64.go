//go:build !purego

package varint

import (
	"github.com/m2m-go/m2m/internal/cpu"
	"github.com/m2m-go/m2m/internal/race"
)

// Dispatch flags, set by the cpu registry; at most one is true.
var useAVX512, useAVX2 bool

var kernels = []cpu.Kernel{
	{
		Name: "avx512vbmi2",
		Needs: []cpu.Feature{cpu.AVX512F, cpu.AVX512BW, cpu.AVX512VL, cpu.AVX512VBMI, cpu.AVX512VBMI2,
			cpu.BMI1, cpu.BMI2, cpu.LZCNT, cpu.POPCNT},
		Use: &useAVX512,
	},
	{
		Name:  "avx2",
		Needs: []cpu.Feature{cpu.AVX2, cpu.BMI1, cpu.BMI2, cpu.LZCNT, cpu.POPCNT},
		Use:   &useAVX2,
	},
}

// Below these input sizes the kernels' set-up costs more than it saves, as
// measured by BenchmarkDecode and BenchmarkEncode; generic code runs alone.
const (
	minDecodeAVX512 = 16 // bytes of src
	minDecodeAVX2   = 72 // bytes of src; also the kernel's read slack
	minEncodeAVX512 = 4  // values
	minEncodeAVX2   = 4  // values
)

func decode(dst []uint32, src []byte) (nd, ns int) {
	switch {
	case useAVX512 && len(src) >= minDecodeAVX512:
		race.ReadSlice(src)
		race.WriteSlice(dst)
		nd, ns = decodeAVX512VBMI2(dst, src)
	case useAVX2 && len(src) >= minDecodeAVX2:
		race.ReadSlice(src)
		race.WriteSlice(dst)
		nd, ns = decodeAVX2(dst, src)
	}
	d, s := decodeGeneric(dst[nd:], src[ns:])
	return nd + d, ns + s
}

func encode(dst []byte, v []uint32) (nd, nv int) {
	switch {
	case useAVX512 && len(v) >= minEncodeAVX512:
		race.ReadSlice(v)
		race.WriteSlice(dst)
		nd, nv = encodeAVX512VBMI2(dst, v)
	case useAVX2 && len(v) >= minEncodeAVX2:
		race.ReadSlice(v)
		race.WriteSlice(dst)
		nd, nv = encodeAVX2(dst, v)
	}
	d, n := encodeGeneric(dst[nd:], v[nv:])
	return nd + d, nv + n
}
