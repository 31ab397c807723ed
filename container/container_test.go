package container

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/internal/forge"
)

// build writes a file of nblocks blocks of random records, sealed if key
// is not nil, and returns it with the records in order.
func build(t testing.TB, r *rand.Rand, nblocks int, key []byte) ([]byte, []Record) {
	var out bytes.Buffer
	w, err := NewWriter(&out, key)
	if err != nil {
		t.Fatal(err)
	}
	var all []Record
	var b BlockBuilder
	for range nblocks {
		b.Reset()
		for range r.IntN(20) {
			rec := Record{Encoding: Encoding(r.IntN(numEncodings)), Data: make([]byte, r.IntN(300))}
			for i := range rec.Data {
				rec.Data[i] = byte(r.Uint32())
			}
			if r.IntN(10) == 0 {
				rec.Continues, rec.NoNewline = true, true
			}
			b.Add(rec)
			all = append(all, rec)
		}
		c := Counts{Records: b.Records()}
		for _, rec := range all[len(all)-b.Records():] {
			if !rec.Continues {
				c.Lines++
			}
			c.Bytes += int64(len(rec.Data) + 1)
		}
		if err := w.Write(b.Block(), c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), all
}

// readAll reads a file as a stream, with key if not nil, and returns its
// records.
func readAll(file, key []byte) ([]Record, error) {
	r, err := NewReader(bytes.NewReader(file), key)
	if err != nil {
		return nil, err
	}
	var recs []Record
	for {
		b, err := r.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		err = b.Each(func(rec Record) error {
			rec.Data = bytes.Clone(rec.Data)
			recs = append(recs, rec)
			return nil
		})
		if err != nil {
			return recs, err
		}
	}
}

// openAll opens a file through its index, with key if not nil, and reads
// every block: into the memory of the one before (ReadBlock), which must
// not show, and on its own (Block), which must give the same.
func openAll(file, key []byte) error {
	ix, err := OpenIndex(bytes.NewReader(file), int64(len(file)), key)
	if err != nil {
		return err
	}
	buf := make([]byte, 64)
	for i := range ix.Blocks() {
		buf = buf[:cap(buf)]
		for k := range buf {
			buf[k] = 0xa5 // what a block before might have left
		}
		b, err := ix.ReadBlock(buf, i)
		own, ownErr := ix.Block(i)
		if (err == nil) != (ownErr == nil) || err == nil && (!bytes.Equal(b.Body, own.Body) || b.Type != own.Type || b.Records != own.Records) {
			return fmt.Errorf("block %d: read into memory of its own and reused differ: %v, %v", i, err, ownErr)
		}
		if err != nil {
			return err
		}
		if int64(cap(buf)) < ix.BlockLen(i) {
			buf = make([]byte, ix.BlockLen(i)+10)
		}
		if err := b.Each(func(Record) error { return nil }); err != nil {
			return err
		}
	}
	return nil
}

// equalBlocks writes a file of n blocks of three raw records of 10 bytes
// each, sealed if key is not nil: blocks of one size and layout that can
// trade places without moving an offset, records that can within a block.
// Record r holds ten bytes 'a'+r.
func equalBlocks(t *testing.T, n int, key []byte) []byte {
	var out bytes.Buffer
	w, err := NewWriter(&out, key)
	if err != nil {
		t.Fatal(err)
	}
	var b BlockBuilder
	for k := range n {
		b.Reset()
		for j := range 3 {
			b.Add(Record{Encoding: Raw, Data: bytes.Repeat([]byte{byte('a' + 3*k + j)}, 10)})
		}
		if err := w.Write(b.Block(), Counts{Records: 3, Lines: 3, Bytes: 33}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func equalRecords(a, b []Record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Encoding != b[i].Encoding || a[i].Continues != b[i].Continues ||
			a[i].NoNewline != b[i].NoNewline || !bytes.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{0, 1, 2, 10} {
		file, want := build(t, r, n, nil)
		got, err := readAll(file, nil)
		if err != nil || !equalRecords(got, want) {
			t.Fatalf("%d blocks: %d records, %v; want %d", n, len(got), err, len(want))
		}
	}
}

// TestTruncated cuts a file at every byte: every cut is detected.
func TestTruncated(t *testing.T) {
	file, _ := build(t, rand.New(rand.NewPCG(2, 2)), 4, nil)
	for n := range len(file) {
		_, err := readAll(file[:n], nil)
		if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrFormat) && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut to %d of %d bytes: %v", n, len(file), err)
		}
		if _, err := OpenIndex(bytes.NewReader(file[:n]), int64(n), nil); err == nil {
			t.Fatalf("OpenIndex of a file cut to %d bytes succeeded", n)
		}
	}
}

// TestCorrupted flips every bit of a file: every flip is detected by the
// stream reader.
func TestCorrupted(t *testing.T) {
	file, _ := build(t, rand.New(rand.NewPCG(3, 3)), 3, nil)
	for i := range file {
		for bit := range 8 {
			f := bytes.Clone(file)
			f[i] ^= 1 << bit
			if _, err := readAll(f, nil); err == nil {
				t.Fatalf("flipping bit %d of byte %d went unnoticed", bit, i)
			}
		}
	}
	if _, err := readAll(append(bytes.Clone(file), 0), nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("trailing byte: %v", err)
	}
}

// TestOrderChecked: blocks that trade places, or records inside a block
// (its CRC fixed), are refused, by the stream reader and through the
// index; and the file's CRC alone tells, once the index is rebuilt to
// match: it covers every block's CRC, in order.
func TestOrderChecked(t *testing.T) {
	file := equalBlocks(t, 4, nil)
	ix, err := OpenIndex(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	b1, _ := ix.Block(1)
	b2, _ := ix.Block(2)
	size := b2.Offset - b1.Offset
	rebuilt := func(change func(f *forge.File)) []byte {
		f, err := forge.Parse(file)
		if err != nil {
			t.Fatal(err)
		}
		change(f)
		forged := f.Bytes()
		if _, err := readAll(forged, nil); err != nil {
			t.Fatalf("the forger's own file does not read: %v", err)
		}
		copy(forged[len(forged)-8:], file[len(file)-8:len(file)-4]) // the old file_crc32
		return forged
	}
	cases := map[string][]byte{
		"blocks swapped": func() []byte {
			f := bytes.Clone(file)
			copy(f[b1.Offset:], file[b2.Offset:b2.Offset+size])
			copy(f[b2.Offset:], file[b1.Offset:b2.Offset])
			return f
		}(),
		"records swapped, block CRC fixed": func() []byte {
			f := bytes.Clone(file)
			at := bytes.Index(f, bytes.Repeat([]byte{'d'}, 10)) - 2 // block 1, record 0
			copy(f[at:], file[at+12:at+24])
			copy(f[at+12:], file[at:at+12])
			end := b1.Offset + size - 4
			binary.LittleEndian.PutUint32(f[end:], crc32.ChecksumIEEE(f[b1.Offset:end]))
			return f
		}(),
		"blocks swapped, index rebuilt": rebuilt(func(f *forge.File) { f.Blocks[1], f.Blocks[2] = f.Blocks[2], f.Blocks[1] }),
		"records swapped, index rebuilt": rebuilt(func(f *forge.File) {
			var err error
			if f.Blocks[1].Body, err = forge.SwapRecords(f.Blocks[1].Body, 0, 1); err != nil {
				t.Fatal(err)
			}
		}),
	}
	for name, f := range cases {
		if len(f) != len(file) {
			t.Fatalf("%s: %d bytes, the file %d", name, len(f), len(file))
		}
		if _, err := readAll(f, nil); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: stream reader: %v", name, err)
		}
		if err := openAll(f, nil); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: index: %v", name, err)
		}
	}
}

// TestVersion: a file of another version is refused, saying which.
func TestVersion(t *testing.T) {
	file := equalBlocks(t, 1, nil)
	file[8] = 1
	for _, err := range []error{func() error { _, err := readAll(file, nil); return err }(), openAll(file, nil)} {
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "version 1") {
			t.Errorf("version 1: %v", err)
		}
	}
}

