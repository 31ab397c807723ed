package archive

import (
	"bytes"

	"github.com/m2m-go/m2m/varint"
)

// Shapes: a templates frame's entries cut into their shapes and their
// values. An entry's shape is its structure (brackets, braces, commas,
// colons, whitespace) with a placeholder for each leaf: a string literal,
// a reference (marker and uvarint), or a run of any other bytes (a
// number, a literal, a numcol mark). Entries of the same shape recur
// (every token of a logprobs answer, every message of a history), so the
// shapes are listed once and each leaf slot of a shape becomes a column
// of like values: the keys, the roles, the differences of references side
// by side rather than interleaved with everything else. The frame's coder
// then codes
//
//	shaped  = uvarint shapes | (shape 0x00)* | uvarint entries | uvarint shape * entries | columns
//	columns = for each shape, for each of its slots: (leaf 0x00) * (entries of that shape)
//
// Leaves and shapes never hold 0x00, which ends a store frame's entries.
// dev100's templates frames 713 -> 684 KB; a logprobs log's archive
// 6.92 -> 5.51 MB (bench/README.md, "Numbers and nesting").

// slotByte stands for a leaf in a shape.
const slotByte = 0x04

// isStructure holds the bytes a shape keeps.
var isStructure = func() (t [256]bool) {
	for _, c := range []byte("{}[],: \t\r\n") {
		t[c] = true
	}
	return t
}()

// leafEnd returns the end of the leaf starting at e[i] (not a structure
// byte).
func leafEnd(e []byte, i int) int {
	switch c := e[i]; {
	case c == '"':
		j := i + 1
		for j < len(e) && e[j] != '"' {
			if e[j] == '\\' {
				j++
			}
			j++
		}
		return min(j+1, len(e))
	case c == markString || c == markTemplate:
		j := i + 1
		for j < len(e) && e[j] >= 0x80 {
			j++
		}
		return min(j+1, len(e))
	}
	j := i
	for j < len(e) && !isStructure[e[j]] && e[j] != '"' && e[j] != markString && e[j] != markTemplate {
		j++
	}
	return j
}

// appendShaped appends the shaped form of raw, a store frame's entries
// (each ended by 0x00), to dst.
func appendShaped(dst, raw []byte) []byte {
	type shapeCols struct {
		id   int
		cols [][]byte // a slot's leaves, each ended by 0x00
	}
	var order []string // shapes, by id
	byShape := map[string]*shapeCols{}
	var ids []byte
	var shape []byte
	entries := 0
	for len(raw) > 0 {
		n := bytes.IndexByte(raw, markEnd)
		if n < 0 {
			n = len(raw) // no end: the last entry has none either way
		}
		e := raw[:n]
		raw = raw[min(n+1, len(raw)):]
		shape = shape[:0]
		var leaves [][2]int
		for i := 0; i < len(e); {
			if isStructure[e[i]] {
				shape = append(shape, e[i])
				i++
				continue
			}
			j := leafEnd(e, i)
			leaves = append(leaves, [2]int{i, j})
			shape = append(shape, slotByte)
			i = j
		}
		sc := byShape[string(shape)]
		if sc == nil {
			sc = &shapeCols{id: len(order), cols: make([][]byte, len(leaves))}
			byShape[string(shape)] = sc
			order = append(order, string(shape))
		}
		for k, l := range leaves {
			sc.cols[k] = append(append(sc.cols[k], e[l[0]:l[1]]...), 0)
		}
		ids = varint.AppendUvarint64(ids, uint64(sc.id))
		entries++
	}
	dst = varint.AppendUvarint64(dst, uint64(len(order)))
	for _, s := range order {
		dst = append(append(dst, s...), 0)
	}
	dst = varint.AppendUvarint64(dst, uint64(entries))
	dst = append(dst, ids...)
	for _, s := range order {
		for _, c := range byShape[s].cols {
			dst = append(dst, c...)
		}
	}
	return dst
}

// appendUnshaped appends the entries of shaped to dst, each ended by
// 0x00, up to limit bytes; it fails if shaped is malformed.
func appendUnshaped(dst, shaped []byte, limit int) ([]byte, error) {
	p := shaped
	count := func(what string) (int, error) {
		v, n, err := varint.Uvarint64(p)
		if err != nil || v > uint64(len(p)) {
			return 0, corruptf("shaped frame: %s", what)
		}
		p = p[n:]
		return int(v), nil
	}
	nShapes, err := count("shapes")
	if err != nil {
		return dst, err
	}
	// Each shape as its pieces of structure between slots.
	pieces := make([][][]byte, nShapes)
	slots := make([]int, nShapes+1) // first slot of each shape, over all shapes
	for k := range pieces {
		n := bytes.IndexByte(p, 0)
		if n < 0 {
			return dst, corruptf("shaped frame: shape %d not ended", k)
		}
		pieces[k] = bytes.Split(p[:n], []byte{slotByte})
		p = p[n+1:]
		slots[k+1] = slots[k] + len(pieces[k]) - 1
	}
	nEntries, err := count("entries")
	if err != nil {
		return dst, err
	}
	ids := make([]int, nEntries)
	uses := make([]int, nShapes)
	for i := range ids {
		if ids[i], err = count("shape of an entry"); err != nil {
			return dst, err
		}
		if ids[i] >= nShapes {
			return dst, corruptf("shaped frame: shape %d of %d", ids[i], nShapes)
		}
		uses[ids[i]]++
	}
	// Where each leaf ends, slot by slot; cur is each slot's next leaf.
	var leaves int64 // in int64: uses times slots overflows a 32-bit int
	for k := range pieces {
		leaves += int64(uses[k]) * int64(slots[k+1]-slots[k])
		if leaves > int64(len(shaped)) {
			return dst, corruptf("shaped frame: leaves cut short") // each takes a byte or more
		}
	}
	ends := make([]int32, leaves)
	cur := make([]int, slots[nShapes])
	colStart := len(shaped) - len(p)
	at, i := colStart, 0
	for k := range pieces {
		for s := slots[k]; s < slots[k+1]; s++ {
			cur[s] = i
			for range uses[k] {
				j := at
				for j < len(shaped) && shaped[j] != 0 {
					j++
				}
				if j == len(shaped) {
					return dst, corruptf("shaped frame: leaves cut short")
				}
				ends[i] = int32(j)
				i, at = i+1, j+1
			}
		}
	}
	if at != len(shaped) {
		return dst, corruptf("shaped frame: %d bytes after the leaves", len(shaped)-at)
	}
	start := len(dst)
	for _, k := range ids {
		s := slots[k]
		dst = append(dst, pieces[k][0]...)
		for _, piece := range pieces[k][1:] {
			i := cur[s] // leaves lie in the order of ends, one after another
			from := colStart
			if i > 0 {
				from = int(ends[i-1]) + 1
			}
			dst = append(append(dst, shaped[from:ends[i]]...), piece...)
			cur[s]++
			s++
		}
		dst = append(dst, markEnd)
		if len(dst)-start > limit {
			return dst[:start], corruptf("shaped frame longer than %d bytes", limit)
		}
	}
	return dst, nil
}
