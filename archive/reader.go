package archive

import (
	"bytes"
	"container/list"
	"io"
	"sort"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/varint"
)

// A Source is an archive open for random access: the bodies of its blocks
// by number, the directory last. Package pipeline makes one of a
// container file.
type Source interface {
	// Blocks returns the number of blocks, the directory included.
	Blocks() int
	// Body returns the body of block i, checked against its checksum.
	Body(i int) ([]byte, error)
}

// A Reader reads any record of an archive: it decodes the record's block
// (its index and skeletons) and the store sections of the blocks that made
// the entries the record refers to, keeping recently decoded sections, up
// to about readerCache bytes, for the records read next. Not safe for
// concurrent use.
//
// Entries refer only to entries made before them, and a value's entry
// refers only to the entries of values nested in it, so expansion follows
// at most maxDepth+1 references deep; a Reader refuses deeper chains, and
// more references than the record has bytes, so that a hostile file can
// neither recurse without bound nor make it do unbounded work.
type Reader struct {
	src   Source
	first []uint32 // first entry id of each block; the total after the last
	dec   *Decoder
	cache map[int]*list.Element
	lru   list.List // of *rblock, most recent first
	held  int       // bytes of sections the cache holds
	refs  int       // references left for the record being read

	// One section at a time is decoded as a stream, as far as reads have
	// needed: a record near the start of a block, or an entry near the
	// start of a store, costs the bytes before it, not the section.
	zs        *zstd.Decoder
	streaming *part
}

// A part is a section of a block, decoded from its start as far as reads
// have needed.
type part struct {
	z       []byte // compressed
	size    int    // decoded
	buf     []byte // decoded so far
	dropped bool   // its stream was given to another part: decode the rest at once
}

// readerCache bounds the decoded sections a Reader keeps.
const readerCache = 64 << 20

// rblock is one block as a Reader holds it: sections decoded as needed.
type rblock struct {
	i      int
	head   blockHead
	recs   []RecIndex
	skelAt []int // offset of each record's skeleton
	skel   part
	store  part
	starts []uint32 // where each entry found so far starts in store.buf
	ends   []uint32 // and ends
	size   int
}

// NewReader reads the directory of the archive src.
func NewReader(src Source) (*Reader, error) {
	n := src.Blocks() - 1
	if n < 0 {
		return nil, corruptf("an archive without its directory")
	}
	body, err := src.Body(n)
	if err != nil {
		return nil, err
	}
	counts, err := parseDirectory(body)
	if err != nil {
		return nil, err
	}
	if len(counts) != n {
		return nil, corruptf("directory lists %d blocks, the archive has %d", len(counts), n)
	}
	first := make([]uint32, n+1)
	for i, c := range counts {
		if uint64(first[i])+uint64(c) > 1<<32-1 {
			return nil, corruptf("directory counts more than 2^32 entries")
		}
		first[i+1] = first[i] + c
	}
	d, _ := decoders.Get().(*readerDecoders)
	if d == nil {
		d = new(readerDecoders)
		if d.dec, err = NewDecoder(); err != nil {
			return nil, err
		}
		if d.zs, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxSection),
			zstd.WithDecoderMaxWindow(maxWindow)); err != nil {
			return nil, err
		}
	}
	return &Reader{src: src, first: first, dec: d.dec, zs: d.zs, cache: map[int]*list.Element{}}, nil
}

// readerDecoders are a Reader's decoders, kept in decoders between Readers:
// a zstd decoder's memory is costly to make, and a program that opens an
// archive for each record it reads would make it for each.
type readerDecoders struct {
	dec *Decoder
	zs  *zstd.Decoder
}

var decoders sync.Pool

// Close lets go of the Reader's cache and gives its decoders to the next
// Reader; it must not be used after. Closing is optional: an unclosed
// Reader's memory is collected as any other.
func (r *Reader) Close() {
	if r.zs == nil {
		return
	}
	r.zs.Reset(nil)
	decoders.Put(&readerDecoders{r.dec, r.zs})
	*r = Reader{}
}

