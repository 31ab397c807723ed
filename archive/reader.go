package archive

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/varint"
	"github.com/m2m-go/m2m/words"
)

// A Reader reads an archive through an io.ReaderAt: any record by number,
// decoding only the blocks it needs, or every record in order on several
// goroutines. Decoded frames are kept in a cache of bounded size, shared by
// every use of the Reader; it is safe for concurrent use.
type Reader struct {
	ix        *container.Index
	frames    [2][]storeFrame // strings and templates frames, by first id
	plains    int             // plain copies of dictionaries
	total     [2]uint32       // entries of each kind
	cache     cache
	hot       hotEntries
	growing   growingFrames
	decs      sync.Pool // *frameDecoder
	blockBufs sync.Pool // *[]byte, see block
	// io keeps Close from returning while the ReaderAt is being read: a
	// decoding begun ahead (dictAhead) may go on after Close, its reads
	// may not.
	io     sync.RWMutex
	closed bool
	// cut is, for a Reader of what is left of an archive (Recover), where
	// and why the rest was lost; nil for a whole archive. lostDir says its
	// directory was lost with it (the frames are listed from their blocks).
	cut     error
	lostDir bool
}

// storeFrame is a store block, as the directory lists it.
type storeFrame struct {
	block int
	first uint32
	count int
	kind  int // 0 strings, 1 templates
	plain int // the block of a plain copy of it as a dictionary (kindPlain), if not 0
}

// NewReader opens the archive ra of size bytes: it reads the container's
// index and the archive's directory, nothing else.
func NewReader(ra io.ReaderAt, size int64) (*Reader, error) {
	ix, err := container.OpenIndex(ra, size, nil)
	if err != nil {
		return nil, err
	}
	return NewIndexReader(ix)
}

// NewIndexReader opens the archive whose container index ix is, for a
// caller that has read the index already (to learn that the file is an
// archive): it reads the archive's directory. An index container.RecoverIndex
// made gives a Reader of what is left of an archive, as Recover does.
func NewIndexReader(ix *container.Index) (*Reader, error) {
	r := &Reader{ix: ix, cut: ix.Cut()}
	r.cache.init(cacheBudget)
	r.hot.init(hotBudget)
	if ix.Blocks() == 0 {
		if r.cut != nil {
			r.lostDir = true
			return r, nil
		}
		return nil, corruptf("no directory block")
	}
	last := ix.Blocks() - 1
	b, err := ix.Block(last)
	if err != nil {
		return nil, err
	}
	if b.Type != container.TypeArchive || len(b.Body) == 0 || b.Body[0] != kindDirectory {
		if r.cut != nil {
			if err := r.recoverDirectory(); err != nil {
				return nil, fmt.Errorf("what is left of the archive: %w", err)
			}
			r.lostDir = true
			return r, nil
		}
		return nil, corruptf("the last block is not the directory")
	}
	v, k, err := varint.Uvarint64(b.Body[1:])
	if err != nil {
		return nil, corruptf("directory: bad version")
	}
	if v != Version {
		return nil, fmt.Errorf("%w: version %d; this reader reads version %d", ErrVersion, v, Version)
	}
	if err := r.parseDirectory(b.Body[1+k:], last); err != nil {
		return nil, fmt.Errorf("directory: %w", err)
	}
	return r, nil
}

// Recover opens what is left of the archive ra of size bytes that
// NewReader refuses because it was cut short (a copy or a write that
// stopped) or damaged past some point: the container's blocks up to there
// (container.RecoverIndex), and the archive's directory, rebuilt from
// them if it was lost. Its records are read as any archive's, each
// checked by its CRC-32; those that need a store frame that was lost
// cannot be. Decode writes every record it can, in order, up to the first
// it cannot, and then fails with an error that says how many were
// recovered and wraps Cut's. The archive's version is in its directory:
// without one, its blocks are read as this version's, and a file of
// another fails on its records' checks.
func Recover(ra io.ReaderAt, size int64) (*Reader, error) {
	ix, err := container.RecoverIndex(ra, size, nil)
	if err != nil {
		return nil, err
	}
	return NewIndexReader(ix)
}

// Cut returns, for a Reader of what is left of an archive (Recover), why
// the rest is lost and the first record that was (see
// container.Index.Cut); nil for a whole archive.
func (r *Reader) Cut() error { return r.cut }

// recoverDirectory lists the store frames and plain copies of dictionaries
// of an archive whose directory was lost with its end, from the first
// bytes of its blocks, which Recover has read and checked whole: what the
// directory would have said of them.
func (r *Reader) recoverDirectory() error {
	var head [storeHead]byte
	for b := range r.ix.Blocks() {
		n, err := r.ix.Head(head[:], b)
		if err != nil {
			return err
		}
		h := head[:n]
		if n == 0 {
			return blockErr(b, corruptf("an empty block"))
		}
		switch h[0] {
		case kindRecords:
		case kindStrings, kindTemplates:
			t := 0
			if h[0] == kindTemplates {
				t = 1
			}
			first, k, err1 := varint.Uvarint64(h[1:])
			count, _, err2 := varint.Uvarint64(h[1+k:])
			switch {
			case err1 != nil || err2 != nil:
				return blockErr(b, corruptf("bad store frame header"))
			case first != uint64(r.total[t]):
				return blockErr(b, corruptf("entries from %d, where %d were before it", first, r.total[t]))
			case count == 0 || count > maxFrame:
				return blockErr(b, corruptf("frame of %d entries", count))
			case uint64(r.total[t])+count >= idTemplate:
				return blockErr(b, corruptf("too many entries"))
			}
			r.frames[t] = append(r.frames[t], storeFrame{block: b, first: r.total[t], count: int(count), kind: t})
			r.total[t] += uint32(count)
		case kindPlain:
			dict, _, err := varint.Uvarint64(h[1:])
			fs := r.frames[0]
			j := sort.Search(len(fs), func(j int) bool { return uint64(fs[j].block) >= dict })
			if err != nil || j == len(fs) || uint64(fs[j].block) != dict || fs[j].plain != 0 {
				return blockErr(b, corruptf("plain copy of a dictionary in block %d", dict))
			}
			fs[j].plain = b
			r.plains++
		default:
			return blockErr(b, corruptf("block of kind %q", h[0]))
		}
	}
	return nil
}

// parseDirectory reads the directory: per store frame, its kind, its
// block (as a delta from the one before) and its number of entries; per
// plain copy of a dictionary, its block and how many blocks before it its
// dictionary's frame is, a strings frame listed before it, with no copy
// before.
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
		if err2 == nil && kind == kindPlain && delta <= uint64(blocks) && block < blocks && (i == 0 || delta > 0) {
			fs := r.frames[0]
			dict := block - int(min(count, uint64(blocks)))
			j := sort.Search(len(fs), func(j int) bool { return fs[j].block >= dict })
			if count == 0 || j == len(fs) || fs[j].block != dict || fs[j].plain != 0 {
				return corruptf("plain copy in block %d of a dictionary in block %d", block, dict)
			}
			fs[j].plain = block
			r.plains++
			prev = block
			continue
		}
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
		r.frames[t] = append(r.frames[t], storeFrame{block: block, first: r.total[t], count: int(count), kind: t})
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

