package crc

import "github.com/m2m-go/m2m/internal/cpu"

// The architecture files. Each build has exactly one of crc_amd64.go,
// crc_arm64.go and crc_other.go (purego, or any other GOARCH), and that
// file defines:
//
//	var kernels []cpu.Kernel                   // what it can dispatch to, best first; registered here
//	func update(crc uint32, p []byte) uint32  // the CRC-32/IEEE of crc's bytes followed by p
//
// update picks a kernel by the dispatch flags the registry sets
// (cpu.Kernel.Use) and by size, and falls back to hash/crc32 or to
// updateGeneric (crc_generic.go), which every kernel is tested against.
// The amd64 kernels' Go declarations are generated with their assembly
// (crc_stubs_amd64.go, by _asm/main.go).
func init() { cpu.Register("crc", kernels...) }

// Checksum returns the CRC-32/IEEE of p.
func Checksum(p []byte) uint32 { return update(0, p) }

// Update returns the CRC-32/IEEE of the bytes whose checksum is crc followed
// by p: Update(Checksum(a), b) == Checksum(append(a, b...)).
func Update(crc uint32, p []byte) uint32 { return update(crc, p) }

// AppendChecksums appends the CRC-32/IEEE of each record to dst, for callers
// that checksum a batch of records at once.
func AppendChecksums(dst []uint32, records [][]byte) []uint32 {
	for _, r := range records {
		dst = append(dst, update(0, r))
	}
	return dst
}
