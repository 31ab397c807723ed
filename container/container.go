package container

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/varint"
)

// Format constants.
const (
	Version    = 2
	MaxBlock   = 64 << 20 // largest block body a reader accepts
	headerLen  = 12       // without a sealed file's id
	trailerLen = 40       // without a sealed file's MAC
	flagSealed = 0x01     // header flag: the file is sealed
	// maxBlockHeader is a block's type and two uvarints at their longest.
	maxBlockHeader = 1 + 2*varint.MaxLen
)

var (
	magic    = [8]byte{0x89, 'M', '2', 'M', '\r', '\n', 0x1a, '\n'}
	endMagic = [4]byte{'M', '2', 'M', 0x1a}
)

// HasMagic reports whether p starts like a container file.
func HasMagic(p []byte) bool {
	return len(p) >= len(magic) && string(p[:len(magic)]) == string(magic[:])
}

// FirstBlockType returns the type of the first block of the container file
// that starts with head, if head holds it; ok is false if it does not, or
// if the file has no blocks.
func FirstBlockType(head []byte) (typ byte, ok bool) {
	if !HasMagic(head) || len(head) <= headerLen {
		return 0, false
	}
	at := headerLen
	if head[9]&flagSealed != 0 {
		at += IDLen // a sealed file's id follows the header
	}
	if len(head) <= at || head[at] == typeIndex {
		return 0, false
	}
	return head[at], true
}

// IsCutMagic reports whether p, the whole of a file, is a container's
// magic cut short: a container truncated inside its first 8 bytes.
func IsCutMagic(p []byte) bool {
	return len(p) > 0 && len(p) < len(magic) && string(p) == string(magic[:len(p)])
}

// Block types.
const (
	TypeRecords = 0x01
	TypeArchive = 0x02
	typeIndex   = 0xFF
)

// Encoding is how a record holds its line.
type Encoding uint8

// The encodings.
const (
	Raw          Encoding = 0 // the bytes themselves
	M2M          Encoding = 1 // an M2M v1 frame, binary form, prefix included
	Brotli       Encoding = 2 // a Brotli stream
	TokenNative  Encoding = 3 // a TokenNative message, binary mode
	SealedRaw    Encoding = 4 // the bytes, sealed (see codec.Encoder.AppendSealed)
	numEncodings          = 5
)

func (e Encoding) String() string {
	switch e {
	case Raw:
		return "raw"
	case M2M:
		return "m2m"
	case Brotli:
		return "brotli"
	case TokenNative:
		return "tokennative"
	case SealedRaw:
		return "sealed-raw"
	}
	return fmt.Sprintf("encoding(%d)", uint8(e))
}

// Record kind flags.
const (
	flagContinues = 0x40
	flagNoNewline = 0x80
	encodingMask  = 0x0F
)

// Record is one record: a line of the input, or a piece of one.
type Record struct {
	Encoding  Encoding
	Continues bool   // a piece of a line that the next record continues
	NoNewline bool   // not followed by a line feed in the input
	Data      []byte // aliases the block
}

// Errors. Every error this package returns about a file wraps one of them.
var (
	ErrFormat    = errors.New("container: not a container file of a known version")
	ErrCorrupt   = errors.New("container: corrupt")
	ErrTruncated = errors.New("container: truncated")
	// ErrSeal is the error for a file read with a key that is not sealed,
	// or whose MACs do not verify.
	ErrSeal = errors.New("container: bad seal")
)

// An Error says where in the file a problem is.
type Error struct {
	Offset int64 // byte offset of the block or field
	Record int64 // number (from 0) of the first record concerned, or -1
	Err    error // wraps ErrFormat, ErrCorrupt, ErrTruncated or ErrSeal
}

func (e *Error) Error() string {
	if e.Record >= 0 {
		return fmt.Sprintf("%v (record %d, offset %d)", e.Err, e.Record, e.Offset)
	}
	return fmt.Sprintf("%v (offset %d)", e.Err, e.Offset)
}

func (e *Error) Unwrap() error { return e.Err }

func corrupt(offset, record int64, format string, args ...any) *Error {
	return &Error{Offset: offset, Record: record, Err: fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))}
}

// badBlockMAC is the error for a data block whose MAC does not verify.
func badBlockMAC(offset, first int64, records int) *Error {
	what := fmt.Sprintf("record %d", first)
	if records != 1 {
		what = fmt.Sprintf("records %d to %d", first, first+int64(records)-1)
	}
	return &Error{Offset: offset, Record: first, Err: fmt.Errorf("%w: the MAC of the block of %s does not verify", ErrSeal, what)}
}

// notSealed is the error for a file read with a key that is not sealed.
var notSealed = &Error{Offset: 0, Record: -1, Err: fmt.Errorf("%w: the file is not sealed, and a key was given", ErrSeal)}