// Close lets go of the Reader's cache. Work begun in the background (a
// dictionary decoded ahead of a record's read) reads nothing after Close
// returns, and what it decodes is dropped: Close waits for its reads, not
// for its decoding, which a record that needs no dictionary would
// otherwise wait for (a third of a GiB archive's records, up to 8 ms).
// The Reader must not be used after.
func (r *Reader) Close() {
	r.io.Lock()
	r.closed = true
	r.io.Unlock()
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
	r.dictAhead(b)
	i := int(n - r.ix.First(b))
	rb, err := r.records(b, i+1)
	if err != nil {
		return dst, err
	}
	if i >= len(rb.recs) {
		return dst, fmt.Errorf("record %d: %w", n, corruptf("block %d holds %d records, the index says more", b, len(rb.recs)))
	}
	if s := &rb.recs[rb.recs[i].src]; s.flags&flagKept == 0 {
		r.prefetch(refText{rb.skel[s.skel:s.end], idTemplate, s.refs})
	}
	x := r.expander()
	defer r.putExpander(x)
	if dst, err = x.record(dst, rb, i); err != nil {
		return dst, fmt.Errorf("record %d: %w", n, err)
	}
	return dst, nil
}

// prefetch decodes the store frames that the references of tmpl, a
// record's skeleton, lead to and that are not at hand, a level of
// templates at a time, in the order that decodes each once, strings and
// templates side by side: a random record of a GiB archive needs two or
// three, which the expander would ask for one after another, in the
// record's order. What goes wrong is left for the expander to find again
// and report.
func (r *Reader) prefetch(skel refText) {
	texts := []refText{skel}
	var wants []want
	for depth := 0; len(texts) > 0 && depth <= maxDepth+1; depth++ {
		// The frames this level refers to that are not at hand.
		wants = wants[:0]
		r.refs(texts, func(t int, id uint32) {
			fs := r.frames[t]
			i := sort.Search(len(fs), func(i int) bool { return fs[i].first+uint32(fs[i].count) > id })
			if v, ok := r.cache.peek(fs[i].block); ok {
				if s, ok := v.(*storeBlock); ok && s.has(id) {
					return
				}
			}
			need := int(id-fs[i].first) + 1
			for k := range wants {
				if wants[k].f.block == fs[i].block {
					wants[k].need = max(wants[k].need, need)
					return
				}
			}
			wants = append(wants, want{t, fs[i], need})
		})
		r.loadAll(wants)
		// The next level: the templates this one refers to.
		var next []refText
		var last recent
		r.refs(texts, func(t int, id uint32) {
			if t == 1 {
				if text, base, err := r.entry(t, id, &last, false); err == nil {
					next = append(next, refText{text, id, refState{base}})
				}
			}
		})
		texts = next
	}
}

// A want is a store frame of kind t that a read needs decoded as far as
// its entry need-1 (0: whole).
type want struct {
	t    int
	f    storeFrame
	need int
}

// loadAll decodes the frames wants name, on as many cores as there are
// frames, up to GOMAXPROCS: a random record of a GiB archive may need two
// strings frames (the one filling while its block was written, and an
// older one), each a few milliseconds once their dictionary is decoded,
// and templates frames beside them. A frame's dictionary is an earlier
// frame of its kind, decoded whole: one that is also wanted is wanted
// whole (decoded first in part, it would be decoded again), and frames
// are taken the last first, so that a frame's dictionary is taken up,
// if it is wanted, after the frames that wait for it. What goes wrong is
// left for the expander to find again and report.
func (r *Reader) loadAll(wants []want) {
	if len(wants) > 1 {
		for _, w := range wants {
			if dict, _, ok := r.frameDict(w.f.block); ok && dict >= 0 {
				for k := range wants {
					if wants[k].t == w.t && wants[k].f.block == dict {
						wants[k].need = 0
					}
				}
			}
		}
	}
	slices.SortFunc(wants, func(a, b want) int { return cmp.Compare(b.f.block, a.f.block) })
	var next atomic.Int32
	load := func() {
		for i := int(next.Add(1)) - 1; i < len(wants); i = int(next.Add(1)) - 1 {
			r.store(wants[i].t, wants[i].f, wants[i].need)
		}
	}
	var wg sync.WaitGroup
	for range min(len(wants), runtime.GOMAXPROCS(0)) - 1 {
		wg.Go(load)
	}
	load()
	wg.Wait()
}

// A refText is a skeleton (self idTemplate) or template self's text, and
// what its references are coded against.
type refText struct {
	text []byte
	self uint32
	refs refState
}

// refID returns the id of the entry of kind t that reference ref names in
// the text of template self (idTemplate: a record's skeleton), coded
// against st, which it moves on, or in a template, for a template, against
// self (refs.go). ok is false for a reference that names none.
func refID(t int, ref uint64, self uint32, st *refState) (id uint32, ok bool) {
	if t == 1 && self != idTemplate {
		return childID(ref, self)
	}
	return st.id(t, ref)
}

// refs calls f with the kind and id of each reference in texts, up to the
// first that is not well formed or out of range (ids as refID reads them).
func (r *Reader) refs(texts []refText, f func(t int, id uint32)) {
	for _, rt := range texts {
		text := rt.text
		for {
			i := indexMarker(text)
			if i == len(text) || text[i] == markEnd {
				break
			}
			ref, k, err := varint.Uvarint64(text[i+1:])
			t := int(text[i] - markString)
			if err != nil {
				break
			}
			id, ok := refID(t, ref, rt.self, &rt.refs)
			if !ok || id >= r.total[t] {
				break
			}
			f(t, id)
			text = text[i+1+k:]
		}
	}
}

// records returns records block b from the cache, decoded at least as
// far as record need-1's skeleton (need 0: whole).
func (r *Reader) records(b, need int) (*recordsBlock, error) {
	v, err := r.cache.get(b, func() (any, int, error) { return r.loadRecords(b, need) })
	if err != nil {
		return nil, err
	}
	rb, ok := v.(*recordsBlock)
	if !ok {
		// A skeleton frame whose dictionary is a store block the cache
		// holds (a damaged or hostile file): found by FuzzReader.
		return nil, blockErr(b, corruptf("not a records block"))
	}
	if rb.complete || need > 0 && rb.located >= need {
		return rb, nil
	}
	// Decoded less far than wanted: again, at least twice as far.
	if need > 0 {
		need = max(need, 2*rb.located)
	}
	v, size, err := r.loadRecords(b, need)
	if err != nil {
		return nil, err
	}
	r.cache.replace(b, v, size)
	return v.(*recordsBlock), nil
}

// recordsBlock is a records block, decoded as far as located records.
type recordsBlock struct {
	block    int
	recs     []recIndex
	skel     []byte // the skeleton frame, raw (a prefix, until complete)
	located  int    // records whose skeleton is found in skel
	complete bool   // all of the skeleton frame is in skel: it may serve as a dictionary
}