// Blocks returns the number of archive blocks, the directory excluded.
func (r *Reader) Blocks() int { return len(r.first) - 1 }

// Records returns the number of records of block b.
func (r *Reader) Records(b int) (int, error) {
	k, err := r.index(b)
	if err != nil {
		return 0, err
	}
	return len(k.recs), nil
}

// AppendRecord appends the original bytes of record i of block b (its line
// feed excluded) to dst, checked against the record's length and CRC-32,
// and returns its index entry.
func (r *Reader) AppendRecord(dst []byte, b, i int) ([]byte, RecIndex, error) {
	k, err := r.index(b)
	if err != nil {
		return dst, RecIndex{}, err
	}
	if i < 0 || i >= len(k.recs) {
		return dst, RecIndex{}, corruptf("record %d of a block of %d", i, len(k.recs))
	}
	if err := r.need(k, &k.skel, k.skelAt[i]+k.recs[i].SkelLen); err != nil {
		return dst, RecIndex{}, err
	}
	rec := k.recs[i]
	skel := k.skel.buf[k.skelAt[i] : k.skelAt[i]+rec.SkelLen]
	start := len(dst)
	if rec.Template {
		r.refs = rec.LineLen + 1
		dst, err = r.expand(dst, skel, start+rec.LineLen, uint32(k.head.firstEntry+k.head.entries), 0)
		if err != nil {
			return dst[:start], rec, err
		}
	} else {
		dst = append(dst, skel...)
	}
	if len(dst)-start != rec.LineLen || crc.Checksum(dst[start:]) != rec.CRC {
		return dst[:start], rec, corruptf("record %d of block %d does not match its checksum", i, b)
	}
	return dst, rec, nil
}

// expand appends tmpl with its references replaced, refusing ids from
// below (entries not yet made), text past max, and chains deeper than
// maxDepth+1.
func (r *Reader) expand(dst, tmpl []byte, max int, below uint32, depth int) ([]byte, error) {
	if depth > maxDepth+1 {
		return dst, corruptf("references nested more than %d deep", maxDepth+1)
	}
	for {
		lit, id, rest, found, err := cutRef(tmpl)
		if len(dst)+len(lit) > max {
			return dst, corruptf("text longer than its record")
		}
		dst = append(dst, lit...)
		if !found || err != nil {
			return dst, err
		}
		if id >= below {
			return dst, corruptf("bad reference")
		}
		if r.refs--; r.refs < 0 {
			return dst, corruptf("more references than the record has bytes")
		}
		t, err := r.entry(id)
		if err != nil {
			return dst, err
		}
		if dst, err = r.expand(dst, t, max, id, depth+1); err != nil {
			return dst, err
		}
		tmpl = rest
	}
}

// entry returns the template of entry id.
func (r *Reader) entry(id uint32) ([]byte, error) {
	b := sort.Search(r.Blocks(), func(b int) bool { return r.first[b+1] > id })
	if b == r.Blocks() {
		return nil, corruptf("reference to entry %d of %d", id, r.first[b])
	}
	k, err := r.index(b)
	if err != nil {
		return nil, err
	}
	j := int(id - r.first[b])
	for len(k.ends) <= j {
		// Find the next entry, decoding more of the store if need be.
		off := 0
		if len(k.ends) > 0 {
			off = int(k.ends[len(k.ends)-1])
		}
		st := k.store.buf
		n, m, err := varint.Uvarint(st[off:])
		switch {
		case err == nil && n > 0 && int(n) <= len(st)-off-m:
			k.starts, k.ends = append(k.starts, uint32(off+m)), append(k.ends, uint32(off+m+int(n)))
			continue
		case err == nil && n == 0, err == varint.ErrOverflow, len(st) == k.store.size:
			return nil, corruptf("store section of block %d: bad entry %d", b, len(k.ends))
		}
		want := len(st) + 1
		if err == nil {
			want = off + m + int(n)
		}
		if err := r.need(k, &k.store, want); err != nil {
			return nil, err
		}
	}
	return k.store.buf[k.starts[j]:k.ends[j]], nil
}

