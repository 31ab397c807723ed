package archive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/m2m-go/m2m/internal/huge"
	"github.com/m2m-go/m2m/internal/zenc"
	"github.com/m2m-go/m2m/numcol"
	"github.com/m2m-go/m2m/ppm"
	"github.com/m2m-go/m2m/varint"
)

// Coders of a frame.
const (
	coderStored = 0 // the raw bytes themselves
	coderZstd   = 1 // a zstd frame, with the frame named by dict as raw dictionary
	coderPPM    = 2 // a ppm stream, with the frame named by dict as its dictionary

	// Flags added to a coder: the frame's numbers were split out (package
	// numcol), its entries shaped (shape.go), or both. Its data is the
	// text left, coded by the coder, then, with coderNumbers, the
	// numbers' columns in a zstd frame of their own:
	//
	//	data = uvarint text_len | uvarint text_data_len | text_data [| uvarint cols_len | uvarint noise_len | cols_data | noise]
	coderNumbers = 0x10
	coderShapes  = 0x20
	// And before all of that, its words replaced by codes (package
	// words), with a table of its own or its dictionary frame's
	// (table_len 0); the rest of data is what the frame of its coder
	// without coderWords, of coded_len raw bytes, would hold:
	//
	//	data  = uvarint coded_len | uvarint table_len | table | the rest
	//	table = words header | uvarint list_len | list_data (a zstd frame of the front-coded list)
	coderWords = 0x40
	coderFlags = coderNumbers | coderShapes | coderWords
)

// base is the coder of f's text, whatever its flags.
func (f frame) base() byte { return f.coder &^ coderFlags }

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
	case f.base() > coderPPM || f.coder&coderFlags != 0 && f.base() == coderStored && v[0] != 0 || f.coder&coderWords != 0 && f.base() != coderZstd:
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

// numbersLen returns how many of f's data bytes are the columns of its
// numbers, where they were split out (package numcol): none otherwise, or
// where its header is malformed, which decoding it reports.
func (f frame) numbersLen() int {
	if f.coder&coderWords != 0 {
		inner, _, ok := wordsInner(f)
		if !ok {
			return 0
		}
		f = inner
	}
	if f.coder&coderNumbers == 0 {
		return 0
	}
	_, _, cols, err := splitParts(f.data)
	if err != nil {
		return 0
	}
	return len(cols)
}

// splitParts reads the data of a split frame: the length of its text, the
// text's coded bytes, and what follows them (its numbers' columns, if it
// has them).
func splitParts(b []byte) (textLen uint64, text, rest []byte, err error) {
	var v [2]uint64
	for i := range v {
		x, n, err := varint.Uvarint64(b)
		if err != nil {
			return 0, nil, nil, corruptf("split frame: %v", err)
		}
		v[i], b = x, b[n:]
	}
	if v[1] > uint64(len(b)) {
		return 0, nil, nil, corruptf("split frame: text of %d bytes in %d", v[1], len(b))
	}
	return v[0], b[:v[1]], b[v[1]:], nil
}

// numbersLen returns how many bytes of p, a frame as the writer made it,
// are the columns of its numbers.
func numbersLen(p []byte) int {
	f, _, err := parseFrame(p, math.MaxInt)
	if err != nil {
		return 0
	}
	return f.numbersLen()
}

// dictID is the zstd dictionary id of every frame with a dictionary: the
// frame header names the dictionary's block.
const dictID = 1

// A frameEncoder compresses frames: one per worker.
type frameEncoder struct {
	// ppmMemory is the most model memory, in MiB, a ppm frame gets; 0
	// means zstd frames at level.
	ppmMemory int
	level     zstd.EncoderLevel
	small     *zstd.Encoder // no dictionary, frames up to encoderWindow; made when first needed
	fast      *zenc.Encoder // in small's place at a textLevel (encodePlain); made when first needed
	text      *zenc.Encoder // strings and templates frames at a textLevel; made when first needed
	helper    *zenc.Encoder // text's, for the second half of a last frame (appendText)
	last      bool          // the frame being made is its stream's last (blockJob.last)
	large     *zstd.Encoder // no dictionary, larger frames; made when first needed
	dicts     *dictEncoders // frames with a dictionary, shared by the workers
}

func newFrameEncoder(level, ppmMemory int, dicts *dictEncoders) *frameEncoder {
	return &frameEncoder{level: zstdLevel(level), ppmMemory: ppmMemory, dicts: dicts}
}

// Encoders outlive their writer, for the next writer of the process: made
// fresh, an encoder's 4 MiB of tables are cleared and faulted in, and its
// history allocated, for its first frame however small (a writer of one
// record cost 28-44 MB and 16-29 ms in process, most of it its encoders:
// BenchmarkWriter, bench/README.md). Any encoder codes any frame the same
// way: EncodeAll resets it, and one with a dictionary is given the frame's
// dictionary unless it holds it (dictEncoders.get), its block forgotten
// when pooled.
var (
	smallEncoders [zstd.SpeedBestCompression + 1]sync.Pool // *zstd.Encoder, by level
	dictPool      [zstd.SpeedBestCompression + 1]sync.Pool // *dictEncoder, by level
)

// release gives e's encoders to the pool, for another writer.
func (e *frameEncoder) release() {
	if e.small != nil {
		smallEncoders[e.level].Put(e.small)
	}
	if e.fast != nil {
		fastEncoders[e.level].Put(e.fast)
	}
	if e.text != nil {
		textEncoders[e.level].Put(e.text)
	}
	if e.helper != nil {
		textEncoders[e.level].Put(e.helper)
	}
	e.small, e.fast, e.large, e.text, e.helper = nil, nil, nil, nil, nil
}

// textEncoders are the encoders of strings and templates frames
// (*zenc.Encoder), by level.
var textEncoders [zstd.SpeedBestCompression + 1]sync.Pool

// plain returns the encoder, with no dictionary, of a frame of n bytes.
// An encoder keeps history of twice its window by default (16 MiB), so
// that its history shifts once a window; with klauspost's lower memory
// option, of its window and a block, so that it shifts once a block (a
// copy of the window) past the window. No frame with a dictionary, and
// almost no other, is larger than the window: a worker's encoder, and the
// writer's dictionary encoders, keep the smaller history (8 MiB less each,
// the same bytes out; dev100 --archive -T2 7% faster, its collections 30
// -> 16 near the memory limit). A frame larger still (a value of more than
// 8 MiB, or pieces of a longer line) takes an encoder of the default kind
// (12 MB values with the smaller history: 17% more CPU, a window copied at
// every block), with half the window, so that the two histories together
// take what one did before (a line of 200 MiB archived in 256 MiB of
// memory: TestMemoryBound).
func (e *frameEncoder) plain(n int) *zstd.Encoder {
	if n <= encoderWindow {
		if e.small == nil {
			if e.small, _ = smallEncoders[e.level].Get().(*zstd.Encoder); e.small == nil {
				e.small = mustZstd(e.level, plainOptions(0)...)
			}
		}
		return e.small
	}
	if e.large == nil {
		e.large = mustZstd(e.level, plainOptions(n)...)
	}
	return e.large
}

