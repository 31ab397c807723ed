//go:build !purego

package crc

import "testing"

func TestKernelsDirect(t *testing.T) {
	for _, k := range kernels[:2] {
		t.Run(k.Name, func(t *testing.T) {
			if !k.Available() {
				t.Skipf("needs %v", k.Needs)
			}
			checkKernel(t, k.Name, map[string]func(uint32, []byte) uint32{
				"avx512": updateAVX512, "avx2": updateAVX2,
			}[k.Name])
		})
	}
}
