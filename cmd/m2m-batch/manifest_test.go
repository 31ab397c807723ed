package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/internal/sample"
	"github.com/m2m-go/m2m/internal/sample/gen"
	"github.com/m2m-go/m2m/manifest"
	"github.com/m2m-go/m2m/pipeline"
)

// shardedCorpus writes, in dir, shards of inputs cut at line boundaries
// every cut bytes (as m2m-beam cuts them: a piece runs through the line
// that crosses its end), compressed with o, and their manifest; it returns
// the manifest's path and the inputs concatenated in manifest order.
func shardedCorpus(t *testing.T, dir string, inputs map[string][]byte, cut int, o pipeline.Options) (string, []byte) {
	t.Helper()
	var entries []manifest.Entry
	for name, in := range inputs {
		// boundary is where a piece that nominally starts at off starts.
		boundary := func(off int) int {
			if off == 0 {
				return 0
			}
			if i := bytes.IndexByte(in[min(off, len(in)):], '\n'); i >= 0 {
				return off + i + 1
			}
			return len(in)
		}
		for k := 0; k == 0 || k*cut < len(in); k++ {
			start, end := boundary(k*cut), boundary(min((k+1)*cut, len(in)))
			if (k+1)*cut >= len(in) {
				end = len(in)
			}
			out := fmt.Sprintf("shards/%s.%05d.m2m", name, k)
			var packed bytes.Buffer
			var st pipeline.Stats
			if err := pipeline.Compress(context.Background(), bytes.NewReader(in[start:end]), &packed, o, &st); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, "shards"), 0o755); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, out), packed.Bytes())
			entries = append(entries, manifest.Entry{
				Input: "/data/" + name, Compression: manifest.Plain, Start: int64(start), End: int64(end),
				Records: st.Records.Load(), Lines: st.Lines.Load(), BytesIn: int64(end - start), BytesOut: int64(packed.Len()),
				CRC32: manifest.CRC(crc.Checksum(in[start:end])), Output: out, M2M: "test",
			})
		}
	}
	manifest.Sort(entries)
	var all, text []byte
	for i, e := range entries {
		if i == 0 || entries[i-1].Input != e.Input {
			all = append(all, inputs[strings.TrimPrefix(e.Input, "/data/")]...)
		}
		text = e.AppendLine(text)
	}
	path := filepath.Join(dir, "manifest.jsonl")
	write(t, path, text)
	return path, all
}

func TestManifest(t *testing.T) {
	in := sample.JSONL()
	inputs := map[string][]byte{
		"a.jsonl": in,
		"b.jsonl": []byte("{\"x\":1}\r\n\nnot json\n{\"y\":\"\xff\"}\n" + strings.Repeat("z", 5000) + "\n{\"last\":true}"),
		"c.jsonl": nil,
	}
	key := bytes.Repeat([]byte{9}, 32)
	for name, c := range map[string]struct {
		o    pipeline.Options
		args []string
	}{
		"records": {pipeline.Options{}, nil},
		"archive": {pipeline.Options{Archive: true}, nil},
		"sealed":  {pipeline.Options{Security: codec.SecurityHMAC, Key: key}, []string{"--security", "hmac", "--key-file", "key"}},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "key"), key)
			// 300 KiB pieces: a.jsonl in 4, b.jsonl's long line alone
			// in a piece that holds no line start (an empty shard).
			m, all := shardedCorpus(t, dir, inputs, 300<<10, c.o)
			entries, err := manifest.Read(bytes.NewReader(read(t, m)))
			if err != nil || len(entries) < 6 {
				t.Fatalf("%d entries, %v", len(entries), err)
			}
			ix := manifest.NewIndex(entries)
			total := ix.Records()

			r := ok(t, dir, nil, append(c.args, "-l", "manifest.jsonl")...)
			if want := fmt.Sprintf("%d shards of 3 inputs", len(entries)); !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, fmt.Sprintf("%d records", total)) {
				t.Errorf("-l: want %q and %d records:\n%s", want, total, r.stdout)
			}
			r = ok(t, dir, nil, append(c.args, "-t", "manifest.jsonl")...)
			if !strings.Contains(r.stderr, "OK") {
				t.Errorf("-t: %s", r.stderr)
			}
			// Every record, across the shards, is the inputs in order.
			r = ok(t, dir, nil, append(c.args, "--record", "0-"+strconv.FormatInt(total-1, 10), "manifest.jsonl")...)
			if r.stdout != string(all) {
				t.Errorf("--record 0-%d: %d bytes, differ from the %d of the inputs", total-1, len(r.stdout), len(all))
			}
			// One record from the middle of a later shard, then the first.
			s, _, _ := ix.Locate(total - 3)
			mid := total - 3
			r = ok(t, dir, nil, append(c.args, "--record", fmt.Sprintf("%d,0", mid), "manifest.jsonl")...)
			lines := strings.SplitAfter(string(all), "\n")
			if want := lines[mid] + lines[0]; r.stdout != want {
				t.Errorf("--record %d,0 (shard %d): %q, want %q", mid, s, r.stdout, want)
			}
			if msg := fails(t, dir, 1, nil, append(c.args, "--record", strconv.FormatInt(total, 10), "manifest.jsonl")...); !strings.Contains(msg, "hold") {
				t.Errorf("--record past the end: %s", msg)
			}
			if msg := fails(t, dir, 1, nil, "-d", "-c", "manifest.jsonl"); !strings.Contains(msg, "m2m-beam decompress") {
				t.Errorf("-d: %s", msg)
			}
		})
	}
}

