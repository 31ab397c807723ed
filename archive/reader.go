package archive

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/varint"
)

// A Reader reads an archive through an io.ReaderAt: any record by number,
// decoding only the blocks it needs, or every record in order on several
// goroutines. Decoded frames are kept in a cache of bounded size, shared by
// every use of the Reader; it is safe for concurrent use.
type Reader struct {
	ix     *container.Index
	frames [2][]storeFrame // strings and templates frames, by first id
	total  [2]uint32       // entries of each kind
	cache  cache
	hot    hotEntries
	decs   sync.Pool // *frameDecoder
}

// storeFrame is a store block, as the directory lists it.
type storeFrame struct {
	block int
	first uint32
	count int
}

// NewReader opens the archive ra of size bytes: it reads the container's
// index and the archive's directory, nothing else.
func NewReader(ra io.ReaderAt, size int64) (*Reader, error) {
	ix, err := container.OpenIndex(ra, size, nil)
	if err != nil {
		return nil, err
	}
	r := &Reader{ix: ix}
	r.cache.init(cacheBudget)
	r.hot.init(hotBudget)
	if ix.Blocks() == 0 {
		return nil, corruptf("no directory block")
	}
	last := ix.Blocks() - 1
	b, err := ix.Block(last)
	if err != nil {
		return nil, err
	}
	if b.Type != container.TypeArchive || len(b.Body) == 0 || b.Body[0] != kindDirectory {
		return nil, corruptf("the last block is not the directory")
	}
	if err := r.parseDirectory(b.Body[1:], last); err != nil {
		return nil, fmt.Errorf("directory: %w", err)
	}
	return r, nil
}

// parseDirectory reads the directory: per store frame, its kind, its
// block (as a delta from the one before) and its number of entries.
func (r *Reader) parseDirectory(b []byte, blocks int) error {
	n, k, err := varint.Uvarint64(b)
	if err != nil || n > uint64(blocks) {
		return corruptf("bad frame count")
	}
	b = b[k:]
	prev := 0
	for i := uint64(0); i < n; i++ {
		if len(b) == 0 {
			return corruptf("cut short")
		}
		kind := b[0]
		delta, k1, err1 := varint.Uvarint64(b[1:])
		if err1 != nil {
			return corruptf("bad entry")
		}
		count, k2, err2 := varint.Uvarint64(b[1+k1:])
		b = b[1+k1+k2:]
		block := prev + int(delta)
		switch {
		case err2 != nil || delta > uint64(blocks) || block >= blocks || (i > 0 && delta == 0):
			return corruptf("bad entry")
		case count == 0 || count > maxFrame:
			return corruptf("frame of %d entries", count)
		case kind != kindStrings && kind != kindTemplates:
			return corruptf("frame of kind %q", kind)
		}
		t := 0
		if kind == kindTemplates {
			t = 1
		}
		if uint64(r.total[t])+count >= idTemplate {
			return corruptf("too many entries")
		}
		r.frames[t] = append(r.frames[t], storeFrame{block: block, first: r.total[t], count: int(count)})
		r.total[t] += uint32(count)
		prev = block
	}
	if len(b) != 0 {
		return corruptf("%d bytes after it", len(b))
	}
	return nil
}

// Records returns the number of records in the archive.
func (r *Reader) Records() int64 { return r.ix.Records }

// Index returns the container's index of the archive.
func (r *Reader) Index() *container.Index { return r.ix }

// Close lets go of the Reader's cache. The Reader must not be used after.
func (r *Reader) Close() {
	r.cache.init(0)
	r.hot.init(0)
}

// AppendRecord appends record n (from 0) to dst as it was in the input,
// its line feed included if one followed it, and checks its length and
// CRC-32.
func (r *Reader) AppendRecord(dst []byte, n int64) ([]byte, error) {
	b, err := r.ix.Find(n)
	if err != nil {
		return dst, err
	}
	rb, err := r.records(b)
	if err != nil {
		return dst, err
	}
	i := int(n - r.ix.First(b))
	if i >= len(rb.recs) {
		return dst, fmt.Errorf("record %d: %w", n, corruptf("block %d holds %d records, the index says more", b, len(rb.recs)))
	}
	x := r.expander()
	defer r.putExpander(x)
	if dst, err = x.record(dst, rb, i); err != nil {
		return dst, fmt.Errorf("record %d: %w", n, err)
	}
	return dst, nil
}

// records returns records block b, decoded, from the cache.
func (r *Reader) records(b int) (*recordsBlock, error) {
	v, err := r.cache.get(b, func() (any, int, error) { return r.loadRecords(b) })
	if err != nil {
		return nil, err
	}
	return v.(*recordsBlock), nil
}

