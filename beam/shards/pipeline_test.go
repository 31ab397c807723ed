package shards

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/klauspost/compress/zstd"

	"github.com/m2m-go/m2m/internal/sample"
	"github.com/m2m-go/m2m/manifest"
)

// The tests below run real pipelines on Prism, in this process, with a
// temporary directory of their own: the Beam SDK leaves a file there at
// every run (apache/beam#27569).
func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "m2m-beam-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("TMPDIR", tmp)
	code := ptest.MainRet(m)
	os.RemoveAll(tmp)
	os.Exit(code)
}

// run runs the pipeline build makes, and returns its counters.
func run(t *testing.T, build func(s beam.Scope)) (map[string]int64, error) {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	build(s)
	res, err := ptest.RunWithMetrics(p)
	if err != nil {
		return nil, err
	}
	c := map[string]int64{}
	for _, r := range res.Metrics().AllMetrics().Counters() {
		if r.Key.Namespace == Namespace {
			c[r.Key.Name] += r.Result()
		}
	}
	return c, nil
}

// corpus writes the test's inputs under dir/in, and returns each input's
// path and the JSONL it holds (decompressed).
func corpus(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	js := sample.JSONL()
	odd := []byte("{\"x\":1}\r\n\nnot json\n{\"y\":\"\xff\"}\n" + strings.Repeat("z", 300_000) + "\n{\"a\":[1,2]}\n{\"last\":true}")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(js[:400_000])
	zw.Close()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	zs := enc.EncodeAll(js[200_000:500_000], nil)
	files := map[string]struct{ stored, jsonl []byte }{
		"x/a.jsonl":     {js, js}, // several pieces
		"x/c.jsonl.gz":  {gz.Bytes(), js[:400_000]},
		"x/d.jsonl.zst": {zs, js[200_000:500_000]},
		"x/e.jsonl":     {nil, nil},
		"y/a.jsonl":     {odd, odd}, // a line over several pieces, no last line feed
	}
	inputs := map[string][]byte{}
	for name, f := range files {
		p := filepath.Join(dir, "in", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.stored, 0o644); err != nil {
			t.Fatal(err)
		}
		inputs[p] = f.jsonl
	}
	return inputs
}

