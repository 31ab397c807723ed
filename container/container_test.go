package container

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// build writes a file of nblocks blocks of random records and returns it
// with the records in order.
func build(t testing.TB, r *rand.Rand, nblocks int) ([]byte, []Record) {
	var out bytes.Buffer
	w, err := NewWriter(&out)
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

// readAll reads a file as a stream and returns its records.
func readAll(file []byte) ([]Record, error) {
	r, err := NewReader(bytes.NewReader(file))
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
		file, want := build(t, r, n)
		got, err := readAll(file)
		if err != nil || !equalRecords(got, want) {
			t.Fatalf("%d blocks: %d records, %v; want %d", n, len(got), err, len(want))
		}
	}
}

// TestTruncated cuts a file at every byte: every cut is detected.
func TestTruncated(t *testing.T) {
	file, _ := build(t, rand.New(rand.NewPCG(2, 2)), 4)
	for n := range len(file) {
		_, err := readAll(file[:n])
		if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrFormat) && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut to %d of %d bytes: %v", n, len(file), err)
		}
		if _, err := OpenIndex(bytes.NewReader(file[:n]), int64(n)); err == nil {
			t.Fatalf("OpenIndex of a file cut to %d bytes succeeded", n)
		}
	}
}

// TestCorrupted flips every bit of a file: every flip is detected by the
// stream reader.
func TestCorrupted(t *testing.T) {
	file, _ := build(t, rand.New(rand.NewPCG(3, 3)), 3)
	for i := range file {
		for bit := range 8 {
			f := bytes.Clone(file)
			f[i] ^= 1 << bit
			if _, err := readAll(f); err == nil {
				t.Fatalf("flipping bit %d of byte %d went unnoticed", bit, i)
			}
		}
	}
	if _, err := readAll(append(bytes.Clone(file), 0)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("trailing byte: %v", err)
	}
}

// TestErrorsNameRecords: a corrupt block's error names its first record.
func TestErrorsNameRecords(t *testing.T) {
	file, recs := build(t, rand.New(rand.NewPCG(4, 4)), 6)
	ix, err := OpenIndex(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ix.Block(3)
	f := bytes.Clone(file)
	f[b.Offset+3] ^= 0x55
	_, err = readAll(f)
	var e *Error
	if !errors.As(err, &e) || e.Record != b.First || e.Offset != b.Offset {
		t.Fatalf("error %v, want one naming record %d at offset %d (of %d records)", err, b.First, b.Offset, len(recs))
	}
}

func TestIndex(t *testing.T) {
	file, want := build(t, rand.New(rand.NewPCG(5, 5)), 12)
	ix, err := OpenIndex(bytes.NewReader(file), int64(len(file)))
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

func TestEmpty(t *testing.T) {
	file, _ := build(t, rand.New(rand.NewPCG(6, 6)), 0)
	if got, err := readAll(file); err != nil || len(got) != 0 {
		t.Fatalf("empty file: %v, %v", got, err)
	}
	if _, err := readAll([]byte("not a container at all")); !errors.Is(err, ErrFormat) {
		t.Fatalf("plain text: %v", err)
	}
}

// FuzzReader reads arbitrary bytes as a container: never a panic, and
// never an allocation beyond the format's limits.
func FuzzReader(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{0, 1, 3} {
		file, _ := build(f, r, n)
		f.Add(file)
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		readAll(file)
		if ix, err := OpenIndex(bytes.NewReader(file), int64(len(file))); err == nil {
			for i := range ix.Blocks() {
				if b, err := ix.Block(i); err == nil {
					b.Each(func(Record) error { return nil })
				}
			}
		}
	})
}

func ExampleWriter() {
	var out bytes.Buffer
	w, _ := NewWriter(&out)
	var b BlockBuilder
	b.Add(Record{Encoding: Raw, Data: []byte("not json")})
	b.Add(Record{Encoding: Raw, Data: []byte("last line"), NoNewline: true})
	w.Write(b.Block(), Counts{Records: 2, Lines: 2, Bytes: 18})
	w.Close()
	recs, err := readAll(out.Bytes())
	fmt.Println(len(recs), string(recs[1].Data), recs[1].NoNewline, err)
	// Output: 2 last line true <nil>
}
