package archive

import (
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/m2m-go/m2m/varint"
	"github.com/m2m-go/m2m/words"
)

// Words frames (coderWords): at the zstd levels, the strings frames of a
// segment have their frequent words replaced by codes of one or two bytes
// (package words) before zstd sees them, with one table for the segment,
// chosen from its first frame, which it is stored in: zstd then has fewer
// bytes to match and to code as literals, and the segment's frames find
// each other's repeats as before, in the same codes. dev100's strings
// are 8.0% smaller so, dev's 6.6% (bench/README.md).
//
// The codes are byte values that JSON text in UTF-8 does not hold: control
// characters, which a JSON string has only escaped, and bytes that are
// never in UTF-8; a frame's text that holds them anyway has them escaped.
// So a table chosen on a segment's first frame serves the frames after it
// whatever their text (where codes the first frame did not use would be
// used by theirs). A word is in the table if the first frame holds it 8
// times or more (words.MinUses of an 8 MiB text): 4 MiB of dev100's
// strings code 0.8% smaller at zstd's level 3 than with 64 (words.MinUses
// of 1 MiB), 0.4% larger than with 4 uses.
var jsonCodes = func() []byte {
	var c []byte
	for b := 0x03; b < 0x20; b++ { // 0x00-0x02 are the format's markers
		c = append(c, byte(b))
	}
	c = append(c, 0xC0, 0xC1) // would start overlong encodings
	for b := 0xF5; b <= 0xFF; b++ {
		c = append(c, byte(b)) // would start code points past U+10FFFF
	}
	return c
}()

// wordsMinUses is how often a word must be in a segment's first frame to
// be in the table.
const wordsMinUses = 8

// segmentWords is a strings segment's dictionary at the zstd levels: its
// first frame's raw bytes, and, made once by the first worker that needs
// them, its word table, the frame's text coded with it (the dictionary of
// the segment's other frames) and the table as it is stored.
type segmentWords struct {
	raw   []byte
	once  sync.Once
	table *words.Table // nil: no word worth a code; text is raw
	text  []byte
	head  []byte // table as the frame stores it
}

// get makes the table, the coded text and the stored table, the list
// compressed by z, the first time.
func (sw *segmentWords) get(z *zstd.Encoder) *segmentWords {
	sw.once.Do(func() {
		sw.table = words.Choose(sw.raw, jsonCodes, wordsMinUses)
		if sw.table == nil {
			sw.text = sw.raw
			return
		}
		sw.text = sw.table.AppendEncode(make([]byte, 0, len(sw.raw)), sw.raw)
		list := sw.table.AppendList(nil)
		sw.head = sw.table.AppendHeader(nil)
		sw.head = varint.AppendUvarint64(sw.head, uint64(len(list)))
		sw.head = z.EncodeAll(list, sw.head)
	})
	return sw
}

// appendWords appends raw, a strings frame of the segment sw, as a words
// frame: with its own table if it is the segment's first (own), else with
// the first frame's coded text as its dictionary, that frame in block
// dictBlock. A segment with no table, or a frame whose coded text does
// not compress, is appended as appendFrame does.
func (e *frameEncoder) appendWords(dst, raw []byte, s int, sw *segmentWords, own bool, dictBlock int) ([]byte, error) {
	sw.get(e.plain)
	var dict []byte
	if !own {
		dict = sw.text
	}
	if sw.table == nil {
		return e.appendFrame(dst, raw, s, dict, dictBlock)
	}
	text := sw.text
	if !own {
		text = sw.table.AppendEncode(getBuf(len(raw)+len(raw)/16), raw)
		defer putBuf(text)
	}
	start := len(dst)
	dst, err := e.appendFrame(dst, text, s, dict, dictBlock)
	if err != nil {
		return dst, err
	}
	f, _, err := parseFrame(dst[start:], int(^uint(0)>>1))
	if err != nil {
		return dst, err
	}
	if f.coder == coderStored {
		dst = appendFrameHeader(dst[:start], coderStored, -1, len(raw), len(raw))
		return append(dst, raw...), nil
	}
	var head []byte
	if own {
		head = sw.head
	}
	pre := varint.AppendUvarint64(nil, uint64(len(text)))
	pre = varint.AppendUvarint64(pre, uint64(len(head)))
	pre = append(pre, head...)
	h := appendFrameHeader(nil, f.coder|coderWords, f.dict, len(raw), len(pre)+len(f.data))
	// The frame's data moved up behind the longer header, in place.
	at := len(dst) - len(f.data)
	end := start + len(h) + len(pre) + len(f.data)
	if end > len(dst) {
		dst = append(dst, make([]byte, end-len(dst))...)
	}
	copy(dst[start+len(h)+len(pre):], dst[at:at+len(f.data)])
	copy(dst[start:], h)
	copy(dst[start+len(h):], pre)
	return dst[:end], nil
}

