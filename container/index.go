package container

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"sort"

	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/varint"
)

// Index is the table of contents of a file opened for random access.
type Index struct {
	ra      io.ReaderAt
	seal    *seal // nil: not sealed
	indexAt int64 // where the index block starts: the data blocks end there
	entries []indexEntry
	cut     error // why RecoverIndex stopped; nil for OpenIndex's
	Records int64 // in the file
	Lines   int64
	Bytes   int64 // of the original input
}

// OpenIndex reads the header, trailer and index of a file of the given
// size and checks them against each other: the index's totals against
// the trailer's, the blocks' places, the whole file's CRC (the index lists
// every block's CRC) and, with a key (the MAC key, as NewReader takes it),
// that the file is sealed and the trailer's MAC, which covers the index.
// It reads no data block, so it cannot see a block that was changed and
// its CRC fixed: Block checks each block it reads against its index
// entry, and its MAC; blocks never read are never checked.
func OpenIndex(ra io.ReaderAt, size int64, key []byte) (*Index, error) {
	if size < headerLen+trailerLen {
		return nil, &Error{Offset: 0, Record: -1, Err: fmt.Errorf("%w: %d bytes", ErrTruncated, size)}
	}
	ix, h, hl, err := openHeader(ra, size, key)
	if err != nil {
		return nil, err
	}
	sealed := ix.seal != nil
	tl := int64(trailerLen)
	if sealed {
		tl += MACLen
	}
	if size < hl+tl {
		return nil, &Error{Offset: 0, Record: -1, Err: fmt.Errorf("%w: %d bytes", ErrTruncated, size)}
	}
	var t [trailerLen + MACLen]byte
	if _, err := ra.ReadAt(t[:tl], size-tl); err != nil {
		return nil, err
	}
	if string(t[tl-4:tl]) != string(endMagic[:]) {
		return nil, &Error{Offset: size - tl, Record: -1, Err: fmt.Errorf("%w: no trailer", ErrTruncated)}
	}
	indexAt := int64(binary.LittleEndian.Uint64(t[0:]))
	if indexAt < hl || indexAt >= size-tl {
		return nil, corrupt(size-tl, -1, "index offset %d outside the file", indexAt)
	}
	blk, err := readBlockAt(ra, indexAt, size-tl-indexAt, -1, sealed, nil)
	if err != nil {
		return nil, err
	}
	if blk.Type != typeIndex || blk.size != size-tl-indexAt {
		return nil, corrupt(indexAt, -1, "no index block between offset %d and the trailer", indexAt)
	}
	entries, err := parseIndex(blk.Body, sealed)
	if err != nil {
		return nil, corrupt(indexAt, -1, "index: %v", err)
	}
	sum := crc.Checksum(h)
	for _, e := range entries {
		sum = addCRC(sum, e.CRC)
	}
	if got, want := binary.LittleEndian.Uint32(t[tl-8:]), crc.Update(addCRC(sum, blk.crc), t[:tl-8]); got != want {
		return nil, corrupt(size-tl, -1, "file checksum %08x, expected %08x", got, want)
	}
	ix.indexAt, ix.entries = indexAt, entries
	ix.Records = int64(binary.LittleEndian.Uint64(t[8:]))
	ix.Lines = int64(binary.LittleEndian.Uint64(t[16:]))
	ix.Bytes = int64(binary.LittleEndian.Uint64(t[24:]))
	if sealed && !ix.seal.checkTrailer(t[32:32+MACLen], blk.Body, t[:32]) {
		return nil, badTrailerMAC(size-tl, ix.Records)
	}
	var recs, lines, bytes int64
	for i, e := range entries {
		// The blocks follow the header and each other; Block checks that
		// each fills its place exactly.
		if i == 0 && e.Offset != hl || i > 0 && e.Offset <= entries[i-1].Offset || e.Offset >= indexAt {
			return nil, corrupt(indexAt, e.First, "index entry %d at offset %d, out of place", i, e.Offset)
		}
		recs += e.Records
		lines += e.Lines
		bytes += e.Bytes
	}
	if len(entries) == 0 && indexAt != hl {
		return nil, corrupt(indexAt, -1, "no blocks listed before the index at offset %d", indexAt)
	}
	if recs != ix.Records || lines != ix.Lines || bytes != ix.Bytes {
		return nil, corrupt(indexAt, -1, "index counts %d records, %d lines, %d bytes; the trailer %d, %d, %d",
			recs, lines, bytes, ix.Records, ix.Lines, ix.Bytes)
	}
	return ix, nil
}