// recIndex is one record's entry in its block's index.
type recIndex struct {
	flags     byte
	length    int
	crc       uint32
	feeds     int      // line feeds within it (flagLines)
	src       int      // the record whose skeleton is its: itself, or the first of its bytes (flagRepeat)
	skel, end int      // its skeleton, in the block's (none of its own for a repeat: its place)
	refs      refState // what its skeleton's references are coded against
	schema    codec.Schema
	model     []byte
}

// loadRecords reads records block b, its skeleton decoded as far as record
// need-1 (need 0: all of it).
func (r *Reader) loadRecords(b, need int) (any, int, error) {
	blk, done, err := r.block(b)
	if err != nil {
		return nil, 0, err
	}
	defer done()
	if blk.Type != container.TypeArchive {
		return nil, 0, blockErr(b, corruptf("not a records block"))
	}
	h, err := parseRecords(blk.Body, blk.Records, b)
	if err != nil {
		return nil, 0, blockErr(b, err)
	}
	n, idxF, skelF, rest := h.n, h.index, h.skel, h.ends
	if need <= 0 || need > n {
		need = n
	}
	cum, err := parseEnds(rest, skelF.rawLen, n)
	if err != nil {
		return nil, 0, blockErr(b, err)
	}
	d := r.decoder()
	defer r.decs.Put(d)
	crcs, err := d.decode(nil, h.crcs, nil)
	if err != nil {
		return nil, 0, blockErr(b, err)
	}
	idx, err := d.decode(nil, idxF, nil)
	if err != nil {
		return nil, 0, blockErr(b, err)
	}
	rb := &recordsBlock{block: b}
	if rb.recs, err = parseIndexOnly(idx, crcs, n); err != nil {
		return nil, 0, blockErr(b, err)
	}
	var dict []byte
	if skelF.dict >= 0 {
		db, err := r.records(skelF.dict, 0)
		if err != nil {
			return nil, 0, err
		}
		dict = db.skel
	}
	rb.skel, rb.complete, err = d.decodePrefix(nil, skelF, dict, prefixOf(cum, need, skelF.rawLen))
	if err == nil {
		rb.located, err = locate(rb.recs, rb.skel, rb.located)
	}
	if err == nil && rb.complete && (rb.located != len(rb.recs) || len(rb.recs) > 0 && rb.recs[len(rb.recs)-1].next() != len(rb.skel) || len(rb.recs) == 0 && len(rb.skel) != 0) {
		err = corruptf("skeletons do not match the index")
	}
	if err == nil && rb.complete && !endsMatch(cum, len(rb.recs), func(i int) int { return rb.recs[i].next() }) {
		err = corruptf("skeletons do not end where their ends say")
	}
	if err == nil && rb.located < need {
		err = corruptf("skeletons cut short")
	}
	if err != nil {
		return nil, 0, blockErr(b, err)
	}
	return rb, len(rb.skel) + len(idx) + len(rb.recs)*64, nil
}

// next is the offset of the skeleton after ri's.
func (ri *recIndex) next() int {
	if ri.flags&(flagKept|flagRepeat) != 0 {
		return ri.end
	}
	return ri.end + 1 // the line feed that ends a template
}

// locate finds the skeletons of recs[from:] in skel, a prefix of the
// skeleton frame, as far as it goes, and returns how many records are
// located in all: a kept record's skeleton is its bytes (its length of
// them), a template ends with a line feed (references skipped, since their
// bytes may hold one). It finds what each one's references are coded
// against on the way.
func locate(recs []recIndex, skel []byte, from int) (int, error) {
	at := 0
	var st refState
	if from > 0 {
		prev := &recs[from-1]
		at, st = prev.next(), prev.refs
		if prev.flags&(flagKept|flagRepeat) == 0 {
			st.skipRefs(skel[prev.skel:prev.end], true)
		}
	}
	i := from
	for ; i < len(recs); i++ {
		ri := &recs[i]
		ri.skel, ri.refs = at, st
		if ri.flags&flagRepeat != 0 {
			ri.end = at // no skeleton of its own
		} else if ri.flags&flagKept != 0 {
			if ri.length > len(skel)-at {
				break
			}
			ri.end = at + ri.length
		} else {
			end, err := templateEnd(skel, at, templateEnds(ri.flags))
			if err == errNotEnded {
				break
			}
			if err != nil {
				return i, err
			}
			ri.end = end
			st.skipRefs(skel[at:end], true)
		}
		at = ri.next()
	}
	return i, nil
}

func blockErr(b int, err error) error { return fmt.Errorf("block %d: %w", b, err) }

// parseIndexOnly reads a records block's index, of n records, and their
// CRC-32s.
func parseIndexOnly(idx, crcs []byte, n int) ([]recIndex, error) {
	if n > len(idx) {
		return nil, corruptf("index of %d bytes for %d records", len(idx), n)
	}
	recs := make([]recIndex, n)
	idx, err := setCRCs(recs, idx, crcs)
	if err != nil {
		return nil, err
	}
	if n > len(idx) {
		return nil, corruptf("index of %d bytes for %d records", len(idx), n)
	}
	flags, p := idx[:n], idx[n:]
	listed := 0
	for i := range recs {
		if flags[i]&^flagsDefined != 0 {
			return nil, corruptf("record flags %#x", flags[i])
		}
		recs[i].flags = flags[i]
		if flags[i]&flagRepeat != 0 {
			if flags[i]&(flagKept|flagListed|flagLines) != 0 || recs[i].src == i {
				return nil, corruptf("record %d: a repeat of no record", i)
			}
			continue // its length below
		}
		recs[i].src = i
		if flags[i]&flagListed != 0 {
			listed++
		}
		l, k, err := varint.Uvarint64(p)
		if err != nil || l > MaxLine {
			return nil, corruptf("record length")
		}
		recs[i].length, p = int(l), p[k:]
		if flags[i]&flagLines != 0 {
			f, k, err := varint.Uvarint64(p)
			if err != nil || f == 0 || f > l {
				return nil, corruptf("record's line feeds")
			}
			recs[i].feeds, p = int(f), p[k:]
		}
	}
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
		ri := &recs[i]
		if ri.flags&flagRepeat != 0 {
			// What its bytes make it, the first record of them's.
			o := &recs[ri.src]
			ri.src, ri.length, ri.feeds, ri.schema, ri.model = o.src, o.length, o.feeds, o.schema, o.model
			ri.flags |= o.flags & (flagKept | flagListed | flagLines)
			continue
		}
		if ri.flags&flagListed == 0 {
			continue
		}
		if ids[j] >= nModels {
			return nil, corruptf("model %d of %d", ids[j], nModels)
		}
		ri.schema, ri.model = codec.Schema(schemas[j]), models[ids[j]]
		j++
	}
	if len(p) != 0 {
		return nil, corruptf("%d bytes after the index", len(p))
	}
	return recs, nil
}

// errNotEnded reports a template that runs to the end of what is decoded.
var errNotEnded = corruptf("template not ended")