// mustZstd is newZstd for options that are fixed: only bad options fail.
func mustZstd(level zstd.EncoderLevel, opts ...zstd.EOption) *zstd.Encoder {
	z, err := newZstd(level, opts...)
	if err != nil {
		panic(err)
	}
	return z
}

// encodePlain appends src as a zstd frame with no dictionary: at a
// textLevel, up to encoderWindow bytes, by zenc (plainParams), else by
// plain's encoder. Those frames (skeletons, index frames, numbers'
// columns, a segment's word list, the samples splitPays and shapePays
// code) are a few percent of an archive's input, and klauspost's level 3
// coded them with 4 MiB of tables a worker, fresh memory it reads before
// it writes: each page faulted twice, the second time with a TLB flush of
// every core the process runs on, which on a small input was most of the
// run (bench/README.md, "Every frame by zenc").
func (e *frameEncoder) encodePlain(dst, src []byte) []byte {
	if _, ok := textParams(e.level); !ok || e.ppmMemory > 0 || len(src) > encoderWindow {
		return e.plain(len(src)).EncodeAll(src, dst)
	}
	if e.fast == nil {
		if e.fast, _ = fastEncoders[e.level].Get().(*zenc.Encoder); e.fast == nil {
			e.fast = zenc.New(plainParams(e.level))
		}
	}
	return e.fast.AppendEncode(dst, src, nil)
}

// plainParams are zenc's parameters for the frames encodePlain codes at
// zstd level z, a textLevel's: at level 3 one step of lazy parsing, 16
// candidates, which code dev100's skeletons frames 6% smaller than
// klauspost's level 3 at half its speed (105 against 216 MB/s: 5.1 MB of
// skeletons, some 25 ms more), and frames under some 100 KB faster than
// it, whose tables zenc sizes to the frame; at level 4 its text's (two
// steps), 1% smaller again at 0.9x the speed, but parsed lazily: by price
// dev100's archive was 0.06% smaller for 1.3x the time (bench/README.md,
// "Level 4 parsed by price").
func plainParams(z zstd.EncoderLevel) zenc.Params {
	if z == zstdLevel(4) {
		p, _ := textParams(z)
		p.Optimal = 0
		return p
	}
	return zenc.Params{RowLog: 17, Search: 16, Depth: 1, Skip: 6}
}

// fastEncoders are the encoders of encodePlain (*zenc.Encoder), by level.
var fastEncoders [zstd.SpeedBestCompression + 1]sync.Pool

// plainOptions are the options of plain's encoder of a frame of n bytes.
func plainOptions(n int) []zstd.EOption {
	if n <= encoderWindow {
		return []zstd.EOption{zstd.WithLowerEncoderMem(true)}
	}
	return []zstd.EOption{zstd.WithWindowSize(encoderWindow / 2)}
}

// zstdLevel is the zstd level of an archive level. LevelMax's zstd frames
// (numbers' columns, and the coding of each frame that is kept where it
// beats ppm's) are level 3's: level 4's encoders hold 34 MiB of tables
// each, one a worker, and with them a --max -T2 run of 315 MB peaked at
// 1.12 GB, over its target (its two models and 256 MiB, 1,024 MiB); logs
// of numbers compress 2-2.8x faster at level 3, for 0.01-0.45% more bytes
// (bench/README.md, "Where that memory goes"). Its index frames are ppm's
// (appendFrame): smaller than level 4 made them on every shape of
// bench/shapes.sh but one (55 bytes more of 1.5 MB).
func zstdLevel(level int) zstd.EncoderLevel {
	if level == LevelMax {
		return zstd.SpeedBetterCompression
	}
	return zstd.EncoderLevel(min(level, 4))
}

// dictEncoders are the zstd encoders of frames with a dictionary, shared
// by a writer's workers. Setting a dictionary hashes all of it (~35 ms for
// 4 MiB at level 3, as long as compressing 2 MiB), so an encoder keeps its
// dictionary for the next frame of the segment, whichever worker takes
// it: one encoder a worker would hash each dictionary once a worker. A
// worker takes an idle encoder holding the frame's dictionary, else
// resets an idle one, else makes one: there are never more than frames
// compressed at once.
type dictEncoders struct {
	level   zstd.EncoderLevel
	workers int // the writer's
	mu      sync.Mutex
	idle    []*dictEncoder

	// The dictionaries of strings frames at a textLevel (appendText), made
	// once for the workers: the latest two, by block.
	textMu    sync.Mutex
	textDicts [2]textDict
}

type textDict struct {
	block int
	d     *zenc.Dict
}