// openHeader reads and checks the header of a file of the given size, a
// sealed file's id included, and returns an Index with no blocks yet (its
// seal set up with key), the header's bytes and its length.
func openHeader(ra io.ReaderAt, size int64, key []byte) (*Index, []byte, int64, error) {
	if key != nil {
		if err := checkKey(key); err != nil {
			return nil, nil, 0, err
		}
	}
	if size < headerLen {
		return nil, nil, 0, &Error{Offset: 0, Record: -1, Err: fmt.Errorf("%w: %d bytes", ErrTruncated, size)}
	}
	h := make([]byte, headerLen, headerLen+IDLen)
	if _, err := ra.ReadAt(h, 0); err != nil {
		return nil, nil, 0, &Error{Offset: 0, Record: -1, Err: fmt.Errorf("%w: %v", ErrFormat, err)}
	}
	sealed, err := parseHeader(h)
	if err != nil {
		return nil, nil, 0, err
	}
	ix := &Index{ra: ra}
	if !sealed {
		if key != nil {
			return nil, nil, 0, notSealed
		}
		return ix, h, headerLen, nil
	}
	if size < headerLen+IDLen {
		return nil, nil, 0, &Error{Offset: 0, Record: -1, Err: fmt.Errorf("%w: %d bytes", ErrTruncated, size)}
	}
	h = h[:headerLen+IDLen]
	if _, err := ra.ReadAt(h[headerLen:], headerLen); err != nil {
		return nil, nil, 0, &Error{Offset: headerLen, Record: -1, Err: fmt.Errorf("%w: %v", ErrTruncated, err)}
	}
	ix.seal = &seal{key: bytes.Clone(key)}
	copy(ix.seal.id[:], h[headerLen:])
	return ix, h, headerLen + IDLen, nil
}

// RecoverIndex opens what is left of a file cut short, or damaged past
// some point, where OpenIndex refuses it: it reads the data blocks from
// the header on, each whole and checked (its CRC; with a key, its MAC),
// up to the first that is not there whole or not sound, or to the index,
// and returns an Index of those before it, whose Cut says where and why
// the rest is lost. Such an index lists its blocks' records but not their
// lines or bytes of input (0: the index the file lost had them), and, as
// no trailer vouches for it, says nothing of blocks the file may have had
// past the cut. It returns an error only where the header is bad.
//
// It reads the whole file: for recovery, not for a file that opens.
func RecoverIndex(ra io.ReaderAt, size int64, key []byte) (*Index, error) {
	ix, _, off, err := openHeader(ra, size, key)
	if err != nil {
		return nil, err
	}
	sealed := ix.seal != nil
	var buf []byte
	for {
		first := ix.Records
		if off >= size {
			ix.cut = &Error{Offset: off, Record: first, Err: fmt.Errorf("%w: the file ends after its %d blocks, with no index", ErrTruncated, len(ix.entries))}
			break
		}
		var hdr [maxBlockHeader]byte
		n, _ := ra.ReadAt(hdr[:min(int64(len(hdr)), size-off)], off)
		_, bodyLen, hl, ok := blockHeader(hdr[:n])
		macLen := int64(0)
		if sealed && n > 0 && hdr[0] != typeIndex {
			macLen = MACLen
		}
		if blockEnd := off + int64(hl) + int64(bodyLen) + macLen + 4; !ok && off+int64(n) == size || ok && bodyLen <= MaxBlock && blockEnd > size {
			ix.cut = &Error{Offset: off, Record: first, Err: fmt.Errorf("%w: the file ends inside block %d", ErrTruncated, len(ix.entries))}
			break
		}
		if n > 0 && hdr[0] == typeIndex {
			ix.cut = &Error{Offset: off, Record: first, Err: fmt.Errorf("%w: the index or trailer is cut short or damaged", ErrTruncated)}
			break
		}
		b, err := readBlockAt(ra, off, size-off, first, sealed, buf)
		if err != nil {
			ix.cut = err
			break
		}
		if b.Type != TypeRecords && b.Type != TypeArchive {
			ix.cut = corrupt(off, first, "block of type %#02x", b.Type)
			break
		}
		if sealed && !ix.seal.checkBlock(b.mac, b.Type, first, b.Records, b.Body) {
			ix.cut = badBlockMAC(off, first, b.Records)
			break
		}
		e := indexEntry{Offset: off, First: first, Records: int64(b.Records), CRC: b.crc}
		copy(e.MAC[:], b.mac)
		ix.entries = append(ix.entries, e)
		ix.Records += e.Records
		off += b.size
		buf = b.Body[:0:cap(b.Body)] // the next block reads into this one's memory
	}
	ix.indexAt = off
	return ix, nil
}

