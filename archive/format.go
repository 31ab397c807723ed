package archive

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/klauspost/compress/zstd"
	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/crc"
)

// Block body kinds.
const (
	kindBlock     = 'A'
	kindDirectory = 'D'
)

// Record flags in a block's index.
const (
	flagTemplate  = 0x01
	flagHeader    = 0x02
	flagContinues = 0x40
	flagNoNewline = 0x80
	flagsDefined  = flagTemplate | flagHeader | flagContinues | flagNoNewline
)

// Limits a reader enforces, so that a corrupt or hostile file cannot make
// it allocate without bound.
const (
	// MaxLine is the longest record: the protocol's message limit, the
	// longest piece m2m-batch keeps in one record.
	MaxLine = 16 << 20
	// maxSection is the most a block's store or skeleton section may
	// decompress to: what the writer makes of an 8 MiB batch that ends in
	// a 16 MiB line.
	maxSection = 32 << 20
	// maxGenCap is the largest store generation a reader accepts, and the
	// largest a writer makes: it bounds the text a reader keeps.
	maxGenCap = 32 << 20
)

// ErrCorrupt is what every error about a damaged archive block wraps.
var ErrCorrupt = errors.New("archive: corrupt")

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// An Encoder compresses Blocks into archive block bodies: one per worker,
// not safe for concurrent use.
type Encoder struct {
	z      *zstd.Encoder
	hdr    *codec.Encoder
	buf    []byte
	idx    []byte
	hdrBuf []byte
}

// NewEncoder returns an Encoder for blocks built with o.
func NewEncoder(o Options) (*Encoder, error) {
	z, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevel(o.level())),
		zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(encoderWindow), zstd.WithZeroFrames(true))
	if err != nil {
		return nil, err
	}
	hdr, err := codec.NewEncoder()
	if err != nil {
		return nil, err
	}
	return &Encoder{z: z, hdr: hdr}, nil
}

// encoderWindow is the zstd window of a section: all of one of m2m-batch's
// 8 MiB blocks. maxWindow is the largest a reader accepts.
const (
	encoderWindow = 8 << 20
	maxWindow     = 64 << 20
)

// AppendBody appends the body of the archive block b to dst (see the
// package documentation for the format).
func (e *Encoder) AppendBody(dst []byte, b *Block) []byte {
	idx := e.idx[:0]
	for _, r := range b.Records {
		flags := byte(0)
		if r.Template {
			flags |= flagTemplate
		}
		if r.Continues {
			flags |= flagContinues
		}
		if r.NoNewline {
			flags |= flagNoNewline
		}
		at := len(idx)
		idx = append(idx, flags)
		idx = binary.AppendUvarint(idx, uint64(len(r.Line)))
		idx = binary.AppendUvarint(idx, uint64(r.SkelLen))
		idx = binary.LittleEndian.AppendUint32(idx, crc.Checksum(r.Line))
		if !r.Continues && len(r.Line) > 0 {
			// The header goes in only for JSON the codec accepts.
			var err error
			if e.hdrBuf, err = e.hdr.AppendHeader(e.hdrBuf[:0], r.Line); err == nil {
				idx[at] |= flagHeader
				idx = binary.AppendUvarint(idx, uint64(len(e.hdrBuf)))
				idx = append(idx, e.hdrBuf...)
			}
		}
	}
	e.idx = idx
	e.buf = e.z.EncodeAll(idx, e.buf[:0])
	idxZ := len(e.buf)
	e.buf = e.z.EncodeAll(b.Store, e.buf)
	storeZ := len(e.buf) - idxZ
	e.buf = e.z.EncodeAll(b.Skel, e.buf)
	dst = append(dst, kindBlock)
	for _, v := range []int{b.genCap, int(b.FirstEntry), b.Entries, len(b.Records),
		len(idx), idxZ, len(b.Store), storeZ, len(b.Skel), len(e.buf) - idxZ - storeZ} {
		dst = binary.AppendUvarint(dst, uint64(v))
	}
	return append(dst, e.buf...)
}

// A RecIndex is one record's entry in a block's index: all that -l reads.
type RecIndex struct {
	Template  bool
	Continues bool
	NoNewline bool
	LineLen   int
	SkelLen   int
	CRC       uint32
	Header    []byte // the M2M v1 header, if the record is JSON; aliases the body
}

// blockHead is the fixed part of a block body.
type blockHead struct {
	genCap, firstEntry, entries, records int
	indexLen, indexZ                     int
	storeLen, storeZ, skelLen, skelZ     int
}

// parseHead reads the fixed part of a block body and returns where the
// index starts.
func parseHead(h *blockHead, body []byte) (int, error) {
	if len(body) == 0 || body[0] != kindBlock {
		return 0, corruptf("not an archive block")
	}
	off := 1
	vals := [...]*int{&h.genCap, &h.firstEntry, &h.entries, &h.records, &h.indexLen, &h.indexZ, &h.storeLen, &h.storeZ, &h.skelLen, &h.skelZ}
	for _, p := range vals {
		v, n := binary.Uvarint(body[off:])
		if n <= 0 || v > math.MaxInt32 {
			return 0, corruptf("bad block header")
		}
		*p, off = int(v), off+n
	}
	switch {
	case h.genCap == 0 || h.genCap > maxGenCap:
		return 0, corruptf("store generation of %d bytes", h.genCap)
	case h.entries > h.storeLen || h.firstEntry > math.MaxInt32-h.entries:
		return 0, corruptf("%d entries from %d", h.entries, h.firstEntry)
	case h.indexLen > maxSection || h.storeLen > maxSection || h.skelLen > maxSection:
		return 0, corruptf("sections of %d, %d and %d bytes exceed %d", h.indexLen, h.storeLen, h.skelLen, maxSection)
	case h.records == 0 || h.records > h.indexLen:
		return 0, corruptf("%d records", h.records)
	case h.indexZ+h.storeZ+h.skelZ != len(body)-off:
		return 0, corruptf("sections do not fill the block")
	}
	return off, nil
}

