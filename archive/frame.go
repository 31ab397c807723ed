package archive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/m2m-go/m2m/internal/huge"
	"github.com/m2m-go/m2m/ppm"
	"github.com/m2m-go/m2m/varint"
)

// Coders of a frame.
const (
	coderStored = 0 // the raw bytes themselves
	coderZstd   = 1 // a zstd frame, with the frame named by dict as raw dictionary
	coderPPM    = 2 // a ppm stream, with the frame named by dict as its dictionary
)

// A frame is one compressed stream section: a records block's index or
// skeletons, or a store block's entries.
//
//	frame = coder (1) | uvarint dict | uvarint raw_len | uvarint data_len | data
//
// dict is 0, or 1 + the number of the block whose frame's raw bytes are
// this frame's zstd dictionary (a frame with no dictionary of its own, of
// the same stream, earlier in the file).
type frame struct {
	coder  byte
	dict   int // block number of the dictionary's frame, or -1
	rawLen int
	data   []byte
}

// appendFrameHeader appends a frame's header; data follows it.
func appendFrameHeader(dst []byte, coder byte, dict, rawLen, dataLen int) []byte {
	dst = append(dst, coder)
	dst = varint.AppendUvarint64(dst, uint64(dict+1))
	dst = varint.AppendUvarint64(dst, uint64(rawLen))
	return varint.AppendUvarint64(dst, uint64(dataLen))
}

// parseFrame reads a frame from the start of b, checking it against the
// reader's limits, and returns the rest of b.
func parseFrame(b []byte, block int) (frame, []byte, error) {
	if len(b) == 0 {
		return frame{}, nil, corruptf("frame cut short")
	}
	f := frame{coder: b[0]}
	b = b[1:]
	var v [3]uint64
	for i := range v {
		x, n, err := varint.Uvarint64(b)
		if err != nil {
			return frame{}, nil, corruptf("frame header: %v", err)
		}
		v[i], b = x, b[n:]
	}
	switch {
	case f.coder > coderPPM:
		return frame{}, nil, corruptf("unknown coder %d", f.coder)
	case v[1] > maxFrame:
		return frame{}, nil, corruptf("frame of %d bytes, over the %d a reader accepts", v[1], maxFrame)
	case v[2] > uint64(len(b)):
		return frame{}, nil, corruptf("frame data of %d bytes, %d left in the block", v[2], len(b))
	case v[0] > uint64(block):
		return frame{}, nil, corruptf("dictionary in block %d, not before this one (%d)", int64(v[0])-1, block)
	case f.coder == coderStored && (v[0] != 0 || v[1] != v[2]):
		return frame{}, nil, corruptf("stored frame with a dictionary or of the wrong size")
	}
	f.dict, f.rawLen, f.data = int(v[0])-1, int(v[1]), b[:v[2]]
	return f, b[v[2]:], nil
}

// dictID is the zstd dictionary id of every frame with a dictionary: the
// frame header names the dictionary's block.
const dictID = 1

// A frameEncoder compresses frames: one per worker.
type frameEncoder struct {
	// ppmMemory is the most model memory, in MiB, a ppm frame gets; 0
	// means zstd frames at level. Index frames are zstd's at any level:
	// they are lengths and checksums, which a context model hardly
	// shrinks, and -l and a read of one record decode them.
	ppmMemory int
	level     zstd.EncoderLevel
	plain     *zstd.Encoder // no dictionary
	dicts     *dictEncoders // frames with a dictionary, shared by the workers
}

func newFrameEncoder(level, ppmMemory int, dicts *dictEncoders) (*frameEncoder, error) {
	e := &frameEncoder{level: zstdLevel(level), ppmMemory: ppmMemory, dicts: dicts}
	var err error
	if e.plain, err = newZstd(e.level); err != nil {
		return nil, err
	}
	return e, nil
}

// zstdLevel is the zstd level of an archive level: LevelMax's index
// frames are level 4's.
func zstdLevel(level int) zstd.EncoderLevel { return zstd.EncoderLevel(min(level, 4)) }

