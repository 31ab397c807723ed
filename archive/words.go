package archive

import (
	"github.com/m2m-go/m2m/internal/huge"
	"slices"
	"sync"

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
// them, its word table with the table as it is stored, then the frame's
// text coded with it (the dictionary of the segment's other frames). The
// two are made apart: a worker compressing another frame of the segment
// codes that frame's text once the table is made, while the first frame's
// is coded, and waits only for the dictionary, which is coded on as many
// goroutines as the writer has workers: dev's strings are one segment,
// its first frame filled by the last records, and a trace of --archive
// -T2 had one worker idle for ~70 ms of a 0.27 s run while the other
// made the table and coded the frame's text (2-4% less wall so).
type segmentWords struct {
	raw       []byte
	tableOnce sync.Once
	table     *words.Table // nil: no word worth a code; text is raw
	head      []byte       // table as the frame stores it
	textOnce  sync.Once
	text      []byte
	workers   int // how many goroutines code text
}

// get makes the table and the stored table, the list compressed by
// encode, the first time.
func (sw *segmentWords) get(encode func(dst, src []byte) []byte) {
	sw.tableOnce.Do(func() {
		sw.table = words.Choose(sw.raw, jsonCodes, wordsMinUses)
		if sw.table == nil {
			return
		}
		list := sw.table.AppendList(nil)
		sw.head = sw.table.AppendHeader(nil)
		sw.head = varint.AppendUvarint64(sw.head, uint64(len(list)))
		sw.head = encode(sw.head, list)
	})
}

// coded returns the first frame's text coded with the table (its raw
// bytes where it has none), made the first time; get comes first.
func (sw *segmentWords) coded() []byte {
	sw.textOnce.Do(func() {
		sw.text = sw.raw
		if sw.table != nil {
			sw.text = sw.table.AppendEncodeParallel(huge.Bytes(len(sw.raw)), sw.raw, sw.workers)
		}
	})
	return sw.text
}

// appendWords appends raw, a strings frame of the segment sw, as a words
// frame: with its own table if it is the segment's first (own), else with
// the first frame's coded text as its dictionary, that frame in block
// dictBlock. A segment with no table, or a frame whose coded text does
// not compress, is appended as appendFrame does.
func (e *frameEncoder) appendWords(dst, raw []byte, s int, sw *segmentWords, own bool, dictBlock int) ([]byte, error) {
	sw.get(e.encodePlain)
	if sw.table == nil {
		var dict []byte
		if !own {
			dict = sw.raw
		}
		return e.appendFrame(dst, raw, s, dict, dictBlock)
	}
	var text, dict []byte
	if own {
		text = sw.coded()
	} else {
		text = sw.table.AppendEncode(getBuf(len(raw)+len(raw)/16), raw)
		defer putBuf(text)
		dict = sw.coded()
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
		if !own {
			dst = appendFrameHeader(dst[:start], coderStored, -1, len(raw), len(raw))
			return append(dst, raw...), nil
		}
		// The segment's other frames take this one's table and coded
		// text, whether they compress or not: a zstd frame all the same.
		dst = appendFrameHeader(dst[:start], coderZstd, -1, len(text), 0)
		f = frame{coder: coderZstd, dict: -1, data: e.encodePlain(nil, text)}
		dst = append(dst, f.data...)
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

// wordsText is what a reader keeps of a words frame with a table of its
// own, the first of its segment: the table, and the frame's coded text,
// whole (the dictionary of the segment's other frames) or as far as it
// was decoded.
type wordsText struct {
	table *words.Table
	text  []byte
	whole bool
}

// decodeWords appends at least the first n raw bytes of f, a words frame,
// to dst, as decodePrefix does; table is its dictionary frame's, if it
// has one. A frame with a table of its own returns its table and coded
// text, decoded whole if whole; kept from before, if kept holds it whole,
// it is not decoded again. Only as much of the text as n bytes need is
// expanded: a frame whose coded text a read of one record needs, as the
// dictionary of the frame it reads, is not expanded at all.
func (d *frameDecoder) decodeWords(dst []byte, f frame, dict []byte, table *words.Table, n int, whole bool, kept wordsText) (out []byte, own wordsText, complete bool, err error) {
	inner, head, ok := wordsInner(f)
	if !ok {
		return dst, own, false, corruptf("words frame: bad header")
	}
	if len(head) > 0 {
		own = kept
		if own.table == nil {
			if own.table, err = d.wordTable(head); err != nil {
				return dst, wordsText{}, false, err
			}
		}
		table = own.table
	}
	if table == nil {
		return dst, own, false, corruptf("words frame with no table, nor a dictionary with one")
	}
	n = min(max(n, 0), f.rawLen)
	m, room := wordsPrefix(f, inner, n)
	if whole {
		m = inner.rawLen
	}
	start := len(dst)
	out = growCap(dst, room)
	text, textWhole := own.text, own.whole
	at := 0 // of text, expanded
	for {
		if !textWhole && (len(text) < m || m == inner.rawLen) {
			// (More of) the coded text; all of it, checked whole, once
			// all is asked for (even none: a frame whose coded text is
			// empty must still be found to expand to its length).
			var buf []byte
			if own.table == nil {
				buf = d.text[:0]
			}
			if text, textWhole, err = d.decodePrefix(buf, inner, dict, m); err != nil {
				return dst, wordsText{}, false, err
			}
			if own.table == nil {
				d.text = text
			}
		}
		// Expanded in steps, as far as n bytes: no further.
		for len(out)-start < n && at < len(text) {
			step := max(int(int64(n-(len(out)-start))*int64(len(text))/int64(max(f.rawLen, 1))), 4<<10)
			var used int
			if out, used, err = table.AppendDecode(out, text[at:min(at+step, len(text))], f.rawLen-(len(out)-start)); err != nil {
				return dst[:start], wordsText{}, false, corruptf("words frame: %v", err)
			}
			if at+step >= len(text) && at+used < len(text) {
				break // a code cut at the end of what is decoded
			}
			at += used
		}
		if textWhole && at == len(text) && len(out)-start != f.rawLen || textWhole && at < len(text) && len(out)-start < n {
			return dst[:start], wordsText{}, false, corruptf("words frame decodes to %d bytes or more, its header says %d", len(out)-start, f.rawLen)
		}
		if len(out)-start >= n || textWhole {
			if own.table != nil {
				own.text, own.whole = text, textWhole
			}
			return out[:len(out):len(out)], own, textWhole && at == len(text), nil
		}
		m = inner.rawLen // fewer words than on average: all of it
	}
}

// wordsInner returns the frame a words frame's coded text is, and its
// table as stored (none: its dictionary frame's), as far as its header
// says; ok is false for a header no writer makes. (A byte of text is at
// most two of coded text, a code.)
func wordsInner(f frame) (inner frame, table []byte, ok bool) {
	b := f.data
	var v [2]uint64
	for i := range v {
		x, k, err := varint.Uvarint64(b)
		if err != nil {
			return frame{}, nil, false
		}
		v[i], b = x, b[k:]
	}
	if v[0] > 2*uint64(f.rawLen) || v[1] > uint64(len(b)) {
		return frame{}, nil, false
	}
	return frame{coder: f.coder &^ coderWords, dict: f.dict, rawLen: int(v[0]), data: b[v[1]:]}, b[:v[1]], true
}

// wordsPrefix returns how much of the coded text of f, a words frame
// whose coded text is inner, a read of its first n raw bytes decodes
// first (as much as n bytes take on average, and a zstd block), and the
// room to expand it into (n bytes and a zstd block's worth, and the slot
// words.Table.AppendDecode writes past its output).
func wordsPrefix(f, inner frame, n int) (text, room int) {
	n = min(max(n, 0), f.rawLen)
	text = inner.rawLen
	if n < f.rawLen {
		text = min(text, int(int64(n)*int64(inner.rawLen)/int64(max(f.rawLen, 1)))+maxRawBlock)
	}
	return text, min(f.rawLen, n+maxRawBlock) + 16
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

// codedEntries is a words frame read for one record: its coded text, as
// far as it was decoded, where each entry whose end it holds ends in it,
// and its table. An entry is expanded when it is asked for (text), not
// the frame up to it: a record needs a few entries of a frame, past 1-2
// MiB of text that expanding took a third of a read's time for (the GiB
// archive's BenchmarkArchiveRecord, bench/README.md).
type codedEntries struct {
	table  *words.Table
	text   []byte
	ends   []uint32 // the offset in text of each entry's markEnd
	rawLen int      // the frame's: no entry is longer
	// held is the memory of the buffer text was decoded in, if it was a
	// decoder's, given (frameDecoder.give): more than text's bytes.
	held int
}

// size is the memory c holds, for the Reader's cache.
func (c *codedEntries) size() int { return max(len(c.text), c.held) + 4*len(c.ends) }

// entry expands entry i, which c holds.
func (c *codedEntries) entry(i uint32) ([]byte, error) {
	start := 0
	if i > 0 {
		start = int(c.ends[i-1]) + 1
	}
	src := c.text[start:c.ends[i]]
	out, used, err := c.table.AppendDecode(make([]byte, 0, 2*len(src)), src, c.rawLen)
	if err != nil || used != len(src) {
		return nil, corruptf("words frame: entry %d does not decode", i)
	}
	return out, nil
}

// decodeCoded decodes the coded text of f, a words frame, as far as its
// first need entries end in it (and a zstd block past the share of its
// coded text that n raw bytes take on average), for a read that expands
// only the entries it asks for. table is its dictionary frame's, if it
// has one; a frame with a table of its own returns its table and coded
// text as decodeWords does, kept from before if kept holds them whole.
// The text is decoded into d's buffer for it (which readyText may have
// made ready), or, for a decoder's first, given where zstd wrote it
// (frameDecoder.give); the result keeps it.
func (d *frameDecoder) decodeCoded(f frame, dict []byte, table *words.Table, n, need int, kept wordsText) (c *codedEntries, own wordsText, err error) {
	inner, head, ok := wordsInner(f)
	if !ok {
		return nil, own, corruptf("words frame: bad header")
	}
	if len(head) > 0 {
		own = kept
		if own.table == nil {
			if own.table, err = d.wordTable(head); err != nil {
				return nil, wordsText{}, err
			}
		}
		table = own.table
	}
	if table == nil {
		return nil, own, corruptf("words frame with no table, nor a dictionary with one")
	}
	text, whole := own.text, own.whole
	m, _ := wordsPrefix(f, inner, n)
	c = &codedEntries{table: table, rawLen: f.rawLen}
	for {
		if !whole && len(text) < m {
			buf := d.text[:0]
			d.text = nil // the result's now
			d.give, d.gave = true, 0
			text, whole, err = d.decodePrefix(buf, inner, dict, m)
			d.give, c.held = false, d.gave
			if err != nil {
				return nil, wordsText{}, err
			}
		}
		from := 0 // past the entries found in the text decoded before
		if len(c.ends) > 0 {
			from = int(c.ends[len(c.ends)-1]) + 1
		}
		c.ends = table.AppendSeps(c.ends, text, markEnd, from)
		if len(c.ends) >= need || whole {
			break
		}
		m = inner.rawLen // fewer entries than on average: all of it
	}
	c.text = text
	if own.table != nil {
		own.text, own.whole = text, whole
	}
	last := -1
	if len(c.ends) > 0 {
		last = int(c.ends[len(c.ends)-1])
	}
	if whole && last+1 != len(text) {
		return nil, wordsText{}, corruptf("words frame: text after its last entry")
	}
	return c, own, nil
}
