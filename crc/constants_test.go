package crc

import (
	"math/bits"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// xpowModP returns x^n mod P in normal bit order, the slow obvious way.
func xpowModP(n int) uint32 {
	v := uint32(1)
	for range n {
		carry := v&0x80000000 != 0
		v <<= 1
		if carry {
			v ^= 0x04C11DB7
		}
	}
	return v
}

// foldK is the folding constant for a move of n bits (see crc/_asm).
func foldK(n int) uint64 { return uint64(bits.Reverse32(xpowModP(n))) << 1 }

// TestArm64Constants recomputes the constant table of the hand-written
// arm64 kernel, which no generator writes, from the polynomial.
func TestArm64Constants(t *testing.T) {
	src, err := os.ReadFile("crc_arm64.s")
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{
		foldK(544), foldK(480), // d = 512
		foldK(416), foldK(352), // d = 384
		foldK(288), foldK(224), // d = 256
		foldK(160), foldK(96), // d = 128
		foldK(96), 0,
		foldK(64), 0,
		0x1f7011641, 0, // mu: checked against the generator's derivation in crc/_asm
		uint64(bits.Reverse64(1<<32|0x04C11DB7) >> 31), 0,
		0xffffffff, 0,
	}
	re := regexp.MustCompile(`DATA crcArm<>\+(\d+)\(SB\)/8, \$(0x[0-9a-f]+|\d+)`)
	got := map[int]uint64{}
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		off, _ := strconv.Atoi(m[1])
		v, err := strconv.ParseUint(m[2], 0, 64)
		if err != nil {
			t.Fatal(err)
		}
		got[off] = v
	}
	if len(got) != len(want) {
		t.Fatalf("found %d constants in crc_arm64.s, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[8*i] != w {
			t.Errorf("crcArm<>+%d = %#x, want %#x", 8*i, got[8*i], w)
		}
	}
}