// dictEncoders are the zstd encoders of frames with a dictionary, shared
// by a writer's workers. Setting a dictionary hashes all of it (~35 ms for
// 4 MiB at level 3, as long as compressing 2 MiB), so an encoder keeps its
// dictionary for the next frame of the segment, whichever worker takes
// it: one encoder a worker would hash each dictionary once a worker. A
// worker takes an idle encoder holding the frame's dictionary, else
// resets an idle one, else makes one: there are never more than frames
// compressed at once.
type dictEncoders struct {
	level zstd.EncoderLevel
	mu    sync.Mutex
	idle  []*dictEncoder
}

type dictEncoder struct {
	z     *zstd.Encoder
	block int // the block whose frame is its dictionary
}

// get returns an encoder with dict, the raw bytes of the frame in block,
// as its dictionary; put gives it back.
func (p *dictEncoders) get(dict []byte, block int) (*dictEncoder, error) {
	p.mu.Lock()
	var e *dictEncoder
	if n := len(p.idle); n > 0 {
		i := n - 1
		for j, c := range p.idle {
			if c.block == block {
				i = j
				break
			}
		}
		e = p.idle[i]
		p.idle = append(p.idle[:i], p.idle[i+1:]...)
	}
	p.mu.Unlock()
	var err error
	switch {
	case e == nil:
		e = &dictEncoder{block: block}
		e.z, err = newZstd(p.level, zstd.WithEncoderDictRaw(dictID, dict))
	case e.block != block:
		e.block = block
		err = e.z.ResetWithOptions(nil, zstd.WithEncoderDictRaw(dictID, dict))
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

func (p *dictEncoders) put(e *dictEncoder) {
	p.mu.Lock()
	p.idle = append(p.idle, e)
	p.mu.Unlock()
}

func newZstd(level zstd.EncoderLevel, opts ...zstd.EOption) (*zstd.Encoder, error) {
	return zstd.NewWriter(nil, append([]zstd.EOption{zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(encoderWindow), zstd.WithEncoderCRC(false), zstd.WithZeroFrames(true)}, opts...)...)
}

// encoderWindow is the zstd window: a store frame and its dictionary. Each
// encoder keeps twice its window of history; a frame with a dictionary
// that does not fit is compressed alone.
const encoderWindow = 2 * maxStoreFrame

// appendFrame appends raw, a frame of stream s, compressed with dict (the
// raw bytes of the frame in block dictBlock) if dict is not nil. Raw bytes
// that do not compress are stored.
func (e *frameEncoder) appendFrame(dst, raw []byte, s int, dict []byte, dictBlock int) ([]byte, error) {
	if e.ppmMemory > 0 && s != StreamIndex {
		return e.appendPPM(dst, raw, dict, dictBlock)
	}
	z := e.plain
	if dict != nil {
		de, err := e.dicts.get(dict, dictBlock)
		if err != nil {
			return dst, err
		}
		defer e.dicts.put(de)
		z = de.z
	} else {
		dictBlock = -1
	}
	// Header with room for the longest data length; moved up after.
	start := len(dst)
	dst = appendFrameHeader(dst, coderZstd, dictBlock, len(raw), 0)
	dst = append(dst, make([]byte, binary.MaxVarintLen64-1)...)
	at := len(dst)
	dst = z.EncodeAll(raw, dst)
	data := len(dst) - at
	if data >= len(raw) {
		dst = appendFrameHeader(dst[:start], coderStored, -1, len(raw), len(raw))
		return append(dst, raw...), nil
	}
	h := appendFrameHeader(nil, coderZstd, dictBlock, len(raw), data)
	copy(dst[start:], h)
	n := copy(dst[start+len(h):], dst[at:])
	return dst[:start+len(h)+n], nil
}

// ppmBytesPerByte is the model memory a frame gets per byte of it, up to
// the encoder's limit, so that a small frame does not make its reader
// allocate a large model: about what text fills at order 16. A model
// stops growing when full, which costs little where it is nearly enough,
// but something: at 32 bytes a byte, dev's strings (5.5 MB, one frame)
// code 0.45% larger, dev100's 8 MiB frames 0.01% (bench/README.md).
const ppmBytesPerByte = 48

// appendPPM appends raw as a ppm frame, or stored if it does not compress.
func (e *frameEncoder) appendPPM(dst, raw, dict []byte, dictBlock int) ([]byte, error) {
	if dict == nil {
		dictBlock = -1
	}
	mem := min(max(len(raw)*ppmBytesPerByte>>20, 1), e.ppmMemory)
	data, err := ppm.AppendEncode(nil, raw, ppm.Options{Memory: mem, Dict: dict})
	if err != nil {
		return dst, err
	}
	if len(data) >= len(raw) {
		dst = appendFrameHeader(dst, coderStored, -1, len(raw), len(raw))
		return append(dst, raw...), nil
	}
	dst = appendFrameHeader(dst, coderPPM, dictBlock, len(raw), len(data))
	return append(dst, data...), nil
}

// A frameDecoder decompresses frames: one per goroutine.
type frameDecoder struct {
	z *zstd.Decoder
	// A frame with a dictionary is read spliced (see splice): its pieces
	// and the headers among them, reused from frame to frame.
	pieces [][]byte
	heads  []byte
	// A spliced frame decoded whole is joined in joined and decoded into
	// spliced (its dictionary's bytes, then its own), both kept for the
	// next: see decode.
	joined, spliced []byte
}

func newFrameDecoder() (*frameDecoder, error) {
	z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(2*maxFrame),
		zstd.WithDecoderMaxMemory(2*maxFrame), zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return nil, err
	}
	return &frameDecoder{z: z}, nil
}

// decode appends the raw bytes of f to dst; dict is the raw bytes of its
// dictionary's frame, if it has one. The output is checked against the
// frame's raw length as it is made: never more is decoded.
func (d *frameDecoder) decode(dst []byte, f frame, dict []byte) ([]byte, error) {
	switch f.coder {
	case coderStored:
		return append(dst, f.data...), nil
	case coderPPM:
		start := len(dst)
		out, err := ppm.AppendDecode(dst, f.data, f.rawLen, ppm.Options{Dict: dict, MaxMemory: maxModelMemory})
		if err != nil {
			return dst[:start], corruptf("frame: %v", err)
		}
		if len(out)-start != f.rawLen {
			return dst[:start], corruptf("frame decodes to %d bytes, its header says %d", len(out)-start, f.rawLen)
		}
		return out[:len(out):len(out)], nil
	}
	data, err := d.zstdInput(f, dict)
	if err != nil {
		return dst, err
	}
	// Spliced, the frame decodes to the dictionary's bytes, then its own,
	// into the decoder's kept buffer; else into dst. Either has room for
	// exactly what the frame's header says. DecodeAll writes where it is
	// told, in memory advised to huge pages (see growCap), where the
	// streaming decoder (stream) writes into a ring of its own, which a
	// fresh process pays for in page faults: m2m-batch -d -T1 on dev100,
	// 11.5 -> 8.9 thousand faults, 129 -> 121 ms of CPU.
	want := len(dict) + f.rawLen
	buf := dst
	if dict != nil {
		d.spliced = growCap(d.spliced[:0], want)
		buf = d.spliced
	}
	buf = growCap(buf, want)
	start := len(buf)
	out, err := d.z.DecodeAll(data, buf[:start:start+want])
	if err == nil && len(out)-start != want {
		err = fmt.Errorf("decodes to %d bytes, its header says %d", len(out)-start-len(dict), f.rawLen)
	}
	if err != nil {
		return dst, corruptf("frame: %v", err)
	}
	if dict == nil {
		return out[:len(out):len(out)], nil
	}
	dst = append(growCap(dst, f.rawLen), out[start+len(dict):]...)
	return dst[:len(dst):len(dst)], nil
}

// zstdInput is what the zstd decoder reads for frame f: its data, or,
// with a dictionary, the data spliced behind the dictionary's bytes,
// joined in the decoder's kept buffer.
func (d *frameDecoder) zstdInput(f frame, dict []byte) ([]byte, error) {
	if dict == nil {
		return f.data, nil
	}
	if err := d.splice(f.data, dict, f.rawLen); err != nil {
		return nil, err
	}
	n := 0
	for _, p := range d.pieces {
		n += len(p)
	}
	d.joined = growCap(d.joined[:0], n)
	for _, p := range d.pieces {
		d.joined = append(d.joined, p...)
	}
	return d.joined, nil
}

// splice sets d.pieces to a zstd frame equal to frame, a zstd frame of
// rawLen bytes made with dict as its raw-content dictionary, that needs no
// dictionary: a header for a single segment of len(dict)+rawLen bytes, dict
// in raw blocks, then frame's blocks. A raw-content dictionary is, by the
// zstd format, history before the frame's first byte, with the default
// repeat offsets and no entropy tables, as raw blocks are: frame's blocks
// so decode to the same bytes, behind dict's own. The frame's content
// checksum, if it has one, is dropped: it sums what frame alone decodes
// to (the records' CRC-32s check every byte that is read).
//
// Why: klauspost's decoder runs its assembly loop only for frames
// without a dictionary; a strings frame decodes 2.3x faster spliced,
// copies of dict included.
func (d *frameDecoder) splice(frame, dict []byte, rawLen int) error {
	p, end, err := zstdBlocks(frame, rawLen)
	if err != nil {
		return corruptf("frame: %v", err)
	}
	// The header, then a 3-byte header before each raw block.
	h := binary.LittleEndian.AppendUint32(d.heads[:0], zstdMagic)
	h = append(h, 0xE0) // 8-byte content size, single segment, no checksum, no dictionary
	h = binary.LittleEndian.AppendUint64(h, uint64(len(dict)+rawLen))
	for rest := len(dict); rest > 0; rest -= maxRawBlock {
		b := uint32(min(rest, maxRawBlock)) << 3 // a raw block, not the last
		h = append(h, byte(b), byte(b>>8), byte(b>>16))
	}
	d.heads = h
	d.pieces = append(d.pieces[:0], h[:spliceHeader])
	h = h[spliceHeader:]
	for len(dict) > 0 {
		n := min(len(dict), maxRawBlock)
		d.pieces = append(d.pieces, h[:3], dict[:n])
		h, dict = h[3:], dict[n:]
	}
	d.pieces = append(d.pieces, frame[p:end])
	return nil
}

const zstdMagic = 0xFD2FB528

// spliceHeader is the length of a spliced frame's header: magic, frame
// header descriptor, 8-byte content size.
const spliceHeader = 4 + 1 + 8

// zstdBlocks checks that frame is one zstd frame of rawLen bytes made with
// the dictionary dictID and nothing after it, and returns where its blocks
// start and end.
func zstdBlocks(frame []byte, rawLen int) (start, end int, err error) {
	if len(frame) < 6 || binary.LittleEndian.Uint32(frame) != zstdMagic {
		return 0, 0, errors.New("not a zstd frame")
	}
	fhd := frame[4]
	p := 5
	single := fhd&0x20 != 0
	if fhd&0x08 != 0 {
		return 0, 0, errors.New("zstd frame header: reserved bit set")
	}
	if !single {
		p++ // window descriptor
	}
	idLen := [4]int{0, 1, 2, 4}[fhd&3]
	sizeLen := [4]int{0, 2, 4, 8}[fhd>>6]
	if sizeLen == 0 && single {
		sizeLen = 1
	}
	if len(frame) < p+idLen+sizeLen {
		return 0, 0, errors.New("zstd frame header cut short")
	}
	if id := littleEndian(frame[p : p+idLen]); id != dictID {
		return 0, 0, fmt.Errorf("zstd frame names dictionary %d, not %d", id, dictID)
	}
	p += idLen
	if sizeLen > 0 {
		size := littleEndian(frame[p : p+sizeLen])
		if sizeLen == 2 {
			size += 256
		}
		if size != uint64(rawLen) {
			return 0, 0, fmt.Errorf("zstd frame of %d bytes, its header says %d", size, rawLen)
		}
		p += sizeLen
	}
	// The frame's blocks, up to its last; nothing may follow but its
	// checksum.
	end = p
	for {
		if len(frame)-end < 3 {
			return 0, 0, errors.New("zstd block cut short")
		}
		h := uint32(frame[end]) | uint32(frame[end+1])<<8 | uint32(frame[end+2])<<16
		size := int(h >> 3)
		switch h >> 1 & 3 {
		case 1: // RLE: one byte, repeated
			size = 1
		case 3:
			return 0, 0, errors.New("zstd block of a reserved type")
		}
		if len(frame)-end-3 < size {
			return 0, 0, errors.New("zstd block cut short")
		}
		end += 3 + size
		if h&1 != 0 {
			break
		}
	}
	if rest := len(frame) - end; rest != 4*int(fhd>>2&1) {
		return 0, 0, fmt.Errorf("%d bytes after the zstd frame's blocks", rest)
	}
	return p, end, nil
}

// littleEndian returns the little-endian number in b (at most 8 bytes).
func littleEndian(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// piecesReader reads the pieces of a spliced frame one after another.
type piecesReader struct{ pieces [][]byte }

func (r *piecesReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && len(r.pieces) > 0 {
		c := copy(p[n:], r.pieces[0])
		n += c
		if r.pieces[0] = r.pieces[0][c:]; len(r.pieces[0]) == 0 {
			r.pieces = r.pieces[1:]
		}
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// maxRawBlock is the most a zstd block holds.
const maxRawBlock = 128 << 10

// prefixStep is how much decodePrefix decodes between asking whether it
// has enough: a zstd block's worth.
const prefixStep = 128 << 10

// decodePrefix appends the raw bytes of f to dst as decode does, but stops
// as soon as enough, called with what it has so far (all of it appended
// since dst's end), says it is enough; a nil enough decodes all of it.
// complete reports whether all of the frame was decoded. A read of one
// record so decodes only as far as the record, not its whole frame.
func (d *frameDecoder) decodePrefix(dst []byte, f frame, dict []byte, enough func(raw []byte) bool) (out []byte, complete bool, err error) {
	if f.coder != coderZstd || enough == nil {
		out, err = d.decode(dst, f, dict)
		return out, err == nil, err
	}
	start := len(dst)
	out, err = d.stream(dst, f, dict, enough)
	return out, err == nil && len(out)-start == f.rawLen, err
}

// stream appends the raw bytes of f, a zstd frame, to dst through the
// streaming decoder, the frame spliced behind dict if it has one (read
// from its pieces, not copied first), stopping early once enough says
// so: a read of one record decodes its frames only as far as it needs.
// A whole frame goes through decode (DecodeAll) instead.
func (d *frameDecoder) stream(dst []byte, f frame, dict []byte, enough func(raw []byte) bool) ([]byte, error) {
	start := len(dst)
	var in io.Reader = bytes.NewReader(f.data)
	if dict != nil {
		if err := d.splice(f.data, dict, f.rawLen); err != nil {
			return dst, err
		}
		in = &piecesReader{d.pieces}
	}
	if err := d.z.Reset(in); err != nil {
		return dst, corruptf("frame: %v", err)
	}
	defer d.z.Reset(nil)
	// The dictionary's bytes come first: read past them.
	if n, err := io.CopyN(io.Discard, d.z, int64(len(dict))); err != nil {
		return dst, corruptf("frame: dictionary's bytes: %d of %d: %v", n, len(dict), err)
	}
	// Room for all of it at once: a prefix grown as it comes would be
	// copied, on average, once more.
	dst = growCap(dst, f.rawLen)
	for len(dst)-start < f.rawLen {
		n, err := io.ReadFull(d.z, dst[len(dst):cap(dst)][:min(prefixStep, f.rawLen-(len(dst)-start))])
		dst = dst[:len(dst)+n]
		if err != nil {
			return dst[:start], corruptf("frame: %v", err)
		}
		if len(dst)-start < f.rawLen && enough(dst[start:]) {
			return dst, nil
		}
	}
	// The whole frame: nothing may follow it.
	var one [1]byte
	if n, err := d.z.Read(one[:]); n != 0 || err != io.EOF {
		return dst[:start], corruptf("frame decodes to more than its header says")
	}
	return dst[:len(dst):len(dst)], nil
}

// growCap returns b with room for n more bytes, in memory advised to huge
// pages if it is new (a decoded frame is a few MiB, written once).
func growCap(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	return append(huge.Bytes(len(b)+n), b...)
}

func (f frame) String() string {
	return fmt.Sprintf("coder %d, dict %d, %d -> %d bytes", f.coder, f.dict, f.rawLen, len(f.data))
}
