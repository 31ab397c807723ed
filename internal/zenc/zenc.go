// Package zenc writes zstd frames (RFC 8878) with lazy parsing of depth
// 2 over rows of hashed positions, as zstd's reference encoder does at its
// levels 8 to 12 ("lazy2", with its row-based match finder). It is for
// text that repeats at every distance in a frame, such as an archive's
// strings: on dev100's, with the same dictionaries, its frames are 9-10%
// smaller than klauspost's level 3 ("better") makes them, as small as the
// reference's level 9, at a fifth of klauspost's speed (bench/README.md,
// "Our own zstd encoder"). With Params.Optimal, blocks are parsed by
// price over the same rows, as the reference's levels 16 and up parse
// them ("btopt", opt.go): dev's strings 3.2% smaller again, at a third of
// lazy2's speed ("Level 4 parsed by price"). Any zstd decoder reads them;
// decoding is not here.
//
// Frames are written whole (AppendEncode), with a raw-content dictionary
// or none, in blocks of 128 KiB of input (the last shorter), each
// compressed or stored: a reader that decodes a frame's first blocks only
// may count on that. Literals are Huffman coded by klauspost's huff0,
// sequences by FSE tables made for each block.
package zenc

import (
	"encoding/binary"
	"math/bits"
	"unsafe"

	"github.com/klauspost/compress/huff0"

	"github.com/m2m-go/m2m/internal/huge"
)

// BlockSize is the input of each block but a frame's last.
const BlockSize = 128 << 10

// Params are the match finder's: the size of its table and how far it
// searches.
type Params struct {
	RowLog uint // 2^RowLog rows of 16 positions, by hash
	Search int  // candidates tried at a position
	Depth  int  // later starts tried for a better match: 1 (lazy) or 2 (lazy2)
	Skip   uint // in a run of literals, a position searched every 1 + run>>Skip
	// Optimal, if not 0, has blocks parsed by price (opt.go), not lazily
	// (Depth then serves only the lazy parse that prices a frame's first
	// block), a match of Optimal bytes or more taken at once.
	Optimal int
}

// DefaultParams are those chosen by measurement on the strings of LLM
// traffic (TestParams; bench/README.md, "Our own zstd encoder" and "A
// dictionary twice a frame"): rows of 2^15 make frames 3% larger, and
// 1.5x faster; one step of lazy parsing, 1% larger and 1.3x faster. With
// a dictionary (dev100's strings: 5.3 MB, and frames of 2.6 with it),
// 2^17 rows and 16 candidates make them 4.5% smaller than 2^16 and 8, for
// about 1.2x the archive's wall time at -T2; 2^18 and 8, 5.1% for 1.3x.
var DefaultParams = Params{RowLog: 17, Search: 16, Depth: 2, Skip: 8}

// An Encoder writes zstd frames. Its tables are reused from one frame to
// the next; it is not safe for concurrent use.
type Encoder struct {
	p      Params
	rowLog uint // this frame's: p.RowLog, or less for a small frame alone
	rows   rows
	next   int      // the first position not yet in the tables
	buf    []byte   // the dictionary, then the input: the input alone (the caller's, read only) or own
	own    []byte   // e's buffer, for a dictionary and an input together
	rep    [3]int32 // the repeat offsets, as the decoder keeps them
	seqs   []seq
	lits   []byte
	codes  [3][]byte // literal length, match length and offset codes
	ll     fseTable
	ml     fseTable
	of     fseTable
	huf    huff0.Scratch
	body   []byte
	out    []byte // the blocks a helper codes (AppendEncodeSplit)
	// fresh is how many offsets the encoder still codes explicitly before
	// it codes any as a repeat: a helper starts from a frame's middle,
	// not knowing the repeat offsets there, and after three explicit
	// ones the decoder's are its own.
	fresh int
	// The optimal parse's (opt.go): its prices, set from the block
	// before (priced) if any, its positions, a position's matches and
	// the way back.
	prices prices
	priced bool
	dict   *Dict // this frame's, for its first block parsed again
	nodes  []node
	cands  []cand
	path   []step
}