// templateEnds is the byte that ends the template of a record with flags
// in a skeletons frame: a line feed, or for lines joined (flagLines), which
// hold line feeds, 0x00, which no template holds.
func templateEnds(flags byte) byte {
	if flags&flagLines != 0 {
		return 0
	}
	return '\n'
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
				return 0, errNotEnded
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
		if err == varint.ErrTruncated && m+1+varint.MaxLen > len(src) {
			return 0, errNotEnded
		}
		if err != nil {
			return 0, corruptf("bad reference")
		}
		i = m + 1 + k
	}
}

// storeBlock is a store frame, decoded as far as its first avail entries,
// or whole. Where its entries end is found all at once (ends), decoding
// the archive in order; or, reading one record, a step of the frame's ends
// at a time, as its entries are asked for: of the 2-4 MiB a record's read
// decodes of a frame, it looks up entries in a few steps of 128 KiB.
type storeBlock struct {
	kind     int // 0 strings, 1 templates
	first    uint32
	raw      []byte
	avail    uint32
	complete bool // all of the frame is in raw: it may serve as a dictionary, but for a words frame (words)
	plain    bool // a plain copy of the frame as a dictionary (loadPlain), with no entry
	// A words frame with a table of its own: the table and its coded text,
	// the dictionary of the other frames of its segment.
	words wordsText
	// A words frame read for one record: its entries in its coded text,
	// expanded as they are asked for; raw and the ends below are unused.
	coded *codedEntries
	ends  []uint32 // end of each entry in raw (its markEnd), if found at once
	bases []uint32 // and, in a templates frame, what each one's references are coded against
	cum   []uint32 // else the frame's ends, summed (see parseEnds)
	mu    sync.Mutex
	steps [][]uint32 // and the ends of the entries ending in each step, once found
}

// has reports whether entry id is in s.
func (s *storeBlock) has(id uint32) bool { return id >= s.first && id-s.first < s.avail }

// entry returns the text of entry id of kind t (0 strings, 1 templates),
// decoding its frame whole if full, else as far as the entry, and for a
// template what its references to strings are coded against.
func (r *Reader) entry(t int, id uint32, last *recent, full bool) ([]byte, uint32, error) {
	if s := last.find(id); s != nil {
		return s.entry(id - s.first)
	}
	if id >= r.total[t] {
		return nil, 0, corruptf("reference to %s %d, of %d", [2]string{"string", "template"}[t], id, r.total[t])
	}
	fs := r.frames[t]
	i := sort.Search(len(fs), func(i int) bool { return fs[i].first+uint32(fs[i].count) > id }) // exists: id < total
	if v, ok := r.cache.peek(fs[i].block); ok {
		if s, ok := v.(*storeBlock); ok && s.kind == t && s.has(id) {
			last.add(s)
			return s.entry(id - s.first)
		}
	}
	// The frame is not at hand, or not that far: a value that recurs from
	// far back, or one read by number. Decode it, and keep the entry.
	hot := uint64(t)<<32 | uint64(id)
	if text, base, ok := r.hot.get(hot); ok {
		return text, base, nil
	}
	need := int(id-fs[i].first) + 1
	if full {
		// Decoded whole by another worker: as soon as it has the entry.
		if s := r.growing.wait(fs[i].block, func(v *storeBlock) bool { return v.has(id) }); s != nil {
			last.add(s)
			return s.entry(id - s.first)
		}
		need = 0
	}
	s, err := r.store(t, fs[i], need)
	if err != nil {
		return nil, 0, err
	}
	last.add(s)
	text, base, err := s.entry(id - s.first)
	if err != nil {
		return nil, 0, err
	}
	r.hot.put(hot, text, base)
	return text, base, nil
}

// recent holds the store frames of one kind that an expander used last,
// most recent first: a records block's values come from a few frames (the
// one filling while it was written, its segment's dictionary, older ones),
// and finding them here spares a look in the cache, whose lock two workers
// contend for.
type recent [4]*storeBlock

// find returns the frame that has entry id, if one is held.
func (c *recent) find(id uint32) *storeBlock {
	for i, s := range c {
		if s == nil {
			return nil
		}
		if s.has(id) {
			copy(c[1:i+1], c[:i])
			c[0] = s
			return s
		}
	}
	return nil
}

// add holds s first, in place of what was held of the same frame (decoded
// less far), else of the frame used longest ago.
func (c *recent) add(s *storeBlock) {
	i := len(c) - 1
	for j, o := range c {
		if o == nil || o.first == s.first {
			i = j
			break
		}
	}
	copy(c[1:i+1], c[:i])
	c[0] = s
}

// entry returns entry i of s, which has it (i < avail), and if s holds
// templates what the entry's references to strings are coded against:
// the references of the entries before it in its group (refs.go), found
// at once with the frame's ends (bases) or read here.
func (s *storeBlock) entry(i uint32) ([]byte, uint32, error) {
	text, err := s.text(i)
	if err != nil || s.kind == 0 {
		return text, 0, err
	}
	if s.bases != nil {
		return text, s.bases[i], nil
	}
	var st refState
	for j := i - i%refGroup; j < i; j++ {
		prev, err := s.text(j)
		if err != nil {
			return nil, 0, err
		}
		st.skipRefs(prev, false)
	}
	return text, st[0], nil
}

// appendBases appends to bases what the references to strings of each
// entry of a templates frame are coded against, from entry len(bases) to
// the last that ends holds, the ends of entries in raw, reading the
// entries of the first one's group before it again. Entry by entry, as
// storeBlock.entry reads them: one pass over the whole frame, tried, was
// no faster (dev100's templates, 5 MB: 1.31-1.38 against 1.40-1.52 GB/s).
func appendBases(bases []uint32, raw []byte, ends []uint32) []uint32 {
	var st refState
	i := len(bases)
	for j := i - i%refGroup; j < i; j++ {
		st.skipRefs(raw[entryStart(ends, j):ends[j]], false)
	}
	for ; i < len(ends); i++ {
		if i%refGroup == 0 {
			st = refState{}
		}
		bases = append(bases, st[0])
		st.skipRefs(raw[entryStart(ends, i):ends[i]], false)
	}
	return bases
}

// entryStart is where entry i starts in a frame whose entries end at ends.
func entryStart(ends []uint32, i int) int {
	if i == 0 {
		return 0
	}
	return int(ends[i-1]) + 1
}

// text returns entry i of s, which has it (i < avail).
func (s *storeBlock) text(i uint32) ([]byte, error) {
	if s.coded != nil {
		return s.coded.entry(i)
	}
	if s.ends != nil {
		start := uint32(0)
		if i > 0 {
			start = s.ends[i-1] + 1
		}
		return s.raw[start:s.ends[i]], nil
	}
	k := sort.Search(len(s.cum)-1, func(k int) bool { return s.cum[k+1] > i }) // the step it ends in
	ends, err := s.step(k)
	if err != nil {
		return nil, err
	}
	j := i - s.cum[k]
	start := 0
	switch {
	case j > 0:
		start = int(ends[j-1]) + 1
	case i > 0:
		// The entry before ends in an earlier step: at the last markEnd
		// before this one.
		start = bytes.LastIndexByte(s.raw[:k*endStep], markEnd) + 1
		if start == 0 {
			return nil, corruptf("entry %d: no end of the entry before it", s.first+i)
		}
	}
	return s.raw[start:ends[j]], nil
}

