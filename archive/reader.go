package archive

import (
	"bytes"
	"container/list"
	"sort"

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
}

// readerCache bounds the decoded sections a Reader keeps.
const readerCache = 64 << 20

// rblock is one block as a Reader holds it: sections decoded as needed.
type rblock struct {
	i      int
	head   blockHead
	body   []byte
	off    int        // where the compressed index starts in body
	recs   []RecIndex // nil until the index is read
	skelAt []int      // offset of each record's skeleton
	skel   []byte
	store  []byte
	ends   []uint32 // end of each entry's template in store; start after its length
	starts []uint32
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
	dec, err := NewDecoder()
	if err != nil {
		return nil, err
	}
	return &Reader{src: src, first: first, dec: dec, cache: map[int]*list.Element{}}, nil
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
	if k.skel == nil {
		if k.skel, err = r.dec.section(nil, k.body[k.off+k.head.indexZ+k.head.storeZ:], k.head.skelLen, "skeletons"); err != nil {
			return dst, RecIndex{}, err
		}
		r.grow(k, len(k.skel))
	}
	rec := k.recs[i]
	skel := k.skel[k.skelAt[i] : k.skelAt[i]+rec.SkelLen]
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
		i := bytes.IndexByte(tmpl, refByte)
		if i < 0 {
			i = len(tmpl)
		}
		if len(dst)+i > max {
			return dst, corruptf("text longer than its record")
		}
		dst = append(dst, tmpl[:i]...)
		if i == len(tmpl) {
			return dst, nil
		}
		id, n, err := varint.Uvarint(tmpl[i+1:])
		if err != nil || id >= below {
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
		tmpl = tmpl[i+1+n:]
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
	if k.ends == nil {
		if err := r.loadStore(k); err != nil {
			return nil, err
		}
	}
	j := id - r.first[b]
	return k.store[k.starts[j]:k.ends[j]], nil
}

// loadStore decodes block k's store section and finds its entries.
func (r *Reader) loadStore(k *rblock) error {
	h := &k.head
	st, err := r.dec.section(nil, k.body[k.off+h.indexZ:k.off+h.indexZ+h.storeZ], h.storeLen, "store")
	if err != nil {
		return err
	}
	starts, ends := make([]uint32, 0, h.entries), make([]uint32, 0, h.entries)
	for off := 0; len(ends) < h.entries; {
		n, m, err := varint.Uvarint(st[off:])
		if err != nil || n == 0 || int(n) > len(st)-off-m {
			return corruptf("store section of block %d: bad entry", k.i)
		}
		off += m
		starts, ends = append(starts, uint32(off)), append(ends, uint32(off+int(n)))
		off += int(n)
	}
	if len(ends) > 0 && int(ends[len(ends)-1]) != len(st) || len(ends) == 0 && len(st) != 0 {
		return corruptf("store section of block %d: bytes after its entries", k.i)
	}
	k.store, k.starts, k.ends = st, starts, ends
	r.grow(k, len(st)+8*len(ends))
	return nil
}

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
	k := &rblock{i: b, body: body}
	if k.off, err = parseHead(&k.head, body); err != nil {
		return nil, err
	}
	h := &k.head
	if h.firstEntry != int(r.first[b]) || h.entries != int(r.first[b+1]-r.first[b]) {
		return nil, corruptf("block %d makes entries %d to %d, the directory says %d to %d",
			b, h.firstEntry, h.firstEntry+h.entries, r.first[b], r.first[b+1])
	}
	idx, err := r.dec.section(nil, body[k.off:k.off+h.indexZ], h.indexLen, "index")
	if err != nil {
		return nil, err
	}
	skel := 0
	err = eachIndex(h, idx, func(x RecIndex) error {
		k.recs = append(k.recs, x)
		k.skelAt = append(k.skelAt, skel)
		skel += x.SkelLen
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.cache[b] = r.lru.PushFront(k)
	r.grow(k, len(body)+len(idx)+48*len(k.recs))
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
