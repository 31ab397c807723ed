//go:build (amd64 || arm64) && !purego

package crc

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/m2m-go/m2m/internal/testbuf"
)

// checkKernel calls a kernel directly, below the dispatcher's thresholds,
// at every length from 16 (its minimum) to 1,100, with guard pages on both
// sides of the input when the system has them.
func checkKernel(t *testing.T, name string, update func(uint32, []byte) uint32) {
	r := rand.New(rand.NewPCG(7, 7))
	for n := 16; n <= 1100; n++ {
		data := random(r, n)
		c := r.Uint32()
		want := crc32.Update(c, crc32.IEEETable, data)
		for _, guard := range []func(int) ([]byte, func(), bool){testbuf.Tail, testbuf.Head} {
			p, free, _ := guard(n)
			copy(p, data)
			if got := update(c, p); got != want {
				t.Fatalf("%s(%#x, %d bytes) = %#08x, want %#08x", name, c, n, got, want)
			}
			free()
		}
	}
}