// decodeWords appends at least the first n raw bytes of f, a words frame,
// to dst, as decodePrefix does; table is its dictionary frame's, if it has
// one. A frame with a table of its own, decoded whole, also returns its
// coded text and the table: the dictionary of the other frames of its
// segment.
func (d *frameDecoder) decodeWords(dst []byte, f frame, dict []byte, table *words.Table, n int) (out, text []byte, own *words.Table, complete bool, err error) {
	b := f.data
	var v [2]uint64
	for i := range v {
		x, k, err := varint.Uvarint64(b)
		if err != nil {
			return dst, nil, nil, false, corruptf("words frame: %v", err)
		}
		v[i], b = x, b[k:]
	}
	textLen, headLen := v[0], v[1]
	// A byte of text is at most two coded, a code.
	if textLen > 2*uint64(f.rawLen) || headLen > uint64(len(b)) {
		return dst, nil, nil, false, corruptf("words frame: text of %d bytes in %d, table of %d in %d", textLen, f.rawLen, headLen, len(b))
	}
	if headLen > 0 {
		if own, err = d.wordTable(b[:headLen]); err != nil {
			return dst, nil, nil, false, err
		}
		table = own
	}
	if table == nil {
		return dst, nil, nil, false, corruptf("words frame with no table, nor a dictionary with one")
	}
	inner := frame{coder: f.coder &^ coderWords, dict: f.dict, rawLen: int(textLen), data: b[headLen:]}
	n = min(max(n, 0), f.rawLen)
	// As much coded text as n bytes take on average, and a zstd block.
	m := inner.rawLen
	if n < f.rawLen {
		m = min(m, int(int64(n)*int64(inner.rawLen)/int64(max(f.rawLen, 1)))+maxRawBlock)
	}
	start := len(dst)
	for {
		var buf []byte
		if own == nil {
			buf = getBuf(m)
		}
		coded, whole, err := d.decodePrefix(buf, inner, dict, m)
		if err != nil {
			putBuf(buf)
			return dst, nil, nil, false, err
		}
		out, used, err := table.AppendDecode(growCap(dst, min(2*len(coded)+64, f.rawLen)), coded, f.rawLen)
		switch {
		case err != nil:
			err = corruptf("words frame: %v", err)
		case whole && (used != len(coded) || len(out)-start != f.rawLen):
			err = corruptf("words frame decodes to %d bytes, its header says %d", len(out)-start, f.rawLen)
		}
		if own == nil || !whole || err != nil {
			putBuf(coded)
			coded = nil
		}
		if err != nil {
			return dst[:start], nil, nil, false, err
		}
		if len(out)-start >= n || whole {
			if coded == nil {
				own = nil
			}
			return out[:len(out):len(out)], coded, own, whole, nil
		}
		m = inner.rawLen // fewer words than on average: all of it
	}
}

// wordTable reads a frame's stored table.
func (d *frameDecoder) wordTable(head []byte) (*words.Table, error) {
	n, codes, one, k, err := words.ReadHeader(head)
	if err != nil || n == 0 {
		return nil, corruptf("words frame: bad table")
	}
	listLen, k2, err := varint.Uvarint64(head[k:])
	if err != nil || listLen > uint64(words.ListLen(n)) {
		return nil, corruptf("words frame: list of %d bytes for %d words", listLen, n)
	}
	list, err := d.z.DecodeAll(head[k+k2:], make([]byte, 0, listLen))
	if err != nil || len(list) != int(listLen) {
		return nil, corruptf("words frame: list: %v", err)
	}
	// codes are the block's bytes, which the next block read reuses.
	t, used, err := words.ParseList(list, n, slices.Clone(codes), one)
	if err != nil || used != len(list) {
		return nil, corruptf("words frame: bad list")
	}
	return t, nil
}
