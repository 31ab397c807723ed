package shards

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// readPieces reads data as Compress cuts it into pieces of size bytes, and
// returns each piece's effective range and bytes.
func readPieces(t *testing.T, data []byte, size int64) (starts []int64, got [][]byte) {
	t.Helper()
	for _, p := range pieces("in", int64(len(data)), size, false) {
		r := bytes.NewReader(data)
		r.Seek(p.Start, io.SeekStart)
		pr, err := newPieceReader(r, p.Start, p.End)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(pr)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(b)) != pr.n || crc32.ChecksumIEEE(b) != pr.crc {
			t.Fatalf("piece %d: counted %d bytes of CRC %08x, read %d of %08x", p.Index, pr.n, pr.crc, len(b), crc32.ChecksumIEEE(b))
		}
		starts = append(starts, pr.start)
		got = append(got, b)
	}
	return starts, got
}

// TestPiecesTile checks that pieces cut at line boundaries hold every line
// of a file exactly once, in order, each in the piece its first byte's
// offset falls in (or after), whatever the lines' lengths and the piece
// size.
func TestPiecesTile(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 100 {
		var data []byte
		for range rng.IntN(40) {
			n := rng.IntN(50)
			if rng.IntN(10) == 0 {
				n = rng.IntN(400) // longer than several pieces
			}
			data = append(data, bytes.Repeat([]byte{'x'}, n)...)
			switch rng.IntN(4) {
			case 0:
				data = append(data, '\r', '\n')
			default:
				data = append(data, '\n')
			}
		}
		if rng.IntN(3) == 0 {
			data = append(data, "no line feed"...)
		}
		size := int64(1 + rng.IntN(120))
		starts, got := readPieces(t, data, size)
		if joined := bytes.Join(got, nil); !bytes.Equal(joined, data) {
			t.Fatalf("trial %d (piece size %d): pieces give %q, want %q", trial, size, joined, data)
		}
		at := int64(0)
		for k, b := range got {
			if starts[k] != at {
				t.Fatalf("trial %d: piece %d starts at %d, the one before ends at %d", trial, k, starts[k], at)
			}
			at += int64(len(b))
			if len(b) > 0 && at < int64(len(data)) && b[len(b)-1] != '\n' {
				t.Fatalf("trial %d: piece %d of %d does not end a line: %q", trial, k, len(got), b)
			}
		}
	}
}

func TestPiecesEdges(t *testing.T) {
	for _, c := range []struct {
		data string
		size int64
		want []string
	}{
		{"", 10, []string{""}},
		{"a\n", 10, []string{"a\n"}},
		// A line that starts exactly at a cut belongs to the piece before
		// it, as in Hadoop's and Beam's splittable text reads.
		{"abc\ndef\nghi\n", 4, []string{"abc\ndef\n", "ghi\n", ""}},
		// A line over several pieces: the pieces it crosses are empty.
		{"0123456789\nab\n", 3, []string{"0123456789\n", "", "", "ab\n", ""}},
		{"abc", 1, []string{"abc", "", ""}},
	} {
		_, got := readPieces(t, []byte(c.data), c.size)
		var s []string
		for _, b := range got {
			s = append(s, string(b))
		}
		if fmt.Sprint(s) != fmt.Sprint(c.want) {
			t.Errorf("%q by %d: pieces %q, want %q", c.data, c.size, s, c.want)
		}
	}
}

func TestPiecesWhole(t *testing.T) {
	ps := pieces("gs://b/a.jsonl.gz", 1<<40, 1<<20, true)
	if len(ps) != 1 || !ps[0].Whole || ps[0].Start != 0 || ps[0].End != 1<<40 {
		t.Errorf("a compressed file: %+v, want one whole piece", ps)
	}
	if ps := pieces("a", 1<<30, DefaultPieceSize, false); len(ps) != 4 || ps[3].End != 1<<30 {
		t.Errorf("1 GiB in pieces of 256 MiB: %+v", ps)
	}
}

func TestCompressedMagic(t *testing.T) {
	for head, want := range map[string]bool{
		"\x1f\x8b\x08":     true,
		"\x28\xb5\x2f\xfd": true,
		"\xfd7zXZ\x00":     true,
		"{\"a\":1}":        false,
		"\x1f":             false,
		"":                 false,
	} {
		if got := compressedMagic([]byte(head)); got != want {
			t.Errorf("%q: %v, want %v", head, got, want)
		}
	}
}

func TestShardName(t *testing.T) {
	valid := regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*\.[0-9a-f]{8}\.[0-9]{5,}\.m2m$`)
	names := map[string]string{}
	for _, in := range []string{
		"/data/a.jsonl", "/other/a.jsonl", "gs://b/logs/a.jsonl.gz", "s3://b/a.jsonl.ZST", "/x/.hidden",
		"/x/we ird/ñame\x01.jsonl", "C:\\logs\\day.jsonl", "/x/" + strings.Repeat("long", 50),
	} {
		name := shardName(in, 3)
		if !valid.MatchString(name) || len(name) > 128 {
			t.Errorf("%q: shard name %q", in, name)
		}
		if name != shardName(in, 3) {
			t.Errorf("%q: names differ from run to run", in)
		}
		if other, ok := names[name]; ok {
			t.Errorf("%q and %q: both %q", in, other, name)
		}
		names[name] = in
	}
	if a, b := shardName("/d/a.jsonl", 0), shardName("/d/a.jsonl", 1); a == b {
		t.Errorf("pieces 0 and 1: both %q", a)
	}
	if got := shardName("gs://b/day.jsonl.gz", 0); !strings.HasPrefix(got, "day.jsonl.") {
		t.Errorf("gs://b/day.jsonl.gz: %q, want day.jsonl.*", got)
	}
}
