package manifest

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func sample() []Entry {
	return []Entry{
		{Input: "/in/a.jsonl", Compression: Plain, Start: 0, End: 100, Records: 3, Lines: 3, BytesIn: 100, BytesOut: 40, CRC32: 0xdeadbeef, Output: "shards/a.00000.m2m", M2M: "devel"},
		{Input: "/in/a.jsonl", Compression: Plain, Start: 100, End: 100, Output: "shards/a.00001.m2m", M2M: "devel"},
		{Input: "/in/a.jsonl", Compression: Plain, Start: 100, End: 250, Records: 5, Lines: 4, Raw: 2, BytesIn: 150, BytesOut: 60, CRC32: 1, Output: "shards/a.00002.m2m", M2M: "devel"},
		{Input: "gs://b/c.jsonl.gz", Compression: Gzip, Start: 0, End: 30, Records: 2, Lines: 2, BytesIn: 90, BytesOut: 35, Output: "shards/c.00000.m2m", M2M: "devel"},
	}
}

func TestRoundTrip(t *testing.T) {
	var buf []byte
	for _, e := range sample() {
		buf = e.AppendLine(buf)
	}
	if !IsManifest(buf) {
		t.Fatal("IsManifest is false on a manifest")
	}
	if !strings.Contains(string(buf), `"crc32":"deadbeef"`) {
		t.Errorf("crc32 not in hex: %s", buf)
	}
	got, err := Read(bytes.NewReader(buf))
	if err != nil {
		t.Fatal(err)
	}
	want := sample()
	for i := range want {
		want[i].Manifest = Version
		if got[i] != want[i] {
			t.Errorf("entry %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if err := Check(got); err != nil {
		t.Error(err)
	}
	// Without its last line feed, and with keys this reader does not know.
	extra := bytes.Replace(buf[:len(buf)-1], []byte(`"m2m":"devel"}`), []byte(`"m2m":"devel","later":[1,2]}`), 1)
	if got, err := Read(bytes.NewReader(extra)); err != nil || len(got) != len(want) {
		t.Errorf("unknown keys, no last line feed: %d entries, %v", len(got), err)
	}
	tot := Sum(got)
	if tot.Shards != 4 || tot.Inputs != 2 || tot.Records != 10 || tot.Lines != 9 || tot.BytesIn != 340 || tot.BytesOut != 135 || tot.Raw != 2 {
		t.Errorf("totals %+v", tot)
	}
}

func TestReadRefuses(t *testing.T) {
	good := string(sample()[0].AppendLine(nil))
	for name, text := range map[string]string{
		"not a manifest": "{\"input\":\"x\"}\n",
		"version 2":      strings.Replace(good, `"m2m_manifest":1`, `"m2m_manifest":2`, 1),
		"bad crc":        strings.Replace(good, `"deadbeef"`, `"deadbee"`, 1),
		"bad range":      strings.Replace(good, `"end":100`, `"end":99`, 1),
		"no output":      strings.Replace(good, `"output":"shards/a.00000.m2m"`, `"output":""`, 1),
		"compression":    strings.Replace(good, `"plain"`, `"xz"`, 1),
		"lines>records":  strings.Replace(good, `"lines":3`, `"lines":4`, 1),
		"not JSON":       good + "{\"m2m_manifest\":1,\n",
		"blank line":     good + "\n" + good,
	} {
		if _, err := Read(strings.NewReader(text)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
}

func TestCheck(t *testing.T) {
	for name, edit := range map[string]func([]Entry) []Entry{
		"gap":           func(e []Entry) []Entry { e[2].Start, e[2].End = 101, 251; return e },
		"not at 0":      func(e []Entry) []Entry { return e[1:] },
		"apart":         func(e []Entry) []Entry { return append(e, e[0]) },
		"output twice":  func(e []Entry) []Entry { e[3].Output = e[0].Output; return e },
		"gzip in two":   func(e []Entry) []Entry { f := e[3]; f.Start, f.Output = 30, "x"; return append(e, f) },
		"one input out": func(e []Entry) []Entry { e[1], e[3] = e[3], e[1]; return e },
	} {
		if err := Check(edit(sample())); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
}

func TestSort(t *testing.T) {
	e := sample()
	// A second empty shard at offset 100, which sorts by its output.
	empty := e[1]
	empty.Output = "shards/a.00000a.m2m"
	e = append(e[:1], append([]Entry{empty}, e[1:]...)...)
	for _, order := range [][]int{{4, 3, 0, 1, 2}, {4, 3, 0, 2, 1}, {2, 1, 0, 3, 4}} {
		shuffled := make([]Entry, len(order))
		for i, k := range order {
			shuffled[i] = e[k]
		}
		Sort(shuffled)
		for i := range e {
			if shuffled[i] != e[i] {
				t.Fatalf("order %v: entry %d: %s at %d (%s)", order, i, shuffled[i].Input, shuffled[i].Start, shuffled[i].Output)
			}
		}
	}
}

func TestIndex(t *testing.T) {
	ix := NewIndex(sample())
	if ix.Records() != 10 {
		t.Fatalf("%d records", ix.Records())
	}
	want := []struct {
		shard int
		rec   int64
	}{{0, 0}, {0, 1}, {0, 2}, {2, 0}, {2, 1}, {2, 2}, {2, 3}, {2, 4}, {3, 0}, {3, 1}}
	for n, w := range want {
		s, r, err := ix.Locate(int64(n))
		if err != nil || s != w.shard || r != w.rec {
			t.Errorf("record %d: shard %d record %d, %v; want %d, %d", n, s, r, err, w.shard, w.rec)
		}
	}
	for _, n := range []int64{-1, 10} {
		if _, _, err := ix.Locate(n); err == nil {
			t.Errorf("record %d found", n)
		}
	}
}

func TestResolve(t *testing.T) {
	for _, c := range []struct{ m, out, want string }{
		{"out/manifest.jsonl", "shards/a.m2m", filepath.Join("out", "shards", "a.m2m")},
		{"manifest.jsonl", "shards/a.m2m", filepath.Join("shards", "a.m2m")},
		{"/x/manifest.jsonl", "/y/a.m2m", "/y/a.m2m"},
		{"gs://b/run/manifest.jsonl", "shards/a.m2m", "gs://b/run/shards/a.m2m"},
		{"gs://b/run/manifest.jsonl", "s3://c/a.m2m", "s3://c/a.m2m"},
	} {
		if got := Resolve(c.m, c.out); got != c.want {
			t.Errorf("Resolve(%q, %q) = %q, want %q", c.m, c.out, got, c.want)
		}
	}
}