// step returns where the entries ending in step k of s end, finding them
// the first time.
func (s *storeBlock) step(k int) ([]uint32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.steps[k] != nil {
		return s.steps[k], nil
	}
	want := int(s.cum[k+1] - s.cum[k])
	ends := appendEntryEnds(make([]uint32, 0, want), s.raw, k*endStep, min((k+1)*endStep, len(s.raw)))
	if len(ends) != want {
		return nil, corruptf("entries of block %d: %d end in bytes %d-%d, its ends say %d", s.first, len(ends), k*endStep, (k+1)*endStep, want)
	}
	s.steps[k] = ends
	return ends, nil
}

// appendEntryEnds appends where each entry ending in raw[from:to] ends:
// its markEnd's offset in raw.
func appendEntryEnds(dst []uint32, raw []byte, from, to int) []uint32 {
	for at := from; at < to; {
		i := bytes.IndexByte(raw[at:to], markEnd)
		if i < 0 {
			break
		}
		dst = append(dst, uint32(at+i))
		at += i + 1
	}
	return dst
}

// store returns store frame f of kind t from the cache, decoded at least as
// far as its entry need-1 (need 0: whole; asDict: as a dictionary).
func (r *Reader) store(t int, f storeFrame, need int) (*storeBlock, error) {
	v, err := r.cache.get(f.block, func() (any, int, error) { return r.loadStore(t, f, need, nil) })
	if err != nil {
		return nil, err
	}
	s, ok := v.(*storeBlock)
	if !ok || s.kind != t {
		return nil, blockErr(f.block, corruptf("not the store frame the directory says"))
	}
	switch {
	case need == asDict && (s.words.whole || s.complete && s.words.table == nil):
		return s, nil
	case need != asDict && (s.complete || need > 0 && int(s.avail) >= need):
		return s, nil
	case need > 0:
		need = max(need, 2*int(s.avail))
	}
	v, size, err := r.loadStore(t, f, need, s)
	if err != nil {
		return nil, err
	}
	r.cache.replace(f.block, v, size)
	return v.(*storeBlock), nil
}

// asDict, as the entries a store frame is needed for: as the dictionary
// of the other frames of its segment, its raw bytes whole, or if it is a
// words frame its coded text whole (and its raw bytes as far as they were
// decoded before, if they were).
const asDict = -1

// loadStore reads store frame f of kind t, decoded as far as its entry
// need-1 (need 0: whole; asDict), reusing what prev, the frame decoded
// less far, holds that a new decode would make again.
func (r *Reader) loadStore(t int, f storeFrame, need int, prev *storeBlock) (any, int, error) {
	blk, done, err := r.block(f.block)
	if err != nil {
		return nil, 0, err
	}
	defer done()
	fr, rest, err := storeHeader(blk, t, f)
	if err != nil {
		return nil, 0, err
	}
	dict := need == asDict
	switch {
	case dict && fr.coder&coderWords != 0:
		need = 0
		if prev != nil && prev.coded == nil {
			need = int(prev.avail) // its raw bytes as far as prev had them
		}
	case need <= 0 || need > f.count:
		need = f.count
	}
	if fr.base() == coderPPM {
		r.cache.grow(ppmCacheBudget)
	}
	cum, err := parseEnds(rest, fr.rawLen, f.count)
	if err != nil {
		return nil, 0, blockErr(f.block, err)
	}
	if prev == nil && !dict && fr.coder&coderWords != 0 && fr.dict < 0 {
		// Its coded text, if it is decoded or being decoded as a
		// dictionary, or read from its plain copy.
		v, ok := r.cache.wait(dictKey(f.block))
		if !ok && f.plain != 0 {
			v, ok = r.cache.peek(f.plain)
		}
		if s, _ := v.(*storeBlock); ok && s != nil && s.kind == t {
			prev = s
		}
	}
	d := r.decoder()
	defer r.decs.Put(d)
	n := prefixOf(cum, need, fr.rawLen)
	if need == 0 {
		n = 0 // a words frame as a dictionary, its raw bytes not asked for
	}
	// A words frame read for some of its entries keeps its coded text,
	// and expands only the entries asked for.
	coded := fr.coder&coderWords != 0 && need > 0 && need < f.count
	var dictText, into []byte
	var table *words.Table
	if fr.dict >= 0 {
		if !r.dictAtHand(fr.dict) {
			// The dictionary is yet to be decoded, most often on the
			// other core (dictAhead).
			if coded {
				d.readyText(fr, n, true)
			} else {
				into = d.ready(fr, n)
			}
		}
		dictText, table, err = r.dictionary(t, f, fr.dict, fr.base() == coderPPM)
		if err != nil {
			return nil, 0, err
		}
	}
	s := &storeBlock{kind: t, first: f.first}
	if coded {
		var kept wordsText
		if prev != nil {
			kept = prev.words
		}
		if s.coded, s.words, err = d.decodeCoded(fr, dictText, table, n, need, kept); err != nil {
			return nil, 0, blockErr(f.block, err)
		}
		if len(s.coded.ends) > f.count || len(s.coded.ends) < need {
			return nil, 0, blockErr(f.block, corruptf("%d entries found, %d needed of %d", len(s.coded.ends), need, f.count))
		}
		s.avail = uint32(len(s.coded.ends))
		return s, s.coded.size(), nil
	}
	if fr.coder&coderWords != 0 {
		var kept wordsText
		if prev != nil {
			kept = prev.words
		}
		s.raw, s.words, s.complete, err = d.decodeWords(into, fr, dictText, table, n, dict, kept)
	} else {
		if fr.coder == coderPPM && n == fr.rawLen && prev == nil {
			// Decoded whole, for seconds: what is decoded is handed on
			// as it is (growingFrames).
			var end func()
			d.onPrefix, end = r.growing.start(t, f)
			defer end()
			// Room for all of it, so that no view is of memory let go.
			into = growCap(into, fr.rawLen)
		}
		s.raw, s.complete, err = d.decodePrefix(into, fr, dictText, n)
		d.onPrefix = nil
	}
	if err != nil {
		return nil, 0, blockErr(f.block, err)
	}
	if need < f.count {
		// Entries found as they are asked for: those ending in the
		// steps decoded are at hand.
		s.cum, s.steps = cum, make([][]uint32, len(cum)-1)
		s.avail = cum[len(s.raw)/endStep]
		if s.complete {
			s.avail = uint32(f.count)
		}
		if int(s.avail) < need {
			return nil, 0, blockErr(f.block, corruptf("entries cut short"))
		}
		return s, len(s.raw) + len(s.words.text) + 4*len(cum), nil
	}
	s.ends = appendEntryEnds(make([]uint32, 0, f.count), s.raw, 0, len(s.raw))
	if len(s.ends) != f.count || f.count == 0 && len(s.raw) != 0 || f.count > 0 && int(s.ends[f.count-1])+1 != len(s.raw) {
		return nil, 0, blockErr(f.block, corruptf("entries do not match their count"))
	}
	if !endsMatch(cum, f.count, func(i int) int { return int(s.ends[i]) + 1 }) {
		return nil, 0, blockErr(f.block, corruptf("entries do not end where their ends say"))
	}
	s.avail = uint32(f.count)
	if t == 1 {
		s.bases = appendBases(make([]uint32, 0, len(s.ends)), s.raw, s.ends)
	}
	return s, len(s.raw) + len(s.words.text) + 4*len(s.ends) + 4*len(s.bases), nil
}

