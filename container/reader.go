package container

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/varint"
)

// Block is one block read from a file.
type Block struct {
	Type    byte
	Offset  int64 // in the file
	First   int64 // number of its first record
	Records int
	Lines   int // lines its records end (an archive's record may hold several)
	Body    []byte

	size int64  // of the whole block in the file
	crc  uint32 // its CRC
	mac  []byte // its MAC, in a sealed file
}

// Each calls f with each record of a records block.
func (b *Block) Each(f func(Record) error) error {
	err := ParseRecords(b.Body, f)
	var e *Error
	if err != nil && !errors.As(err, &e) {
		return corrupt(b.Offset, b.First, "%v", err)
	}
	return err
}

// Reader reads a container file as a stream, checking every block's CRC
// (and, given a key, its MAC) as it comes, and at the end the index, the
// counts, the whole file's CRC (and, given a key, the trailer's MAC).
type Reader struct {
	// Lines and Bytes are the totals of the file, known once Next has
	// returned io.EOF.
	Lines, Bytes int64

	r       *bufio.Reader
	seal    *seal  // nil: not sealed
	sum     uint32 // file_crc32 so far
	offset  int64
	records int64
	index   []indexEntry
	body    []byte
	done    bool
}

// NewReader reads and checks the header. With a key (the MAC key, as
// NewWriter takes it), it refuses a file that is not sealed, and Next
// verifies every MAC; with none, a sealed file reads as any other, its
// MACs covered by the CRCs but not verified.
func NewReader(r io.Reader, key []byte) (*Reader, error) {
	if key != nil {
		if err := checkKey(key); err != nil {
			return nil, err
		}
	}
	cr := &Reader{r: bufio.NewReaderSize(r, 1<<16)}
	var h [headerLen + IDLen]byte
	if _, err := io.ReadFull(cr.r, h[:headerLen]); err != nil {
		return nil, &Error{Offset: 0, Record: -1, Err: fmt.Errorf("%w: %v", ErrFormat, err)}
	}
	sealed, err := parseHeader(h[:headerLen])
	if err != nil {
		return nil, err
	}
	n := headerLen
	if sealed {
		cr.offset = headerLen
		if err := cr.read(h[headerLen:], "the header"); err != nil {
			return nil, err
		}
		n += IDLen
		cr.seal = &seal{key: bytes.Clone(key)}
		copy(cr.seal.id[:], h[headerLen:])
	} else if key != nil {
		return nil, notSealed
	}
	cr.sum = crc.Checksum(h[:n])
	cr.offset = int64(n)
	return cr, nil
}

// read fills p from the stream, reporting a clean end as truncation.
func (r *Reader) read(p []byte, what string) error {
	if _, err := io.ReadFull(r.r, p); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return &Error{Offset: r.offset, Record: r.records, Err: fmt.Errorf("%w: file ends inside %s", ErrTruncated, what)}
		}
		return err
	}
	return nil
}