// text returns the zenc dictionary of dict, the raw bytes of block: made
// by the first worker that asks, while the others wait for it.
func (p *dictEncoders) text(dict []byte, block int) *zenc.Dict {
	p.textMu.Lock()
	defer p.textMu.Unlock()
	for _, t := range p.textDicts {
		if t.d != nil && t.block == block {
			return t.d
		}
	}
	params, _ := textParams(p.level)
	d := zenc.NewDict(dict, dictID, params)
	p.textDicts[1], p.textDicts[0] = p.textDicts[0], textDict{block, d}
	return d
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
	if e == nil {
		e, _ = dictPool[p.level].Get().(*dictEncoder)
	}
	var err error
	switch {
	case e == nil:
		e = &dictEncoder{block: block}
		// A frame and its dictionary fit the window: the smaller history.
		e.z, err = newZstd(p.level, zstd.WithLowerEncoderMem(true), zstd.WithEncoderDictRaw(dictID, dict))
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

// release gives the idle encoders to the pool, their dictionaries
// forgotten, for another writer; none is in use.
func (p *dictEncoders) release() {
	for _, e := range p.idle {
		e.block = -1
		dictPool[p.level].Put(e)
	}
	p.idle = nil
	p.textDicts = [2]textDict{}
}

func newZstd(level zstd.EncoderLevel, opts ...zstd.EOption) (*zstd.Encoder, error) {
	return zstd.NewWriter(nil, append([]zstd.EOption{zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(encoderWindow), zstd.WithEncoderCRC(false), zstd.WithZeroFrames(true)}, opts...)...)
}

// encoderWindow is the zstd window: a store frame and its dictionary. Each
// encoder keeps twice its window of history; a frame with a dictionary
// that does not fit is compressed alone.
const encoderWindow = 2 * maxStoreFrame

// textLevel reports whether level's strings and templates frames are
// coded by package zenc (appendText), in a window of up to textWindow
// bytes: a frame and its dictionary, twice as large (storeFrameSize), at
// any frame size. zenc holds them in memory as they are, keeping no more
// history.
func textLevel(level int) bool {
	_, ok := textParams(zstdLevel(level))
	return ok && level != LevelMax
}

const textWindow = 3 * maxStoreFrameMax

// textParams are zenc's parameters at zstd level z, and whether z is a
// textLevel's: at level 4, rows of 2^18, which make dev100's archive 1.4%
// smaller than level 3's at 1.4x its time (-T2; bench/README.md, "A
// dictionary twice a frame"), and blocks parsed by price, 3.0% smaller
// again on dev100 and 2.6% on dev for 1.6x and 1.3x the time
// (bench/README.md, "Level 4 parsed by price"): smaller than zstd -19
// --long=27 makes both.
func textParams(z zstd.EncoderLevel) (zenc.Params, bool) {
	switch z {
	case zstdLevel(3):
		return zenc.DefaultParams, true
	case zstdLevel(4):
		p := zenc.DefaultParams
		p.RowLog = 18
		p.Optimal = 64
		return p, true
	}
	return zenc.Params{}, false
}

// appendFrame appends raw, a frame of stream s, compressed with dict (the
// raw bytes of the frame in block dictBlock) if dict is not nil. Raw bytes
// that do not compress are stored.
func (e *frameEncoder) appendFrame(dst, raw []byte, s int, dict []byte, dictBlock int) ([]byte, error) {
	start := len(dst)
	var err error
	if s == StreamIndex {
		// Columns of varints and the records' CRC-32s: not a shape
		// appendSplit takes apart.
		dst, err = e.appendCoded(dst, raw, s, dict, dictBlock)
	} else {
		dst, err = e.appendSplit(dst, raw, s, dict, dictBlock)
	}
	if err != nil || e.ppmMemory == 0 {
		return dst, err
	}
	// At LevelMax every frame is coded by ppm, index frames too (dev100's
	// 106,788 bytes at zstd's level 4, 100,008 so; a log of streamed
	// chunks, a record a chunk, 3.9% smaller), and by zstd at level 3.
	// Text whose redundancy is long repeats rather than its next byte
	// (token ids of conversations that share their first turns:
	// bench/traffic -kind tokens) takes an LZ coder better than a
	// context model: ppm, on those ids shaped as a templates frame, made
	// such a log 4.47x where zstd's level 3 made 9.89x. So at LevelMax a
	// frame is also coded by zstd at level 3 as it is (alone: a frame and
	// its dictionary are more than zstd's window), in a sixth of ppm's
	// time, and the smaller kept. By an encoder of its own, let go with
	// it: plain's would keep a history of the largest frame so coded (16
	// MiB) while the worker's next ppm frame is coded (--max -T2 of 315
	// MB: peak RSS 1,048-1,057 MiB, 1,029-1,044 so).
	tz, err := newZstd(e.level, plainOptions(len(raw))...)
	if err != nil {
		return dst, err
	}
	z := tz.EncodeAll(raw, nil)
	if h := appendFrameHeader(nil, coderZstd, -1, len(raw), len(z)); len(h)+len(z) < len(dst)-start {
		dst = append(append(dst[:start], h...), z...)
	}
	return dst, nil
}

// appendSplit appends raw as appendCoded does, or transformed: with its
// numbers split out (coderNumbers) where they are an eighth of its bytes
// or more, and a templates frame shaped (coderShapes); a skeletons or
// templates frame's ids and times too, with its numbers or else alone
// (appendTokens). A shaped frame is decoded whole, and its transform
// undone (bench/README.md, "Numbers and nesting"): numbers render at ~170 MB/s, shapes at ~300-450 MB/s. So at
// the zstd levels, where decoding runs at ~1 GB/s, a frame is split where
// that makes it smaller (always, where numbers are half its bytes: 3.4
// bytes a float32 against ~4.7 as digits) and shaped where that makes it
// a tenth smaller still (a logprobs log's templates by 40%, dev100's by
// 4%, which is not worth decoding them 25% slower). At LevelMax, whose
// ppm frames take seconds to code, and to code twice, numbers are split
// wherever they apply, and their frame shaped; a frame of templates with
// few numbers is shaped as at the zstd levels: ppm with words replaced
// (ppm.Options.Words) codes dev100's templates 4.9% smaller unshaped,
// where without them shaping gained 1%.
func (e *frameEncoder) appendSplit(dst, raw []byte, s int, dict []byte, dictBlock int) ([]byte, error) {
	take := numcol.Numbers
	if s == StreamSkeletons || s == StreamTemplates {
		take |= numcol.Tokens | numcol.Times
	}
	// What numcol leaves is no longer than raw: grown from nothing, it was
	// copied and faulted in again at each doubling (7% of --archive's
	// CPU on dev).
	text, cols := getBuf(len(raw)), getBuf(len(raw)/4)
	defer func() { putBuf(text); putBuf(cols) }()
	taken := 0
	if numcol.MightTake(raw, (len(raw)+7)/8, numcol.Numbers) {
		text, cols, _, taken = numcol.Split(text, cols, raw, take)
	}
	numbers := taken > 0 && taken*8 >= len(raw)
	shape := s == StreamTemplates && len(raw) > 0 && raw[len(raw)-1] == markEnd
	if ids := numcol.Tokens | numcol.Times; !numbers && take&ids != 0 && numcol.MightTake(raw, (len(raw)+63)/64, ids) {
		if text, cols, _, taken = numcol.Split(text[:0], cols[:0], raw, ids); taken*64 >= len(raw) {
			return e.appendTokens(dst, raw, text, cols, shape, s, dict, dictBlock)
		}
	}
	if !numbers && !shape {
		return e.appendCoded(dst, raw, s, dict, dictBlock)
	}
	if !numbers {
		if e.shapePays(raw) {
			return e.appendTransformed(dst, raw, nil, len(raw), coderShapes, s, dict, dictBlock)
		}
		return e.appendCoded(dst, raw, s, dict, dictBlock)
	}
	if e.ppmMemory > 0 {
		flags := byte(coderNumbers)
		if shape {
			flags |= coderShapes
		}
		return e.appendTransformed(dst, text, cols, len(raw), flags, s, dict, dictBlock)
	}
	best, err := e.appendTransformed(nil, text, cols, len(raw), coderNumbers, s, dict, dictBlock)
	if err != nil {
		return dst, err
	}
	if taken*2 < len(raw) {
		plain, err := e.appendCoded(nil, raw, s, dict, dictBlock)
		if err != nil {
			return dst, err
		}
		if len(plain) <= len(best) {
			best = plain
		}
	}
	if shape {
		shaped, err := e.appendTransformed(nil, text, cols, len(raw), coderNumbers|coderShapes, s, dict, dictBlock)
		if err != nil {
			return dst, err
		}
		if len(shaped) < len(best)-len(best)/10 {
			best = shaped
		}
	}
	return append(dst, best...), nil
}

// appendTokens appends raw, a skeletons or templates frame whose ids are
// a 64th of its bytes or more, with them split out (text and cols, a
// frame of coderNumbers): at LevelMax always, at the zstd levels where
// that makes it smaller than the frame as it would be else (a templates
// frame shaped where that pays, its ids split out of the text shaped,
// or not). Ids ("chatcmpl-", "call_", UUIDs) are most of a skeleton's
// bytes that a coder cannot predict (bench/README.md, "Ids as bits").
// Where a sample says the split is clearly smaller (splitPays), the
// frame is not coded unsplit at all.
func (e *frameEncoder) appendTokens(dst, raw, text, cols []byte, shape bool, s int, dict []byte, dictBlock int) ([]byte, error) {
	split, err := e.appendTransformed(nil, text, cols, len(raw), coderNumbers, s, dict, dictBlock)
	if err != nil || e.ppmMemory > 0 {
		return append(dst, split...), err
	}
	pays := e.splitPays(raw)
	var plain []byte
	if shape && e.shapePays(raw) {
		if !pays {
			if plain, err = e.appendTransformed(nil, raw, nil, len(raw), coderShapes, s, dict, dictBlock); err != nil {
				return dst, err
			}
		}
		shaped, err := e.appendTransformed(nil, text, cols, len(raw), coderNumbers|coderShapes, s, dict, dictBlock)
		if err != nil {
			return dst, err
		}
		if len(shaped) < len(split) {
			split = shaped
		}
	} else if !pays {
		if plain, err = e.appendCoded(nil, raw, s, dict, dictBlock); err != nil {
			return dst, err
		}
	}
	if plain != nil && len(plain) <= len(split) {
		return append(dst, plain...), nil
	}
	return append(dst, split...), nil
}

// splitSample is how much of a frame splitPays tries.
const splitSample = 64 << 10

// splitPays reports whether raw with its ids split out codes a 32nd
// smaller than raw as it is, judged on its first splitSample bytes. Split
// takes only ids that occur once, noise a coder cannot shrink, so it lost
// in none of 50 frames of bench/shapes.sh's shapes of dev.jsonl and of
// bench/traffic's (7-20% smaller, a stream's chunks 0.7%), and sparing
// the unsplit coding made dev100's --archive -T1 6.5% faster, the same
// bytes. Where the sample is not clear, the frame is coded both ways.
func (e *frameEncoder) splitPays(raw []byte) bool {
	sample := raw[:min(len(raw), splitSample)]
	text, cols := getBuf(len(sample)), getBuf(len(sample)/4)
	out := getBuf(len(sample))
	defer func() { putBuf(text); putBuf(cols); putBuf(out) }()
	text, cols, _, _ = numcol.Split(text, cols, sample, numcol.Tokens|numcol.Times)
	out = e.encodePlain(out, sample)
	plain := len(out)
	noise := numcol.NoiseLen(cols)
	out = e.encodePlain(out[:0], text)
	out = e.encodePlain(out, cols[:len(cols)-noise])
	split := len(out) + noise
	return split < plain-plain/32
}

// shapeSample is how much of a templates frame shapePays tries.
const shapeSample = 128 << 10

// shapePays reports whether shaping raw, a templates frame, makes it a
// tenth smaller at the zstd levels, judged on its first entries, up to
// shapeSample bytes of them, coded by encodePlain: coding the whole frame
// both ways made dev100's compression ~15% slower. A sample understates
// what shaping gains on its frame (columns grow with the frame), the more
// so as its coder is strong: by zenc, the samples of the frames whose
// whole coding shaping makes 0.80-0.81x are 0.94-0.95x, where those of
// frames it does not make a tenth smaller (0.96-2.9x) are 1.04x or more,
// every templates frame of bench/shapes.sh's shapes of dev.jsonl, of
// dev100.jsonl and of bench/traffic's; so the bar on the sample is a
// 32nd (bench/README.md, "Every frame by zenc"). (By klauspost's level 3
// those samples were 0.77-0.86x and 1.02x or more, the bar a tenth.)
func (e *frameEncoder) shapePays(raw []byte) bool {
	sample := raw[:bytes.LastIndexByte(raw[:min(len(raw), shapeSample)], markEnd)+1]
	if len(sample) == 0 {
		sample = raw // its first entry is longer
	}
	shapedText := appendShaped(getBuf(len(sample)+len(sample)/8), sample)
	out := getBuf(len(sample))
	defer func() { putBuf(shapedText); putBuf(out) }()
	out = e.encodePlain(out, sample)
	plain := len(out)
	out = e.encodePlain(out[:0], shapedText)
	return len(out) < plain-plain/32
}

// appendTransformed appends a frame of flags: text (raw, or what numcol
// left of it, with its columns cols), shaped if flags say so, coded by
// the stream's coder; rawLen is what the frame decodes to.
func (e *frameEncoder) appendTransformed(dst, text, cols []byte, rawLen int, flags byte, s int, dict []byte, dictBlock int) ([]byte, error) {
	if flags&coderShapes != 0 {
		text = appendShaped(nil, text)
	}
	inner, err := e.appendCoded(nil, text, s, dict, dictBlock)
	if err != nil {
		return dst, err
	}
	f, _, err := parseFrame(inner, math.MaxInt)
	if err != nil {
		return dst, err
	}
	var body []byte
	body = varint.AppendUvarint64(body, uint64(len(text)))
	body = varint.AppendUvarint64(body, uint64(len(f.data)))
	body = append(body, f.data...)
	if flags&coderNumbers != 0 {
		noise := numcol.NoiseLen(cols)
		body = varint.AppendUvarint64(body, uint64(len(cols)))
		body = varint.AppendUvarint64(body, uint64(noise))
		body = e.encodePlain(body, cols[:len(cols)-noise])
		body = append(body, cols[len(cols)-noise:]...)
	}
	return append(appendFrameHeader(dst, f.coder|flags, f.dict, rawLen, len(body)), body...), nil
}

// appendCoded appends raw as a frame of its stream's coder.
func (e *frameEncoder) appendCoded(dst, raw []byte, s int, dict []byte, dictBlock int) ([]byte, error) {
	if e.ppmMemory > 0 {
		return e.appendPPM(dst, raw, dict, dictBlock)
	}
	if _, ok := textParams(e.level); ok && (s == StreamStrings || s == StreamTemplates) && len(dict)+len(raw) <= textWindow {
		return e.appendText(dst, raw, dict, dictBlock), nil
	}
	if dict == nil {
		return appendZstdFrame(dst, raw, -1, func(dst []byte) []byte { return e.encodePlain(dst, raw) }), nil
	}
	de, err := e.dicts.get(dict, dictBlock)
	if err != nil {
		return dst, err
	}
	defer e.dicts.put(de)
	return appendZstd(dst, raw, de.z, dictBlock), nil
}

// appendText appends raw, a strings or templates frame at a textLevel,
// coded by package zenc, whose lazy parsing makes strings 9-10% smaller
// than klauspost's level 3 (bench/README.md, "Our own zstd encoder") and
// dev100's templates 6.4% (skeletons 3.8%, at 1.8x the CPU of templates:
// not taken), with dict, the raw bytes of block dictBlock, if not nil;
// stored if that is no smaller.
//
// A stream's last frame of splitMin bytes or more is coded in halves
// (zenc.Encoder.AppendEncodeSplit), on two cores where the writer has two
// workers or more: it is coded once the input has ended, the run's tail,
// where the other workers have little left to do (dev's strings are one
// frame of 5.6 MB). The same bytes on any number of workers.
func (e *frameEncoder) appendText(dst, raw, dict []byte, dictBlock int) []byte {
	e.text = e.textEncoder(e.text)
	var d *zenc.Dict
	if dict == nil {
		dictBlock = -1
	} else {
		d = e.dicts.text(dict, dictBlock)
	}
	return appendZstdFrame(dst, raw, dictBlock, func(dst []byte) []byte {
		if e.last && len(raw) >= splitMin {
			e.helper = e.textEncoder(e.helper)
			return e.text.AppendEncodeSplit(dst, raw, d, e.helper, e.dicts.workers > 1)
		}
		return e.text.AppendEncode(dst, raw, d)
	})
}

// splitMin is the least last frame appendText codes in halves: a strings
// frame (templates frames hold under 2 MiB), whose coding takes long
// enough to pay for a second encoder's tables, made and faulted in (12
// MiB at 2^17 rows).
const splitMin = 2 << 20

// textEncoder returns z, or if nil a zenc encoder of e's level.
func (e *frameEncoder) textEncoder(z *zenc.Encoder) *zenc.Encoder {
	if z != nil {
		return z
	}
	if z, ok := textEncoders[e.level].Get().(*zenc.Encoder); ok {
		return z
	}
	params, _ := textParams(e.level)
	return zenc.New(params)
}

// appendPlainText appends text, a plain copy of a dictionary (kindPlain),
// as a frame: stored at the zstd levels, where the copy is there to spare
// a read zstd's decoding of the dictionary; at LevelMax, coded by zstd,
// which saves that read a context model's seconds all the same (8 ms
// against 3-4 s for the 8 MiB a ppm frame takes, bench/README.md) in a
// third of the bytes.
func (e *frameEncoder) appendPlainText(dst, text []byte) []byte {
	if e.ppmMemory == 0 {
		return append(appendFrameHeader(dst, coderStored, -1, len(text), len(text)), text...)
	}
	return appendZstd(dst, text, e.plain(len(text)), -1)
}

// appendZstd appends the frame of raw coded by z, with block dictBlock as
// its dictionary (z's), or stored if that is no smaller.
func appendZstd(dst, raw []byte, z *zstd.Encoder, dictBlock int) []byte {
	return appendZstdFrame(dst, raw, dictBlock, func(dst []byte) []byte { return z.EncodeAll(raw, dst) })
}

// appendZstdFrame appends the frame of raw as encode appends its zstd
// frame (with block dictBlock as its dictionary), or stored if that is no
// smaller.
func appendZstdFrame(dst, raw []byte, dictBlock int, encode func(dst []byte) []byte) []byte {
	// Header with room for the longest data length; moved up after.
	start := len(dst)
	dst = appendFrameHeader(dst, coderZstd, dictBlock, len(raw), 0)
	dst = append(dst, make([]byte, binary.MaxVarintLen64-1)...)
	at := len(dst)
	dst = encode(dst)
	data := len(dst) - at
	if data >= len(raw) {
		dst = appendFrameHeader(dst[:start], coderStored, -1, len(raw), len(raw))
		return append(dst, raw...)
	}
	h := appendFrameHeader(nil, coderZstd, dictBlock, len(raw), data)
	copy(dst[start:], h)
	n := copy(dst[start+len(h):], dst[at:])
	return dst[:start+len(h)+n]
}

// ppmBytesPerByte is the model memory a frame gets per byte of it, up to
// the encoder's limit, so that a small frame does not make its reader
// allocate a large model: about what text fills at order 16. A model
// stops growing when full, which costs little where it is nearly enough,
// but something: at 32 bytes a byte, dev's strings (5.5 MB, one frame)
// code 0.45% larger, dev100's 8 MiB frames 0.01% (bench/README.md).
const ppmBytesPerByte = 48

// ppmDict is how much of its dictionary frame a ppm frame's match model
// is given: its first 8 MiB. A read of one record in a frame with a
// dictionary waits for that much of it to be decoded, a few seconds; on
// dev100's second strings frame the first 8 MiB of the first as the
// dictionary coded it as small as all 16 (427,837 bytes against 428,102;
// 4 MiB 433,255, none 448,136). A variable only so that tests can make
// it short.
var ppmDict = 8 << 20

// appendPPM appends raw as a ppm frame, or stored if it does not compress.
func (e *frameEncoder) appendPPM(dst, raw, dict []byte, dictBlock int) ([]byte, error) {
	if dict == nil {
		dictBlock = -1
	}
	dict = dict[:min(len(dict), ppmDict)]
	mem := min(max(len(raw)*ppmBytesPerByte>>20, 1), e.ppmMemory)
	data, err := ppm.AppendEncode(nil, raw, ppm.Options{Memory: mem, Dict: dict, Words: true})
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
	// The zstd frame DecodeAll reads, when it is not a frame's data as it
	// is (see zstdInput), and the blocks of the frame; kept for the next.
	joined     []byte
	joinedDict []byte // the dictionary whose bytes joined holds, kept so that its memory is not another's
	blocks     []int
	// A frame with a dictionary decodes into spliced: its dictionary's
	// bytes, then its own. Kept for the next, but the first: see give.
	spliced []byte
	// give, set by a read of a words frame's entries around its call of
	// decodePrefix, lets the result have the coded text where zstd wrote
	// it, in spliced, rather than a copy, if d has not given a spliced
	// buffer before; gave is then the memory the result took. A decoder
	// gives one buffer in its life, the first: in a process that reads a
	// record or two (--record N) the copy was on the read's path, into
	// memory fresh from the system, and the decoder is not used again,
	// while a Reader that reads on reuses the buffer, its pages touched
	// (a fresh buffer each read was slower: bench/README.md).
	give, gaveSplice bool
	gave             int
	// onPrefix, set around its call of decodePrefix by the decoding of a
	// ppm store frame whole, is given what is decoded as it is
	// (growingFrames), first prefixStep bytes.
	onPrefix func([]byte) int
	// The coded text of a words frame (decodeWords), kept for the next.
	text    []byte
	unshape unshaper
	join    numcol.Joiner
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
// dictionary's frame, if it has one, which must not change while d is in
// use (d keeps its bytes for the next frame with the same dict). The
// output is checked against the frame's raw length as it is made: never
// more is decoded.
func (d *frameDecoder) decode(dst []byte, f frame, dict []byte) ([]byte, error) {
	out, _, err := d.decodePrefix(dst, f, dict, f.rawLen)
	return out, err
}

// decodePrefix appends at least the first n raw bytes of f to dst, as
// decode does, and reports whether that is all of them: a read of one
// record decodes its frames only as far as it needs (see stepEnds). The bytes
// of a part of a frame are not checked as a whole frame's are (against its
// length, and a ppm frame's CRC-32): the records' CRC-32s check what is
// read of them.
func (d *frameDecoder) decodePrefix(dst []byte, f frame, dict []byte, n int) (out []byte, complete bool, err error) {
	n = min(max(n, 0), f.rawLen)
	start := len(dst)
	if f.coder&coderWords != 0 {
		return dst, false, corruptf("a words frame out of place") // see decodeWords
	}
	if f.coder&coderFlags != 0 {
		return d.decodeSplit(dst, f, dict, n)
	}
	switch f.coder {
	case coderStored:
		return append(dst, f.data...), true, nil
	case coderPPM:
		out, err := ppm.AppendDecodePrefix(dst, f.data, n, f.rawLen, ppm.Options{Dict: dict, MaxMemory: maxModelMemory, OnPrefix: d.onPrefix, Prefix: prefixStep})
		if err != nil {
			return dst[:start], false, corruptf("frame: %v", err)
		}
		if n == f.rawLen && len(out)-start != f.rawLen {
			return dst[:start], false, corruptf("frame decodes to %d bytes, its header says %d", len(out)-start, f.rawLen)
		}
		return out[:len(out):len(out)], len(out)-start == f.rawLen, nil
	}
	var err1 error
	if d.blocks, err1 = zstdBlocks(d.blocks[:0], f.data, f.rawLen, dict != nil); err1 != nil {
		return dst, false, corruptf("frame: %v", err1)
	}
	// A zstd block holds at most 128 KiB, and klauspost's encoder fills
	// every one but the last (64 KiB at level 1): so many blocks are
	// tried, then, if they hold less, as many more as their average says,
	// then all of them.
	k := blocksFor(n)
	if n == f.rawLen {
		// All of it: decoded whole, so checked whole. Its first blocks
		// may hold rawLen bytes of a frame that makes more (FuzzSplice).
		k = len(d.blocks) - 1
	}
	for try := 0; ; try++ {
		if k >= len(d.blocks)-1 || try == 2 {
			k = len(d.blocks) - 1
		}
		whole := k == len(d.blocks)-1
		out, got, err := d.decodeBlocks(dst, f, dict, k)
		if err != nil {
			return dst, false, corruptf("frame: %v", err)
		}
		if whole && len(got) != f.rawLen {
			return dst, false, corruptf("frame: decodes to %d bytes, its header says %d", len(got), f.rawLen)
		}
		if len(got) >= n || whole {
			if out == nil && d.give && !d.gaveSplice && len(dst) == 0 {
				// The decoder's buffer, given (see give).
				d.gave, d.gaveSplice = cap(d.spliced), true
				d.spliced, out = nil, got
			}
			if room := cap(dst) - len(dst); out == nil && room >= n && room < len(got) {
				// Out of the decoder's buffer, as much as dst has room
				// for, which is enough: a buffer made ready (readyText)
				// holds the n bytes asked for, where the whole blocks
				// decoded may hold up to a block more, and a buffer of
				// their size, fresh and zeroed, took 7% of a read of
				// one record on one core (bench/README.md).
				got, whole = got[:room], false
			}
			if out == nil {
				// Out of the decoder's buffer, into memory the size of
				// what was decoded (not zeroed first, where the heap
				// reuses it).
				out = huge.AppendCopy(dst, got)
			}
			return out[:len(out):len(out)], whole, nil
		}
		k = k*n/max(len(got), 1) + 1
	}
}

// ready makes d's buffers ready for the first n raw bytes of zstd frame f
// with a dictionary (an earlier frame of its stream, so of about its
// size), and returns an empty buffer
// with room for them: memory fresh from the system, touched here, a page
// at a time. Called while the dictionary is still being decoded on
// another core, it takes the page faults and the kernel's zeroing of
// that memory (12 MiB and more for a strings frame: the dictionary in raw
// blocks, behind it in the spliced output, the bytes copied out) off the
// path of a read of one record, where they were a third of a fresh
// process's time. Buffers d holds already are left as they are. Where the
// heap would reuse memory for them (huge.Fresh), there are no faults to
// take, and made ahead they would be zeroed for nothing: ready returns
// nil, and the bytes are copied out as they come (huge.AppendCopy).
func (d *frameDecoder) ready(f frame, n int) []byte {
	if f.coder == coderZstd|coderWords && f.dict >= 0 {
		// Its coded text, as far as decodeWords decodes it, is what the
		// buffers above are for, and the buffer it is decoded into; the
		// raw bytes are expanded into what is returned.
		if room := d.readyText(f, n, false); room > 0 && huge.Fresh(room) {
			return touch(growCap(nil, room), room)
		}
		return nil
	}
	if f.coder != coderZstd || f.dict < 0 {
		return nil
	}
	if room := d.readySplice(f, n); huge.Fresh(room) {
		return touch(growCap(nil, room), room)
	}
	return nil // the heap's memory: no faults to take ahead, and its zeroing to spare
}

// readyText makes d's buffers ready for the coded text of f, a words
// frame with a dictionary, as far as its first n raw bytes need, as ready
// does, and returns the room to expand them into (0: not such a frame).
// entries says the text is for a read of some of f's entries, which d
// gives its spliced buffer if it has not given one (see give): then the
// buffer the text would be copied to is not needed.
func (d *frameDecoder) readyText(f frame, n int, entries bool) int {
	inner, _, ok := wordsInner(f)
	if f.coder != coderZstd|coderWords || f.dict < 0 || !ok {
		return 0
	}
	m, room := wordsPrefix(f, inner, n)
	if (!entries || d.gaveSplice) && cap(d.text) < m && huge.Fresh(m) {
		d.text = touch(growCap(d.text[:0], m), m)[:0]
	}
	d.readySplice(inner, m)
	return room
}

// readySplice makes d's buffers for splicing zstd frame f with its
// dictionary ready for its first n raw bytes, as ready does, and returns
// how many raw bytes its decoding makes.
func (d *frameDecoder) readySplice(f frame, n int) int {
	dictLen := f.rawLen
	room := min(f.rawLen, blocksFor(n)*maxRawBlock)
	joined := spliceHeader + rawBlocksLen(dictLen) + len(f.data)
	if cap(d.joined) < joined {
		d.joined, d.joinedDict = touch(growCap(nil, joined), joined), nil
	}
	if cap(d.spliced) < dictLen+room {
		d.spliced = touch(growCap(nil, dictLen+room), dictLen+room)
	}
	return room
}

// touch writes a byte in every page of b's first n bytes of room, which
// are fresh memory, and returns b.
func touch(b []byte, n int) []byte {
	p := b[:n]
	for i := 0; i < n; i += 4096 {
		p[i] = 0
	}
	return b
}

// decodeSplit appends the raw bytes of f, a frame with its numbers split
// out or its entries shaped (coderFlags), to dst: all of them, or for a
// frame of numbers not shaped, at least the first n, and reports whether
// that is all (as decodePrefix does). Each byte of the text makes one
// raw byte or more (a mark makes a number, an id or a time), so n+1
// bytes of text make n raw bytes or more (numcol.JoinPrefix leaves out a
// token's mark at their end).
func (d *frameDecoder) decodeSplit(dst []byte, f frame, dict []byte, n int) (_ []byte, complete bool, _ error) {
	textLen, coded, b, err := splitParts(f.data)
	if err != nil {
		return dst, false, err
	}
	// Shaped text: a little more than the raw bytes (a 0x00 a leaf, a
	// shape's number an entry).
	if textLen > uint64(4*f.rawLen+64) {
		return dst, false, corruptf("split frame: text of %d bytes in %d", textLen, f.rawLen)
	}
	numbers, shaped := f.coder&coderNumbers != 0, f.coder&coderShapes != 0
	if !numbers || shaped || n >= f.rawLen {
		n = int(textLen) // all of it
	}
	n = min(n+1, int(textLen))
	// The text and columns pass through pooled buffers: fresh ones for
	// every frame were a fifth of a decode's time in the kernel zeroing
	// their pages.
	text, whole, err := d.decodePrefix(getBuf(min(int(textLen), n)), frame{coder: f.base(), dict: f.dict, rawLen: int(textLen), data: coded}, dict, n)
	if err != nil {
		return dst, false, err
	}
	if !numbers && len(b) != 0 {
		putBuf(text)
		return dst, false, corruptf("split frame: %d bytes after its text", len(b))
	}
	start := len(dst)
	var out []byte
	if shaped {
		// Unshaped straight into the output, or, where numbers are to be
		// joined into it, into a buffer of its own. +16: the room
		// unshaper.append writes past its limit.
		var into []byte
		if numbers {
			into = getBuf(f.rawLen + 16)
		} else {
			into = growCap(dst, f.rawLen+16)
		}
		unshaped, err := d.unshape.append(into, text, f.rawLen)
		putBuf(text)
		if err != nil {
			return dst, false, err
		}
		text, out = unshaped, unshaped
	}
	if numbers {
		// A number is 3 bytes or more of raw text and 9 or fewer of
		// columns, an id 16 bytes or more and fewer than one a byte of
		// it, a Mark byte 1 of each.
		colsLen, k, err := varint.Uvarint64(b)
		if err != nil || colsLen > uint64(binary.MaxVarintLen64+3*f.rawLen) {
			putBuf(text)
			return dst, false, corruptf("numbers frame: columns of %d bytes for %d of text", colsLen, textLen)
		}
		noise, k2, err := varint.Uvarint64(b[k:])
		if b = b[k+k2:]; err != nil || noise > colsLen || noise > uint64(len(b)) {
			putBuf(text)
			return dst, false, corruptf("numbers frame: %d bytes of noise in %d of columns", noise, colsLen)
		}
		cols, err := d.z.DecodeAll(b[:len(b)-int(noise)], getBuf(int(colsLen)))
		if err == nil && len(cols) != int(colsLen-noise) {
			err = fmt.Errorf("%d bytes, not %d", len(cols), colsLen-noise)
		}
		cols = append(cols, b[len(b)-int(noise):]...)
		if err == nil {
			if whole {
				out, err = d.join.Join(growCap(dst, f.rawLen), text, cols, f.rawLen)
			} else {
				out, err = d.join.JoinPrefix(growCap(dst, max(n, len(text))), text, cols, f.rawLen)
			}
		}
		putBuf(text)
		putBuf(cols)
		if err != nil {
			return dst, false, corruptf("numbers frame: %v", err)
		}
	}
	if whole && len(out)-start != f.rawLen {
		return dst, false, corruptf("split frame decodes to %d bytes, its header says %d", len(out)-start, f.rawLen)
	}
	return out[:len(out):len(out)], whole, nil
}

// decodeBlocks decodes the first k blocks of f, a zstd frame whose blocks
// start at d.blocks (the last entry is where they end), or all of them if
// k is their number, and returns their bytes, got. Without a dictionary
// they are decoded straight after dst, as out; with one, into the
// decoder's kept buffer, behind the dictionary's bytes (out nil).
func (d *frameDecoder) decodeBlocks(dst []byte, f frame, dict []byte, k int) (out, got []byte, err error) {
	whole := k == len(d.blocks)-1
	in := f.data
	if dict != nil || !whole {
		in = d.zstdInput(f.data, dict, f.rawLen, k)
	}
	room := f.rawLen
	if !whole {
		room = min(room, k*maxRawBlock)
	}
	if dict == nil {
		start := len(dst)
		out, err = d.z.DecodeAll(in, growCap(dst, room)[:start:start+room])
		if err != nil {
			return nil, nil, err
		}
		return out, out[start:], nil
	}
	d.spliced = growCap(d.spliced[:0], len(dict)+room)
	all, err := d.z.DecodeAll(in, d.spliced[:0:len(dict)+room])
	if err != nil {
		return nil, nil, err
	}
	if len(all) < len(dict) {
		return nil, nil, fmt.Errorf("decodes to %d bytes, fewer than its dictionary's %d", len(all), len(dict))
	}
	return nil, all[len(dict):], nil
}

// zstdInput sets d.joined to a zstd frame that needs no dictionary and
// decodes to dict's bytes, then those of the first k blocks of frame (a
// zstd frame of rawLen bytes with dict as raw-content dictionary, or
// none), whose blocks start at d.blocks, and returns it. A raw-content
// dictionary is, by the zstd format, history before the frame's first
// byte, with the default repeat offsets and no entropy tables, as raw
// blocks are: frame's blocks so decode to the same bytes behind dict's
// in raw blocks. The header of the whole frame gives its content size,
// that of part of it the window, dict and frame together. The frame's
// content checksum, if it has one, is dropped: it sums what frame alone
// decodes to (the records' CRC-32s check every byte that is read).
//
// Why: klauspost's decoder runs its assembly loop only for frames
// without a dictionary (a strings frame decodes 2.3x faster spliced,
// copies of dict included); and its DecodeAll writes where it is told,
// in memory advised to huge pages (see growCap), where its streaming
// decoder, which could stop part of the way, writes into a ring of its
// own (12-21 thousand page faults for a record read by a fresh process).
func (d *frameDecoder) zstdInput(frame, dict []byte, rawLen, k int) []byte {
	// d.joined is room for the header, dict in raw blocks, then frame's:
	// the next frame of the segment, or part of it, has the same dict.
	rawBlocks := rawBlocksLen(len(dict))
	body := frame[d.blocks[0]:d.blocks[k]]
	if cap(d.joined) < spliceHeader+rawBlocks || len(dict) != len(d.joinedDict) || len(dict) > 0 && &dict[0] != &d.joinedDict[0] {
		h := growCap(d.joined[:0], spliceHeader+rawBlocks+len(body))[:spliceHeader]
		for rest := dict; len(rest) > 0; {
			n := min(len(rest), maxRawBlock)
			b := uint32(n) << 3 // a raw block, not the last
			h = append(append(h, byte(b), byte(b>>8), byte(b>>16)), rest[:n]...)
			rest = rest[n:]
		}
		d.joined, d.joinedDict = h, dict
	}
	// Grown by growCap, not append, which would neither advise the new
	// memory nor leave its tail untouched.
	h := append(growCap(d.joined[:spliceHeader+rawBlocks], len(body)), body...)
	h[spliceHeader+rawBlocks+d.blocks[k-1]-d.blocks[0]] |= 1 // the last block
	d.joined = h
	// The header, just before the dictionary.
	var room [spliceHeader]byte
	head := binary.LittleEndian.AppendUint32(room[:0], zstdMagic)
	if k == len(d.blocks)-1 {
		head = append(head, 0xE0) // 8-byte content size, single segment, no checksum, no dictionary
		head = binary.LittleEndian.AppendUint64(head, uint64(len(dict)+rawLen))
	} else {
		head = append(head, 0x00, zenc.WindowDescriptor(len(dict)+rawLen)) // no content size, a window
	}
	return h[spliceHeader-copy(h[spliceHeader-len(head):], head):]
}

// blocksFor is how many zstd blocks hold n raw bytes, if full (one at
// least): the first a part of a frame is decoded as.
func blocksFor(n int) int { return max((n+maxRawBlock-1)/maxRawBlock, 1) }

// rawBlocksLen is the length of n bytes in raw zstd blocks: a 3-byte
// header for each maxRawBlock of them.
func rawBlocksLen(n int) int { return n + 3*((n+maxRawBlock-1)/maxRawBlock) }

const zstdMagic = 0xFD2FB528

// spliceHeader is the length of a spliced frame's header: magic, frame
// header descriptor, 8-byte content size.
const spliceHeader = 4 + 1 + 8

// zstdBlocks checks that frame is one zstd frame of rawLen bytes, made
// with the dictionary dictID if dict, else with none, and with nothing
// after it but its checksum. It appends where each of its blocks starts
// to at, then where the last ends.
func zstdBlocks(at []int, frame []byte, rawLen int, dict bool) ([]int, error) {
	if len(frame) < 6 || binary.LittleEndian.Uint32(frame) != zstdMagic {
		return at, errors.New("not a zstd frame")
	}
	fhd := frame[4]
	p := 5
	single := fhd&0x20 != 0
	if fhd&0x08 != 0 {
		return at, errors.New("zstd frame header: reserved bit set")
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
		return at, errors.New("zstd frame header cut short")
	}
	want := uint64(0)
	if dict {
		want = dictID
	}
	if id := littleEndian(frame[p : p+idLen]); id != want {
		return at, fmt.Errorf("zstd frame names dictionary %d, not %d", id, want)
	}
	p += idLen
	if sizeLen > 0 {
		size := littleEndian(frame[p : p+sizeLen])
		if sizeLen == 2 {
			size += 256
		}
		if size != uint64(rawLen) {
			return at, fmt.Errorf("zstd frame of %d bytes, its header says %d", size, rawLen)
		}
		p += sizeLen
	}
	// The frame's blocks, up to its last.
	for {
		if len(frame)-p < 3 {
			return at, errors.New("zstd block cut short")
		}
		h := uint32(frame[p]) | uint32(frame[p+1])<<8 | uint32(frame[p+2])<<16
		size := int(h >> 3)
		switch h >> 1 & 3 {
		case 1: // RLE: one byte, repeated
			size = 1
		case 3:
			return at, errors.New("zstd block of a reserved type")
		}
		if len(frame)-p-3 < size {
			return at, errors.New("zstd block cut short")
		}
		at = append(at, p)
		p += 3 + size
		if h&1 != 0 {
			break
		}
	}
	if rest := len(frame) - p; rest != 4*int(fhd>>2&1) {
		return at, fmt.Errorf("%d bytes after the zstd frame's blocks", rest)
	}
	return append(at, p), nil
}

// littleEndian returns the little-endian number in b (at most 8 bytes).
func littleEndian(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// maxRawBlock is the most a zstd block holds.
const maxRawBlock = 128 << 10

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