// storeHeader checks the header of blk, store frame f of kind t, and
// returns its frame and what follows it.
func storeHeader(blk *container.Block, t int, f storeFrame) (frame, []byte, error) {
	body := blk.Body
	kind := storeKinds[t]
	if blk.Type != container.TypeArchive || len(body) == 0 || body[0] != kind || blk.Records != 0 {
		return frame{}, nil, blockErr(f.block, corruptf("not a %c block", kind))
	}
	first, k1, err1 := varint.Uvarint64(body[1:])
	count, k2, err2 := varint.Uvarint64(body[1+k1:])
	if err1 != nil || err2 != nil || first != uint64(f.first) || count != uint64(f.count) {
		return frame{}, nil, blockErr(f.block, corruptf("entries %d+%d, the directory says %d+%d", first, count, f.first, f.count))
	}
	fr, rest, err := parseFrame(body[1+k1+k2:], f.block)
	if err != nil {
		return frame{}, nil, blockErr(f.block, corruptf("bad frame: %v", err))
	}
	return fr, rest, nil
}

// dictionary returns the dictionary store frame f of kind t names, block
// dict (the first frame of its segment, an earlier frame of the same
// kind), decoded whole: its raw bytes, or, if it is a words frame, its
// coded text and its table; for a ppm frame (forPPM), the first ppmDict of
// its raw bytes, decoded only so far.
func (r *Reader) dictionary(t int, f storeFrame, dict int, forPPM bool) ([]byte, *words.Table, error) {
	fs := r.frames[t]
	i := sort.Search(len(fs), func(i int) bool { return fs[i].block >= dict })
	if i == len(fs) || fs[i].block != dict {
		return nil, nil, blockErr(f.block, corruptf("dictionary block %d is not a %c frame", dict, storeKinds[t]))
	}
	if forPPM {
		if v := r.growing.wait(dict, func(v *storeBlock) bool { return len(v.raw) >= ppmDict }); v != nil {
			return v.raw[:ppmDict], nil, nil
		}
		if _, ok := r.cache.peek(dict); !ok && fs[i].plain != 0 {
			// Its plain copy: what a context model would take seconds
			// to decode, read as it is.
			s, err := r.plainCopy(t, fs[i])
			if err != nil {
				return nil, nil, err
			}
			return s.raw[:min(len(s.raw), ppmDict)], nil, nil
		}
		s, err := r.storePrefix(t, fs[i], ppmDict)
		if err != nil {
			return nil, nil, err
		}
		return s.raw[:min(len(s.raw), ppmDict)], nil, nil
	}
	var s *storeBlock
	if _, ok := r.cache.peek(dictKey(dict)); !ok && fs[i].plain != 0 {
		// Its plain copy, read as it is, not decoded.
		var err error
		if s, err = r.plainCopy(t, fs[i]); err != nil {
			return nil, nil, err
		}
	} else if v, ok := r.cache.wait(dictKey(dict)); ok {
		s, _ = v.(*storeBlock)
	} else if _, coder, ok := r.frameDict(dict); ok && coder&coderWords != 0 {
		v, err := r.cache.get(dictKey(dict), func() (any, int, error) { return r.loadStore(t, fs[i], asDict, nil) })
		if err != nil {
			return nil, nil, err
		}
		s, _ = v.(*storeBlock)
	}
	if s == nil || s.kind != t {
		var err error
		if s, err = r.store(t, fs[i], asDict); err != nil {
			return nil, nil, err
		}
	}
	if s.words.table != nil {
		return s.words.text, s.words.table, nil
	}
	return s.raw, nil, nil
}

// growingFrames hands on what is decoded of the ppm store frames being
// decoded whole (Decode's, which take seconds each), as it is, a
// prefixStep at a time: the frames that take a frame's first ppmDict
// bytes as their dictionary wait for that much of it, and the records
// whose entries are decoded are expanded, while the rest of it is decoded
// on another core (dev100 at --max, -d -T2: its second strings frame
// started four seconds sooner, bench/README.md).
type growingFrames struct {
	mu sync.Mutex
	m  map[int]*growing
	// testHook, if set (by tests), is called by a frame's decoder each
	// time it has handed on what it decoded: the frame's block and how
	// much.
	testHook func(block, decoded int)
}

// A growing frame is one being decoded whole: view is what is decoded so
// far, its entries found, as a storeBlock.
type growing struct {
	mu   sync.Mutex
	cond sync.Cond
	view *storeBlock
	done bool
}

// prefixStep is how many more bytes of a growing frame are decoded
// between two views of it. A variable only so that tests can make it
// short.
var prefixStep = 1 << 20

// start records that store frame f of kind t is being decoded whole, and
// returns the function its decoder calls with each prefix decoded (ppm's
// Options.OnPrefix, first at prefixStep bytes) and the one to call once it
// has ended. A second start of f while the first runs records nothing.
func (p *growingFrames) start(t int, f storeFrame) (onPrefix func([]byte) int, end func()) {
	g := &growing{}
	g.cond.L = &g.mu
	p.mu.Lock()
	if p.m == nil {
		p.m = map[int]*growing{}
	}
	if _, ok := p.m[f.block]; ok {
		p.mu.Unlock()
		return nil, func() {}
	}
	p.m[f.block] = g
	p.mu.Unlock()
	var ends, bases []uint32
	onPrefix = func(raw []byte) int {
		from := 0
		if len(ends) > 0 {
			from = int(ends[len(ends)-1]) + 1
		}
		if ends = appendEntryEnds(ends, raw, from, len(raw)); len(ends) > f.count {
			return 0 // corrupt: its decoding will say so
		}
		v := &storeBlock{kind: t, first: f.first, raw: raw, ends: ends[:len(ends):len(ends)], avail: uint32(len(ends))}
		if t == 1 {
			bases = appendBases(bases, raw, ends)
			v.bases = bases[:len(bases):len(bases)]
		}
		g.mu.Lock()
		g.view = v
		g.mu.Unlock()
		g.cond.Broadcast()
		if p.testHook != nil {
			p.testHook(f.block, len(raw))
		}
		return len(raw) + prefixStep
	}
	return onPrefix, func() {
		g.mu.Lock()
		g.done = true
		g.mu.Unlock()
		g.cond.Broadcast()
		p.mu.Lock()
		delete(p.m, f.block)
		p.mu.Unlock()
	}
}