// recordsBlock is a records block, decoded.
type recordsBlock struct {
	block int
	recs  []recIndex
	skel  []byte // the skeleton frame, raw: the dictionary of others
}

// recIndex is one record's entry in its block's index.
type recIndex struct {
	flags     byte
	length    int
	crc       uint32
	skel, end int // its skeleton, in the block's
	schema    codec.Schema
	model     []byte
}

func (r *Reader) loadRecords(b int) (any, int, error) {
	blk, err := r.ix.Block(b)
	if err != nil {
		return nil, 0, err
	}
	body := blk.Body
	if blk.Type != container.TypeArchive || len(body) == 0 || body[0] != kindRecords {
		return nil, 0, blockErr(b, corruptf("not a records block"))
	}
	n, k, err := varint.Uvarint64(body[1:])
	if err != nil || n != uint64(blk.Records) {
		return nil, 0, blockErr(b, corruptf("records count"))
	}
	rest := body[1+k:]
	idxF, rest, err := parseFrame(rest, b)
	if err != nil {
		return nil, 0, blockErr(b, err)
	}
	skelF, rest, err := parseFrame(rest, b)
	if err != nil {
		return nil, 0, blockErr(b, err)
	}
	if len(rest) != 0 || idxF.dict >= 0 {
		return nil, 0, blockErr(b, corruptf("bad frames"))
	}
	d := r.decoder()
	defer r.decs.Put(d)
	idx, err := d.decode(nil, idxF, nil)
	if err != nil {
		return nil, 0, blockErr(b, err)
	}
	var dict []byte
	if skelF.dict >= 0 {
		db, err := r.records(skelF.dict)
		if err != nil {
			return nil, 0, err
		}
		dict = db.skel
	}
	skel, err := d.decode(nil, skelF, dict)
	if err != nil {
		return nil, 0, blockErr(b, err)
	}
	rb := &recordsBlock{block: b, skel: skel}
	if rb.recs, err = parseIndex(idx, int(n), skel); err != nil {
		return nil, 0, blockErr(b, err)
	}
	return rb, len(skel) + len(idx) + len(rb.recs)*64, nil
}

func blockErr(b int, err error) error { return fmt.Errorf("block %d: %w", b, err) }

// parseIndex reads a records block's index, of n records, and finds each
// record's skeleton in skel.
func parseIndex(idx []byte, n int, skel []byte) ([]recIndex, error) {
	recs, err := parseIndexOnly(idx, n)
	if err != nil {
		return nil, err
	}
	// Each record's skeleton: its bytes if kept, else a template ended by
	// a line feed (references skipped, since their bytes may hold one).
	at := 0
	for i := range recs {
		recs[i].skel = at
		if recs[i].flags&flagKept != 0 {
			if recs[i].length > len(skel)-at {
				return nil, corruptf("skeletons cut short")
			}
			at += recs[i].length
			recs[i].end = at
			continue
		}
		end, err := templateEnd(skel, at, '\n')
		if err != nil {
			return nil, err
		}
		recs[i].end = end
		at = end + 1
	}
	if at != len(skel) {
		return nil, corruptf("%d bytes after the skeletons", len(skel)-at)
	}
	return recs, nil
}

// parseIndexOnly reads a records block's index, of n records.
func parseIndexOnly(idx []byte, n int) ([]recIndex, error) {
	if n > len(idx) {
		return nil, corruptf("index of %d bytes for %d records", len(idx), n)
	}
	recs := make([]recIndex, n)
	flags, p := idx[:n], idx[n:]
	listed := 0
	for i := range recs {
		if flags[i]&^flagsDefined != 0 {
			return nil, corruptf("record flags %#x", flags[i])
		}
		recs[i].flags = flags[i]
		if flags[i]&flagListed != 0 {
			listed++
		}
		l, k, err := varint.Uvarint64(p)
		if err != nil || l > MaxLine {
			return nil, corruptf("record length")
		}
		recs[i].length, p = int(l), p[k:]
	}
	if len(p) < 4*n {
		return nil, corruptf("index cut short")
	}
	for i := range recs {
		recs[i].crc = binary.LittleEndian.Uint32(p[4*i:])
	}
	p = p[4*n:]
	if len(p) < listed {
		return nil, corruptf("index cut short")
	}
	schemas, p := p[:listed], p[listed:]
	ids := make([]uint64, 0, listed)
	for range listed {
		id, k, err := varint.Uvarint64(p)
		if err != nil {
			return nil, corruptf("model number")
		}
		ids, p = append(ids, id), p[k:]
	}
	nModels, k, err := varint.Uvarint64(p)
	if err != nil || nModels > uint64(len(p)) {
		return nil, corruptf("model table")
	}
	p = p[k:]
	models := make([][]byte, nModels)
	for i := range models {
		l, k, err := varint.Uvarint64(p)
		if err != nil || l > uint64(len(p)-k) {
			return nil, corruptf("model table")
		}
		models[i], p = p[k:k+int(l)], p[k+int(l):]
	}
	j := 0
	for i := range recs {
		if recs[i].flags&flagListed == 0 {
			continue
		}
		if ids[j] >= nModels {
			return nil, corruptf("model %d of %d", ids[j], nModels)
		}
		recs[i].schema, recs[i].model = codec.Schema(schemas[j]), models[ids[j]]
		j++
	}
	if len(p) != 0 {
		return nil, corruptf("%d bytes after the index", len(p))
	}
	return recs, nil
}