// seq is a sequence: litLen literals, then matchLen bytes copied from
// offBase (a repeat code 1-3, or an offset + 3).
type seq struct {
	litLen, matchLen, offBase uint32
}

// New returns an Encoder with parameters p.
func New(p Params) *Encoder {
	return &Encoder{p: p}
}

// A Dict is a raw-content dictionary with its positions in rows, made
// once for any number of frames, on any number of Encoders at once: a
// frame starts from a copy of its rows, not from hashing the dictionary
// (dev100's 5.3 MB of strings: some 50 ms) again.
type Dict struct {
	data   []byte
	id     uint32
	rowLog uint
	rows   rows
}

// minRowLog is the least rowLog of a frame.
const minRowLog = 8

// rowLogFor is the rowLog of a window of n bytes: a row for every 32
// positions (16 of them kept) up to 2^p.RowLog rows, so that a small
// frame does not clear, and miss in, a table many times its size.
func (p Params) rowLogFor(n int) uint {
	return min(p.RowLog, uint(max(minRowLog, bits.Len(uint(n))-5)))
}

// NewDict returns data as the dictionary of id dictID for Encoders of
// parameters p. data must not change while the Dict is in use. Its rows
// are sized for it and a frame of its size.
func NewDict(data []byte, dictID uint32, p Params) *Dict {
	rowLog := p.rowLogFor(2 * len(data))
	e := &Encoder{p: p, rowLog: rowLog, buf: data, rows: makeRows(rowLog)}
	e.fill(max(len(data)-8, 0))
	return &Dict{data: data, id: dictID, rowLog: rowLog, rows: e.rows}
}

func makeRows(rowLog uint) rows {
	// Read at random: in huge pages, far fewer misses of the TLB.
	return rows{
		tags: huge.Touch(huge.Slice[tagRow](1 << rowLog)),
		pos:  huge.Touch(huge.Slice[[16]int32](1 << rowLog)),
	}
}

// AppendEncode appends src as one zstd frame to dst, with d as its
// dictionary if not nil (made for e's parameters).
func (e *Encoder) AppendEncode(dst, src []byte, d *Dict) []byte {
	e.reset(src, d)
	dst = e.appendHeader(dst, src, d)
	dst = e.appendBlocks(dst, e.base(d), 0, len(src), true)
	e.dict, e.buf = nil, nil
	return dst
}

// AppendEncodeSplit appends src as one zstd frame to dst, as AppendEncode
// does, but for its blocks from a split on, coded by h (an Encoder of
// e's parameters) at the same time as e codes those before, on a
// goroutine of its own if parallel, else after them: the same frame
// either way, within half a percent of AppendEncode's (h's first three
// offsets are coded explicitly, and its tables hold the first part
// whole, not as parsed: dev.jsonl as one frame 0.35% larger, the sample
// and dev's archive a little smaller). For a frame whose coding ends a run,
// with a core free for it. h hashes the first part again before it
// parses its own, which takes some 0.3 of the time parsing it would: so
// e takes 3/5 of src (splitShare), and the two finish about together
// (in halves h finished 15-25% after e, the other core idle meanwhile).
func (e *Encoder) AppendEncodeSplit(dst, src []byte, d *Dict, h *Encoder, parallel bool) []byte {
	mid := (len(src)*splitShare[0]/splitShare[1] + BlockSize - 1) / BlockSize * BlockSize
	if mid == 0 || mid >= len(src) {
		return e.AppendEncode(dst, src, d)
	}
	rowLog := e.p.rowLogFor(len(src))
	if d != nil {
		rowLog = d.rowLog
	}
	base := e.base(d)
	// In parallel, h readies its tables while e readies its own and its
	// buffer (their first use in a process faults in 12 MiB each, 20-30
	// ms on the hosts we measure), then waits for that buffer.
	var ready, done chan struct{}
	second := func() {
		h.share(rowLog, d)
		if ready != nil {
			<-ready
		}
		h.buf = e.buf
		h.fill(base + mid)
		h.out = h.appendBlocks(h.out[:0], base, mid, len(src), true)
	}
	if parallel {
		ready, done = make(chan struct{}), make(chan struct{})
		go func() {
			second()
			close(done)
		}()
	}
	e.reset(src, d)
	if ready != nil {
		close(ready)
	}
	defer func() { h.buf = nil }() // e's: h's next reset must not write it
	dst = e.appendHeader(dst, src, d)
	dst = e.appendBlocks(dst, base, 0, mid, false)
	if done != nil {
		<-done
	} else {
		second()
	}
	e.dict, h.dict, e.buf = nil, nil, nil
	return append(dst, h.out...)
}

