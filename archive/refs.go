package archive

import "github.com/m2m-go/m2m/varint"

// References' numbers. Ids only grow, and a counter is what a context
// model (or zstd) predicts worst: a reference to the template a record's
// skeleton has just stored takes the three bytes of an id that no context
// has seen. So a reference names its entry in one of two ways, told apart
// by its number's last bit:
//
//   - odd, near: an entry at or past next, one past the highest id of its
//     kind that the references before it named (0 where there are none),
//     2d+1 where d is how far past: 1 for the next new entry, 3 for the
//     one after it (a messages array made after its new message); in a
//     stored template t, a reference to a template stored for it (a new
//     child, made just before it) or made at most refNear before it,
//     2d-1 where d = t - id;
//   - even, far: any other, 2(id+1), the same bytes wherever the entry
//     recurs (a tools array in every request, the turns a chat's history
//     sends again), which the models find as they find any repeat.
//
// The references before one are those of its records block's skeletons
// (kept records have none), or in a templates frame those to strings of
// the entries before it in its group of refGroup (entries n, n+1, ... of
// the frame with the same n/refGroup): a read of one entry reads at most
// refGroup-1 more, and groups of 64 code dev's templates 1.3% larger than
// one group a frame. dev100's skeletons so code 13% smaller at --max and
// its templates 25% (bench/README.md, "References near and far, CRC-32s
// apart").
const (
	refGroup = 64
	// refNear is how far back a template's child stored before it is
	// still coded near: dev100's archive is 0.13% smaller at --max so
	// than with only new children near.
	refNear = 64
)

// refState is what a reference is coded against: for strings and for
// templates, next.
type refState [2]uint32

// maxID bounds the ids a reference names (see idTemplate).
const maxID = idTemplate

// appendRef appends a reference to entry id of kind mark, coded against
// st, which it then moves on.
func (st *refState) appendRef(dst []byte, mark byte, id uint32) []byte {
	t := mark - markString
	v := 2*uint64(id) + 2
	if next := st[t]; id >= next {
		v = 2*uint64(id-next) + 1
	}
	st[t] = max(st[t], id+1)
	return varint.AppendUvarint64(append(dst, mark), v)
}

// id returns the id a reference of kind t (0 strings, 1 templates)
// numbered v names, and moves st on; ok is false for a number no
// reference has (0, or an id out of range).
func (st *refState) id(t int, v uint64) (id uint32, ok bool) {
	n := v/2 - 1
	if v&1 != 0 {
		n = uint64(st[t]) + v/2
	}
	if v == 0 || n >= maxID {
		return 0, false
	}
	st[t] = max(st[t], uint32(n)+1)
	return uint32(n), true
}

// appendChild appends a stored template's reference to template id, its
// child, made before it, near if it was stored for it; self is the
// template's own id.
func appendChild(dst []byte, id, self uint32, near bool) []byte {
	v := 2*uint64(id) + 2
	if near {
		v = 2*uint64(self-id) - 1
	}
	return varint.AppendUvarint64(append(dst, markTemplate), v)
}

// childID returns the id of the template that stored template self's
// reference numbered v names; ok is false for one it cannot name.
func childID(v uint64, self uint32) (id uint32, ok bool) {
	if v&1 != 0 {
		d := v/2 + 1
		return self - uint32(d), d <= uint64(self)
	}
	return uint32(v/2 - 1), v != 0 && v/2-1 < uint64(self)
}

// appendRelative appends text, a template whose references to strings are
// their ids plus one, with those coded against st instead (which it moves
// on); references to templates are copied as they are.
func appendRelative(dst, text []byte, st *refState) []byte {
	for {
		i := indexMarker(text)
		dst = append(dst, text[:i]...)
		if i == len(text) {
			return dst
		}
		v, k, err := varint.Uvarint64(text[i+1:])
		switch {
		case err != nil: // the writer makes none
			return append(dst, text[i:]...)
		case text[i] != markString || v == 0:
			dst = append(dst, text[i:i+1+k]...)
		default:
			dst = st.appendRef(dst, markString, uint32(v-1))
		}
		text = text[i+1+k:]
	}
}

// skipRefs moves st past the references of text, a template: those to
// strings, and in a records block's skeleton (skeleton true) those to
// templates. It stops at the first that is not well formed, which
// reading that template reports.
func (st *refState) skipRefs(text []byte, skeleton bool) {
	for {
		i := indexMarker(text)
		if i == len(text) || text[i] > markTemplate || text[i] < markString {
			return
		}
		v, k, err := varint.Uvarint64(text[i+1:])
		if err != nil {
			return
		}
		if t := int(text[i] - markString); t == 0 || skeleton {
			if _, ok := st.id(t, v); !ok {
				return
			}
		}
		text = text[i+1+k:]
	}
}