// EachIndex calls f with the index entry of each record of the block
// body (the bytes of a container block of type container.TypeArchive),
// decompressing the index alone: no payload. Header aliases d's memory
// until the next call.
func (d *Decoder) EachIndex(body []byte, f func(RecIndex) error) error {
	var h blockHead
	off, err := parseHead(&h, body)
	if err != nil {
		return err
	}
	if d.idx, err = d.section(d.idx, body[off:off+h.indexZ], h.indexLen, "index"); err != nil {
		return err
	}
	return eachIndex(&h, d.idx, f)
}

func eachIndex(h *blockHead, idx []byte, f func(RecIndex) error) error {
	off, skel := 0, 0
	for range h.records {
		var r RecIndex
		var err error
		if off, err = parseRec(&r, idx, off); err != nil {
			return err
		}
		if skel += r.SkelLen; skel > h.skelLen {
			return corruptf("skeletons overrun their section")
		}
		if err := f(r); err != nil {
			return err
		}
	}
	if off != len(idx) || skel != h.skelLen {
		return corruptf("index does not fill its section")
	}
	return nil
}

func parseRec(r *RecIndex, body []byte, off int) (int, error) {
	if off >= len(body) {
		return 0, corruptf("index cut short")
	}
	flags := body[off]
	off++
	if flags&^flagsDefined != 0 {
		return 0, corruptf("record flags %#02x", flags)
	}
	r.Template, r.Continues, r.NoNewline = flags&flagTemplate != 0, flags&flagContinues != 0, flags&flagNoNewline != 0
	var vals [2]uint64
	for i := range vals {
		v, n := binary.Uvarint(body[off:])
		if n <= 0 || v > MaxLine {
			return 0, corruptf("bad record length")
		}
		vals[i], off = v, off+n
	}
	r.LineLen, r.SkelLen = int(vals[0]), int(vals[1])
	if (!r.Template && r.SkelLen != r.LineLen) || len(body)-off < 4 {
		return 0, corruptf("bad record lengths")
	}
	r.CRC = binary.LittleEndian.Uint32(body[off:])
	off += 4
	r.Header = nil
	if flags&flagHeader != 0 {
		n, k := binary.Uvarint(body[off:])
		if k <= 0 || n > uint64(len(body)-off-k) {
			return 0, corruptf("bad header length")
		}
		off += k
		r.Header = body[off : off+int(n)]
		off += int(n)
	}
	return off, nil
}

// Unpacked is a block body with its sections decompressed and its index
// parsed: the part of decoding that blocks can do in parallel.
type Unpacked struct {
	head    blockHead
	Records []RecIndex
	index   []byte
	store   []byte
	skel    []byte
}

// Size is about how many bytes of memory u holds.
func (u *Unpacked) Size() int {
	return cap(u.index) + cap(u.store) + cap(u.skel) + len(u.Records)*int(unsafe.Sizeof(RecIndex{}))
}

// A Decoder decompresses block bodies: one per worker, not safe for
// concurrent use.
type Decoder struct {
	z   *zstd.Decoder
	idx []byte
}

// NewDecoder returns a Decoder.
func NewDecoder() (*Decoder, error) {
	z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxSection),
		zstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		return nil, err
	}
	return &Decoder{z: z}, nil
}

// Unpack parses body into u, decompressing its sections.
func (d *Decoder) Unpack(u *Unpacked, body []byte) error {
	h := &u.head
	off, err := parseHead(h, body)
	if err != nil {
		return err
	}
	if u.index, err = d.section(u.index, body[off:off+h.indexZ], h.indexLen, "index"); err != nil {
		return err
	}
	u.Records = u.Records[:0]
	err = eachIndex(h, u.index, func(r RecIndex) error {
		u.Records = append(u.Records, r)
		return nil
	})
	if err != nil {
		return err
	}
	off += h.indexZ
	if u.store, err = d.section(u.store, body[off:off+h.storeZ], h.storeLen, "store"); err != nil {
		return err
	}
	u.skel, err = d.section(u.skel, body[off+h.storeZ:], h.skelLen, "skeletons")
	return err
}

func (d *Decoder) section(dst, z []byte, n int, what string) ([]byte, error) {
	if n == 0 && len(z) == 0 {
		return dst[:0], nil
	}
	if cap(dst) < n {
		dst = make([]byte, 0, n)
	}
	out, err := d.z.DecodeAll(z, dst[:0])
	if err != nil {
		return dst[:0], corruptf("%s section: %v", what, err)
	}
	if len(out) != n {
		return dst[:0], corruptf("%s section of %d bytes, expected %d", what, len(out), n)
	}
	return out, nil
}
