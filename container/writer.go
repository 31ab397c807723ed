package container

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/varint"
)

// indexEntry is one block in the index.
type indexEntry struct {
	Offset  int64 // of the block in the file
	First   int64 // number of its first record
	Records int64
	Lines   int64
	Bytes   int64  // of original input
	CRC     uint32 // the block's
	MAC     [MACLen]byte
}

// Counts describe what a block holds.
type Counts struct {
	Records int   // records in the block
	Lines   int   // lines the records end (an archive's record may hold several)
	Bytes   int64 // bytes of original input, line feeds included
}

// Writer writes a container file: a header on creation, blocks, and the
// index and trailer on Close. It checksums everything it writes, and
// seals it if made with a key.
type Writer struct {
	w       io.Writer
	seal    *seal  // nil: not sealed
	sum     uint32 // file_crc32 so far
	offset  int64
	records int64
	lines   int64
	bytes   int64
	index   []indexEntry
	err     error
}

// NewWriter writes the header to w and returns a Writer. With a key, the
// file is sealed (see the package documentation), with a random id: key
// is the MAC key, at least MinKeyLen bytes, which the caller derives for
// this use alone. A nil key writes a file that is not sealed.
func NewWriter(w io.Writer, key []byte) (*Writer, error) {
	cw := &Writer{w: w}
	h := append(magic[:], Version, 0, 0, 0)
	if key != nil {
		if err := checkKey(key); err != nil {
			return nil, err
		}
		cw.seal = &seal{key: bytes.Clone(key)}
		rand.Read(cw.seal.id[:]) // crypto/rand never fails
		h[9] = flagSealed
		h = append(h, cw.seal.id[:]...)
	}
	cw.sum = crc.Checksum(h)
	cw.write(h)
	return cw, cw.err
}

func (w *Writer) write(p []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(p)
	w.offset += int64(n)
	w.err = err
}

// Write writes a block made by BlockBuilder.Block (or AppendBlock) with
// what it holds; in a sealed file, with its MAC before its CRC.
func (w *Writer) Write(block []byte, c Counts) error {
	typ, records, hl, err := splitBlock(block)
	switch {
	case err != nil:
		return fmt.Errorf("container: Write of something that is not a block: %v", err)
	case records != c.Records:
		return fmt.Errorf("container: Write of a block of %d records with counts for %d", records, c.Records)
	}
	end := len(block) - 4
	e := indexEntry{Offset: w.offset, First: w.records, Records: int64(c.Records), Lines: int64(c.Lines), Bytes: c.Bytes,
		CRC: binary.LittleEndian.Uint32(block[end:])}
	if w.seal == nil {
		w.write(block)
	} else {
		e.MAC = w.seal.blockMAC(typ, w.records, records, block[hl:end])
		e.CRC = crc.Update(e.CRC, e.MAC[:]) // the CRC covers the MAC
		w.write(block[:end])
		w.write(e.MAC[:])
		w.write(binary.LittleEndian.AppendUint32(nil, e.CRC))
	}
	w.sum = addCRC(w.sum, e.CRC)
	w.index = append(w.index, e)
	w.records += int64(c.Records)
	w.lines += int64(c.Lines)
	w.bytes += c.Bytes
	return w.err
}

// Records returns the number of records written.
func (w *Writer) Records() int64 { return w.records }

// Close writes the index and the trailer. It does not close the underlying
// writer.
func (w *Writer) Close() error {
	body := make([]byte, maxBlockHeader, maxBlockHeader+(12+MACLen)*len(w.index))
	body = varint.AppendUvarint64(body, uint64(len(w.index)))
	var prev int64
	for _, e := range w.index {
		body = varint.AppendUvarint64(body, uint64(e.Offset-prev))
		body = varint.AppendUvarint64(body, uint64(e.Records))
		body = varint.AppendUvarint64(body, uint64(e.Lines))
		body = varint.AppendUvarint64(body, uint64(e.Bytes))
		body = binary.LittleEndian.AppendUint32(body, e.CRC)
		if w.seal != nil {
			body = append(body, e.MAC[:]...)
		}
		prev = e.Offset
	}
	index := body[maxBlockHeader:] // finishBlock leaves it as it is
	indexAt := w.offset
	block := finishBlock(body, typeIndex, 0)
	w.write(block)
	w.sum = addCRC(w.sum, binary.LittleEndian.Uint32(block[len(block)-4:]))
	t := make([]byte, 0, trailerLen+MACLen)
	t = binary.LittleEndian.AppendUint64(t, uint64(indexAt))
	t = binary.LittleEndian.AppendUint64(t, uint64(w.records))
	t = binary.LittleEndian.AppendUint64(t, uint64(w.lines))
	t = binary.LittleEndian.AppendUint64(t, uint64(w.bytes))
	if w.seal != nil {
		mac := w.seal.trailerMAC(index, t)
		t = append(t, mac[:]...)
	}
	t = binary.LittleEndian.AppendUint32(t, crc.Update(w.sum, t))
	w.write(append(t, endMagic[:]...))
	return w.err
}
