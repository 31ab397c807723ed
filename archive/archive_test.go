package archive

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/internal/sample"
)

// corpus is M2M_CORPUS, else the embedded sample.
func corpus(tb testing.TB) []byte {
	if p := os.Getenv("M2M_CORPUS"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Skipf("M2M_CORPUS: %v", err)
		}
		return b
	}
	return sample.JSONL()
}

// pack builds and compresses data in blocks of about size bytes and
// returns the bodies.
func pack(tb testing.TB, data []byte, o Options, size int) [][]byte {
	w := NewBuilder(o)
	enc, err := NewEncoder(o)
	if err != nil {
		tb.Fatal(err)
	}
	var bodies [][]byte
	var b Block
	for len(data) > 0 {
		w.Begin(&b)
		n := 0
		for len(data) > 0 && n < size {
			i := bytes.IndexByte(data, '\n')
			line, nl := data, false
			if i >= 0 {
				line, nl = data[:i], true
			}
			w.Add(&b, line, false, !nl)
			data = data[len(line):]
			if nl {
				data = data[1:]
			}
			n += len(line) + 1
		}
		bodies = append(bodies, enc.AppendBody(nil, &b))
	}
	return bodies
}

func unpack(tb testing.TB, bodies [][]byte) []byte {
	tb.Helper()
	dec, err := NewDecoder()
	if err != nil {
		tb.Fatal(err)
	}
	var x Expander
	var u Unpacked
	var out []byte
	for _, body := range bodies {
		if err := dec.Unpack(&u, body); err != nil {
			tb.Fatal(err)
		}
		err := x.Block(&u, func(i int, r *RecIndex, line []byte) error {
			out = append(out, line...)
			if !r.NoNewline {
				out = append(out, '\n')
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

// nasty is input that must come back byte for byte: repeated JSON values
// (stored once), lines that are not JSON, that hold the reference byte,
// that are blank or end without a line feed, with CRLF, odd whitespace and
// escapes.
func nasty() []byte {
	big := `{"role":"system","content":"` + strings.Repeat("You are a helpful assistant. ", 8) + `"}`
	var b strings.Builder
	for i := range 40 {
		b.WriteString(`{"model":"gpt-4o","messages":[` + big)
		for j := range i % 7 {
			b.WriteString(`, {"role":"user", "content":"question number ` + strings.Repeat("x", j*20) + `\u00e9\n"}`)
		}
		b.WriteString("]}\n")
	}
	b.WriteString("not json at all " + big + "\n")
	b.WriteString("\n\r\n")
	b.WriteString(`{"a":"` + "\x01" + strings.Repeat("y", 100) + `"}` + "\n")
	b.WriteString(`[` + big + `,` + big + `,` + big + `]` + "\r\n")
	b.WriteString(`  {"deep":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "}  \n")
	b.WriteString(`{"unterminated":"` + strings.Repeat("z", 80))
	return []byte(b.String())
}

func TestRoundTrip(t *testing.T) {
	for name, data := range map[string][]byte{"nasty": nasty(), "sample": corpus(t)} {
		for _, o := range []Options{{}, {MinSize: 1}, {MinSize: 16, GenCap: 1 << 10}, {Level: 4}} {
			for _, size := range []int{1 << 10, 64 << 10, 8 << 20} {
				bodies := pack(t, data, o, size)
				if got := unpack(t, bodies); !bytes.Equal(got, data) {
					t.Fatalf("%s, %+v, blocks of %d: round trip differs", name, o, size)
				}
			}
		}
	}
}

func TestDedupe(t *testing.T) {
	data := nasty()
	bodies := pack(t, data, Options{}, 8<<20)
	total := 0
	for _, b := range bodies {
		total += len(b)
	}
	// The system message repeats 40 times; stored once, the archive is
	// much smaller than it.
	if total*5 > len(data) {
		t.Errorf("%d bytes of input in %d bytes", len(data), total)
	}
	dec, _ := NewDecoder()
	var headers, records int
	err := dec.EachIndex(bodies[0], func(r RecIndex) error {
		records++
		if r.Header != nil {
			headers++
		}
		return nil
	})
	if err != nil || records != 47 || headers != 41 {
		t.Errorf("index: %d records, %d headers, %v", records, headers, err)
	}
}

// TestCorrupt flips every byte of a small archive's blocks (the sections
// are checked by zstd's and the records' checksums) and cuts them: every
// change is an error, never a panic or a wrong record.
func TestCorrupt(t *testing.T) {
	data := nasty()[:3000]
	bodies := pack(t, data, Options{MinSize: 16}, 1<<10)
	dec, _ := NewDecoder()
	for bi := range bodies {
		for i := range bodies[bi] {
			for _, mut := range []func([]byte) []byte{
				func(b []byte) []byte { b[i] ^= 0x21; return b },
				func(b []byte) []byte { return b[:i] },
			} {
				bs := make([][]byte, len(bodies))
				for j := range bodies {
					bs[j] = bytes.Clone(bodies[j])
				}
				bs[bi] = mut(bs[bi])
				var x Expander
				var u Unpacked
				var out []byte
				var err error
				for _, body := range bs {
					if err = dec.Unpack(&u, body); err != nil {
						break
					}
					if err = x.Block(&u, func(_ int, r *RecIndex, line []byte) error {
						out = append(out, line...)
						if !r.NoNewline {
							out = append(out, '\n')
						}
						return nil
					}); err != nil {
						break
					}
				}
				if err == nil && !bytes.Equal(out, data) {
					t.Fatalf("block %d byte %d: changed archive decoded to different bytes without error", bi, i)
				}
				if err != nil && !errors.Is(err, ErrCorrupt) {
					t.Fatalf("block %d byte %d: %v is not ErrCorrupt", bi, i, err)
				}
			}
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, b := range pack(f, nasty(), Options{MinSize: 16}, 2<<10) {
		f.Add(b)
	}
	dec, _ := NewDecoder()
	f.Fuzz(func(t *testing.T, body []byte) {
		var u Unpacked
		if err := dec.Unpack(&u, body); err != nil {
			return
		}
		var x Expander
		x.Block(&u, func(_ int, r *RecIndex, line []byte) error {
			if len(line) != r.LineLen {
				t.Fatalf("record of %d bytes, index says %d", len(line), r.LineLen)
			}
			return nil
		})
	})
}