// splitShare is the part of a frame AppendEncodeSplit's first Encoder
// codes (rounded up to whole blocks): 3/5, where hashing a position costs
// some 0.3 of parsing it (dev's strings coded in 0.5/0.5 112-127 ms,
// 0.58/0.42 115-117, 0.6/0.4 112-117: bench/README.md).
var splitShare = [2]int{3, 5}

// base is where src starts in e.buf: after d's data.
func (e *Encoder) base(d *Dict) int {
	if d == nil {
		return 0
	}
	return len(d.data)
}

// appendHeader appends the frame header of src with d.
func (e *Encoder) appendHeader(dst, src []byte, d *Dict) []byte {
	var dict []byte
	if d != nil {
		dict = d.data
	}
	dst = binary.LittleEndian.AppendUint32(dst, 0xFD2FB528)
	fhd := byte(2 << 6) // 4-byte content size, a window
	if uint64(len(src)) >= 1<<32 {
		fhd = 3 << 6
	}
	switch {
	case d != nil && d.id < 256:
		fhd |= 1 // 1-byte dictionary id
	case d != nil:
		fhd |= 3 // 4-byte dictionary id
	}
	dst = append(dst, fhd, WindowDescriptor(len(dict)+len(src)))
	switch fhd & 3 {
	case 1:
		dst = append(dst, byte(d.id))
	case 3:
		dst = binary.LittleEndian.AppendUint32(dst, d.id)
	}
	if fhd>>6 == 2 {
		return binary.LittleEndian.AppendUint32(dst, uint32(len(src)))
	}
	return binary.LittleEndian.AppendUint64(dst, uint64(len(src)))
}

// appendBlocks appends the blocks of the input from start to end (after
// the dictionary's base bytes of e.buf), the last marked so if last.
func (e *Encoder) appendBlocks(dst []byte, base, start, end int, last bool) []byte {
	for ; ; start += BlockSize {
		stop := min(start+BlockSize, end)
		dst = e.appendBlock(dst, base+start, base+stop, last && stop == end)
		if stop == end {
			return dst
		}
	}
}

// reset readies e's tables for a frame of src with d.
func (e *Encoder) reset(src []byte, d *Dict) {
	n := len(src)
	if d != nil {
		n += len(d.data)
	}
	if d == nil {
		// Read where it is: a copy was 2% of an archive's CPU.
		e.buf = src
	} else {
		if cap(e.own) < n {
			// Grown by append, fresh memory faults a 4 KiB page at a time.
			e.own = huge.Bytes(n)
		}
		e.buf = append(append(e.own[:0], d.data...), src...)
	}
	e.rowLog = e.p.rowLogFor(len(src))
	if d != nil {
		e.rowLog = d.rowLog
	}
	e.resetTables(d, 0)
}

// share readies h's tables, of rowLog, as a helper of an Encoder coding a
// frame with d (AppendEncodeSplit): the helper codes the frame's blocks
// from a split on, in that Encoder's buffer, read only, with tables of its
// own, which its first search fills with the positions before it.
func (h *Encoder) share(rowLog uint, d *Dict) {
	h.rowLog = rowLog
	h.resetTables(d, 3)
}

