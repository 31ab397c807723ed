package archive

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/varint"
)

// memSource is an archive in memory: block bodies, then the directory.
type memSource [][]byte

func (m memSource) Blocks() int                { return len(m) }
func (m memSource) Body(i int) ([]byte, error) { return m[i], nil }

// withDirectory returns bodies followed by their directory block.
func withDirectory(tb testing.TB, bodies [][]byte) memSource {
	tb.Helper()
	var entries []int
	for _, b := range bodies {
		var h blockHead
		if _, err := parseHead(&h, b); err != nil {
			tb.Fatal(err)
		}
		entries = append(entries, h.entries)
	}
	return append(memSource(bodies), AppendDirectory(nil, entries))
}

// records returns every record of an archive read in order, as the
// Expander reads it: what random access must give back.
func records(tb testing.TB, bodies [][]byte) [][][]byte {
	tb.Helper()
	dec, _ := NewDecoder()
	var x Expander
	var out [][][]byte
	for _, body := range bodies {
		var u Unpacked
		if err := dec.Unpack(&u, body); err != nil {
			tb.Fatal(err)
		}
		var recs [][]byte
		if err := x.Block(&u, func(_ int, _ *RecIndex, line []byte) error {
			recs = append(recs, bytes.Clone(line))
			return nil
		}); err != nil {
			tb.Fatal(err)
		}
		out = append(out, recs)
	}
	return out
}

func TestReader(t *testing.T) {
	for name, data := range map[string][]byte{"nasty": nasty(), "sample": corpus(t)} {
		// GenCap 1 KiB starts generations often: values come back from
		// the older one as fresh copies.
		for _, o := range []Options{{}, {MinSize: 16, GenCap: 1 << 10}} {
			for _, size := range []int{1 << 10, 64 << 10, 8 << 20} {
				bodies := pack(t, data, o, size)
				want := records(t, bodies)
				r, err := NewReader(withDirectory(t, bodies))
				if err != nil {
					t.Fatal(err)
				}
				type at struct{ b, i int }
				var order []at
				for b := range want {
					if n, err := r.Records(b); err != nil || n != len(want[b]) {
						t.Fatalf("block %d: %d records, %v; want %d", b, n, err, len(want[b]))
					}
					for i := range want[b] {
						order = append(order, at{b, i})
					}
				}
				rand.New(rand.NewPCG(1, 2)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
				for _, a := range order {
					got, _, err := r.AppendRecord([]byte("x"), a.b, a.i)
					if err != nil || !bytes.Equal(got[1:], want[a.b][a.i]) {
						t.Fatalf("%s %+v blocks of %d: record %d of block %d: %q, %v; want %q", name, o, size, a.i, a.b, got, err, want[a.b][a.i])
					}
				}
			}
		}
	}
}

// TestReaderCorrupt changes every byte of a small archive (blocks and
// directory) and reads every record at random: each is its original bytes
// or an ErrCorrupt, never a panic.
func TestReaderCorrupt(t *testing.T) {
	data := nasty()[:3000]
	bodies := pack(t, data, Options{MinSize: 16}, 1<<10)
	want := records(t, bodies)
	src := withDirectory(t, bodies)
	for bi := range src {
		for i := range src[bi] {
			for _, mut := range []func([]byte) []byte{
				func(b []byte) []byte { b[i] ^= 0x21; return b },
				func(b []byte) []byte { return b[:i] },
			} {
				bs := make(memSource, len(src))
				for j := range src {
					bs[j] = bytes.Clone(src[j])
				}
				bs[bi] = mut(bs[bi])
				r, err := NewReader(bs)
				if err != nil {
					if !errors.Is(err, ErrCorrupt) {
						t.Fatalf("block %d byte %d: %v is not ErrCorrupt", bi, i, err)
					}
					continue
				}
				for b := len(want) - 1; b >= 0; b-- {
					for j := range want[b] {
						got, _, err := r.AppendRecord(nil, b, j)
						if err == nil && !bytes.Equal(got, want[b][j]) {
							t.Fatalf("block %d byte %d: record %d of block %d changed without an error", bi, i, j, b)
						}
						if err != nil && !errors.Is(err, ErrCorrupt) {
							t.Fatalf("block %d byte %d: %v is not ErrCorrupt", bi, i, err)
						}
					}
				}
			}
		}
	}
}

// hostile returns a one-block archive whose store is n entries, each a
// reference to the one before, the first "x", and one record whose
// skeleton refers to the last: past two, a chain no writer makes (each
// reference of a writer's is to a shorter text).
func hostile(tb testing.TB, n int) memSource {
	b := Block{genCap: 1 << 20, Entries: n}
	b.Store = append(b.Store, 1, 'x')
	for id := range n - 1 {
		ref := varint.AppendUvarint([]byte{refByte}, uint32(id))
		b.Store = append(append(b.Store, byte(len(ref))), ref...)
	}
	b.Skel = varint.AppendUvarint([]byte{refByte}, uint32(n-1))
	b.Records = []Rec{{Line: []byte("x"), SkelLen: len(b.Skel), Template: true}}
	enc, err := NewEncoder(Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return withDirectory(tb, [][]byte{enc.AppendBody(nil, &b)})
}

func TestReaderHostile(t *testing.T) {
	for n, ok := range map[int]bool{2: true, 3: false, 10 * maxDepth: false} {
		r, err := NewReader(hostile(t, n))
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := r.AppendRecord(nil, 0, 0)
		if ok && (err != nil || string(got) != "x") {
			t.Errorf("chain of %d: %q, %v", n, got, err)
		}
		if !ok && !errors.Is(err, ErrCorrupt) {
			t.Errorf("chain of %d: %v, want ErrCorrupt", n, err)
		}
	}
}

// TestReaderDeep reads values nested as deep as the writer stores them,
// each an entry that refers to the next.
func TestReaderDeep(t *testing.T) {
	line := strings.Repeat("[", maxDepth-1) + `"x"` + strings.Repeat("]", maxDepth-1)
	bodies := pack(t, []byte(line+"\n"+line+"\n"), Options{MinSize: 1}, 8<<20)
	r, err := NewReader(withDirectory(t, bodies))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if got, rec, err := r.AppendRecord(nil, 0, i); err != nil || string(got) != line || !rec.Template {
			t.Errorf("record %d: %q, %v", i, got, err)
		}
	}
}

func FuzzReader(f *testing.F) {
	for _, b := range pack(f, nasty(), Options{MinSize: 16}, 2<<10) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var h blockHead
		if _, err := parseHead(&h, body); err != nil || h.firstEntry > 1<<12 {
			return
		}
		// A block made to look like the second of an archive whose first
		// made the entries it says come before it.
		first := Block{genCap: h.genCap, Entries: h.firstEntry, Store: []byte(strings.Repeat("\x01z", h.firstEntry)),
			Skel: []byte("y"), Records: []Rec{{Line: []byte("y"), SkelLen: 1}}}
		enc, _ := NewEncoder(Options{Level: 1})
		r, err := NewReader(withDirectory(t, [][]byte{enc.AppendBody(nil, &first), body}))
		if err != nil {
			t.Fatal(err)
		}
		n, err := r.Records(1)
		if err != nil {
			return
		}
		for i := range n {
			line, rec, err := r.AppendRecord(nil, 1, i)
			if err == nil && (len(line) != rec.LineLen || crc.Checksum(line) != rec.CRC) {
				t.Fatalf("record %d: %d bytes, CRC %08x; index says %d, %08x", i, len(line), crc.Checksum(line), rec.LineLen, rec.CRC)
			}
		}
	})
}
