package archive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"github.com/m2m-go/m2m/codec"
	"math/rand/v2"
	"strings"
	"testing"
)

// crcColumn is the CRC-32s of a records block as the writer gathers them.
func crcColumn(crcs ...uint32) []byte {
	var b []byte
	for _, c := range crcs {
		b = binary.LittleEndian.AppendUint32(b, c)
	}
	return b
}

// checkCRCs codes crcs with backs found as the writer finds them (none a
// repeat), reads them back from an index frame that has more after them,
// and returns the coding: the backs, then the CRC-32s of their own.
func checkCRCs(t *testing.T, crcs []byte) []byte {
	t.Helper()
	var table crcTable
	recBacks := make([]uint32, len(crcs)/4)
	for i := range recBacks {
		if j := table.last(i, binary.LittleEndian.Uint32(crcs[4*i:])); j >= 0 {
			recBacks[i] = uint32(i - j)
		}
	}
	backs, own := appendCRCs([]byte("x"), []byte("y"), crcs, recBacks)
	backs, own = backs[1:], own[1:]
	recs := make([]recIndex, len(crcs)/4)
	rest, err := setCRCs(recs, append(backs[:len(backs):len(backs)], "more"...), own)
	if err != nil || string(rest) != "more" {
		t.Fatalf("%x %x: %v, %q left", backs, own, err, rest)
	}
	for i := range recs {
		if want := binary.LittleEndian.Uint32(crcs[4*i:]); recs[i].crc != want {
			t.Fatalf("record %d: CRC-32 %08x, want %08x", i, recs[i].crc, want)
		}
	}
	return append(backs, own...)
}

// TestCRCs: a records block's CRC-32s come back; one that recurs takes a
// byte or two, unless another has taken its slot since; another, five.
func TestCRCs(t *testing.T) {
	if got := checkCRCs(t, nil); len(got) != 0 {
		t.Errorf("no records coded as %x", got)
	}
	// 7 recurs 2 records back, 9 3 back; 7+crcSlots takes 7's slot, so
	// that the last 7 is listed again.
	got := checkCRCs(t, crcColumn(7, 9, 7, 7+crcSlots, 9, 7))
	want := append([]byte{0, 0, 2, 0, 3, 0}, crcColumn(7, 9, 7+crcSlots, 7)...)
	if !bytes.Equal(got, want) {
		t.Errorf("coded %x, want %x", got, want)
	}
	// A log of stream chunks: a few thousand records, a tenth of them new.
	rng := rand.New(rand.NewPCG(1, 2))
	var crcs []uint32
	for i := range 5000 {
		if i < 10 || rng.IntN(10) == 0 {
			crcs = append(crcs, rng.Uint32())
		} else {
			crcs = append(crcs, crcs[len(crcs)-1-rng.IntN(min(len(crcs), 300))])
		}
	}
	if got := checkCRCs(t, crcColumn(crcs...)); len(got) > 5000*2+4*700 {
		t.Errorf("%d records, a tenth new, coded in %d bytes", len(crcs), len(got))
	}
}

// TestCRCsCorrupt: codings no writer makes are refused.
func TestCRCsCorrupt(t *testing.T) {
	for _, c := range []struct {
		n          int
		backs, own []byte
		why        string
	}{
		{1, []byte{1}, nil, "out of range"}, // back past the block's start
		{2, []byte{0, 2}, crcColumn(5), "out of range"},
		{2, []byte{0x80}, nil, "out of range"}, // a uvarint cut short
		{1, []byte{0}, []byte{0, 1, 2}, "bytes of CRC-32s"},
		{1, []byte{0}, []byte{0, 1, 2, 3, 4}, "bytes of CRC-32s"},
		{2, []byte{0, 1}, crcColumn(5, 6), "bytes of CRC-32s"},
	} {
		_, err := setCRCs(make([]recIndex, c.n), c.backs, c.own)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%d records, %x %x: %v, want ErrCorrupt saying %q", c.n, c.backs, c.own, err, c.why)
		}
	}
}

// FuzzCRCs: any bytes as the start of an index frame and a CRC-32s frame
// are read or refused, never panicking; any CRC-32s come back as they
// were coded.
func FuzzCRCs(f *testing.F) {
	f.Add(uint16(3), []byte{0, 0, 2}, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(uint16(0), []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, n uint16, backs, own []byte) {
		if _, err := setCRCs(make([]recIndex, n), backs, own); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("untyped error %v", err)
		}
		checkCRCs(t, own[:len(own)/4*4])
	})
}

// TestRepeats: a record with the bytes of one before it in its batch is a
// repeat, with no length, listing or skeleton of its own; it reads back
// as the record it repeats, whatever its place (the last, with no line
// feed), and counts as it would.
func TestRepeats(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("q", 70) + `"}]}`
	lines := []string{chat, "not json", "", `{"id":"c","choices":[{"delta":{"content":" the"}}]}`}
	var in []byte
	for i := range 400 {
		in = append(in, lines[i%len(lines)]...)
		in = append(in, '\n')
	}
	in = append(in, chat...) // the last, no line feed
	for _, o := range []Options{{}, {Level: LevelMax}, small} {
		packed := roundTrip(t, in, o)
		_, wc := write(t, in, o, 1000)
		r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Contents()
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if c.Records != 401 || c.Schemas[codec.SchemaRequest] != 101 {
			t.Errorf("%+v: %d records, %d requests listed; want 401, 101", o, c.Records, c.Schemas[codec.SchemaRequest])
		}
		// One batch: every record but the first of each line a repeat.
		if c.Repeats != wc.Repeats || o.batch == 0 && c.Repeats != int64(401-len(lines)) || c.Repeats == 0 {
			t.Errorf("%+v: %d repeats found, %d written", o, c.Repeats, wc.Repeats)
		}
		// One batch: each line's skeleton once.
		if sk := c.Streams[StreamSkeletons].Raw; o.batch == 0 && sk > int64(len(chat)+len(lines[1])+len(lines[3])+8) {
			t.Errorf("%+v: skeletons of %d bytes for 4 lines repeated", o, sk)
		}
	}
}

// TestRepeatCorrupt: a repeat that names no record before it, or whose
// flags say what only the record it repeats may, is refused.
func TestRepeatCorrupt(t *testing.T) {
	for _, c := range []struct {
		idx  []byte // backs, flags, then the rest: lengths, no models
		crcs []byte
	}{
		{[]byte{0, flagRepeat, 0}, crcColumn(1)},                       // back 0: itself
		{[]byte{0, 1, 0, flagRepeat | flagKept, 3, 0}, crcColumn(1)},   // kept
		{[]byte{0, 1, 0, flagRepeat | flagListed, 3, 0}, crcColumn(1)}, // listed
		{[]byte{0, 0, 0, flagRepeat, 3, 0}, crcColumn(1, 2)},           // a back of 0 again
	} {
		n := 1
		if len(c.idx) > 3 {
			n = 2
		}
		if _, err := parseIndexOnly(c.idx, c.crcs, n); !errors.Is(err, ErrCorrupt) {
			t.Errorf("index %x: %v, want ErrCorrupt", c.idx, err)
		}
	}
	// The same with the repeat well formed reads.
	recs, err := parseIndexOnly([]byte{0, 1, 0, flagRepeat, 3, 0}, crcColumn(9), 2)
	if err != nil || recs[1].src != 0 || recs[1].length != 3 || recs[1].crc != 9 {
		t.Errorf("%+v, %v", recs, err)
	}
}