// lines counts lines as the manifest does: a last line without line feed
// is one.
func lines(b []byte) int64 {
	n := int64(bytes.Count(b, []byte{'\n'}))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// shardFiles lists what is in dir/shards.
func shardFiles(t *testing.T, out string) map[string][]byte {
	t.Helper()
	des, err := os.ReadDir(filepath.Join(out, ShardDir))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, de := range des {
		b, err := os.ReadFile(filepath.Join(out, ShardDir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[de.Name()] = b
	}
	return files
}

// checkRestored checks that every input was restored under dir byte for
// byte, as the JSONL it held.
func checkRestored(t *testing.T, inputs map[string][]byte, in, dir string) {
	t.Helper()
	for p, want := range inputs {
		rel, _ := filepath.Rel(in, p)
		rel = trimCompressionSuffix(rel)
		got, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: restored %d bytes, not the %d of the input", rel, len(got), len(want))
		}
	}
}

func TestCompressTestDecompress(t *testing.T) {
	dir := t.TempDir()
	inputs := corpus(t, dir)
	in := filepath.Join(dir, "in")
	out := filepath.Join(dir, "out")
	o := Options{Level: -1, PieceSize: 200_000, Version: "test"}
	pattern := filepath.Join(in, "*", "*")

	counters, err := run(t, func(s beam.Scope) { Compress(s, pattern, out, o) })
	if err != nil {
		t.Fatal(err)
	}
	entries, err := ReadManifest(t.Context(), ManifestPath(out))
	if err != nil {
		t.Fatal(err)
	}
	// The manifest's totals are the input's bytes and lines, and each
	// plain input is cut in pieces of about PieceSize bytes.
	var bytesIn, nLines int64
	for _, b := range inputs {
		bytesIn += int64(len(b))
		nLines += lines(b)
	}
	tot := manifest.Sum(entries)
	if tot.Inputs != len(inputs) || tot.BytesIn != bytesIn || tot.Lines != nLines {
		t.Errorf("manifest: %d inputs, %d bytes, %d lines; want %d, %d, %d", tot.Inputs, tot.BytesIn, tot.Lines, len(inputs), bytesIn, nLines)
	}
	perInput := map[string]int{}
	for _, e := range entries {
		perInput[filepath.Base(filepath.Dir(e.Input))+"/"+filepath.Base(e.Input)]++
		if e.M2M != "test" {
			t.Errorf("%s: version %q", e.Output, e.M2M)
		}
	}
	if perInput["x/a.jsonl"] != 6 || perInput["y/a.jsonl"] != 2 || perInput["x/c.jsonl.gz"] != 1 || perInput["x/d.jsonl.zst"] != 1 {
		t.Errorf("shards per input: %v", perInput)
	}
	want := map[string]int64{"shards": int64(tot.Shards), "records": tot.Records, "lines": tot.Lines, "raw": tot.Raw, "bytes_in": tot.BytesIn, "bytes_out": tot.BytesOut}
	for k, v := range want {
		if counters[k] != v {
			t.Errorf("counter %s: %d, the manifest says %d", k, counters[k], v)
		}
	}
	if tot.Raw < 4 {
		t.Errorf("%d lines stored raw: the odd input has at least 4", tot.Raw)
	}
	// Every shard is in the manifest, and nothing else is in the shards'
	// directory.
	shards := shardFiles(t, out)
	var listed []string
	for _, e := range entries {
		listed = append(listed, strings.TrimPrefix(e.Output, ShardDir+"/"))
		if int64(len(shards[listed[len(listed)-1]])) != e.BytesOut {
			t.Errorf("%s: %d bytes, the manifest says %d", e.Output, len(shards[e.Output]), e.BytesOut)
		}
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range shards {
			if !yield(k) {
				return
			}
		}
	})
	slices.Sort(listed)
	if !slices.Equal(names, listed) {
		t.Errorf("shards directory %q, manifest %q", names, listed)
	}

	if _, err := run(t, func(s beam.Scope) { Test(s, ManifestPath(out), o) }); err != nil {
		t.Fatal(err)
	}
	restored := filepath.Join(dir, "restored")
	if _, err := run(t, func(s beam.Scope) { Decompress(s, ManifestPath(out), restored, o) }); err != nil {
		t.Fatal(err)
	}
	checkRestored(t, inputs, in, restored)

	// A run again over the same output replaces its shards and manifest
	// with the same bytes, and adds nothing.
	before, err := os.ReadFile(ManifestPath(out))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, func(s beam.Scope) { Compress(s, pattern, out, o) }); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(ManifestPath(out))
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("the manifest changed on a run again (%v)", err)
	}
	again := shardFiles(t, out)
	if len(again) != len(shards) {
		t.Errorf("%d shards after a run again, %d before", len(again), len(shards))
	}
	for name, b := range shards {
		if !bytes.Equal(again[name], b) {
			t.Errorf("%s changed on a run again", name)
		}
	}

	// A damaged shard: test names it, and decompress leaves the input it
	// belongs to unrestored.
	bad := entries[1]
	p := filepath.Join(out, filepath.FromSlash(bad.Output))
	b := shards[strings.TrimPrefix(bad.Output, ShardDir+"/")]
	b = slices.Clone(b)
	b[len(b)/2] ^= 0x20
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = run(t, func(s beam.Scope) { Test(s, ManifestPath(out), o) })
	if err == nil || !strings.Contains(err.Error(), "1 bad shards") || !strings.Contains(err.Error(), bad.Output) {
		t.Errorf("test of a damaged shard: %v", err)
	}
	damaged := filepath.Join(dir, "damaged")
	if _, err := run(t, func(s beam.Scope) { Decompress(s, ManifestPath(out), damaged, o) }); err == nil {
		t.Error("decompress of a damaged shard succeeded")
	}
	rel, _ := filepath.Rel(in, bad.Input)
	if _, err := os.Stat(filepath.Join(damaged, rel)); !os.IsNotExist(err) {
		t.Errorf("%s restored from a damaged shard (%v)", rel, err)
	}
}

// TestSecurityAndArchive compresses into archives, and into sealed
// containers under a key file, and restores both.
func TestSecurityAndArchive(t *testing.T) {
	dir := t.TempDir()
	inputs := corpus(t, dir)
	in := filepath.Join(dir, "in")
	key := filepath.Join(dir, "key")
	if err := os.WriteFile(key, bytes.Repeat([]byte{3}, 32), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{
		{Archive: true, Level: 1, PieceSize: 500_000},
		{Level: 1, Security: "hmac", KeyFile: key, PieceSize: 500_000},
	} {
		out := filepath.Join(dir, "out-"+o.Security)
		if _, err := run(t, func(s beam.Scope) { Compress(s, filepath.Join(in, "*", "*"), out, o) }); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		restored := filepath.Join(dir, "restored-"+o.Security)
		if _, err := run(t, func(s beam.Scope) { Decompress(s, ManifestPath(out), restored, o) }); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		checkRestored(t, inputs, in, restored)
		if o.Security != "" {
			// Under another key, every shard is refused.
			other := filepath.Join(dir, "other-key")
			if err := os.WriteFile(other, bytes.Repeat([]byte{4}, 32), 0o600); err != nil {
				t.Fatal(err)
			}
			wrong := o
			wrong.KeyFile = other
			_, err := run(t, func(s beam.Scope) { Test(s, ManifestPath(out), wrong) })
			if err == nil || !strings.Contains(err.Error(), "bad shards") {
				t.Errorf("sealed shards tested under another key: %v", err)
			}
		}
	}
}