// templateEnd returns the offset of the byte end (not a marker) that ends
// the template starting at src[at], stepping over references, whose bytes
// may hold it.
func templateEnd(src []byte, at int, end byte) (int, error) {
	next := -1 // the first end at or after i, once known
	for i := at; ; {
		if next < i {
			k := bytes.IndexByte(src[i:], end)
			if k < 0 {
				return 0, corruptf("template not ended")
			}
			next = i + k
		}
		m := i + indexMarker(src[i:next])
		if m == next {
			return next, nil
		}
		if src[m] != markString && src[m] != markTemplate {
			return 0, corruptf("marker %#x in a template", src[m])
		}
		_, k, err := varint.Uvarint(src[m+1:])
		if err != nil {
			return 0, corruptf("bad reference")
		}
		i = m + 1 + k
	}
}

// storeBlock is a store frame, decoded.
type storeBlock struct {
	kind  int // 0 strings, 1 templates
	first uint32
	raw   []byte
	ends  []uint32 // end of each entry in raw (its markEnd)
}

// entry returns the text of entry id of kind t (0 strings, 1 templates).
func (r *Reader) entry(t int, id uint32, last **storeBlock) ([]byte, error) {
	if s := *last; s != nil && id >= s.first && id-s.first < uint32(len(s.ends)) {
		return s.text(id - s.first), nil
	}
	if id >= r.total[t] {
		return nil, corruptf("reference to %s %d, of %d", [2]string{"string", "template"}[t], id, r.total[t])
	}
	fs := r.frames[t]
	i := sort.Search(len(fs), func(i int) bool { return fs[i].first+uint32(fs[i].count) > id }) // exists: id < total
	if v, ok := r.cache.peek(fs[i].block); ok {
		if s, ok := v.(*storeBlock); ok && s.kind == t {
			*last = s
			return s.text(id - s.first), nil
		}
	}
	// The frame is not at hand: a value that recurs from far back, or one
	// read by number. Load the frame, and keep the entry.
	hot := uint64(t)<<32 | uint64(id)
	if text, ok := r.hot.get(hot); ok {
		return text, nil
	}
	s, err := r.store(t, fs[i])
	if err != nil {
		return nil, err
	}
	*last = s
	text := s.text(id - s.first)
	r.hot.put(hot, text)
	return text, nil
}

func (s *storeBlock) text(i uint32) []byte {
	start := uint32(0)
	if i > 0 {
		start = s.ends[i-1] + 1
	}
	return s.raw[start:s.ends[i]]
}

// store returns store frame f of kind t, decoded, from the cache.
func (r *Reader) store(t int, f storeFrame) (*storeBlock, error) {
	v, err := r.cache.get(f.block, func() (any, int, error) { return r.loadStore(t, f) })
	if err != nil {
		return nil, err
	}
	s, ok := v.(*storeBlock)
	if !ok || s.kind != t {
		return nil, blockErr(f.block, corruptf("not the store frame the directory says"))
	}
	return s, nil
}