// wait returns the view of block b, once ok says it is far enough, if b
// is being decoded whole; else (or if its decoding ends first) nil.
func (p *growingFrames) wait(b int, ok func(*storeBlock) bool) *storeBlock {
	p.mu.Lock()
	g := p.m[b]
	p.mu.Unlock()
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for !g.done && (g.view == nil || !ok(g.view)) {
		g.cond.Wait()
	}
	if g.view == nil || !ok(g.view) {
		return nil
	}
	return g.view
}

// plainCopy returns the plain copy of store frame f of kind t, f's
// dictionary of the frames of its segment, from the cache or read.
func (r *Reader) plainCopy(t int, f storeFrame) (*storeBlock, error) {
	v, err := r.cache.get(f.plain, func() (any, int, error) { return r.loadPlain(f) })
	if err != nil {
		return nil, err
	}
	s, _ := v.(*storeBlock)
	if s == nil || s.kind != t || !s.plain {
		return nil, blockErr(f.plain, corruptf("not the plain copy the directory says"))
	}
	return s, nil
}

// loadPlain reads the plain copy of strings frame f as a dictionary
// (f.plain): a storeBlock holding, as f decoded as a dictionary would,
// f's coded text and table if it is a words frame, else its raw bytes,
// but no entry. The text is the block's bytes, kept, or for a copy coded
// by zstd (LevelMax's) what they decode to.
//
//	plain = 'P' | uvarint dict_block | uvarint table_len | table | frame(text)
//
// Nothing here checks that the copy is f's: a record read through a copy
// that is not has its CRC-32 wrong, and Decode checks every copy against
// its frame (checkPlain).
func (r *Reader) loadPlain(f storeFrame) (any, int, error) {
	blk, done, err := r.block(f.plain)
	if err != nil {
		return nil, 0, err
	}
	body := blk.Body
	if blk.Type != container.TypeArchive || len(body) == 0 || body[0] != kindPlain || blk.Records != 0 {
		done()
		return nil, 0, blockErr(f.plain, corruptf("not a %c block", kindPlain))
	}
	dict, head, fr, ok := parsePlain(body, f.plain)
	if !ok || dict != uint64(f.block) {
		done()
		return nil, 0, blockErr(f.plain, corruptf("plain copy of block %d, the directory says %d", dict, f.block))
	}
	if fr.coder != coderStored {
		// LevelMax's, raw bytes coded by zstd: decoded into memory of its
		// own, the block's given back.
		defer done()
		if len(head) > 0 {
			return nil, 0, blockErr(f.plain, corruptf("a plain copy of a words frame, coded"))
		}
		d := r.decoder()
		raw, err := d.decode(nil, fr, nil)
		r.decs.Put(d)
		if err != nil {
			return nil, 0, blockErr(f.plain, err)
		}
		return &storeBlock{kind: f.kind, first: f.first, plain: true, raw: raw}, len(raw), nil
	}
	s := &storeBlock{kind: f.kind, first: f.first, plain: true}
	text := fr.data
	if len(head) > 0 {
		d := r.decoder()
		s.words.table, err = d.wordTable(head)
		r.decs.Put(d)
		if err != nil {
			done()
			return nil, 0, blockErr(f.plain, err)
		}
		s.words.text, s.words.whole = text, true
	} else {
		s.raw = text
	}
	// The block's memory is the text's now: done is not called.
	return s, len(head) + len(text), nil
}

// parsePlain splits body, block b, a plain copy's (loadPlain), into the
// block of the frame it copies, its word table (empty: none) and the
// frame of its text, stored or coded by zstd, with no dictionary; ok is
// false where they do not parse, or something follows them.
func parsePlain(body []byte, b int) (dict uint64, head []byte, f frame, ok bool) {
	dict, k1, err1 := varint.Uvarint64(body[1:])
	headLen, k2, err2 := varint.Uvarint64(body[1+k1:])
	rest := body[1+k1+k2:]
	if err1 != nil || err2 != nil || headLen > uint64(len(rest)) {
		return dict, nil, frame{}, false
	}
	f, after, err := parseFrame(rest[headLen:], b)
	if err != nil || len(after) != 0 || f.dict >= 0 || f.coder != coderStored && f.coder != coderZstd {
		return dict, nil, frame{}, false
	}
	return dict, rest[:headLen], f, true
}

// dictKey is the cache's key for words frame b as a dictionary: its coded
// text whole (store's asDict), kept apart from its raw bytes (under b).
// The other frames of its segment need only that text, which its zstd
// decoding gives before its words are expanded: decoding an archive on
// two cores, while one worker expands a segment's first frame the other
// goes on with the next frame (dev100 -d -T2: a wait of ~5 ms, a third of
// the first frame's decoding, gone). Its raw bytes, when wanted, are
// expanded from that same text, not decoded from zstd again (the cache
// counts the text under both keys).
func dictKey(b int) int { return -2 - b }

// dictAtHand reports whether the cache holds the dictionary frame b
// decoded, as a dictionary or whole.
func (r *Reader) dictAtHand(b int) bool {
	if _, ok := r.cache.peek(dictKey(b)); ok {
		return true
	}
	_, ok := r.cache.peek(b)
	return ok
}

// storePrefix returns store frame f of kind t decoded at least as far as
// its first n raw bytes (all of them, if it has fewer): a ppm frame's
// dictionary (ppmDict).
func (r *Reader) storePrefix(t int, f storeFrame, n int) (*storeBlock, error) {
	if v, ok := r.cache.peek(f.block); ok {
		if s, ok := v.(*storeBlock); ok && s.kind == t && (s.complete || len(s.raw) >= n) {
			return s, nil
		}
	}
	need, err := r.entriesFor(t, f, n)
	if err != nil {
		return nil, err
	}
	return r.store(t, f, need)
}

// entriesFor returns how many entries of store frame f to decode for its
// first n raw bytes, from its ends: the entry after those ending in the
// steps that hold n bytes ends past them. (store reads the block again:
// once a dictionary, beside seconds of ppm.)
func (r *Reader) entriesFor(t int, f storeFrame, n int) (int, error) {
	blk, done, err := r.block(f.block)
	if err != nil {
		return 0, err
	}
	defer done()
	fr, rest, err := storeHeader(blk, t, f)
	if err != nil {
		return 0, err
	}
	cum, err := parseEnds(rest, fr.rawLen, f.count)
	if err != nil {
		return 0, blockErr(f.block, err)
	}
	if fr.coder&coderWords != 0 {
		return f.count, nil // read in part, it would keep its coded text, not its raw bytes
	}
	if k := (n + endStep - 1) / endStep; k < len(cum) {
		return min(int(cum[k])+1, f.count), nil
	}
	return f.count, nil
}

