package archive

import "github.com/m2m-go/m2m/varint"

// References' numbers. Ids only grow, and a counter is what a context
// model (or zstd) predicts worst: a reference to the template a record's
// skeleton has just stored takes the three bytes of an id that no context
// has seen. So a reference in a records block's skeletons, and a
// reference to a string in a template, is coded against the references
// before it: one past the highest id of its kind they named, next, and
// the reference's number is the difference, zigzagged, plus one (never 0,
// which ends entries): 1 for the next new entry, 3 for the one after it
// (a record whose skeleton's first template holds two new ones), 2, 4, ...
// for older ones. dev100's skeletons so code 11% smaller at --max and
// their templates 9% (bench/README.md, "References coded against the last
// ones"). The references before it are those of the block's skeletons
// (kept records have none), and of its templates frame's entries of the
// same group of refGroup (entries n, n+1, ... of the frame with the same
// n/refGroup): a read of one entry reads at most refGroup-1 more, and
// groups of 64 code dev's templates 1.3% larger than one group a frame.
// A template's references to templates are its own id minus theirs, which
// are small already (see deduper.template).
const refGroup = 64

// refState is what a reference is coded against: for strings and for
// templates, one past the highest id the references before it named
// (0 where there are none).
type refState [2]uint32

// maxID bounds the ids a refState takes (see idTemplate).
const maxID = idTemplate

// appendRef appends a reference to entry id of kind mark, coded against
// st, which it then moves on.
func (st *refState) appendRef(dst []byte, mark byte, id uint32) []byte {
	t := mark - markString
	d := int64(id) - int64(st[t])
	v := uint64(d<<1) ^ uint64(d>>63)
	st[t] = max(st[t], id+1)
	return varint.AppendUvarint64(append(dst, mark), v+1)
}

// id returns the id a reference of kind t (0 strings, 1 templates)
// numbered v names, and moves st on; ok is false for a number no
// reference has (0, or an id out of range).
func (st *refState) id(t int, v uint64) (id uint32, ok bool) {
	if v == 0 || v > 1<<33 {
		return 0, false
	}
	v--
	n := int64(st[t]) + (int64(v>>1) ^ -int64(v&1))
	if n < 0 || n >= maxID {
		return 0, false
	}
	st[t] = max(st[t], uint32(n)+1)
	return uint32(n), true
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