func (r *Reader) loadStore(t int, f storeFrame) (any, int, error) {
	blk, err := r.ix.Block(f.block)
	if err != nil {
		return nil, 0, err
	}
	body := blk.Body
	kind := [2]byte{kindStrings, kindTemplates}[t]
	if blk.Type != container.TypeArchive || len(body) == 0 || body[0] != kind || blk.Records != 0 {
		return nil, 0, blockErr(f.block, corruptf("not a %c block", kind))
	}
	first, k1, err1 := varint.Uvarint64(body[1:])
	count, k2, err2 := varint.Uvarint64(body[1+k1:])
	if err1 != nil || err2 != nil || first != uint64(f.first) || count != uint64(f.count) {
		return nil, 0, blockErr(f.block, corruptf("entries %d+%d, the directory says %d+%d", first, count, f.first, f.count))
	}
	fr, rest, err := parseFrame(body[1+k1+k2:], f.block)
	if err != nil || len(rest) != 0 {
		return nil, 0, blockErr(f.block, corruptf("bad frame: %v", err))
	}
	var dict []byte
	if fr.dict >= 0 {
		// The dictionary is the first frame of the segment: an earlier
		// frame of the same kind.
		fs := r.frames[t]
		i := sort.Search(len(fs), func(i int) bool { return fs[i].block >= fr.dict })
		if i == len(fs) || fs[i].block != fr.dict {
			return nil, 0, blockErr(f.block, corruptf("dictionary block %d is not a %c frame", fr.dict, kind))
		}
		ds, err := r.store(t, fs[i])
		if err != nil {
			return nil, 0, err
		}
		dict = ds.raw
	}
	d := r.decoder()
	defer r.decs.Put(d)
	raw, err := d.decode(nil, fr, dict)
	if err != nil {
		return nil, 0, blockErr(f.block, err)
	}
	s := &storeBlock{kind: t, first: f.first, raw: raw, ends: make([]uint32, 0, f.count)}
	for at := 0; at < len(raw); {
		i := bytes.IndexByte(raw[at:], markEnd)
		if i < 0 || len(s.ends) == f.count {
			return nil, 0, blockErr(f.block, corruptf("entries do not match their count"))
		}
		s.ends = append(s.ends, uint32(at+i))
		at += i + 1
	}
	if len(s.ends) != f.count {
		return nil, 0, blockErr(f.block, corruptf("%d entries, the directory says %d", len(s.ends), f.count))
	}
	return s, len(raw) + 4*len(s.ends), nil
}

func (r *Reader) decoder() *frameDecoder {
	if d, ok := r.decs.Get().(*frameDecoder); ok {
		return d
	}
	d, err := newFrameDecoder()
	if err != nil {
		panic(err) // only bad options fail, and these are fixed
	}
	return d
}

// expander expands records: one goroutine's, with the store frames it
// used last, so that runs of references to one frame skip the cache.
type expander struct {
	r    *Reader
	last [2]*storeBlock
}

var expanders sync.Pool

func (r *Reader) expander() *expander {
	if x, ok := expanders.Get().(*expander); ok && x.r == r {
		return x
	}
	return &expander{r: r}
}

func (r *Reader) putExpander(x *expander) { x.last = [2]*storeBlock{}; expanders.Put(x) }

// record appends record i of rb to dst, with its line feed if it had one,
// and checks its length and CRC-32.
func (x *expander) record(dst []byte, rb *recordsBlock, i int) ([]byte, error) {
	ri := &rb.recs[i]
	start := len(dst)
	skel := rb.skel[ri.skel:ri.end]
	if ri.flags&flagKept != 0 {
		dst = append(dst, skel...)
	} else {
		var err error
		if dst, err = x.expand(dst, skel, start+ri.length, 0, idTemplate); err != nil {
			return dst[:start], err
		}
	}
	if got := len(dst) - start; got != ri.length {
		return dst[:start], corruptf("record of %d bytes, its index says %d", got, ri.length)
	}
	if got := crc.Checksum(dst[start:]); got != ri.crc {
		return dst[:start], corruptf("record checksum %08x, expected %08x", got, ri.crc)
	}
	if ri.flags&flagNoNewline == 0 {
		dst = append(dst, '\n')
	}
	return dst, nil
}

// expand appends tmpl with its references replaced by their entries'
// text, up to limit bytes of dst. A template refers only to templates
// made before it (below below), so nesting ends; depth bounds it besides.
func (x *expander) expand(dst, tmpl []byte, limit, depth int, below uint32) ([]byte, error) {
	if depth > maxDepth+1 {
		return dst, corruptf("references nested deeper than %d", maxDepth+1)
	}
	for len(tmpl) > 0 {
		i := indexMarker(tmpl)
		if len(dst)+i > limit {
			return dst, corruptf("record longer than its index says")
		}
		dst = append(dst, tmpl[:i]...)
		if i == len(tmpl) {
			break
		}
		mark := tmpl[i]
		if mark == markEnd {
			return dst, corruptf("entry end in a template")
		}
		ref, k, err := varint.Uvarint(tmpl[i+1:])
		if err != nil || ref == 0 {
			return dst, corruptf("bad reference")
		}
		tmpl = tmpl[i+1+k:]
		id := ref - 1
		t := int(mark - markString)
		text, err := x.r.entry(t, id, &x.last[t])
		if err != nil {
			return dst, err
		}
		if t == 0 {
			if len(dst)+len(text) > limit {
				return dst, corruptf("record longer than its index says")
			}
			dst = append(dst, text...)
			continue
		}
		if id >= below {
			return dst, corruptf("template %d refers to template %d, not made before it", below, id)
		}
		if dst, err = x.expand(dst, text, limit, depth+1, id); err != nil {
			return dst, err
		}
	}
	return dst, nil
}
