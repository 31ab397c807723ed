package archive

import (
	"encoding/binary"
	"slices"

	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/varint"
)

// An Expander turns unpacked blocks back into records, in archive order.
// It holds the reader's copy of the store: each entry's template, where
// the block that made it keeps it, with the length of its text, so that
// generations begin where the writer's did. Text is expanded once, into
// the record read. One per archive.
type Expander struct {
	genCap     int    // 0 until the first block
	first, cur uint32 // ids of the old and the current generation's first entries
	old, now   tgen
	line       []byte
}

// tgen is one generation of a reader's store.
type tgen struct {
	ents []tent
	size int // bytes of text, as the writer counts them
}

// tent is one entry of a reader's store.
type tent struct {
	tmpl  []byte
	size  uint32 // of its text
	depth uint8  // how deep its references go
}

func (g *tgen) reset() {
	clear(g.ents) // let go of old blocks' store sections
	g.ents, g.size = g.ents[:0], 0
}

// next returns the id the next entry will get.
func (x *Expander) next() uint32 { return x.cur + uint32(len(x.now.ents)) }

// get returns entry id, if it is held.
func (x *Expander) get(id uint32) (*tent, error) {
	switch {
	case id < x.first:
	case id < x.cur:
		return &x.old.ents[id-x.first], nil
	case id < x.next():
		return &x.now.ents[id-x.cur], nil
	}
	return nil, corruptf("%v", errForgotten(id, x.first, x.next()))
}

// Block loads the entries of u into the store and calls each with every
// record's index entry and original bytes (valid until each returns),
// checking each against its length and CRC-32. Blocks must come in
// archive order, each once. The store keeps u's store section: the next
// Unpack into u makes another.
func (x *Expander) Block(u *Unpacked, each func(i int, r *RecIndex, line []byte) error) error {
	h := &u.head
	switch {
	case x.genCap == 0:
		x.genCap = h.genCap
	case x.genCap != h.genCap:
		return corruptf("store generation of %d bytes, the archive's is %d", h.genCap, x.genCap)
	case x.now.size >= x.genCap:
		// The writer's rule (see store.beginBlock): a new generation.
		x.old, x.now = x.now, x.old
		x.now.reset()
		x.first, x.cur = x.cur, x.cur+uint32(len(x.old.ents))
	}
	if h.firstEntry != int(x.next()) {
		return corruptf("block's entries start at %d, expected %d", h.firstEntry, x.next())
	}
	st := u.store
	u.store = nil
	for range h.entries {
		n, k, err := varint.Uvarint(st)
		if err != nil || n == 0 || int(n) > len(st)-k {
			return corruptf("store section: bad entry %d", x.next())
		}
		e, err := x.measure(st[k:k+int(n):k+int(n)], x.next())
		if err != nil {
			return err
		}
		x.now.ents = append(x.now.ents, e)
		st = st[k+int(n):]
	}
	if len(st) != 0 {
		return corruptf("%d bytes after the store's entries", len(st))
	}
	skel := u.skel
	for i := range u.Records {
		r := &u.Records[i]
		line := skel[:r.SkelLen]
		skel = skel[r.SkelLen:]
		if r.Template {
			var err error
			if x.line, err = x.expand(x.line[:0], line, r.LineLen); err != nil {
				return err
			}
			line = x.line
		}
		if len(line) != r.LineLen || crc.Checksum(line) != r.CRC {
			return corruptf("record %d of the block does not match its checksum", i)
		}
		if err := each(i, r, line); err != nil {
			return err
		}
	}
	return nil
}

