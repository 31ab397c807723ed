package archive

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

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
	// One encoder per stream for frames with a dictionary (strings'
	// alone, as the writer makes them), which keeps its dictionary's
	// tables while the dictionary stays the same: setting one hashes all
	// of it.
	dict      [numStreams]*zstd.Encoder
	dictBlock [numStreams]int
}

func newFrameEncoder(level, ppmMemory int) (*frameEncoder, error) {
	e := &frameEncoder{level: zstd.EncoderLevel(min(level, 4)), ppmMemory: ppmMemory}
	var err error
	if e.plain, err = newZstd(e.level); err != nil {
		return nil, err
	}
	return e, nil
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
		var err error
		switch {
		case e.dict[s] == nil:
			e.dict[s], err = newZstd(e.level, zstd.WithEncoderDictRaw(dictID, dict))
		case e.dictBlock[s] != dictBlock:
			err = e.dict[s].ResetWithOptions(nil, zstd.WithEncoderDictRaw(dictID, dict))
		}
		if err != nil {
			return dst, err
		}
		z, e.dictBlock[s] = e.dict[s], dictBlock
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

// ppmBytesPerByte is about the model memory ppm takes per byte of text
// it learns (contexts up to order 16 of text seen once or twice); a frame
// gets as much as its size needs, up to the encoder's limit, so a small
// frame does not make its reader allocate a large model.
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
	z       *zstd.Decoder
	hasDict bool
}

func newFrameDecoder() (*frameDecoder, error) {
	z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(2*maxFrame),
		zstd.WithDecoderMaxMemory(maxFrame), zstd.WithDecodeAllCapLimit(true))
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
	var err error
	switch {
	case dict != nil:
		err = d.z.ResetWithOptions(nil, zstd.WithDecoderDictRaw(dictID, dict))
		d.hasDict = true
	case d.hasDict:
		err = d.z.ResetWithOptions(nil, zstd.WithDecoderDictDelete())
		d.hasDict = false
	}
	if err != nil {
		return dst, err
	}
	start := len(dst)
	dst = growCap(dst, f.rawLen)
	out, err := d.z.DecodeAll(f.data, dst[:start:start+f.rawLen])
	if err != nil {
		return dst[:start], corruptf("frame: %v", err)
	}
	if len(out)-start != f.rawLen {
		return dst[:start], corruptf("frame decodes to %d bytes, its header says %d", len(out)-start, f.rawLen)
	}
	return out[:len(out):len(out)], nil
}

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
		// All of it: DecodeAll is the fast way, the streaming decoder
		// moving its history block by block.
		out, err = d.decode(dst, f, dict)
		return out, err == nil, err
	}
	start := len(dst)
	if dict != nil {
		err = d.z.ResetWithOptions(bytes.NewReader(f.data), zstd.WithDecoderDictRaw(dictID, dict))
		d.hasDict = true
	} else {
		if d.hasDict {
			err = d.z.ResetWithOptions(nil, zstd.WithDecoderDictDelete())
			d.hasDict = false
		}
		if err == nil {
			err = d.z.Reset(bytes.NewReader(f.data))
		}
	}
	defer d.z.Reset(nil)
	if err != nil {
		return dst, false, corruptf("frame: %v", err)
	}
	for len(dst)-start < f.rawLen {
		dst = growCap(dst, min(max(prefixStep, len(dst)-start), f.rawLen-(len(dst)-start)))
		n, rerr := io.ReadFull(d.z, dst[len(dst):cap(dst)][:min(prefixStep, f.rawLen-(len(dst)-start))])
		dst = dst[:len(dst)+n]
		if rerr != nil {
			return dst[:start], false, corruptf("frame: %v", rerr)
		}
		if len(dst)-start < f.rawLen && enough(dst[start:]) {
			return dst, false, nil
		}
	}
	// The whole frame: nothing may follow it.
	var one [1]byte
	if n, rerr := d.z.Read(one[:]); n != 0 || rerr != io.EOF {
		return dst[:start], false, corruptf("frame decodes to more than its header says")
	}
	return dst, true, nil
}

// growCap returns b with room for n more bytes.
func growCap(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	return append(b[:cap(b)], make([]byte, len(b)+n-cap(b))...)[:len(b)]
}

func (f frame) String() string {
	return fmt.Sprintf("coder %d, dict %d, %d -> %d bytes", f.coder, f.dict, f.rawLen, len(f.data))
}