// TestErrorsNameRecords: a corrupt block's error names its first record.
func TestErrorsNameRecords(t *testing.T) {
	file, recs := build(t, rand.New(rand.NewPCG(4, 4)), 6, nil)
	ix, err := OpenIndex(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ix.Block(3)
	f := bytes.Clone(file)
	f[b.Offset+3] ^= 0x55
	_, err = readAll(f, nil)
	var e *Error
	if !errors.As(err, &e) || e.Record != b.First || e.Offset != b.Offset {
		t.Fatalf("error %v, want one naming record %d at offset %d (of %d records)", err, b.First, b.Offset, len(recs))
	}
}

func TestIndex(t *testing.T) {
	file, want := build(t, rand.New(rand.NewPCG(5, 5)), 12, nil)
	ix, err := OpenIndex(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil || ix.Records != int64(len(want)) {
		t.Fatalf("OpenIndex: %v, %d records", err, ix.Records)
	}
	for n := range int64(len(want)) {
		i, err := ix.Find(n)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ix.Block(i)
		if err != nil {
			t.Fatal(err)
		}
		k := b.First
		var got Record
		b.Each(func(r Record) error {
			if k == n {
				got = r
			}
			k++
			return nil
		})
		if !equalRecords([]Record{got}, want[n:n+1]) {
			t.Fatalf("record %d: %+v, want %+v", n, got, want[n])
		}
	}
	if _, err := ix.Find(ix.Records); err == nil {
		t.Error("Find past the end succeeded")
	}
}

// TestHead: a block's head is the start of the body ReadBlock checks, as
// much of it as asked for or the body has.
func TestHead(t *testing.T) {
	file, _ := build(t, rand.New(rand.NewPCG(6, 6)), 12, nil)
	ix, err := OpenIndex(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ix.Blocks() {
		b, err := ix.Block(i)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 1, 7, len(b.Body), len(b.Body) + 9} {
			p := make([]byte, n)
			k, err := ix.Head(p, i)
			if want := min(n, len(b.Body)); err != nil || !bytes.Equal(p[:k], b.Body[:want]) || k != want {
				t.Fatalf("block %d, head of %d: %d bytes (%v), want the body's first %d", i, n, k, err, want)
			}
		}
	}
	// A header that claims more body than the file has (4 GiB - 1) reads
	// what is there, on any int size.
	bad := bytes.Clone(file)
	copy(bad[ix.entries[0].Offset+2:], []byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	lied, err := OpenIndex(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	lied.ra = bytes.NewReader(bad)
	if k, err := lied.Head(make([]byte, 64), 0); err != nil || k != 64 {
		t.Errorf("head of a block whose header lies: %d bytes (%v), want 64", k, err)
	}
	cut, _ := build(t, rand.New(rand.NewPCG(6, 6)), 12, nil)
	short, err := OpenIndex(bytes.NewReader(cut), int64(len(cut)), nil)
	if err != nil {
		t.Fatal(err)
	}
	short.ra = bytes.NewReader(cut[:short.entries[0].Offset+2])
	if _, err := short.Head(make([]byte, 64), 0); !errors.Is(err, ErrTruncated) {
		t.Errorf("head of a block cut short: %v, want ErrTruncated", err)
	}
}

func TestEmpty(t *testing.T) {
	file, _ := build(t, rand.New(rand.NewPCG(6, 6)), 0, nil)
	if got, err := readAll(file, nil); err != nil || len(got) != 0 {
		t.Fatalf("empty file: %v, %v", got, err)
	}
	if _, err := readAll([]byte("not a container at all"), nil); !errors.Is(err, ErrFormat) {
		t.Fatalf("plain text: %v", err)
	}
}

// FuzzReader reads arbitrary bytes as a container: never a panic, and
// never an allocation beyond the format's limits.
func FuzzReader(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{0, 1, 3} {
		for _, key := range [][]byte{nil, testKey} {
			file, _ := build(f, r, n, key)
			f.Add(file)
		}
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		for _, key := range [][]byte{nil, testKey} {
			readAll(file, key)
			openAll(file, key)
			recoverAll(t, file, key)
		}
	})
}

// recoverAll reads every block RecoverIndex finds in file, each of which
// must read back as it was found, with its records where the index puts
// them.
func recoverAll(t *testing.T, file, key []byte) {
	ix, err := RecoverIndex(bytes.NewReader(file), int64(len(file)), key)
	if err != nil {
		return
	}
	if ix.Cut() == nil {
		t.Fatal("a recovered index with no cut")
	}
	var recs int64
	for i := range ix.Blocks() {
		b, err := ix.Block(i)
		if err != nil || b.First != recs {
			t.Fatalf("block %d of %d recovered: %v, first record %d, want %d", i, ix.Blocks(), err, b.First, recs)
		}
		recs += int64(b.Records)
	}
	if recs != ix.Records {
		t.Fatalf("%d records in the blocks, the index says %d", recs, ix.Records)
	}
}

func ExampleWriter() {
	var out bytes.Buffer
	w, _ := NewWriter(&out, nil)
	var b BlockBuilder
	b.Add(Record{Encoding: Raw, Data: []byte("not json")})
	b.Add(Record{Encoding: Raw, Data: []byte("last line"), NoNewline: true})
	w.Write(b.Block(), Counts{Records: 2, Lines: 2, Bytes: 18})
	w.Close()
	recs, err := readAll(out.Bytes(), nil)
	fmt.Println(len(recs), string(recs[1].Data), recs[1].NoNewline, err)
	// Output: 2 last line true <nil>
}

// TestFirstBlockType: the type of the first block, past a sealed file's
// random id, whatever that id's bytes are; none for a file with no blocks.
func TestFirstBlockType(t *testing.T) {
	key := bytes.Repeat([]byte{3}, MinKeyLen)
	for i := range 1000 {
		var out bytes.Buffer
		var k []byte
		if i%2 == 1 {
			k = key
		}
		w, err := NewWriter(&out, k)
		if err != nil {
			t.Fatal(err)
		}
		var bb BlockBuilder
		bb.Add(Record{Encoding: Raw, Data: []byte("x")})
		if i%3 > 0 {
			w.Write(bb.Block(), Counts{Records: 1, Lines: 1, Bytes: 2})
		}
		w.Close()
		typ, ok := FirstBlockType(out.Bytes())
		if want := i%3 > 0; ok != want || ok && typ != TypeRecords {
			t.Fatalf("file %d (sealed %v): type %#x, %v; want records: %v", i, k != nil, typ, ok, want)
		}
	}
}

// TestRecoverIndex cuts a file at every byte, plain and sealed, and
// damages each block in turn: RecoverIndex keeps exactly the blocks whole
// and sound before the cut, each readable, and Cut names the first record
// lost.
func TestRecoverIndex(t *testing.T) {
	for _, key := range [][]byte{nil, testKey} {
		file, _ := build(t, rand.New(rand.NewPCG(5, 5)), 4, key)
		whole, err := OpenIndex(bytes.NewReader(file), int64(len(file)), key)
		if err != nil {
			t.Fatal(err)
		}
		// ends[i]: where block i ends; blocks whole in file[:n] are those
		// with ends[i] <= n.
		var ends []int64
		for i := range whole.Blocks() {
			ends = append(ends, whole.entries[i].Offset+whole.BlockLen(i))
		}
		check := func(what string, f []byte, wantBlocks int, wantErr error) {
			t.Helper()
			ix, err := RecoverIndex(bytes.NewReader(f), int64(len(f)), key)
			if err != nil {
				if wantBlocks == 0 && len(f) < int(whole.entries[0].Offset) {
					return // no whole header
				}
				t.Fatalf("%s: %v", what, err)
			}
			var recs int64
			for i := range wantBlocks {
				recs += whole.entries[i].Records
			}
			if ix.Blocks() != wantBlocks || ix.Records != recs {
				t.Fatalf("%s: %d blocks, %d records; want %d, %d", what, ix.Blocks(), ix.Records, wantBlocks, recs)
			}
			var ce *Error
			if cut := ix.Cut(); !errors.Is(cut, wantErr) || !errors.As(cut, &ce) || ce.Record != recs {
				t.Fatalf("%s: cut %v, want %v at record %d", what, cut, wantErr, recs)
			}
			for i := range ix.Blocks() {
				b, err := ix.Block(i)
				if err != nil || b.First != whole.entries[i].First || b.Records != int(whole.entries[i].Records) {
					t.Fatalf("%s: block %d: %v", what, i, err)
				}
				if err := b.Each(func(Record) error { return nil }); err != nil {
					t.Fatalf("%s: block %d: %v", what, i, err)
				}
			}
		}
		for n := range len(file) + 1 {
			k := 0
			for k < len(ends) && ends[k] <= int64(n) {
				k++
			}
			check(fmt.Sprintf("cut to %d of %d bytes", n, len(file)), file[:n], k, ErrTruncated)
		}
		for i := range whole.Blocks() {
			f := bytes.Clone(file)
			f[whole.entries[i].Offset+whole.BlockLen(i)-2] ^= 1 // in the block's CRC
			check(fmt.Sprintf("block %d damaged", i), f, i, ErrCorrupt)
		}
		if ix, _ := OpenIndex(bytes.NewReader(file), int64(len(file)), key); ix.Cut() != nil {
			t.Fatalf("OpenIndex's index has a cut: %v", ix.Cut())
		}
	}
}
