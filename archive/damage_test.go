package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/internal/sample"
	"github.com/m2m-go/m2m/varint"
)

// readAll reads an archive every way there is, and returns what Decode
// wrote, or the first error.
func readAll(packed []byte) ([]byte, error) {
	// Records by number first, from a Reader of their own: frames decoded
	// only as far as they need, not whole as Decode leaves them.
	r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
	if err != nil {
		return nil, err
	}
	var rec []byte
	for n := range min(r.Records(), 50) {
		if rec, err = r.AppendRecord(rec[:0], r.Records()-1-n); err != nil {
			return nil, err
		}
	}
	r.Close()
	if r, err = NewReader(bytes.NewReader(packed), int64(len(packed))); err != nil {
		return nil, err
	}
	defer r.Close()
	if _, err := r.Contents(); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if _, err := r.Decode(context.Background(), &out, DecodeOptions{Workers: 2, Check: true}); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// smallArchive is an archive of part of the sample, in small units, so
// that it has every kind of block and frame.
func smallArchive(t testing.TB) (in, packed []byte) {
	in = sample.JSONL()[:60000]
	in = in[:bytes.LastIndexByte(in, '\n')+1]
	in = append(in, "not json\n\x01 marker\n"...)
	packed, _ = write(t, in, Options{batch: 6 << 10, storeFrame: 6 << 10, segment: 2}, 4096)
	return in, packed
}

// TestDamage: a flipped byte anywhere, or a file cut anywhere, is an error
// (or, where the byte does not matter, the same output); never a panic.
func TestDamage(t *testing.T) {
	in, packed := smallArchive(t)
	if got, err := readAll(packed); err != nil || !bytes.Equal(got, in) {
		t.Fatalf("the undamaged archive: %v", err)
	}
	step := 1
	if testing.Short() {
		step = 7
	}
	for i := 0; i < len(packed); i += step {
		bad := bytes.Clone(packed)
		bad[i] ^= 0x21
		if got, err := readAll(bad); err == nil && !bytes.Equal(got, in) {
			t.Fatalf("byte %d flipped: no error, and different output", i)
		}
		if _, err := readAll(packed[:i]); err == nil {
			t.Fatalf("cut at %d of %d: no error", i, len(packed))
		}
	}
}

// blocksOf returns the bodies of the blocks of an archive.
func blocksOf(t testing.TB, packed []byte) [][]byte {
	ix, err := container.OpenIndex(bytes.NewReader(packed), int64(len(packed)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var bodies [][]byte
	for b := range ix.Blocks() {
		blk, err := ix.Block(b)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, blk.Body)
	}
	return bodies
}

// frameBodies writes block bodies as a container of archive blocks with
// their checksums right: what a fuzzer changes is what the archive code
// reads. A records block gets the record count its body says.
func frameBodies(bodies [][]byte) []byte {
	var out bytes.Buffer
	cw, _ := container.NewWriter(&out, nil)
	for _, b := range bodies {
		n := uint64(0)
		if len(b) > 0 && b[0] == kindRecords {
			n, _, _ = varint.Uvarint64(b[1:])
			n = min(n, 1<<20)
		}
		cw.Write(container.AppendBlock(nil, container.TypeArchive, int(n), b), container.Counts{Records: int(n), Lines: int(n)})
	}
	cw.Close()
	return out.Bytes()
}

// joinBodies and splitBodies turn a list of block bodies into one byte
// string and back, for the fuzzer: uvarint length, then the body.
func joinBodies(bodies [][]byte) []byte {
	var out []byte
	for _, b := range bodies {
		out = append(varint.AppendUvarint64(out, uint64(len(b))), b...)
	}
	return out
}

func splitBodies(p []byte) [][]byte {
	var bodies [][]byte
	for len(p) > 0 {
		n, k, err := varint.Uvarint64(p)
		if err != nil || n > uint64(len(p)-k) {
			bodies = append(bodies, p)
			break
		}
		bodies = append(bodies, p[k:k+int(n)])
		p = p[k+int(n):]
	}
	return bodies
}

// TestEndsMoved: an item counted in the step after its own (the frame's
// ends still summing to its items) is an error whichever way the frame is
// read: whole, or as far as a record needs.
func TestEndsMoved(t *testing.T) {
	in := sample.JSONL()
	packed, _ := write(t, in, Options{}, 1<<20)
	bodies := blocksOf(t, packed)
	moved := 0
	for i, body := range bodies {
		if body[0] != kindStrings {
			continue
		}
		f, ends := storeFrameOf(t, body)
		steps, n, _ := varint.Uvarint64(ends)
		if steps < 2 {
			t.Fatalf("a strings frame of %d bytes, %d steps: too few to move an item", f.rawLen, steps)
		}
		counts := make([]uint64, steps)
		rest := ends[n:]
		for k := range counts {
			counts[k], n, _ = varint.Uvarint64(rest)
			rest = rest[n:]
		}
		k := 0
		for counts[k] == 0 {
			k++
		}
		counts[k]--
		counts[k+1]++
		out := append([]byte(nil), body[:len(body)-len(ends)]...)
		out = varint.AppendUvarint64(out, steps)
		for _, c := range counts {
			out = varint.AppendUvarint64(out, c)
		}
		bodies[i] = out
		moved++
	}
	if moved == 0 {
		t.Fatal("no strings frame")
	}
	damaged := frameBodies(bodies)
	r, err := NewReader(bytes.NewReader(damaged), int64(len(damaged)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Decode(context.Background(), io.Discard, DecodeOptions{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Decode: %v, want ErrCorrupt", err)
	}
	// Some record by number reads the moved item's step.
	r, _ = NewReader(bytes.NewReader(damaged), int64(len(damaged)))
	var rec []byte
	failed := false
	for n := range r.Records() {
		if rec, err = r.AppendRecord(rec[:0], n); errors.Is(err, ErrCorrupt) {
			failed = true
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if !failed {
		t.Error("every record read by number, no error")
	}
}

// TestVersion: an archive of another layout is refused, saying which.
func TestVersion(t *testing.T) {
	packed, _ := write(t, []byte(nasty["repeats"]), Options{}, 1000)
	bodies := blocksOf(t, packed)
	dir := bodies[len(bodies)-1]
	if dir[0] != kindDirectory || dir[1] != Version {
		t.Fatalf("directory %q: not version %d", dir[:2], Version)
	}
	dir[1] = Version + 1
	other := frameBodies(bodies)
	_, err := NewReader(bytes.NewReader(other), int64(len(other)))
	if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), fmt.Sprint("version ", Version+1)) {
		t.Fatalf("%v, want ErrVersion naming version %d", err, Version+1)
	}
}

// FuzzReader reads archives whose block bodies are anything, in valid
// containers: no panic, no hang, and every record that reads back is
// checked against its CRC-32 by the Reader itself. ppm frames decoded
// whole hand on what they decode every 64 bytes here (growingFrames).
func FuzzReader(f *testing.F) {
	defer func(n int) { prefixStep = n }(prefixStep)
	prefixStep = 64
	_, packed := smallArchive(f)
	f.Add(joinBodies(blocksOf(f, packed)))
	tiny, _ := write(f, []byte(nasty["repeats"]), Options{batch: 256, storeFrame: 200, segment: 2}, 100)
	f.Add(joinBodies(blocksOf(f, tiny)))
	max, _ := write(f, []byte(nasty["repeats"]), Options{batch: 256, storeFrame: 200, segment: 2, Level: LevelMax, ModelMemory: 1}, 100)
	f.Add(joinBodies(blocksOf(f, max)))
	nums, _ := write(f, []byte(nasty["numbers"]), Options{batch: 4096, storeFrame: 2048, segment: 2}, 1000)
	f.Add(joinBodies(blocksOf(f, nums)))
	// Strings of JSON text, as templates.
	inner, _ := write(f, []byte(nasty["inner json"]), Options{batch: 512, storeFrame: 256, segment: 2}, 100)
	f.Add(joinBodies(blocksOf(f, inner)))
	// A store frame with an image's bytes taken out of its base64.
	image, _ := write(f, []byte(nasty["image"]+nasty["image"]), Options{batch: 512, storeFrame: 1024, segment: 2}, 100)
	f.Add(joinBodies(blocksOf(f, image)))
	// Lines joined: their templates ended by 0x00, their line feeds
	// counted in the index.
	joined, _ := write(f, []byte(nasty["jq"]+nasty["indented array"]), Options{batch: 512, storeFrame: 256, segment: 2}, 100)
	f.Add(joinBodies(blocksOf(f, joined)))
	// Words frames, with a table and with their dictionary's.
	var lines []byte
	for i := range 40 {
		lines = fmt.Appendf(lines, `{"text":"the words and the codes, and The Words %d %s"}`+"\n", i, strings.Repeat("again and again ", 5))
	}
	words, _ := write(f, lines, Options{batch: 2048, storeFrame: 1024, segment: 3}, 1000)
	f.Add(joinBodies(blocksOf(f, words)))
	// Plain copies of dictionaries: stored, and coded (LevelMax).
	for _, level := range []int{0, LevelMax} {
		plain, _ := write(f, sample.JSONL()[:20000], Options{batch: 2048, storeFrame: 1024, segment: 2, Level: level, ModelMemory: 1}, 1000)
		f.Add(joinBodies(blocksOf(f, plain)))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		bodies := splitBodies(p)
		readAll(frameBodies(bodies))
		// Its directory lost, as with a cut archive's end: listed from
		// the blocks' heads (Recover).
		if len(bodies) > 0 {
			recoverAll(frameBodies(bodies[:len(bodies)-1]))
		}
	})
}

// recoverAll reads what Recover makes of packed: every record by Decode,
// and the first records by number. It returns Decode's error.
func recoverAll(packed []byte) error {
	r, err := Recover(bytes.NewReader(packed), int64(len(packed)))
	if err != nil {
		return err
	}
	defer r.Close()
	c, err := r.Decode(context.Background(), io.Discard, DecodeOptions{Workers: 2})
	var rec []byte
	for n := range min(c.Records, 20) {
		rec, _ = r.AppendRecord(rec[:0], n)
	}
	return err
}

// TestWriterErrors: a Writer whose output fails reports the failure.
func TestWriterErrors(t *testing.T) {
	w, err := NewWriter(context.Background(), &failAfter{n: 2000}, Options{batch: 1024})
	if err != nil {
		t.Fatal(err)
	}
	_, werr := w.Write(sample.JSONL())
	cerr := w.Close()
	if werr == nil && cerr == nil {
		t.Fatal("no error from a failing writer")
	}
	// A cancelled context stops the work.
	ctx, cancel := context.WithCancel(context.Background())
	w, _ = NewWriter(ctx, io.Discard, Options{batch: 1024})
	cancel()
	w.Write(sample.JSONL())
	if err := w.Close(); err == nil {
		t.Fatal("no error after cancel")
	}
}

// failAfter fails once n bytes have been written.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, io.ErrShortWrite
	}
	f.n -= len(p)
	return len(p), nil
}

// TestForgedListing: a model changed in an index, with every checksum
// right, reads back without Check and is an ErrListing with it.
func TestForgedListing(t *testing.T) {
	in := sample.JSONL()[:20000]
	in = in[:bytes.LastIndexByte(in, '\n')+1]
	packed, _ := write(t, in, Options{}, 4096)
	bodies := blocksOf(t, packed)
	// The records block comes first: it refers to frames still open.
	idx, forge := recordsIndex(t, bodies[0])
	at := bytes.Index(idx, []byte("gpt-"))
	if at < 0 {
		t.Fatal("no model in the index")
	}
	idx[at] = 'X'
	bodies[0] = forge(idx)
	bad := frameBodies(bodies)
	r, err := NewReader(bytes.NewReader(bad), int64(len(bad)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := r.Decode(context.Background(), &out, DecodeOptions{}); err != nil || !bytes.Equal(out.Bytes(), in) {
		t.Fatalf("without Check: %v", err)
	}
	if _, err := r.Decode(context.Background(), io.Discard, DecodeOptions{Check: true}); !errors.Is(err, ErrListing) || !strings.Contains(err.Error(), "Xpt-") {
		t.Fatalf("with Check: %v", err)
	}
}

// recordsIndex returns the raw bytes of the index frame of rb, a records
// block's body, and forge, which returns rb with an index of other raw
// bytes in its place (a stored frame), its CRC-32s and skeletons as they
// were: an index forged with every checksum right.
func recordsIndex(t *testing.T, rb []byte) (idx []byte, forge func(idx []byte) []byte) {
	t.Helper()
	if rb[0] != kindRecords {
		t.Fatalf("a %q block, not records", rb[0])
	}
	n, k, _ := varint.Uvarint64(rb[1:])
	_, idxAt, err := parseFrame(rb[1+k:], 0)
	if err != nil {
		t.Fatal(err)
	}
	crcs := rb[1+k : len(rb)-len(idxAt)]
	idxF, rest, err := parseFrame(idxAt, 0)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := newFrameDecoder()
	if idx, err = d.decode(nil, idxF, nil); err != nil {
		t.Fatal(err)
	}
	return idx, func(idx []byte) []byte {
		b := append(append([]byte{kindRecords}, varint.AppendUvarint64(nil, n)...), crcs...)
		b = appendFrameHeader(b, coderStored, -1, len(idx), len(idx))
		return append(append(b, idx...), rest...)
	}
}

// TestForgedFeeds: the line feeds an index says lines joined hold,
// changed with every checksum right, are ErrCorrupt: none, or one more
// than the record holds.
func TestForgedFeeds(t *testing.T) {
	in := []byte(strings.Repeat("{\n  \"a\": [\n    \"x\"\n  ]\n}\n", 3))
	packed, _ := write(t, in, Options{}, 4096)
	bodies := blocksOf(t, packed)
	rb := bodies[0]
	idx, forge := recordsIndex(t, rb)
	n, _, _ := varint.Uvarint64(rb[1:])
	// The backs, then the flags, then the first record's length and line
	// feeds (4).
	at := 0
	for range n {
		_, k, _ := varint.Uvarint64(idx[at:])
		at += k
	}
	if idx[at]&flagLines == 0 || idx[at+int(n)+1] != 4 {
		t.Fatalf("index %q: the first record not of lines joined, 4 line feeds", idx)
	}
	for _, feeds := range []byte{0, 5} {
		forgedIdx := bytes.Clone(idx)
		forgedIdx[at+int(n)+1] = feeds
		bodies[0] = forge(forgedIdx)
		if _, err := readAll(frameBodies(bodies)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "line feeds") {
			t.Errorf("%d line feeds: %v", feeds, err)
		}
	}
}

// TestPlainCopies: a strings segment of half the full number of frames or
// more, most compressed against its dictionary, has a plain copy of it
// (at LevelMax, of the ppmDict bytes its frames take), which a read by
// number takes for the dictionary (not decoding its frame) and Decode
// checks against the frame; a copy that is not what its frame decodes to
// is an error both ways, never a record.
func TestPlainCopies(t *testing.T) {
	defer func(n int) { ppmDict = n }(ppmDict)
	ppmDict = 3000 // of frames of 8 KiB
	in := sample.JSONL()
	want := split(in)
	for _, o := range []Options{{}, {noWords: true}, {Level: LevelMax, ModelMemory: 1}} {
		t.Run(fmt.Sprintf("noWords=%v/level=%d", o.noWords, o.level()), func(t *testing.T) {
			in, want := in, want
			if o.Level == LevelMax {
				in = in[:400000] // a context model's pace
				want = split(in)
			}
			o.batch, o.storeFrame, o.segment = 4<<10, 8<<10, 4
			packed, counts := write(t, in, o, 1<<20)
			r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
			if err != nil {
				t.Fatal(err)
			}
			fs := r.frames[0]
			copies := 0
			for i := 0; i < len(fs); i += 4 {
				if has, should := fs[i].plain != 0, len(fs)-i >= 2; has != should {
					t.Fatalf("segment of %d frames from block %d: copy %v", min(len(fs)-i, 4), fs[i].block, has)
				}
				if fs[i].plain != 0 {
					copies++
				}
			}
			if copies < 2 || counts.Streams[StreamDicts].Frames != int64(copies) {
				t.Fatalf("%d copies, %d counted: too few to test", copies, counts.Streams[StreamDicts].Frames)
			}
			var rec []byte
			// Last first: a segment's other frames are read before its
			// first, which, once read, is its dictionary at hand.
			for n := r.Records() - 1; n >= 0; n-- {
				if rec, err = r.AppendRecord(rec[:0], n); err != nil || string(rec) != want[n] {
					t.Fatalf("record %d: %v", n, err)
				}
			}
			for _, f := range fs {
				if _, ok := r.cache.peek(dictKey(f.block)); ok && f.plain != 0 {
					t.Fatalf("dictionary block %d decoded, with a plain copy", f.block)
				}
				if _, ok := r.cache.peek(f.plain); f.plain != 0 && !ok {
					t.Fatalf("the plain copy of block %d not read", f.block)
				}
			}
			if err := r.checkPlain(fs[0]); err != nil {
				t.Fatalf("checkPlain: %v", err)
			}
			r.Close()
			if got, err := readAll(packed); err != nil || !bytes.Equal(got, in) {
				t.Fatalf("readAll: %v", err)
			}

			// A copy's text turned by a byte: every read of a record
			// through it fails, and Decode finds it whatever it reads.
			bodies := blocksOf(t, packed)
			_, _, fr, _ := parsePlain(bodies[fs[0].plain], fs[0].plain)
			text := fr.data
			copy(text, append(text[1:len(text):len(text)], text[0]))
			bad := frameBodies(bodies)
			r, err = NewReader(bytes.NewReader(bad), int64(len(bad)))
			if err != nil {
				t.Fatal(err)
			}
			failed := 0
			for n := r.Records() - 1; n >= 0; n-- {
				rec, err = r.AppendRecord(rec[:0], n)
				if err == nil && string(rec) != want[n] {
					t.Fatalf("record %d: wrong, and no error", n)
				}
				if errors.Is(err, ErrCorrupt) {
					failed++
				}
			}
			if failed == 0 {
				t.Error("every record read by number through the bad copy")
			}
			r.Close()
			r, _ = NewReader(bytes.NewReader(bad), int64(len(bad)))
			if err := r.checkPlain(fs[0]); !errors.Is(err, ErrCorrupt) {
				t.Errorf("checkPlain: %v, want ErrCorrupt", err)
			}
			if _, err := r.Decode(context.Background(), io.Discard, DecodeOptions{}); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Decode: %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestRecover cuts an archive at every fifth byte (every seventeenth with
// -short) and at its end, and damages each of its blocks in turn: Recover opens what is left,
// Decode writes a prefix of the input, never fewer records for a longer
// cut, all of them once the directory is whole, each record read by
// number the same, and fails with an error that wraps the cut's.
func TestRecover(t *testing.T) {
	in, packed := smallArchive(t)
	whole, err := container.OpenIndex(bytes.NewReader(packed), int64(len(packed)), nil)
	if err != nil {
		t.Fatal(err)
	}
	lastBlock := whole.Blocks() - 1
	blk, err := whole.Block(lastBlock)
	if err != nil {
		t.Fatal(err)
	}
	dirDone := blk.Offset + whole.BlockLen(lastBlock) // the directory whole from here on
	salvage := func(what string, f []byte, want error) int64 {
		t.Helper()
		r, err := Recover(bytes.NewReader(f), int64(len(f)))
		if err != nil {
			if len(f) < 12 || errors.Is(err, container.ErrFormat) && len(f) < 64 {
				return 0 // not even a whole header
			}
			t.Fatalf("%s: %v", what, err)
		}
		defer r.Close()
		var out bytes.Buffer
		c, err := r.Decode(context.Background(), &out, DecodeOptions{Workers: 2, Check: true})
		if !errors.Is(err, want) || !errors.Is(err, r.Cut()) {
			t.Fatalf("%s: Decode: %v, want an error wrapping %v", what, err, want)
		}
		if !bytes.HasPrefix(in, out.Bytes()) {
			t.Fatalf("%s: %d records written, not the input's first", what, c.Records)
		}
		var rec, all []byte
		for n := range c.Records {
			if rec, err = r.AppendRecord(rec[:0], n); err != nil {
				t.Fatalf("%s: record %d of %d recovered: %v", what, n, c.Records, err)
			}
			all = append(all, rec...)
		}
		if !bytes.Equal(all, out.Bytes()) {
			t.Fatalf("%s: records read by number differ from Decode's", what)
		}
		return c.Records
	}
	step := 5 // a cut is slower to read than TestDamage's: every block is read
	if testing.Short() {
		step = 17
	}
	var cuts []int
	for n := 0; n < len(packed); n += step {
		cuts = append(cuts, n)
	}
	var last int64
	partial := false
	for _, n := range append(cuts, len(packed)) {
		got := salvage(fmt.Sprintf("cut at %d of %d", n, len(packed)), packed[:n], container.ErrTruncated)
		if got < last {
			t.Fatalf("cut at %d: %d records recovered, %d from a shorter cut", n, got, last)
		}
		if int64(n) >= dirDone && got != whole.Records {
			t.Fatalf("cut at %d, past the directory: %d records of %d recovered", n, got, whole.Records)
		}
		partial = partial || got > 0 && got < whole.Records
		last = got
	}
	if !partial {
		t.Error("no cut gave back some of the records and not all")
	}
	if last != whole.Records {
		t.Fatalf("the whole archive: %d records of %d recovered", last, whole.Records)
	}
	for b := range whole.Blocks() {
		f := bytes.Clone(packed)
		blk, err := whole.Block(b)
		if err != nil {
			t.Fatal(err)
		}
		f[blk.Offset+whole.BlockLen(b)-1] ^= 0x10 // in its CRC
		salvage(fmt.Sprintf("block %d damaged", b), f, container.ErrCorrupt)
	}
}
