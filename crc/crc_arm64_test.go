//go:build !purego

package crc

import "testing"

func TestKernelsDirect(t *testing.T) {
	if !kernels[0].Available() {
		t.Skipf("needs %v", kernels[0].Needs)
	}
	checkKernel(t, "pmull", updatePMULL)
}
