package container

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/varint"
)

// splitBlock returns the type, record count and header length of a block.
func splitBlock(block []byte) (typ byte, records, hl int, err error) {
	if len(block) < 1+2+4 {
		return 0, 0, 0, errors.New("too short")
	}
	n, k1, err := varint.Uvarint(block[1:])
	if err != nil {
		return 0, 0, 0, err
	}
	_, k2, err := varint.Uvarint(block[1+k1:])
	return block[0], int(n), 1 + k1 + k2, err
}

// addCRC folds a block's CRC into the file's: file_crc32 is the CRC-32 of
// the header, each block's CRC in order, and the trailer before it.
func addCRC(sum, block uint32) uint32 {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], block)
	return crc.Update(sum, b[:])
}

// BlockBuilder collects the records of one block. The zero value is an
// empty block; reuse it with Reset.
type BlockBuilder struct {
	buf     []byte // maxBlockHeader bytes of room, then the body
	records int
	lines   int
}

// Reset empties the builder, keeping its memory.
func (b *BlockBuilder) Reset() {
	b.buf = append(b.buf[:0], make([]byte, maxBlockHeader)...)
	b.records, b.lines = 0, 0
}

// Add appends a record.
func (b *BlockBuilder) Add(r Record) {
	if len(b.buf) < maxBlockHeader {
		b.Reset()
	}
	kind := byte(r.Encoding) & encodingMask
	if r.Continues {
		kind |= flagContinues
	} else {
		b.lines++
	}
	if r.NoNewline {
		kind |= flagNoNewline
	}
	b.buf = append(b.buf, kind)
	b.buf = varint.AppendUvarint(b.buf, uint32(len(r.Data)))
	b.buf = append(b.buf, r.Data...)
	b.records++
}

// Len returns the size of the body so far.
func (b *BlockBuilder) Len() int { return max(len(b.buf)-maxBlockHeader, 0) }

// Records returns the number of records added.
func (b *BlockBuilder) Records() int { return b.records }

// Block finishes the block and returns its bytes, ready for Writer.Write.
// It aliases the builder's memory until the next Reset or Add.
func (b *BlockBuilder) Block() []byte {
	if len(b.buf) < maxBlockHeader {
		b.Reset()
	}
	return finishBlock(b.buf, TypeRecords, b.records)
}

// BlockRoom is the room to leave at the start of a buffer in which a block's
// body is built, for FinishBlock to write the block's header into.
const BlockRoom = maxBlockHeader

// FinishBlock finishes a block of type typ holding records records whose
// body was appended to buf after BlockRoom bytes of room: it writes the
// header right before the body, appends the CRC and returns the block, in
// buf's memory. It is AppendBlock without the copy.
func FinishBlock(buf []byte, typ byte, records int) []byte { return finishBlock(buf, typ, records) }

// AppendBlock appends a block of type typ holding records records, with
// body, to dst: how packages that define their own block bodies (archive)
// make blocks for Writer.Write.
func AppendBlock(dst []byte, typ byte, records int, body []byte) []byte {
	buf := append(make([]byte, maxBlockHeader, maxBlockHeader+len(body)+4), body...)
	return append(dst, finishBlock(buf, typ, records)...)
}

// finishBlock writes the header of the block whose body starts at
// buf[maxBlockHeader:] right before the body, appends the CRC, and returns
// the block.
func finishBlock(buf []byte, typ byte, records int) []byte {
	body := len(buf) - maxBlockHeader
	var h [maxBlockHeader]byte
	hb := append(h[:0], typ)
	hb = varint.AppendUvarint(hb, uint32(records))
	hb = varint.AppendUvarint(hb, uint32(body))
	start := maxBlockHeader - len(hb)
	copy(buf[start:], hb)
	block := buf[start:]
	return binary.LittleEndian.AppendUint32(block, crc.Checksum(block))
}

// ParseRecords calls f with each record of a records block's body, in
// order. The records alias body.
func ParseRecords(body []byte, f func(Record) error) error {
	for off := 0; off < len(body); {
		kind := body[off]
		n, k, err := varint.Uvarint(body[off+1:])
		if err != nil || kind&^(encodingMask|flagContinues|flagNoNewline) != 0 || Encoding(kind&encodingMask) >= numEncodings {
			return fmt.Errorf("bad record header at body offset %d", off)
		}
		start := off + 1 + k
		if int64(n) > int64(len(body)-start) {
			return fmt.Errorf("record at body offset %d runs past its block", off)
		}
		rec := Record{
			Encoding: Encoding(kind & encodingMask), Continues: kind&flagContinues != 0,
			NoNewline: kind&flagNoNewline != 0, Data: body[start : start+int(n) : start+int(n)],
		}
		if rec.Continues && !rec.NoNewline {
			return fmt.Errorf("record at body offset %d continues but is followed by a newline", off)
		}
		if err := f(rec); err != nil {
			return err
		}
		off = start + int(n)
	}
	return nil
}