// resetTables readies e's rows (of e.rowLog) and repeat offsets for a
// frame with d, its first fresh offsets to be coded explicitly.
func (e *Encoder) resetTables(d *Dict, fresh int) {
	if len(e.rows.tags) < 1<<e.rowLog {
		e.rows = makeRows(e.rowLog)
	}
	e.rep = [3]int32{1, 4, 8}
	e.fresh = fresh
	e.priced = false
	e.dict = d
	e.next = 0
	if d == nil {
		clear(e.rows.tags[:1<<e.rowLog])
		clear(e.rows.pos[:1<<e.rowLog])
		return
	}
	copy(e.rows.tags, d.rows.tags)
	copy(e.rows.pos, d.rows.pos)
	e.next = max(len(d.data)-8, 0)
}

// rows are, for each hash, the last 16 positions whose first 5 bytes
// hash to it (pos, each a position + 1, 0 for none), newest at its
// tagRow's head, each with 8 more bits of its hash (tags), which a search
// compares 8 at a time before it reads any candidate's bytes: zstd's
// row-based match finder, which misses the cache about twice a search
// where a hash chain misses it at every link. A row's tags and head share
// a cache line, and its positions fill one: in one struct of 84 bytes,
// a search missed twice or three times, once for the head alone.
type rows struct {
	tags []tagRow
	pos  [][16]int32
}

// tagRow is a row's tags and head, 32 bytes: two to a cache line.
type tagRow struct {
	tags [16]byte
	head uint8
	_    [15]byte
}

// hash5 hashes the 5 bytes at p: its row, and its tag.
func (e *Encoder) hash5(p int) (uint32, byte) {
	const prime5 = 889523592379
	h := (binary.LittleEndian.Uint64(e.buf[p:]) << 24) * prime5
	return uint32(h >> (64 - e.rowLog)), byte(h >> (56 - e.rowLog))
}

// prefetchRow reads row r's cache lines ahead.
func (e *Encoder) prefetchRow(r uint32) {
	prefetch2(&e.rows.tags[r].tags[0], (*byte)(unsafe.Pointer(&e.rows.pos[r])))
}

// insert adds the positions from e.next up to end to the rows: one, the
// position before a search, whose row that search read ahead; more, a
// match's edges (skip) or a dictionary, by fill.
func (e *Encoder) insert(end int) {
	end = min(end, len(e.buf)-7) // hash5 reads 8 bytes
	if end-e.next > 1 {
		e.fill(end)
		return
	}
	for p := e.next; p < end; p++ {
		r, tag := e.hash5(p)
		e.add(p, r, tag)
	}
	e.next = max(e.next, end)
}

// add adds position p, of hash r and tag, to its row, as the newest.
func (e *Encoder) add(p int, r uint32, tag byte) {
	w := &e.rows.tags[r]
	w.head = (w.head - 1) & 15
	w.tags[w.head] = tag
	e.rows.pos[r][w.head] = int32(p + 1)
}

// fillAhead is how many positions ahead of the one fill adds it asks
// for a row.
const fillAhead = 16

// fill adds the positions from e.next up to end to the rows, for a run
// of them (a match's edges, a dictionary, the first half of a frame
// split): each row is a miss of the cache, asked for up to fillAhead
// positions before it is written, so that the misses overlap.
func (e *Encoder) fill(end int) {
	end = min(end, len(e.buf)-7) // hash5 reads 8 bytes
	var ring [fillAhead]struct {
		r   uint32
		tag byte
	}
	for p := e.next; p < min(e.next+fillAhead, end); p++ {
		h := &ring[p%fillAhead]
		h.r, h.tag = e.hash5(p)
		e.prefetchRow(h.r)
	}
	for p := e.next; p < end; p++ {
		h := &ring[p%fillAhead]
		r, tag := h.r, h.tag
		if q := p + fillAhead; q < end {
			h.r, h.tag = e.hash5(q)
			e.prefetchRow(h.r)
		}
		e.add(p, r, tag)
	}
	e.next = max(e.next, end)
}