// Cut returns, for an index RecoverIndex made, the error that ended its
// blocks: where the file was cut short or damaged, and the record from
// which on records are lost. It is nil for an index OpenIndex made.
func (ix *Index) Cut() error { return ix.cut }

// Blocks returns the number of data blocks.
func (ix *Index) Blocks() int { return len(ix.entries) }

// Block reads data block i, and checks it against its index entry: type,
// size, records, CRC and, in a sealed file, MAC, which it verifies if the
// index was opened with a key. It does not walk the records: that the
// body holds as many as the header says is for the caller who does.
func (ix *Index) Block(i int) (*Block, error) { return ix.ReadBlock(nil, i) }

// ReadBlock is Block reading into buf's memory if it has room for the
// block (at most BlockLen(i) bytes): a reader done with one block's bytes
// before it reads the next one reuses them, where Block allocates.
func (ix *Index) ReadBlock(buf []byte, i int) (*Block, error) {
	e := ix.entries[i]
	b, err := readBlockAt(ix.ra, e.Offset, ix.BlockLen(i), e.First, ix.seal != nil, buf)
	if err != nil {
		return nil, err
	}
	b.First = e.First
	b.Lines = int(e.Lines)
	switch {
	case b.Type != TypeRecords && b.Type != TypeArchive || b.size != ix.BlockLen(i) || int64(b.Records) != e.Records ||
		b.crc != e.CRC || ix.seal != nil && string(b.mac) != string(e.MAC[:]):
		return nil, corrupt(e.Offset, e.First, "block does not match its index entry")
	case ix.seal != nil && !ix.seal.checkBlock(b.mac, b.Type, e.First, b.Records, b.Body):
		return nil, badBlockMAC(e.Offset, e.First, b.Records)
	}
	return b, nil
}

// Head reads into p the first bytes of data block i's body, as many as p
// holds and the body has, and returns how many it read. Nothing is
// checked: it is a hint, for a reader deciding what to read next, which
// reads and checks the whole block (ReadBlock) before it relies on it.
func (ix *Index) Head(p []byte, i int) (int, error) {
	e := ix.entries[i]
	buf := make([]byte, min(int64(maxBlockHeader+len(p)), ix.BlockLen(i)))
	n, err := ix.ra.ReadAt(buf, e.Offset)
	if n < len(buf) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return 0, &Error{Offset: e.Offset, Record: e.First, Err: fmt.Errorf("%w: %v", ErrTruncated, err)}
	}
	_, bodyLen, hl, ok := blockHeader(buf)
	if !ok {
		return 0, corrupt(e.Offset, e.First, "bad block header")
	}
	body := buf[hl:]
	return copy(p, body[:min(uint64(len(body)), uint64(bodyLen))]), nil
}

