package archive

import (
	"bytes"
	"encoding/binary"
	"math/bits"

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

// unshaper undoes appendShaped. Its tables are kept from frame to frame:
// a frame of small leaves has a few MiB of them, fresh memory each time
// otherwise.
type unshaper struct {
	pieces            []span
	slots, uses, next []int
	ids, ends         []int32
}

// span is the bytes [from, to) of a slice.
type span struct{ from, to int32 }

// resize returns s with length n, reusing its memory where it has room.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// append appends the entries of shaped to dst, each ended by 0x00, up to
// limit bytes; it fails if shaped is malformed.
func (u *unshaper) append(dst, shaped []byte, limit int) ([]byte, error) {
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
	// Each shape as its pieces of structure between slots, spans of
	// shaped: shape k's are pieces[slots[k]+k : slots[k+1]+k+1].
	pieces := u.pieces[:0]
	slots := resize(u.slots, nShapes+1) // first slot of each shape, over all shapes
	clear(slots)
	for k := range nShapes {
		n := bytes.IndexByte(p, 0)
		if n < 0 {
			return dst, corruptf("shaped frame: shape %d not ended", k)
		}
		at := int32(len(shaped) - len(p))
		for _, c := range p[:n] {
			if c == slotByte {
				pieces = append(pieces, span{at, int32(len(shaped) - len(p))})
				at = int32(len(shaped)-len(p)) + 1
				slots[k+1]++
			}
			p = p[1:]
		}
		pieces = append(pieces, span{at, int32(len(shaped) - len(p))})
		p = p[1:]
		slots[k+1] += slots[k]
	}
	nEntries, err := count("entries")
	if err != nil {
		return dst, err
	}
	u.pieces = pieces
	ids := resize(u.ids, nEntries)
	uses := resize(u.uses, nShapes)
	clear(uses)
	for i := range ids {
		// A shape's number is bounded by the shapes, not by the bytes
		// left: entries without leaves leave no columns after it.
		v, n, err := varint.Uvarint64(p)
		if err != nil || v >= uint64(nShapes) {
			return dst, corruptf("shaped frame: shape %d of %d", v, nShapes)
		}
		p = p[n:]
		ids[i] = int32(v)
		uses[v]++
	}
	// How many leaves the entries' shapes make.
	var leaves int64 // in int64: uses times slots overflows a 32-bit int
	for k := range nShapes {
		leaves += int64(uses[k]) * int64(slots[k+1]-slots[k])
		if leaves > int64(len(p)) {
			return dst, corruptf("shaped frame: leaves cut short") // each takes a byte or more
		}
	}
	// The leaves lie one after another, slot after slot, so the i-th 0x00
	// after the shapes ends leaf i; next is each slot's next leaf.
	colStart := len(shaped) - len(p)
	ends, err := zeroes(resize(u.ends, int(leaves)+1)[:1:leaves+1], shaped, colStart)
	if err != nil {
		return dst, err
	}
	if int64(len(ends)-1) != leaves {
		return dst, corruptf("shaped frame: %d leaves, its shapes make %d", len(ends)-1, leaves)
	}
	if leaves > 0 && int(ends[leaves]) != len(shaped)-1 || leaves == 0 && colStart != len(shaped) {
		return dst, corruptf("shaped frame: bytes after the leaves")
	}
	ends[0] = int32(colStart - 1) // so leaf i is shaped[ends[i]+1 : ends[i+1]]
	next := resize(u.next, slots[nShapes])
	i := 0
	for k := range nShapes {
		for s := slots[k]; s < slots[k+1]; s++ {
			next[s] = i
			i += uses[k]
		}
	}
	u.slots, u.ids, u.uses, u.ends, u.next = slots, ids, uses, ends, next
	// Written into o, dst's room (limit bytes and 16 more, so a dst with
	// that room is used as it is), by put: leaves and pieces are a few
	// bytes each, and calls to copy cost more than copying them.
	start := len(dst)
	o := growCap(dst, limit+16)
	o = o[:cap(o)]
	w := start
	put := func(from, to int32) bool {
		if n := int(to - from); n <= 8 && int(from)+8 <= len(shaped) && w+8 <= len(o) {
			binary.LittleEndian.PutUint64(o[w:], binary.LittleEndian.Uint64(shaped[from:]))
			w += n
			return true
		}
		if w+int(to-from) > len(o) {
			return false
		}
		w += copy(o[w:], shaped[from:to])
		return true
	}
	for _, k := range ids {
		pc := slots[k] + int(k)
		ok := put(pieces[pc].from, pieces[pc].to)
		for s := slots[k]; s < slots[k+1]; s++ {
			i := next[s]
			next[s]++
			pc++
			ok = ok && put(ends[i]+1, ends[i+1]) && put(pieces[pc].from, pieces[pc].to)
		}
		if !ok || w == len(o) {
			return dst, corruptf("shaped frame longer than %d bytes", limit)
		}
		o[w] = markEnd
		w++
		if w-start > limit {
			return dst, corruptf("shaped frame longer than %d bytes", limit)
		}
	}
	return o[:w], nil
}

// zeroes appends to dst the offsets of the bytes 0x00 in b[from:], eight
// bytes at a time, and fails past cap(dst) of them: a frame whose leaves
// are shorter than its shapes say.
func zeroes(dst []int32, b []byte, from int) ([]int32, error) {
	const lo7, hi = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	i := from
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// The high bit of each byte of z is set where that byte is 0x00
		// (exactly: no borrow crosses bytes).
		z := ^((x&lo7 + lo7) | x) & hi
		if z == 0 {
			continue
		}
		if len(dst)+bits.OnesCount64(z) > cap(dst) {
			return dst, corruptf("shaped frame: more leaves than its shapes make")
		}
		for ; z != 0; z &= z - 1 {
			dst = append(dst, int32(i+bits.TrailingZeros64(z)/8))
		}
	}
	for ; i < len(b); i++ {
		if b[i] == 0 {
			if len(dst) == cap(dst) {
				return dst, corruptf("shaped frame: more leaves than its shapes make")
			}
			dst = append(dst, int32(i))
		}
	}
	return dst, nil
}