// skip adds to the tables the positions up to p that a match covered,
// but for those of a long match's middle: each position added is a
// miss of the cache, and a match's middle is found again from its start.
func (e *Encoder) skip(p int) {
	if p-e.next > 2*skipEdge {
		e.insert(e.next + skipEdge)
		e.next = p - skipEdge
	}
	e.insert(p)
}

// searchAhead is how far ahead of a search the row it reads ahead is:
// with a row's two lines asked for at once, 8 codes dev's and dev100's
// strings frames in 0.93x and 0.95x the time of 4 (paired medians of 10
// alternating runs; 2 and 12 no better).
const searchAhead = 8

// goodLen is a match long enough to take as it is: no more candidates
// are tried for a longer one, and no later start for a better one.
const goodLen = 256

// skipEdge is how many positions skip adds at each end of what it skips.
const skipEdge = 4

// count returns how many bytes from a match those from b, a > b, up to
// end.
func (e *Encoder) count(a, b, end int) int {
	n := 0
	for a+n+8 <= end {
		x := binary.LittleEndian.Uint64(e.buf[a+n:]) ^ binary.LittleEndian.Uint64(e.buf[b+n:])
		if x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
		n += 8
	}
	for a+n < end && e.buf[a+n] == e.buf[b+n] {
		n++
	}
	return n
}

// candidates inserts the positions up to p and sets pos to the
// positions of p's row whose tags are p's, newest first, at most
// Params.Search, asking for their bytes: it returns how many.
func (e *Encoder) candidates(p int, pos *[16]int32) int {
	e.insert(p)
	r, tag := e.hash5(p)
	w := &e.rows.tags[r]
	if p+searchAhead+8 <= len(e.buf) {
		// The row of a position soon searched.
		r2, _ := e.hash5(p + searchAhead)
		e.prefetchRow(r2)
	}
	// Bytes of the tags equal to tag: the high bit of each zero byte of x.
	const lo7 = 0x7F7F7F7F7F7F7F7F
	t := uint64(tag) * 0x0101010101010101
	x0 := binary.LittleEndian.Uint64(w.tags[:8]) ^ t
	x1 := binary.LittleEndian.Uint64(w.tags[8:]) ^ t
	m0 := ^((x0&lo7 + lo7) | x0 | lo7)
	m1 := ^((x1&lo7 + lo7) | x1 | lo7)
	// One bit a slot (the multiply gathers the bytes' bits into the top
	// byte), rotated so that bit 0 is the newest (head).
	const lsb, gather = 0x0101010101010101, 0x0102040810204080
	hits := uint16((m0>>7&lsb)*gather>>56) | uint16((m1>>7&lsb)*gather>>56)<<8
	hits = hits>>w.head | hits<<(16-w.head)
	// The candidates first, each one's bytes prefetched: their misses of
	// the cache overlap, where checked one by one each would wait for the
	// last (as zstd does).
	row := &e.rows.pos[r]
	n := 0
	for ; hits != 0 && n < e.p.Search; n++ {
		i := (bits.TrailingZeros16(hits) + int(w.head)) & 15
		hits &= hits - 1
		pos[n] = row[i] - 1
	}
	if n > 0 {
		prefetchAt(unsafe.SliceData(e.buf), &pos[0], n)
	}
	return n
}

// search returns the longest match at p (ending by end) among the
// candidates of its row, newest first, and its offset, with every one
// longer than any nearer one appended to *all if all is not nil (shortest
// and nearest first): what the optimal parse prices. None is shorter than
// minMatch.
func (e *Encoder) search(p, end int, all *[]cand) (ml, off int) {
	var pos [16]int32
	ml = minMatch - 1
	for _, m := range pos[:e.candidates(p, &pos)] {
		m := int(m)
		if m < 0 || m >= p || p+ml >= end || e.buf[m+ml] != e.buf[p+ml] {
			continue
		}
		if n := e.count(p, m, end); n > ml {
			ml, off = n, p-m
			if all != nil {
				*all = append(*all, cand{n, p - m})
			}
			if p+n == end || n >= goodLen {
				break
			}
		}
	}
	if off == 0 {
		return 0, 0
	}
	return ml, off
}

