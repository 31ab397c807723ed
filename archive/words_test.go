package archive

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/internal/sample"
	"github.com/m2m-go/m2m/varint"
)

// wordsFrames counts the strings frames of packed that are words frames,
// and of those the ones with a table of their own.
func wordsFrames(t *testing.T, packed []byte) (frames, own int) {
	t.Helper()
	for _, b := range blocksOf(t, packed) {
		if b[0] != kindStrings {
			continue
		}
		f, _ := storeFrameOf(t, b)
		if f.coder&coderWords == 0 {
			continue
		}
		frames++
		_, k, _ := varint.Uvarint64(f.data)
		if head, _, _ := varint.Uvarint64(f.data[k:]); head > 0 {
			own++
		}
	}
	return frames, own
}

// TestWords: at the zstd levels strings frames are words frames, the
// first of a segment with the table, the others with their dictionary's;
// they come back whole and record by record, also where their text holds
// the bytes the codes are (escaped), and are smaller for it.
func TestWords(t *testing.T) {
	text := sample.JSONL()
	// Strings with the codes' bytes raw: not JSON, kept by the scanner
	// as values all the same.
	var odd []byte
	for c := range 256 {
		odd = append(odd, byte(c))
	}
	odd = bytes.ReplaceAll(odd, []byte{'"'}, nil)
	odd = bytes.ReplaceAll(odd, []byte{'\\'}, nil)
	odd = bytes.ReplaceAll(odd, []byte{'\n'}, nil)
	for _, c := range []byte{0, 1, 2} {
		odd = bytes.ReplaceAll(odd, []byte{c}, nil)
	}
	in := bytes.Clone(text)
	for i := range 40 {
		in = append(in, `{"text":"the words `+strings.Repeat("and the codes ", i%5)+string(odd)+` here"}`+"\n"...)
	}
	in = append(in, text...)
	for _, o := range []Options{{}, small, {Level: 4}} {
		packed := roundTrip(t, in, o)
		frames, own := wordsFrames(t, packed)
		_, c := write(t, in, o, 1000)
		if frames == 0 || own == 0 || c.Streams[StreamStrings].Words != int64(frames) {
			t.Errorf("level %d, frames of %d: %d words frames, %d with a table; the counts say %d", o.Level, o.storeFrame, frames, own, c.Streams[StreamStrings].Words)
		}
		if o.segment != 0 && own == frames {
			t.Errorf("level %d, frames of %d: every words frame has its own table", o.Level, o.storeFrame)
		}
		if !storedCodes(t, packed) {
			t.Errorf("level %d, frames of %d: no words frame holds the codes' bytes: escapes not tested", o.Level, o.storeFrame)
		}
	}
	plain := func(o Options) int {
		packed, _ := write(t, in, o, 1000)
		return len(packed)
	}
	if with, without := plain(Options{}), plain(Options{noWords: true}); with >= without {
		t.Errorf("%d bytes with words, %d without", with, without)
	}
}

// storedCodes reports whether a words frame of packed holds bytes that
// are codes (jsonCodes).
func storedCodes(t *testing.T, packed []byte) bool {
	t.Helper()
	r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, f := range r.frames[0] {
		s, err := r.store(0, f, 0)
		if err != nil {
			t.Fatal(err)
		}
		if s.words.table != nil && bytes.ContainsAny(s.raw, string(jsonCodes[:29])) {
			return true
		}
	}
	return false
}

// TestWordsStored: a segment's first frame whose coded text does not
// compress is a words frame all the same, for the others to take its
// table; it decodes, whole and in part.
func TestWordsStored(t *testing.T) {
	// Words used often enough between bytes at random, some of them
	// codes (escaped): too short to compress.
	rng := rand.New(rand.NewPCG(1, 2))
	var raw []byte
	for range 8 {
		raw = append(raw, "the"...)
		raw = append(raw, byte(0x80+rng.IntN(0x80)))
		raw = append(raw, "cat"...)
		raw = append(raw, byte(0x80+rng.IntN(0x80)))
	}
	raw = append(raw, markEnd)
	e, err := newFrameEncoder(3, 0, &dictEncoders{level: zstdLevel(3)})
	if err != nil {
		t.Fatal(err)
	}
	sw := &segmentWords{raw: raw}
	packed, err := e.appendWords(nil, raw, StreamStrings, sw, true, -1)
	if err != nil {
		t.Fatal(err)
	}
	if sw.table == nil {
		t.Fatal("no table: nothing tested")
	}
	f, rest, err := parseFrame(packed, 0)
	if err != nil || len(rest) != 0 || f.coder != coderZstd|coderWords {
		t.Fatalf("coder %#x, %d bytes after, %v", f.coder, len(rest), err)
	}
	d, err := newFrameDecoder()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 10, len(raw)} {
		out, own, complete, err := d.decodeWords(nil, f, nil, nil, n, true, wordsText{})
		if err != nil || len(out) < n || !bytes.Equal(out, raw[:len(out)]) || n == len(raw) && !complete || !own.whole || own.table == nil {
			t.Fatalf("%d bytes asked: %d given, complete %v, %v", n, len(out), complete, err)
		}
	}
}