// dictAhead starts decoding, on a goroutine of its own, the dictionary of
// the strings frame that was filling while records block b was written
// (the first after it in the file), unless that frame is at hand: in a
// large archive, the one a record of b most likely needs, and decoded
// whole before any frame that needs it. It starts before the records
// block is read (the frame's header alone names its dictionary), so that
// the record's skeleton and templates are decoded on one core while the
// dictionary, the longest of a read's decodes, is on the other. Where it
// is not needed, it costs a core's time, not the record's; it may end
// after AppendRecord returns, even after Close (which waits only for its
// reads), and errors are left for the frames' readers to find. Frames of
// zstd only: a ppm frame decodes hundreds of times slower.
func (r *Reader) dictAhead(b int) {
	fs := r.frames[0]
	if len(fs) < 2 || runtime.GOMAXPROCS(0) < 2 {
		return
	}
	i := min(sort.Search(len(fs), func(i int) bool { return fs[i].block > b }), len(fs)-1)
	f := fs[i]
	if _, ok := r.cache.peek(f.block); ok {
		return
	}
	go func() {
		// Not a ppm dictionary: 16 MiB of it take seconds, and a record
		// in it, decoded only as far as it needs, would wait for all.
		if dict, coder, ok := r.frameDict(f.block); ok && dict >= 0 && coder&^coderFlags == coderZstd {
			r.dictionary(0, f, dict, false)
		}
	}()
}

// frameDict returns the coder and dictionary block (-1: none) of store
// block b's frame, from its header alone (headDict); ok is false if they
// could not be read there.
func (r *Reader) frameDict(b int) (dict int, coder byte, ok bool) {
	var head [storeHead]byte
	r.io.RLock()
	defer r.io.RUnlock()
	if r.closed {
		return 0, 0, false
	}
	n, err := r.ix.Head(head[:], b)
	if err != nil {
		return 0, 0, false
	}
	return headDict(head[:n])
}

// storeHead is the most bytes of a store block's body before its frame's
// dictionary is named: kind, two uvarints, coder, uvarint.
const storeHead = 1 + 3*binary.MaxVarintLen64 + 1

// headDict returns the coder and dictionary block (-1: none) that head,
// the first bytes of a store block's body, names; ok is false if they are
// not there. Unchecked: what the block's full read checks.
func headDict(head []byte) (dict int, coder byte, ok bool) {
	b := head[min(1, len(head)):]
	for range 2 { // first entry, entries
		_, n, err := varint.Uvarint64(b)
		if err != nil {
			return 0, 0, false
		}
		b = b[n:]
	}
	if len(b) == 0 {
		return 0, 0, false
	}
	coder = b[0]
	d, _, err := varint.Uvarint64(b[1:])
	if err != nil || d > math.MaxInt32 {
		return 0, 0, false
	}
	return int(d) - 1, coder, true
}

// errClosed is what a read after Close gets: only a decoding begun ahead
// of Close makes one.
var errClosed = errors.New("archive: the Reader is closed")

// block reads block b into memory of the Reader's, which done gives back
// once nothing refers to the block's bytes: what is decoded from a block
// is in memory of its own, so the next block read reuses it (no page
// faults, no zeroing).
func (r *Reader) block(b int) (*container.Block, func(), error) {
	r.io.RLock()
	defer r.io.RUnlock()
	if r.closed {
		return nil, func() {}, errClosed
	}
	p, _ := r.blockBufs.Get().(*[]byte)
	if p == nil {
		p = new([]byte)
	}
	*p = growCap((*p)[:0], int(min(r.ix.BlockLen(b), container.MaxBlock+64))) // a block past MaxBlock is refused
	blk, err := r.ix.ReadBlock(*p, b)
	return blk, func() { r.blockBufs.Put(p) }, err
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
// Decoding the archive in order, it decodes frames whole (full); reading
// records by number, only as far as they need.
type expander struct {
	r     *Reader
	last  [2]recent
	full  bool
	inner []byte // scratch: a string of JSON text before it is escaped
}

var expanders sync.Pool

func (r *Reader) expander() *expander {
	if x, ok := expanders.Get().(*expander); ok && x.r == r {
		return x
	}
	return &expander{r: r}
}

func (r *Reader) putExpander(x *expander) {
	x.last, x.full = [2]recent{}, false
	expanders.Put(x)
}

// record appends record i of rb to dst, with its line feed if it had one,
// and checks its length and CRC-32.
func (x *expander) record(dst []byte, rb *recordsBlock, i int) ([]byte, error) {
	ri := &rb.recs[i]
	s := &rb.recs[ri.src] // ri, or for a repeat the record it repeats
	start := len(dst)
	skel := rb.skel[s.skel:s.end]
	if s.flags&flagKept != 0 {
		dst = append(dst, skel...)
	} else {
		var err error
		if dst, err = x.expand(dst, skel, start+ri.length, 0, idTemplate, s.refs); err != nil {
			return dst[:start], err
		}
	}
	if got := len(dst) - start; got != ri.length {
		return dst[:start], corruptf("record of %d bytes, its index says %d", got, ri.length)
	}
	if got := crc.Checksum(dst[start:]); got != ri.crc {
		return dst[:start], corruptf("record checksum %08x, expected %08x", got, ri.crc)
	}
	if ri.feeds > 0 && bytes.Count(dst[start:], newline) != ri.feeds {
		return dst[:start], corruptf("record of %d line feeds, its index says %d", bytes.Count(dst[start:], newline), ri.feeds)
	}
	if ri.flags&flagNoNewline == 0 {
		dst = append(dst, '\n')
	}
	return dst, nil
}

var newline = []byte{'\n'}

// expand appends tmpl with its references replaced by their entries'
// text, up to limit bytes of dst, its references coded against st. A
// template refers only to templates made before it (below below), so
// nesting ends; depth bounds it besides.
func (x *expander) expand(dst, tmpl []byte, limit, depth int, below uint32, st refState) ([]byte, error) {
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
		ref, k, err := varint.Uvarint64(tmpl[i+1:])
		if err != nil {
			return dst, corruptf("bad reference")
		}
		t := int(mark - markString)
		id, ok := refID(t, ref, below, &st)
		if !ok {
			return dst, corruptf("bad reference")
		}
		tmpl = tmpl[i+1+k:]
		text, base, err := x.r.entry(t, id, &x.last[t], x.full)
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
		if len(text) > 0 && text[0] == '"' {
			dst, err = x.escaped(dst, text, limit, depth+1, id, base)
		} else {
			dst, err = x.expand(dst, text, limit, depth+1, id, refState{base})
		}
		if err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// escaped appends the expansion of template id, tmpl, a string of JSON
// text (escape.go): the text expanded, then escaped in its dialect,
// between quotes.
func (x *expander) escaped(dst, tmpl []byte, limit, depth int, id, base uint32) ([]byte, error) {
	flags, ok := dialectFlags(tmpl[min(1, len(tmpl)-1)])
	if len(tmpl) < 3 || tmpl[len(tmpl)-1] != '"' || !ok {
		return dst, corruptf("template %d: not a string of JSON text", id)
	}
	dst = append(dst, '"')
	start := len(dst)
	// Escaping never makes text shorter: unescaped, it fits the limit too.
	dst, err := x.expand(dst, tmpl[2:len(tmpl)-1], limit, depth, id, refState{base})
	if err != nil {
		return dst, err
	}
	x.inner = append(x.inner[:0], dst[start:]...)
	if dst = appendEscaped(dst[:start], x.inner, flags, limit); len(dst) >= limit {
		return dst, corruptf("record longer than its index says")
	}
	return append(dst, '"'), nil
}