// repMatch returns the length of the match at p with offset off (0 where
// it is shorter than 4 bytes or reaches before the dictionary).
func (e *Encoder) repMatch(p, off, end int) int {
	if off > p || p+4 > end || binary.LittleEndian.Uint32(e.buf[p:]) != binary.LittleEndian.Uint32(e.buf[p-off:]) {
		return 0
	}
	return 4 + e.count(p+4, p-off+4, end)
}

// offCost is about the bits of offset off's code, as lazy parsing weighs
// one match against another.
func (e *Encoder) offCost(off int) int {
	if off == int(e.rep[0]) {
		return 1
	}
	return bits.Len(uint(off + 3))
}

// parse finds the sequences of the block from start to end of e.buf by
// lazy parsing of depth 2 (zstd's lazy2), and the literals between them.
func (e *Encoder) parse(start, end int) {
	e.clearBlock(end - start)
	anchor, p := start, start
	if p == 0 {
		p++
	}
	limit := min(end, len(e.buf)-8) // hashing reads 8 bytes
	for p < limit {
		ml, off, at := 0, 0, p
		if n := e.repMatch(p+1, int(e.rep[0]), end); n > 0 && e.fresh == 0 {
			ml, off, at = n, int(e.rep[0]), p+1
		}
		if n, o := e.search(p, end, nil); n > ml {
			ml, off, at = n, o, p
		}
		if ml < 4 {
			p += (p-anchor)>>e.p.Skip + 1
			continue
		}
		for depth := 1; depth <= e.p.Depth && p+1 < limit && ml < goodLen; depth++ {
			p++
			better := false
			if n := e.repMatch(p, int(e.rep[0]), end); n > 0 && e.fresh == 0 && n*4 > ml*4-e.offCost(off)+1 {
				ml, off, at, better = n, int(e.rep[0]), p, true
			}
			bonus := 4
			if depth == 2 {
				bonus = 7
			}
			if n, o := e.search(p, end, nil); n >= 4 && n*4-bits.Len(uint(o+3)) > ml*4-e.offCost(off)+bonus {
				ml, off, at, better = n, o, p, true
			}
			if better {
				depth = 0 // a better match: look past it again
			}
		}
		for at > anchor && at-off > 0 && e.buf[at-1] == e.buf[at-1-off] {
			at--
			ml++
		}
		p = at + ml
		// The rows of the next searches, not read ahead by the last ones.
		for q := p; q < min(p+searchAhead, len(e.buf)-7); q++ {
			r, _ := e.hash5(q)
			e.prefetchRow(r)
		}
		e.addSeq(anchor, at, ml, off)
		anchor = p
		e.skip(p)
		// The second repeat offset, straight after.
		for p < limit && e.fresh == 0 {
			n := e.repMatch(p, int(e.rep[1]), end)
			if n == 0 {
				break
			}
			e.addSeq(anchor, p, n, int(e.rep[1]))
			p += n
			anchor = p
			e.skip(p)
		}
	}
	e.lits = append(e.lits, e.buf[anchor:end]...)
}

// clearBlock readies e.seqs and e.lits for a block of n bytes: at their
// most, made once (grown by append, their copies were fresh memory, 4% of
// a small run's page faults).
func (e *Encoder) clearBlock(n int) {
	if cap(e.lits) < n {
		e.lits = make([]byte, 0, BlockSize)
		e.seqs = make([]seq, 0, BlockSize/minMatch)
	}
	e.seqs, e.lits = e.seqs[:0], e.lits[:0]
}

// addSeq adds the sequence of the literals from anchor to at, then ml bytes
// copied from off back, and sets the repeat offsets as the decoder will.
func (e *Encoder) addSeq(anchor, at, ml, off int) {
	ll := at - anchor
	e.lits = append(e.lits, e.buf[anchor:at]...)
	var ob int
	if e.fresh > 0 {
		e.fresh--
		ob = off + 3
		e.rep = [3]int32{int32(off), e.rep[0], e.rep[1]}
	} else {
		ob, e.rep = offBase(e.rep, ll, off)
	}
	e.seqs = append(e.seqs, seq{litLen: uint32(ll), matchLen: uint32(ml), offBase: uint32(ob)})
}

