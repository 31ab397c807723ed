package archive

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/m2m-go/m2m/varint"
)

// TestRefState: a reference coded against the references before it reads
// back as the id it was, whatever the order of ids, and a number no
// writer makes is refused.
func TestRefState(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var w, r refState
	var b []byte
	for i := range 10000 {
		mark := byte(markString + rng.IntN(2))
		var id uint32
		switch rng.IntN(4) {
		case 0: // new
			id = w[mark-markString] + uint32(rng.IntN(4))
		case 1: // old
			id = uint32(rng.IntN(int(w[mark-markString]) + 1))
		case 2:
			id = uint32(rng.Int64N(maxID))
		default:
			id = w[mark-markString]
		}
		b = w.appendRef(b[:0], mark, id)
		if b[0] != mark || slices.Contains(b[1:], markEnd) {
			t.Fatalf("reference %d to %d: % x", i, id, b)
		}
		v, k, err := varint.Uvarint64(b[1:])
		if err != nil || k != len(b)-1 {
			t.Fatalf("reference %d: % x", i, b)
		}
		if got, ok := r.id(int(mark-markString), v); !ok || got != id {
			t.Fatalf("reference %d to %d read as %d, %v", i, id, got, ok)
		}
	}
	if w != r {
		t.Fatalf("states %v and %v", w, r)
	}
	for _, v := range []uint64{0, 1<<33 + 1, 1 << 63} {
		if _, ok := r.id(0, v); ok {
			t.Errorf("number %d read", v)
		}
	}
	// Past the ids a reference names, near and far.
	if _, ok := (&refState{maxID - 1}).id(0, 3); ok { // maxID-1 + 1
		t.Error("id maxID read")
	}
	if _, ok := (&refState{}).id(0, 2*maxID+2); ok {
		t.Error("id maxID read")
	}
	// A template's children, near and far, and none made after it.
	for self := uint32(1); self < 300; self++ {
		for id := range self {
			for _, near := range []bool{false, true} {
				b := appendChild(nil, id, self, near)
				v, _, err := varint.Uvarint64(b[1:])
				if got, ok := childID(v, self); err != nil || !ok || got != id {
					t.Fatalf("template %d's child %d read as %d, %v", self, id, got, ok)
				}
				if v&1 != 0 != near {
					t.Fatalf("template %d's child %d: %d", self, id, v)
				}
			}
		}
		for _, v := range []uint64{0, 2*uint64(self) + 1, 2*uint64(self) + 2, 1 << 40, 1<<40 + 1} {
			if id, ok := childID(v, self); ok {
				t.Fatalf("template %d: number %d read as %d", self, v, id)
			}
		}
	}
}

// TestBases: the bases of a templates frame's entries, found at once, as
// the frame grows (a growing frame's views) or one entry at a time, are
// what the writer coded each entry's references to strings against, and
// read the ids it wrote.
func TestBases(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var raw []byte
	var st refState
	var want []uint32
	var ids [][]uint32
	next := uint32(0)
	for i := range 5*refGroup + 7 {
		if i%refGroup == 0 {
			st = refState{}
		}
		var text []byte
		var its []uint32
		for range rng.IntN(4) {
			text = append(text, `{"a":`...)
			id := next
			if rng.IntN(3) == 0 && next > 0 {
				id = uint32(rng.IntN(int(next)))
			} else {
				next++
			}
			text = varint.AppendUvarint(append(text, markString), id+1)
			its = append(its, id)
			if rng.IntN(2) == 0 {
				text = varint.AppendUvarint(append(text, ',', markTemplate), uint32(1+rng.IntN(300)))
			}
		}
		want = append(want, st[0])
		ids = append(ids, its)
		raw = append(appendRelative(raw, text, &st), markEnd)
	}
	ends := appendEntryEnds(nil, raw, 0, len(raw))
	if len(ends) != len(want) {
		t.Fatalf("%d entries, want %d", len(ends), len(want))
	}
	if got := appendBases(nil, raw, ends); !slices.Equal(got, want) {
		t.Fatalf("bases at once %v, want %v", got, want)
	}
	var grown []uint32
	for k := 0; k < len(ends); {
		k = min(k+1+rng.IntN(2*refGroup), len(ends))
		grown = appendBases(grown, raw, ends[:k])
	}
	if !slices.Equal(grown, want) {
		t.Fatalf("bases as the frame grows %v, want %v", grown, want)
	}
	// Entries with references not well formed: the rest of the entry
	// counts for nothing, found at once or one entry at a time.
	var bad []byte
	for i, e := range [][]byte{{markString, 0x80}, {markString, 0x80, 0x80, 'x'}, {markString, 1, markString, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, markString, 1}, {markTemplate}, {markString}} {
		bad = append(append(append(bad, raw[:ends[30+10*i]]...), e...), raw[ends[30+10*i]:]...)
	}
	badEnds := appendEntryEnds(nil, bad, 0, len(bad))
	one := &storeBlock{kind: 1, raw: bad, ends: badEnds, avail: uint32(len(badEnds))}
	for i, b := range appendBases(nil, bad, badEnds) {
		if _, base, err := one.entry(uint32(i)); err != nil || base != b {
			t.Fatalf("entry %d of the frame with bad references: base %d, %v one at a time, %d at once", i, base, err, b)
		}
	}
	s := &storeBlock{kind: 1, raw: raw, ends: ends, avail: uint32(len(ends))}
	for i := range ends {
		text, base, err := s.entry(uint32(i))
		if err != nil || base != want[i] {
			t.Fatalf("entry %d: base %d, %v; want %d", i, base, err, want[i])
		}
		var got []uint32
		(&Reader{total: [2]uint32{next, 1 << 20}}).refs([]refText{{text, 1 << 20, refState{base}}}, func(t int, id uint32) {
			if t == 0 {
				got = append(got, id)
			}
		})
		if !slices.Equal(got, ids[i]) {
			t.Fatalf("entry %d: strings %v, want %v", i, got, ids[i])
		}
	}
}