// blockHeader parses the header at the start of h, a block's type and two
// uvarints: its records and the length of its body, and the header's
// length; ok is false if h holds no whole header.
func blockHeader(h []byte) (records, bodyLen uint32, hl int, ok bool) {
	records, k1, err1 := varint.Uvarint(h[min(1, len(h)):])
	if err1 != nil {
		return 0, 0, 0, false
	}
	bodyLen, k2, err2 := varint.Uvarint(h[1+k1:])
	return records, bodyLen, 1 + k1 + k2, err2 == nil
}

// BlockLen returns the bytes data block i takes in the file.
func (ix *Index) BlockLen(i int) int64 {
	end := ix.indexAt
	if i+1 < len(ix.entries) {
		end = ix.entries[i+1].Offset
	}
	return end - ix.entries[i].Offset
}

// Type returns the type of data block i, reading its first byte alone.
func (ix *Index) Type(i int) (byte, error) {
	var t [1]byte
	if _, err := ix.ra.ReadAt(t[:], ix.entries[i].Offset); err != nil {
		return 0, &Error{Offset: ix.entries[i].Offset, Record: -1, Err: fmt.Errorf("%w: %v", ErrTruncated, err)}
	}
	return t[0], nil
}

// First returns the number of the first record of data block i.
func (ix *Index) First(i int) int64 { return ix.entries[i].First }

// BlockRecords returns the number of records of data block i.
func (ix *Index) BlockRecords(i int) int64 { return ix.entries[i].Records }

// Find returns the block holding record n (from 0).
func (ix *Index) Find(n int64) (int, error) {
	if n < 0 || n >= ix.Records {
		return 0, fmt.Errorf("container: record %d out of range (the file has %d)", n, ix.Records)
	}
	i := sort.Search(len(ix.entries), func(i int) bool { return ix.entries[i].First+ix.entries[i].Records > n })
	return i, nil
}

// readBlockAt reads and checks the CRC of the block at off, which takes at
// most limit bytes; record is the number of its first record, for errors.
// In a sealed file, a data block's MAC is read with it.
func readBlockAt(ra io.ReaderAt, off, limit, record int64, sealed bool, buf []byte) (*Block, error) {
	var hdr [maxBlockHeader]byte
	n, err := ra.ReadAt(hdr[:min(int64(len(hdr)), limit)], off)
	if n == 0 {
		if err == nil {
			err = io.ErrUnexpectedEOF // no room for a block
		}
		return nil, &Error{Offset: off, Record: record, Err: fmt.Errorf("%w: %v", ErrTruncated, err)}
	}
	records, bodyLen, hl, ok := blockHeader(hdr[:n])
	if !ok {
		return nil, corrupt(off, record, "bad block header")
	}
	macLen := 0
	if sealed && hdr[0] != typeIndex {
		macLen = MACLen
	}
	size := int64(hl) + int64(bodyLen) + int64(macLen) + 4
	if bodyLen > MaxBlock || size > limit {
		return nil, corrupt(off, record, "block of %d bytes does not fit", bodyLen)
	}
	if int64(cap(buf)) >= size {
		buf = buf[:size]
	} else {
		buf = make([]byte, size)
	}
	if _, err := ra.ReadAt(buf, off); err != nil {
		return nil, &Error{Offset: off, Record: record, Err: fmt.Errorf("%w: %v", ErrTruncated, err)}
	}
	end := hl + int(bodyLen)
	if got, want := binary.LittleEndian.Uint32(buf[size-4:]), crc.Checksum(buf[:size-4]); got != want {
		return nil, corrupt(off, record, "block checksum %08x, expected %08x", got, want)
	}
	return &Block{Type: buf[0], Offset: off, Records: int(records), Body: buf[hl:end], size: size,
		crc: binary.LittleEndian.Uint32(buf[size-4:]), mac: buf[end : end+macLen]}, nil
}