// measure returns the entry id, whose template is tmpl, with the length
// of its text and the depth of its references, checking that they name
// entries made before it in its generation, nest no deeper than a
// writer's (maxDepth+1), and do not overfill the generation.
func (x *Expander) measure(tmpl []byte, id uint32) (tent, error) {
	e := tent{tmpl: tmpl}
	size := 0
	for {
		lit, ref, rest, found, err := cutRef(tmpl)
		size += len(lit)
		if !found {
			break
		}
		if err != nil || ref >= id || ref < x.cur {
			// A writer's entry refers only to entries of its own
			// generation, so that its text lives as long as it does.
			return e, corruptf("entry %d: bad reference", id)
		}
		c, err := x.get(ref)
		if err != nil {
			return e, err
		}
		if c.depth >= maxDepth+1 {
			return e, corruptf("entry %d: references nested more than %d deep", id, maxDepth+1)
		}
		e.depth = max(e.depth, c.depth+1)
		size += int(c.size)
		tmpl = rest
	}
	if x.now.size += size; x.now.size > 2*x.genCap {
		return e, corruptf("entry %d of %d bytes overfills its generation", id, size)
	}
	e.size = uint32(size)
	return e, nil
}

// expand appends the text of tmpl, its references replaced by the text of
// the entries they name, failing past limit bytes. Entries were measured
// when loaded: recursion is as deep as their depth.
func (x *Expander) expand(dst, tmpl []byte, limit int) ([]byte, error) {
	if cap(dst)-len(dst) < limit {
		dst = slices.Grow(dst, limit)
	}
	return x.expandTo(dst, tmpl, len(dst)+limit)
}

func (x *Expander) expandTo(dst, tmpl []byte, max int) ([]byte, error) {
	for {
		lit, id, rest, found, err := cutRef(tmpl)
		if len(dst)+len(lit) > max {
			return dst, corruptf("text longer than its record")
		}
		dst = append(dst, lit...)
		if !found || err != nil {
			return dst, err
		}
		e, err := x.get(id)
		if err != nil {
			return dst, err
		}
		if len(dst)+int(e.size) > max {
			return dst, corruptf("text longer than its record")
		}
		if dst, err = x.expandTo(dst, e.tmpl, max); err != nil {
			return dst, err
		}
		tmpl = rest
	}
}

// Entries returns the number of entries the block adds to the store.
func (u *Unpacked) Entries() int { return u.head.entries }

// AppendDirectory appends the body of an archive's directory block: the
// number of entries each block adds, so that a reader can find the block
// that made any entry.
//
//	directory = 'D' | uvarint blocks | uvarint entries, per block
func AppendDirectory(dst []byte, entries []int) []byte {
	dst = binary.AppendUvarint(append(dst, kindDirectory), uint64(len(entries)))
	for _, n := range entries {
		dst = binary.AppendUvarint(dst, uint64(n))
	}
	return dst
}

// IsDirectory reports whether body is an archive's directory block.
func IsDirectory(body []byte) bool { return len(body) > 0 && body[0] == kindDirectory }

// CheckDirectory checks a directory block's body against the entries
// counts of the blocks read before it.
func CheckDirectory(body []byte, entries []int) error {
	got, err := parseDirectory(body)
	if err != nil {
		return err
	}
	if len(got) != len(entries) {
		return corruptf("directory lists %d blocks, the archive has %d", len(got), len(entries))
	}
	for i := range got {
		if int(got[i]) != entries[i] {
			return corruptf("directory says block %d adds %d entries, it adds %d", i, got[i], entries[i])
		}
	}
	return nil
}

// parseDirectory returns the entries count of each block a directory
// lists.
func parseDirectory(body []byte) ([]uint32, error) {
	if !IsDirectory(body) {
		return nil, corruptf("not a directory block")
	}
	n, k := binary.Uvarint(body[1:])
	if k <= 0 || n > uint64(len(body)) {
		return nil, corruptf("bad directory")
	}
	off := 1 + k
	out := make([]uint32, 0, n)
	for range n {
		v, k := binary.Uvarint(body[off:])
		if k <= 0 || v > 1<<32-1 {
			return nil, corruptf("bad directory")
		}
		out, off = append(out, uint32(v)), off+k
	}
	if off != len(body) {
		return nil, corruptf("bad directory")
	}
	return out, nil
}
