// Package forge takes container files apart and puts them back together
// as someone without the key would: blocks and records moved, dropped or
// copied from another file, with every CRC, the index and the trailer
// rebuilt so that all checksums hold. Only the MACs of a sealed file
// cannot be made again: they are kept as they were. Tests use it to check
// that readers refuse what only a seal can tell from the real thing.
//
// It follows the format in the container package's documentation, on its
// own (it imports no part of m2m), so that container's tests can use it.
package forge

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/m2m-go/m2m/varint"
)

// Sizes of the format (package container).
const (
	headerLen  = 12
	idLen      = 16
	macLen     = 16
	trailerLen = 40
	typeIndex  = 0xFF
)

// File is a container file taken apart.
type File struct {
	Header     []byte // with a sealed file's id
	Blocks     []Block
	TrailerMAC []byte // a sealed file's, kept as it was
}

// Block is a data block, with what its index entry says of it.
type Block struct {
	Type    byte
	Records int
	Body    []byte
	MAC     []byte // a sealed file's, kept as it was
	Lines   int64
	Bytes   int64
}

// Sealed reports whether the file is sealed.
func (f *File) Sealed() bool { return len(f.Header) > headerLen }

// Parse takes a file apart. It checks what it needs to find the blocks,
// nothing more.
func Parse(file []byte) (*File, error) {
	if len(file) < headerLen+trailerLen {
		return nil, errors.New("forge: too short")
	}
	f := &File{Header: file[:headerLen]}
	tl := trailerLen
	if file[9]&1 != 0 {
		f.Header = file[:headerLen+idLen]
		tl += macLen
		f.TrailerMAC = file[len(file)-tl+32 : len(file)-tl+32+macLen]
	}
	t := file[len(file)-tl:]
	indexAt := int(binary.LittleEndian.Uint64(t))
	ixb, err := block(file[indexAt:], false)
	if err != nil {
		return nil, fmt.Errorf("forge: index: %w", err)
	}
	ix := ixb.Body
	n, k, _ := varint.Uvarint64(ix)
	ix = ix[k:]
	off := 0
	for range n {
		var v [4]uint64
		for j := range v {
			v[j], k, _ = varint.Uvarint64(ix)
			ix = ix[k:]
		}
		ix = ix[4:]
		if f.Sealed() {
			ix = ix[macLen:]
		}
		off += int(v[0])
		b, err := block(file[off:], f.Sealed())
		if err != nil {
			return nil, fmt.Errorf("forge: block at offset %d: %w", off, err)
		}
		b.Lines, b.Bytes = int64(v[2]), int64(v[3])
		f.Blocks = append(f.Blocks, b)
	}
	return f, nil
}

// block parses the block at the start of p.
func block(p []byte, sealed bool) (Block, error) {
	if len(p) < 3 {
		return Block{}, errors.New("too short")
	}
	records, k1, _ := varint.Uvarint64(p[1:])
	bodyLen, k2, _ := varint.Uvarint64(p[1+k1:])
	hl := 1 + k1 + k2
	ml := 0
	if sealed && p[0] != typeIndex {
		ml = macLen
	}
	if k1 <= 0 || k2 <= 0 || hl+int(bodyLen)+ml+4 > len(p) {
		return Block{}, errors.New("bad block")
	}
	end := hl + int(bodyLen)
	return Block{Type: p[0], Records: int(records), Body: p[hl:end], MAC: p[end : end+ml]}, nil
}

// appendBlock appends a block with a fresh CRC.
func appendBlock(dst []byte, typ byte, records int, body, mac []byte) []byte {
	start := len(dst)
	dst = append(dst, typ)
	dst = varint.AppendUvarint64(dst, uint64(records))
	dst = varint.AppendUvarint64(dst, uint64(len(body)))
	dst = append(append(dst, body...), mac...)
	return binary.LittleEndian.AppendUint32(dst, crc32.ChecksumIEEE(dst[start:]))
}

// Bytes puts the file together: the header, the blocks with fresh CRCs,
// an index that lists them, and a trailer with their totals, the file's
// CRC and the old trailer MAC.
func (f *File) Bytes() []byte {
	out := append([]byte(nil), f.Header...)
	sum := crc32.ChecksumIEEE(f.Header)
	var index []byte
	index = varint.AppendUvarint64(index, uint64(len(f.Blocks)))
	var records, lines, size int64
	prev := 0
	for _, b := range f.Blocks {
		at := len(out)
		out = appendBlock(out, b.Type, b.Records, b.Body, b.MAC)
		c := out[len(out)-4:]
		sum = crc32.Update(sum, crc32.IEEETable, c)
		index = varint.AppendUvarint64(index, uint64(at-prev))
		index = varint.AppendUvarint64(index, uint64(b.Records))
		index = varint.AppendUvarint64(index, uint64(b.Lines))
		index = varint.AppendUvarint64(index, uint64(b.Bytes))
		index = append(append(index, c...), b.MAC...)
		records += int64(b.Records)
		lines += b.Lines
		size += b.Bytes
		prev = at
	}
	indexAt := len(out)
	out = appendBlock(out, typeIndex, 0, index, nil)
	sum = crc32.Update(sum, crc32.IEEETable, out[len(out)-4:])
	t := len(out)
	for _, v := range []int64{int64(indexAt), records, lines, size} {
		out = binary.LittleEndian.AppendUint64(out, uint64(v))
	}
	out = append(out, f.TrailerMAC...)
	out = binary.LittleEndian.AppendUint32(out, crc32.Update(sum, crc32.IEEETable, out[t:]))
	return append(out, "M2M\x1a"...)
}

// SwapRecords returns a copy of a records block's body with records i and
// j (from 0) swapped.
func SwapRecords(body []byte, i, j int) ([]byte, error) {
	var recs [][]byte
	for off := 0; off < len(body); {
		n, k, err := varint.Uvarint64(body[off+1:])
		if err != nil || n > uint64(len(body)-off-1-k) {
			return nil, errors.New("forge: bad record")
		}
		end := off + 1 + k + int(n)
		recs = append(recs, body[off:end])
		off = end
	}
	if i >= len(recs) || j >= len(recs) {
		return nil, fmt.Errorf("forge: %d records, no %d or %d", len(recs), i, j)
	}
	recs[i], recs[j] = recs[j], recs[i]
	var out []byte
	for _, r := range recs {
		out = append(out, r...)
	}
	return out, nil
}

// KeepCRC changes the 5 bytes of p at offset at without changing the
// CRC-32 of anything that holds them: it XORs in the CRC-32 polynomial
// (x^32 + ..., in the IEEE CRC's bit order), a multiple of itself.
func KeepCRC(p []byte, at int) {
	for i, b := range [5]byte{0x41, 0x06, 0x71, 0xDB, 0x01} {
		p[at+i] ^= b
	}
}

// Replace replaces the first old in the blocks' bodies with new, which
// must be as long, and reports whether there was one.
func (f *File) Replace(old, new []byte) bool {
	for i := range f.Blocks {
		b := &f.Blocks[i]
		if at := bytes.Index(b.Body, old); at >= 0 {
			b.Body = bytes.Clone(b.Body)
			copy(b.Body[at:], new)
			return true
		}
	}
	return false
}
