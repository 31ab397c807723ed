package crc

import "github.com/m2m-go/m2m/internal/cpu"

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
