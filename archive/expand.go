package archive

import (
	"bytes"
	"encoding/binary"

	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/varint"
)

// An Expander turns unpacked blocks back into records, in archive order.
// It holds the reader's copy of the store; one per archive.
type Expander struct {
	s    *store
	line []byte
}

// Block loads the entries of u into the store and calls each with every
// record's index entry and original bytes (valid until each returns),
// checking each against its length and CRC-32. Blocks must come in
// archive order, each once.
func (x *Expander) Block(u *Unpacked, each func(i int, r *RecIndex, line []byte) error) error {
	h := &u.head
	if x.s == nil {
		x.s = newStore(h.genCap, false)
	} else if x.s.genCap != h.genCap {
		return corruptf("store generation of %d bytes, the archive's is %d", h.genCap, x.s.genCap)
	}
	s := x.s
	s.beginBlock()
	if h.firstEntry != int(s.next()) {
		return corruptf("block's entries start at %d, expected %d", h.firstEntry, s.next())
	}
	st := u.store
	for range h.entries {
		n, k, err := varint.Uvarint(st)
		if err != nil || int(n) > len(st)-k {
			return corruptf("store section cut short")
		}
		start := len(s.now.text)
		if s.now.text, err = s.expand(s.now.text, st[k:k+int(n)], MaxLine); err != nil {
			return err
		}
		if len(s.now.text) == start || len(s.now.text) > s.maxHeld() {
			return corruptf("entry %d of %d bytes", s.next(), len(s.now.text)-start)
		}
		s.now.ends = append(s.now.ends, uint32(len(s.now.text)))
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
			if x.line, err = s.expand(x.line[:0], line, r.LineLen); err != nil {
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

// expand appends the text of tmpl, its references replaced by the text of
// the entries they name, failing if that would add more than limit bytes.
func (s *store) expand(dst, tmpl []byte, limit int) ([]byte, error) {
	max := len(dst) + limit
	for {
		i := bytes.IndexByte(tmpl, refByte)
		if i < 0 {
			i = len(tmpl)
		}
		if len(dst)+i > max {
			return dst, corruptf("text longer than its %d bytes", limit)
		}
		dst = append(dst, tmpl[:i]...)
		if i == len(tmpl) {
			return dst, nil
		}
		id, n, err := varint.Uvarint(tmpl[i+1:])
		if err != nil {
			return dst, corruptf("bad reference")
		}
		text, ok := s.get(id)
		if !ok {
			return dst, corruptf("%v", errForgotten(id, s.first, s.next()))
		}
		if len(dst)+len(text) > max {
			return dst, corruptf("text longer than its %d bytes", limit)
		}
		dst = append(dst, text...)
		tmpl = tmpl[i+1+n:]
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