// Next returns the next data block, whose Body is valid until the next
// call. After the last block it checks the index and trailer and returns
// io.EOF; a file cut short is ErrTruncated, a bad checksum ErrCorrupt, a
// MAC that does not verify ErrSeal.
func (r *Reader) Next() (*Block, error) {
	if r.done {
		return nil, io.EOF
	}
	start := r.offset
	var hdr [maxBlockHeader]byte
	if err := r.read(hdr[:1], "a block header"); err != nil {
		return nil, err
	}
	n := 1
	readUvarint := func() (uint32, error) {
		for i := 0; i < varint.MaxLen; i++ {
			if err := r.read(hdr[n:n+1], "a block header"); err != nil {
				return 0, err
			}
			n++
			if hdr[n-1] < 0x80 {
				x, _, err := varint.Uvarint(hdr[n-1-i : n])
				if err != nil {
					return 0, corrupt(start, r.records, "block header: %v", err)
				}
				return x, nil
			}
		}
		return 0, corrupt(start, r.records, "block header: %v", varint.ErrOverflow)
	}
	records, err := readUvarint()
	if err != nil {
		return nil, err
	}
	bodyLen, err := readUvarint()
	if err != nil {
		return nil, err
	}
	typ := hdr[0]
	if typ != TypeRecords && typ != TypeArchive && typ != typeIndex {
		return nil, corrupt(start, r.records, "unknown block type %#02x", typ)
	}
	if bodyLen > MaxBlock {
		return nil, corrupt(start, r.records, "block body of %d bytes exceeds %d", bodyLen, MaxBlock)
	}
	macLen := 0
	if r.seal != nil && typ != typeIndex {
		macLen = MACLen
	}
	size := int(bodyLen) + macLen + 4
	if cap(r.body) < size {
		r.body = make([]byte, size)
	}
	buf := r.body[:size]
	if err := r.read(buf, "a block"); err != nil {
		return nil, err
	}
	body, mac := buf[:bodyLen], buf[bodyLen:size-4]
	sum := crc.Update(crc.Checksum(hdr[:n]), buf[:size-4])
	if got := binary.LittleEndian.Uint32(buf[size-4:]); got != sum {
		return nil, corrupt(start, r.records, "block checksum %08x, expected %08x", got, sum)
	}
	r.sum = addCRC(r.sum, sum)
	r.offset += int64(n + size)

	if typ == typeIndex {
		if err := r.finish(start, body); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	if r.seal != nil && !r.seal.checkBlock(mac, typ, r.records, int(records), body) {
		return nil, badBlockMAC(start, r.records, int(records))
	}
	b := &Block{Type: typ, Offset: start, First: r.records, Records: int(records), Body: body}
	if typ == TypeRecords {
		count := 0
		err := ParseRecords(body, func(rec Record) error {
			count++
			if !rec.Continues {
				b.Lines++
			}
			return nil
		})
		if err != nil {
			return nil, corrupt(start, r.records, "%v", err)
		}
		if count != b.Records {
			return nil, corrupt(start, r.records, "block holds %d records, header says %d", count, b.Records)
		}
	} else {
		b.Lines = -1 // an archive block's reader counts its lines
	}
	e := indexEntry{Offset: start, First: r.records, Records: int64(records), Lines: int64(b.Lines), CRC: sum}
	copy(e.MAC[:], mac)
	r.index = append(r.index, e)
	r.records += int64(records)
	return b, nil
}

// finish checks the index against the blocks read, and the trailer.
func (r *Reader) finish(indexAt int64, body []byte) error {
	entries, err := parseIndex(body, r.seal != nil)
	if err != nil {
		return corrupt(indexAt, -1, "index: %v", err)
	}
	if len(entries) != len(r.index) {
		return corrupt(indexAt, -1, "index lists %d blocks, file has %d", len(entries), len(r.index))
	}
	var lines, bytes int64
	for i, e := range entries {
		got := r.index[i]
		if e.Offset != got.Offset || e.Records != got.Records || got.Lines >= 0 && e.Lines != got.Lines || e.CRC != got.CRC || e.MAC != got.MAC {
			return corrupt(indexAt, got.First, "index entry %d does not match the block at offset %d", i, got.Offset)
		}
		lines += e.Lines
		bytes += e.Bytes
	}
	tl := trailerLen
	if r.seal != nil {
		tl += MACLen
	}
	var t [trailerLen + MACLen]byte
	if err := r.read(t[:tl], "the trailer"); err != nil {
		return err
	}
	if string(t[tl-4:tl]) != string(endMagic[:]) {
		return corrupt(r.offset, -1, "bad trailer")
	}
	if int64(binary.LittleEndian.Uint64(t[0:])) != indexAt ||
		int64(binary.LittleEndian.Uint64(t[8:])) != r.records ||
		int64(binary.LittleEndian.Uint64(t[16:])) != lines ||
		int64(binary.LittleEndian.Uint64(t[24:])) != bytes {
		return corrupt(r.offset, -1, "trailer disagrees with the blocks (%d records read)", r.records)
	}
	r.Lines, r.Bytes = lines, bytes
	if got, want := binary.LittleEndian.Uint32(t[tl-8:]), crc.Update(r.sum, t[:tl-8]); got != want {
		return corrupt(r.offset, -1, "file checksum %08x, expected %08x", got, want)
	}
	if r.seal != nil && !r.seal.checkTrailer(t[32:32+MACLen], body, t[:32]) {
		return badTrailerMAC(r.offset, r.records)
	}
	if _, err := r.r.ReadByte(); err != io.EOF {
		return corrupt(r.offset+int64(tl), -1, "bytes after the trailer")
	}
	r.done = true
	return nil
}

// badTrailerMAC is the error for a trailer whose MAC does not verify.
func badTrailerMAC(offset, records int64) *Error {
	return &Error{Offset: offset, Record: -1, Err: fmt.Errorf("%w: the trailer's MAC does not verify: blocks were moved, dropped or changed, or the file cut (it lists %d records)", ErrSeal, records)}
}

// parseIndex parses the body of an index block; sealed says whether its
// entries hold MACs.
func parseIndex(body []byte, sealed bool) ([]indexEntry, error) {
	n, k, err := varint.Uvarint64(body)
	if err != nil || n > uint64(len(body)) {
		return nil, errors.New("bad block count")
	}
	body = body[k:]
	fixed := 4
	if sealed {
		fixed += MACLen
	}
	entries := make([]indexEntry, 0, n)
	var off, first int64
	for range n {
		var v [4]uint64
		for j := range v {
			x, k, err := varint.Uvarint64(body)
			if err != nil {
				return nil, errors.New("truncated entry")
			}
			v[j], body = x, body[k:]
		}
		if len(body) < fixed {
			return nil, errors.New("truncated entry")
		}
		off += int64(v[0])
		e := indexEntry{Offset: off, First: first, Records: int64(v[1]), Lines: int64(v[2]), Bytes: int64(v[3]),
			CRC: binary.LittleEndian.Uint32(body)}
		copy(e.MAC[:], body[4:fixed])
		entries = append(entries, e)
		body = body[fixed:]
		first += int64(v[1])
	}
	if len(body) != 0 {
		return nil, errors.New("bytes after the last entry")
	}
	return entries, nil
}