// parseHeader checks the fixed part of a file's header (its first
// headerLen bytes) and reports whether the file is sealed.
func parseHeader(h []byte) (sealed bool, err error) {
	switch {
	case !HasMagic(h):
		return false, &Error{Offset: 0, Record: -1, Err: ErrFormat}
	case h[8] != Version:
		return false, &Error{Offset: 8, Record: -1, Err: fmt.Errorf("%w: version %d; this reader reads version %d only", ErrFormat, h[8], Version)}
	case h[9]&^flagSealed != 0 || h[10] != 0 || h[11] != 0:
		return false, &Error{Offset: 9, Record: -1, Err: fmt.Errorf("%w: unknown flags in the header (% x)", ErrFormat, h[9:12])}
	}
	return h[9]&flagSealed != 0, nil
}

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
	Lines   int   // records that end a line
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
	body = binary.AppendUvarint(body, uint64(len(w.index)))
	var prev int64
	for _, e := range w.index {
		body = binary.AppendUvarint(body, uint64(e.Offset-prev))
		body = binary.AppendUvarint(body, uint64(e.Records))
		body = binary.AppendUvarint(body, uint64(e.Lines))
		body = binary.AppendUvarint(body, uint64(e.Bytes))
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

// Block is one block read from a file.
type Block struct {
	Type    byte
	Offset  int64 // in the file
	First   int64 // number of its first record
	Records int
	Lines   int // records that end a line
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
	n, k := binary.Uvarint(body)
	if k <= 0 || n > uint64(len(body)) {
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
			x, k := binary.Uvarint(body)
			if k <= 0 {
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

// Index is the table of contents of a file opened for random access.
type Index struct {
	ra      io.ReaderAt
	seal    *seal // nil: not sealed
	indexAt int64 // where the index block starts: the data blocks end there
	entries []indexEntry
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
	if key != nil {
		if err := checkKey(key); err != nil {
			return nil, err
		}
	}
	if size < headerLen+trailerLen {
		return nil, &Error{Offset: 0, Record: -1, Err: fmt.Errorf("%w: %d bytes", ErrTruncated, size)}
	}
	var h [headerLen + IDLen]byte
	if _, err := ra.ReadAt(h[:headerLen], 0); err != nil {
		return nil, &Error{Offset: 0, Record: -1, Err: fmt.Errorf("%w: %v", ErrFormat, err)}
	}
	sealed, err := parseHeader(h[:headerLen])
	if err != nil {
		return nil, err
	}
	ix := &Index{ra: ra}
	hl, tl := int64(headerLen), int64(trailerLen)
	if sealed {
		hl, tl = hl+IDLen, tl+MACLen
		if size < hl+tl {
			return nil, &Error{Offset: 0, Record: -1, Err: fmt.Errorf("%w: %d bytes", ErrTruncated, size)}
		}
		if _, err := ra.ReadAt(h[headerLen:], headerLen); err != nil {
			return nil, &Error{Offset: headerLen, Record: -1, Err: fmt.Errorf("%w: %v", ErrTruncated, err)}
		}
		ix.seal = &seal{key: bytes.Clone(key)}
		copy(ix.seal.id[:], h[headerLen:])
	} else if key != nil {
		return nil, notSealed
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
	blk, err := readBlockAt(ra, indexAt, size-tl-indexAt, -1, sealed)
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
	sum := crc.Checksum(h[:hl])
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

// Blocks returns the number of data blocks.
func (ix *Index) Blocks() int { return len(ix.entries) }

// Block reads data block i, and checks it against its index entry: type,
// size, records, CRC and, in a sealed file, MAC, which it verifies if the
// index was opened with a key. It does not walk the records: that the
// body holds as many as the header says is for the caller who does.
func (ix *Index) Block(i int) (*Block, error) {
	e := ix.entries[i]
	end := ix.indexAt
	if i+1 < len(ix.entries) {
		end = ix.entries[i+1].Offset
	}
	b, err := readBlockAt(ix.ra, e.Offset, end-e.Offset, e.First, ix.seal != nil)
	if err != nil {
		return nil, err
	}
	b.First = e.First
	b.Lines = int(e.Lines)
	switch {
	case b.Type != TypeRecords && b.Type != TypeArchive || b.size != end-e.Offset || int64(b.Records) != e.Records ||
		b.crc != e.CRC || ix.seal != nil && string(b.mac) != string(e.MAC[:]):
		return nil, corrupt(e.Offset, e.First, "block does not match its index entry")
	case ix.seal != nil && !ix.seal.checkBlock(b.mac, b.Type, e.First, b.Records, b.Body):
		return nil, badBlockMAC(e.Offset, e.First, b.Records)
	}
	return b, nil
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
func readBlockAt(ra io.ReaderAt, off, limit, record int64, sealed bool) (*Block, error) {
	var hdr [maxBlockHeader]byte
	n, err := ra.ReadAt(hdr[:min(int64(len(hdr)), limit)], off)
	if n == 0 {
		if err == nil {
			err = io.ErrUnexpectedEOF // no room for a block
		}
		return nil, &Error{Offset: off, Record: record, Err: fmt.Errorf("%w: %v", ErrTruncated, err)}
	}
	records, k1, err1 := varint.Uvarint(hdr[1:n])
	bodyLen, k2, err2 := varint.Uvarint(hdr[1+k1 : n])
	if err1 != nil || err2 != nil {
		return nil, corrupt(off, record, "bad block header")
	}
	macLen := 0
	if sealed && hdr[0] != typeIndex {
		macLen = MACLen
	}
	hl := 1 + k1 + k2
	size := int64(hl) + int64(bodyLen) + int64(macLen) + 4
	if bodyLen > MaxBlock || size > limit {
		return nil, corrupt(off, record, "block of %d bytes does not fit", bodyLen)
	}
	buf := make([]byte, size)
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