// TestRefsWritten: the writer codes references to new entries near and to
// old ones far, as refs.go says: a chat whose every request holds a new
// messages array (a template) of one new message (a template) of a new
// content (a string), and the same tools array (a template) each time.
func TestRefsWritten(t *testing.T) {
	var in []byte
	for i := range 100 {
		in = fmt.Appendf(in, `{"model":"m","messages":[{"role":"user","content":"question %03d, long enough to be stored apart from the record that holds it"}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{}}}]}`+"\n", i)
	}
	packed, _ := write(t, in, Options{}, 1<<20)
	d, err := newFrameDecoder()
	if err != nil {
		t.Fatal(err)
	}
	var skel, tmpl []byte
	for _, body := range blocksOf(t, packed) {
		switch body[0] {
		case kindRecords:
			h, err := parseRecords(body, 100, 0)
			if err != nil {
				t.Fatal(err)
			}
			if skel, err = d.decode(nil, h.skel, nil); err != nil {
				t.Fatal(err)
			}
		case kindTemplates:
			f, _ := storeFrameOf(t, body)
			if tmpl, err = d.decode(nil, f, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	// numbers returns the numbers of text's references.
	numbers := func(text []byte) (vs []uint64) {
		for i := indexMarker(text); i < len(text); i = indexMarker(text) {
			v, k, _ := varint.Uvarint64(text[i+1:])
			vs, text = append(vs, v), text[i+1+k:]
		}
		return vs
	}
	lines := bytes.Split(bytes.TrimSuffix(skel, []byte("\n")), []byte("\n"))
	if len(lines) != 100 {
		t.Fatalf("%d skeletons", len(lines))
	}
	// Past the first record: the messages array is the second template
	// past the last one named (its message made between), near, 2·1+1;
	// the tools array the first's (near there, new), far, the same each
	// time.
	tools := numbers(lines[1])[1]
	for i, l := range lines[1:] {
		if vs := numbers(l); len(vs) != 2 || vs[0] != 3 || vs[1] != tools || tools&1 != 0 {
			t.Fatalf("skeleton %d: references %v, want [3 %d (even)]", i+1, vs, tools)
		}
	}
	// Each messages array's message is near (2·1-1), and each message's
	// content the next string (2·0+1), but at the start of a group.
	var arrays, messages int
	for i, e := range bytes.Split(bytes.TrimSuffix(tmpl, []byte{markEnd}), []byte{markEnd}) {
		vs := numbers(e)
		switch {
		case bytes.Equal(e, []byte{'[', markTemplate, 1, ']'}):
			arrays++
		case bytes.Contains(e, []byte(`"content":`)) && len(vs) == 1 && (vs[0] == 1 || i%refGroup == 0):
			messages++
		}
	}
	if arrays != 101 || messages != 100 { // the tools array's is [its function]
		t.Fatalf("%d of 100 messages arrays, %d of 100 messages coded near: %q", arrays, messages, tmpl)
	}
}