// appendBlock appends the block of e.buf from start to end, compressed
// or, where that is no smaller, stored.
func (e *Encoder) appendBlock(dst []byte, start, end int, last bool) []byte {
	flag := uint32(0)
	if last {
		flag = 1
	}
	if end-start >= 16 {
		e.parseBlock(start, end)
		e.body = e.appendLiterals(e.body[:0])
		e.body = e.appendSequences(e.body)
		if len(e.body) < end-start {
			h := flag | 2<<1 | uint32(len(e.body))<<3
			dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
			return append(dst, e.body...)
		}
	}
	h := flag | uint32(end-start)<<3
	dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
	return append(dst, e.buf[start:end]...)
}

// appendLiterals appends the literals section of e.lits.
func (e *Encoder) appendLiterals(dst []byte) []byte {
	lits := e.lits
	if len(lits) > 32 {
		e.huf.Reuse = huff0.ReusePolicyNone
		var out []byte
		var err error
		single := len(lits) < 1024
		if single {
			out, _, err = huff0.Compress1X(lits, &e.huf)
		} else {
			out, _, err = huff0.Compress4X(lits, &e.huf)
		}
		switch {
		case err == huff0.ErrUseRLE:
			return append(appendLitHeader(dst, 1, len(lits)), lits[0])
		case err == nil && len(out)+5 < len(lits):
			n, c := uint64(len(lits)), uint64(len(out))
			switch {
			case single: // one stream, 10-bit sizes
				h := 2 | n<<4 | c<<14
				dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
			case n < 1<<10 && c < 1<<10:
				h := 2 | 1<<2 | n<<4 | c<<14
				dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
			case n < 1<<14 && c < 1<<14:
				h := 2 | 2<<2 | n<<4 | c<<18
				dst = append(dst, byte(h), byte(h>>8), byte(h>>16), byte(h>>24))
			default:
				h := 2 | 3<<2 | n<<4 | c<<22
				dst = append(dst, byte(h), byte(h>>8), byte(h>>16), byte(h>>24), byte(h>>32))
			}
			return append(dst, out...)
		}
	}
	return append(appendLitHeader(dst, 0, len(lits)), lits...)
}

// appendLitHeader appends the header of raw (kind 0) or RLE (1) literals.
func appendLitHeader(dst []byte, kind byte, n int) []byte {
	switch {
	case n < 32:
		return append(dst, kind|byte(n)<<3)
	case n < 4096:
		h := uint32(kind) | 1<<2 | uint32(n)<<4
		return append(dst, byte(h), byte(h>>8))
	default:
		h := uint32(kind) | 3<<2 | uint32(n)<<4
		return append(dst, byte(h), byte(h>>8), byte(h>>16))
	}
}

// Literal length and match length codes (RFC 8878, 3.1.1.3.2.1.1): each
// code's baseline and extra bits.
var (
	llBase = [36]uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536}
	llBits = [36]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	// mlBase is of the match length less 3.
	mlBase = [53]uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
		32, 34, 36, 38, 40, 44, 48, 56, 64, 80, 96, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536}
	mlBits = [53]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
)

// llCode and mlCode return the code of a literal length, and of a match
// length less 3.
// Under 64 and 128 by table; from there the codes go by powers of 2.
func llCode(n uint32) byte {
	if n < uint32(len(llCodes)) {
		return llCodes[n]
	}
	return byte(min(bits.Len32(n)+18, len(llBase)-1))
}

func mlCode(n uint32) byte {
	if n < uint32(len(mlCodes)) {
		return mlCodes[n]
	}
	return byte(min(bits.Len32(n)+35, len(mlBase)-1))
}

// codes returns the literal length, match length and offset codes of s.
func (s seq) codes() (ll, ml, of byte) {
	return llCode(s.litLen), mlCode(s.matchLen - 3), byte(bits.Len32(s.offBase) - 1)
}

