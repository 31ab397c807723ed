package archive

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"testing"
)

// TestShapes: entries come back from their shapes, whatever their bytes.
func TestShapes(t *testing.T) {
	for _, raw := range []string{
		"\x00",
		"{\"a\":1}\x00[1,2,3]\x00{\"a\":2}\x00",
		"{\"k\":\"v\\\"x\",\"r\":\x02\x85\x01}\x00{\"k\":\"w\",\"r\":\x01\x05}\x00",
		"\"unended\x00\x02\x80\x00[\x03,\x03]\x00  \x00\"a\"\"b\"c\x00",
		nasty["repeats"] + "\x00",
	} {
		shaped := appendShaped(nil, []byte(raw))
		got, err := new(unshaper).append(nil, shaped, len(raw))
		if err != nil || string(got) != raw {
			t.Errorf("%q: got %q, %v", raw, got, err)
		}
		if _, err := new(unshaper).append(nil, shaped, len(raw)-1); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%q with a limit one short: %v", raw, err)
		}
	}
}

// FuzzShapes: any entries come back; any shaped bytes unshape or fail
// with ErrCorrupt, within the limit.
func FuzzShapes(f *testing.F) {
	f.Add([]byte("{\"a\":1}\x00[1,2,3]\x00{\"a\":2}\x00"), []byte{})
	f.Add([]byte(nasty["repeats"]+"\x00"), appendShaped(nil, []byte("{\"a\":1}\x00[\"x\",2]\x00")))
	var used unshaper // kept across inputs, as a reader keeps one across frames
	f.Fuzz(func(t *testing.T, raw, shaped []byte) {
		if len(raw) > 0 && raw[len(raw)-1] == markEnd {
			got, err := new(unshaper).append(nil, appendShaped(nil, raw), len(raw))
			if err != nil || !bytes.Equal(got, raw) {
				t.Fatalf("%q: got %q, %v", raw, got, err)
			}
		}
		const limit = 1 << 12
		out, err := new(unshaper).append(nil, shaped, limit)
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error %v is not ErrCorrupt", err)
		}
		if len(out) > limit {
			t.Fatalf("%d bytes, limit %d", len(out), limit)
		}
		again, err2 := used.append(nil, shaped, limit)
		if !bytes.Equal(again, out) || (err == nil) != (err2 == nil) {
			t.Fatalf("a used unshaper gave %.40q, %v; a new one %.40q, %v", again, err2, out, err)
		}
	})
}

// BenchmarkUnshape: a templates frame of M2M_TEMPLATES (a templates stream
// as TestDumpStreams writes it), first 4 MiB.
func BenchmarkUnshape(b *testing.B) {
	raw, err := os.ReadFile(os.Getenv("M2M_TEMPLATES"))
	if err != nil {
		b.Skip("M2M_TEMPLATES not set")
	}
	raw = raw[:bytes.LastIndexByte(raw[:min(len(raw), 4<<20)], markEnd)+1]
	shaped := appendShaped(nil, raw)
	b.SetBytes(int64(len(raw)))
	var out []byte
	var u unshaper
	for b.Loop() {
		out, _ = u.append(out[:0], shaped, len(raw))
	}
}

// TestRefs: prefetch reads a template's references to templates as
// expand does, relative to the template's own id, and its references to
// strings, and a skeleton's, against the references before them (a
// prefetch that read them all as absolute ids decoded the wrong frames,
// and --record N took 20% longer).
func TestRefs(t *testing.T) {
	r := &Reader{total: [2]uint32{10, 10}}
	type ref struct {
		t  int
		id uint32
	}
	var got []ref
	r.refs([]refText{
		// Template 1 (1 past next, 0: 2·1+1), string 2, template 0 (far: 2·(0+1)).
		{[]byte{markTemplate, 3, ',', markString, 5, markTemplate, 2}, idTemplate, refState{}},
		// Template 7-2 (near: 2·2-1); string 0 (far); template 7-5; 7-9 < 0: stop.
		{[]byte{markTemplate, 3, ',', markString, 2, markTemplate, 9, markTemplate, 17}, 7, refState{4}},
	}, func(t int, id uint32) { got = append(got, ref{t, id}) })
	want := []ref{{1, 1}, {0, 2}, {1, 0}, {1, 5}, {0, 0}, {1, 2}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("refs %v, want %v", got, want)
	}
}
