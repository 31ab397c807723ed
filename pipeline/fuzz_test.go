package pipeline

import (
	"bytes"
	"context"
	"testing"

	"github.com/m2m-go/m2m/archive"
	"github.com/m2m-go/m2m/internal/sample"
)

// FuzzRead gives any bytes to everything that reads m2m files through the
// one input seam (Decompress, Test, List, Open): none panics, Test fails
// exactly when Decompress does, and where a file reads whole, List counts
// the lines Decompress wrote and Open reads its records as Decompress
// wrote them. The decoders behind the seam have fuzz targets of their own
// (container, archive, codec, ppm); this one checks the sniffing and the
// branching between them, and what a cut or damaged file gives each mode.
func FuzzRead(f *testing.F) {
	in := sample.JSONL()
	in = in[:bytes.IndexByte(in[6000:], '\n')+6001]
	for _, o := range []Options{
		{},
		{Format: FormatLines},
		{Archive: true, Batch: 2000},
		{Archive: true, ArchiveOptions: archive.Options{Level: archive.LevelMax}},
	} {
		var packed bytes.Buffer
		if err := Compress(context.Background(), bytes.NewReader(in), &packed, o, nil); err != nil {
			f.Fatal(err)
		}
		p := packed.Bytes()
		f.Add(p)
		f.Add(p[:len(p)/2])
		f.Add(p[:len(p)-20])
	}
	f.Add([]byte("plain text\n{\"a\":1}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		o := Options{Workers: 2}
		var out bytes.Buffer
		derr := Decompress(ctx, bytes.NewReader(data), &out, o, nil)
		terr := Test(ctx, bytes.NewReader(data), o, nil)
		if (derr == nil) != (terr == nil) {
			t.Fatalf("Decompress: %v; Test: %v", derr, terr)
		}
		l, lerr := List(ctx, bytes.NewReader(data), o)
		if lerr == nil && l == nil {
			t.Fatal("List: no listing and no error")
		}
		if derr != nil || lerr != nil || l.Format == FormatLines {
			return
		}
		lines := splitLines(out.Bytes())
		if l.Lines != int64(len(lines)) {
			t.Fatalf("List: %d lines; Decompress wrote %d", l.Lines, len(lines))
		}
		r, err := Open(bytes.NewReader(data), int64(len(data)), o)
		if err != nil {
			return // a file of lines, or nothing to read by number
		}
		defer r.Close()
		if r.Records() != l.Records {
			t.Fatalf("Open: %d records; List: %d", r.Records(), l.Records)
		}
		if r.Records() != int64(len(lines)) {
			return // a line in several records
		}
		for i, want := range lines {
			got, err := r.AppendRecord(nil, int64(i))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("record %d: %q, %v; Decompress wrote %q", i, got, err, want)
			}
		}
	})
}

// splitLines returns b's lines, each with its line feed if it has one (a
// last line may not).
func splitLines(b []byte) [][]byte {
	lines := bytes.SplitAfter(b, []byte{'\n'})
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1] // after the last line feed
	}
	return lines
}