// need decodes part p of block k until it holds n bytes or more: on from
// where its stream is, if the Reader's stream decoder is still on it;
// else, the first time, from the start as a stream, and after that (its
// stream lost to another part) all of it at once, so that no part is
// decoded more than twice.
func (r *Reader) need(k *rblock, p *part, n int) error {
	if len(p.buf) >= n {
		return nil
	}
	if n > p.size {
		return corruptf("%d bytes needed of a section of %d", n, p.size)
	}
	have := len(p.buf)
	defer func() { r.grow(k, len(p.buf)-have) }()
	if p.dropped {
		// On failure p.buf keeps the bytes decoded before, which entries
		// found so far point into (a decoder gives the same bytes again).
		buf, err := r.dec.section(p.buf[:0], p.z, p.size, "section")
		if err != nil {
			return err
		}
		p.buf = buf
		return nil
	}
	if r.streaming != p {
		if r.streaming != nil {
			r.streaming.dropped = true
		}
		if err := r.zs.Reset(bytes.NewReader(p.z)); err != nil {
			return corruptf("section: %v", err)
		}
		r.streaming = p
		if cap(p.buf) < p.size {
			p.buf = make([]byte, 0, p.size)
		}
		p.buf = p.buf[:0]
	}
	// Decode in steps of at least streamStep: each read of a stream has
	// a cost of its own.
	want := min(p.size, max(n, len(p.buf)+streamStep))
	got, err := io.ReadFull(r.zs, p.buf[len(p.buf):want])
	p.buf = p.buf[:len(p.buf)+got]
	if err != nil {
		r.streaming, p.dropped = nil, true
		return corruptf("section cut short: %v", err)
	}
	if len(p.buf) == p.size {
		r.streaming = nil
	}
	return nil
}

// streamStep is the least a stream is decoded by.
const streamStep = 64 << 10

// index returns block b with its index read, from the cache if it is there.
func (r *Reader) index(b int) (*rblock, error) {
	if b < 0 || b >= r.Blocks() {
		return nil, corruptf("block %d of %d", b, r.Blocks())
	}
	if e, ok := r.cache[b]; ok {
		r.lru.MoveToFront(e)
		return e.Value.(*rblock), nil
	}
	body, err := r.src.Body(b)
	if err != nil {
		return nil, err
	}
	k := &rblock{i: b}
	off, err := parseHead(&k.head, body)
	if err != nil {
		return nil, err
	}
	h := &k.head
	if h.firstEntry != int(r.first[b]) || h.entries != int(r.first[b+1]-r.first[b]) {
		return nil, corruptf("block %d makes entries %d to %d, the directory says %d to %d",
			b, h.firstEntry, h.firstEntry+h.entries, r.first[b], r.first[b+1])
	}
	idx, err := r.dec.section(nil, body[off:off+h.indexZ], h.indexLen, "index")
	if err != nil {
		return nil, err
	}
	skel := 0
	err = eachIndex(h, idx, func(x RecIndex) error {
		x.Header = nil // it would keep idx alive
		k.recs = append(k.recs, x)
		k.skelAt = append(k.skelAt, skel)
		skel += x.SkelLen
		return nil
	})
	if err != nil {
		return nil, err
	}
	off += h.indexZ
	k.store = part{z: body[off : off+h.storeZ], size: h.storeLen}
	k.skel = part{z: body[off+h.storeZ:], size: h.skelLen}
	r.cache[b] = r.lru.PushFront(k)
	r.grow(k, len(body)+72*len(k.recs))
	return k, nil
}

// grow counts n more bytes held for k, and lets go of the blocks least
// recently used while the cache holds more than readerCache (k stays).
func (r *Reader) grow(k *rblock, n int) {
	k.size += n
	r.held += n
	for r.held > readerCache && r.lru.Len() > 1 {
		e := r.lru.Back()
		old := e.Value.(*rblock)
		if old == k {
			break
		}
		r.lru.Remove(e)
		delete(r.cache, old.i)
		r.held -= old.size
	}
}