// TestManifestDamage changes the manifest or its shards: -t finds each.
func TestManifestDamage(t *testing.T) {
	inputs := map[string][]byte{"a.jsonl": sample.JSONL(), "b.jsonl": gen.Generate(7, 40)}
	for name, damage := range map[string]func(t *testing.T, dir string, entries []manifest.Entry) []manifest.Entry{
		"crc": func(t *testing.T, dir string, e []manifest.Entry) []manifest.Entry {
			e[1].CRC32 ^= 1
			return e
		},
		"records": func(t *testing.T, dir string, e []manifest.Entry) []manifest.Entry {
			e[0].Records++
			e[0].Lines++
			return e
		},
		"swapped": func(t *testing.T, dir string, e []manifest.Entry) []manifest.Entry {
			// Two shards of the same size would pass every count; their
			// CRCs tell them apart.
			e[0].Output, e[1].Output = e[1].Output, e[0].Output
			e[0].BytesOut, e[1].BytesOut = e[1].BytesOut, e[0].BytesOut
			e[0].Records, e[1].Records = e[1].Records, e[0].Records
			e[0].Lines, e[1].Lines = e[1].Lines, e[0].Lines
			return e
		},
		"gap": func(t *testing.T, dir string, e []manifest.Entry) []manifest.Entry {
			return append(e[:1], e[2:]...)
		},
		"flipped": func(t *testing.T, dir string, e []manifest.Entry) []manifest.Entry {
			p := filepath.Join(dir, e[2].Output)
			b := read(t, p)
			b[len(b)/2] ^= 0x10
			write(t, p, b)
			return e
		},
		"missing": func(t *testing.T, dir string, e []manifest.Entry) []manifest.Entry {
			if err := os.Remove(filepath.Join(dir, e[2].Output)); err != nil {
				t.Fatal(err)
			}
			return e
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			m, _ := shardedCorpus(t, dir, inputs, 400<<10, pipeline.Options{})
			entries, err := manifest.Read(bytes.NewReader(read(t, m)))
			if err != nil {
				t.Fatal(err)
			}
			var text []byte
			for _, e := range damage(t, dir, entries) {
				text = e.AppendLine(text)
			}
			write(t, m, text)
			msg := fails(t, dir, 1, nil, "-t", "manifest.jsonl")
			if !strings.Contains(msg, "manifest.jsonl") {
				t.Errorf("-t: %s", msg)
			}
			t.Log(strings.TrimSpace(msg))
		})
	}
}
