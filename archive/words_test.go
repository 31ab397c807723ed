package archive

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/m2m-go/m2m/internal/sample"
	"github.com/m2m-go/m2m/varint"
	"github.com/m2m-go/m2m/words"
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
		if _, coder, ok := r.frameDict(f.block); ok && coder&coderWords != 0 && bytes.ContainsAny(s.raw, string(jsonCodes[:29])) {
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
	e := newFrameEncoder(3, 0, &dictEncoders{level: zstdLevel(3)})
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

	// The same frame saying its coded text is empty (FuzzReader's
	// f531a85c82b831a6): refused, where the decoder looped asking for
	// all of no bytes.
	_, k, _ := varint.Uvarint64(f.data)
	f.data = append([]byte{0}, f.data[k:]...)
	done := make(chan error, 1)
	go func() {
		_, _, _, err := d.decodeWords(nil, f, nil, nil, len(raw), false, wordsText{})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("a frame of empty coded text: %v, want ErrCorrupt", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a frame of empty coded text: no answer in 10 s")
	}
}

// TestCodedEnds: the entries of a words frame's coded text are found in it
// where two-byte codes end in the byte markEnd is, escaped code bytes and
// capital flags sit before them, and each expands to the entry alone.
func TestCodedEnds(t *testing.T) {
	var list [][]byte
	for i := range 2800 {
		list = append(list, []byte(fmt.Sprintf("w%c%c%c", 'a'+i%26, 'a'+i/26%26, 'a'+i/676)))
	}
	codes := []byte{0x03, 0x04} // the escape, the capital flag
	for c := byte(0x05); c <= 0x1f; c++ {
		codes = append(codes, c)
	}
	one := len(codes) - 2
	for c := 0xf5; c <= 0xff; c++ {
		codes = append(codes, byte(c))
	}
	table, err := words.New(list, codes, one)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var raw []byte
	var entries [][]byte
	for range 2000 {
		start := len(raw)
		for range rng.IntN(12) {
			switch k := rng.IntN(10); {
			case k < 5: // a word whose two-byte code ends in 0x00, or any
				i := one + 256*rng.IntN(11)
				if k > 2 {
					i = rng.IntN(len(list))
				}
				w := list[min(i, len(list)-1)]
				if rng.IntN(4) == 0 {
					w = append([]byte{'W'}, w[1:]...) // capitalized
				}
				raw = append(raw, w...)
			case k < 7: // a code's byte in the text: escaped
				raw = append(raw, codes[rng.IntN(len(codes))])
			default:
				raw = append(raw, "x1 2,"[rng.IntN(5)])
			}
			raw = append(raw, ' ')
		}
		entries = append(entries, bytes.Clone(raw[start:]))
		raw = append(raw, markEnd)
	}
	coded := table.AppendEncode(nil, raw)
	if bytes.Count(coded, []byte{markEnd}) <= len(entries) {
		t.Fatal("no two-byte code ends in markEnd's byte: the test tests nothing")
	}
	c := &codedEntries{table: table, text: coded, ends: table.AppendSeps(nil, coded, markEnd, 0), rawLen: len(raw)}
	if len(c.ends) != len(entries) {
		t.Fatalf("%d entries found, %d made", len(c.ends), len(entries))
	}
	for i, want := range entries {
		got, err := c.entry(uint32(i))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("entry %d: %q, %v; want %q", i, got, err, want)
		}
	}
}