// Codes of the literal lengths under 64 and the match lengths (less 3)
// under 128, where codeOf would search.
var (
	llCodes = codeTable(64, llBase[:])
	mlCodes = codeTable(128, mlBase[:])
)

func codeTable(n int, base []uint32) []byte {
	t := make([]byte, n)
	for i := range t {
		t[i] = codeOf(uint32(i), base)
	}
	return t
}

// codeOf returns the last code whose baseline is n or less: n itself
// where the first codes are the lengths.
func codeOf(n uint32, base []uint32) byte {
	if int(n) < len(base) && base[n] == n {
		return byte(n)
	}
	c := len(base) - 1
	for base[c] > n {
		c--
	}
	return byte(c)
}

// appendSequences appends the sequences section of e.seqs.
func (e *Encoder) appendSequences(dst []byte) []byte {
	n := len(e.seqs)
	switch {
	case n < 128:
		dst = append(dst, byte(n))
	case n < 0x7F00:
		dst = append(dst, byte(n>>8)+0x80, byte(n))
	default:
		dst = append(dst, 0xFF, byte(n-0x7F00), byte((n-0x7F00)>>8))
	}
	if n == 0 {
		return dst
	}
	for i := range e.codes {
		e.codes[i] = e.codes[i][:0]
	}
	var counts [3][maxSymbols]uint32
	for _, s := range e.seqs {
		l, m, o := s.codes()
		e.codes[0] = append(e.codes[0], l)
		e.codes[1] = append(e.codes[1], m)
		e.codes[2] = append(e.codes[2], o)
		counts[0][l]++
		counts[1][m]++
		counts[2][o]++
	}
	tables := [3]*fseTable{&e.ll, &e.ml, &e.of}
	limits := [3]uint{9, 9, 8}
	var modes [3]byte // literal lengths, match lengths, offsets
	for i, t := range tables {
		if t.rle(counts[i][:], n) {
			modes[i] = 1
			continue
		}
		modes[i] = 2
		t.normalize(counts[i][:], n, limits[i])
		t.build()
	}
	// The modes byte orders them literal lengths, offsets, match lengths.
	dst = append(dst, modes[0]<<6|modes[2]<<4|modes[1]<<2)
	for _, i := range [3]int{0, 2, 1} {
		if modes[i] == 1 {
			dst = append(dst, byte(tables[i].max))
		} else {
			dst = tables[i].appendHeader(dst)
		}
	}
	w := bitWriter{out: dst}
	var sll, sml, sof fseState
	last := n - 1
	sml.init(&e.ml, e.codes[1][last])
	sof.init(&e.of, e.codes[2][last])
	sll.init(&e.ll, e.codes[0][last])
	e.addExtra(&w, last)
	for i := last - 1; i >= 0; i-- {
		sof.encode(&w, e.codes[2][i])
		sml.encode(&w, e.codes[1][i])
		sll.encode(&w, e.codes[0][i])
		e.addExtra(&w, i)
	}
	sml.flush(&w)
	sof.flush(&w)
	sll.flush(&w)
	w.close()
	return w.out
}

// addExtra writes the extra bits of sequence i's codes.
func (e *Encoder) addExtra(w *bitWriter, i int) {
	s := e.seqs[i]
	l, m, o := e.codes[0][i], e.codes[1][i], e.codes[2][i]
	w.add(uint64(s.litLen-llBase[l]), uint(llBits[l]))
	w.add(uint64(s.matchLen-3-mlBase[m]), uint(mlBits[m]))
	w.add(uint64(s.offBase), uint(o))
}

// WindowDescriptor is the zstd window descriptor (RFC 8878, 3.1.1.1.2)
// of the smallest window of n bytes or more.
func WindowDescriptor(n int) byte {
	for e := 0; ; e++ {
		base := 1 << (10 + e)
		for m := 0; m < 8; m++ {
			if base+base/8*m >= n {
				return byte(e<<3 | m)
			}
		}
	}
}
