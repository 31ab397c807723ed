package shards

import (
	"fmt"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/manifest"
)

func entriesOf(inputs ...string) []manifest.Entry {
	var es []manifest.Entry
	for i, in := range inputs {
		c := manifest.Plain
		switch {
		case strings.HasSuffix(in, ".gz"):
			c = manifest.Gzip
		case strings.HasSuffix(in, ".zst"):
			c = manifest.Zstd
		}
		es = append(es, manifest.Entry{Input: in, Compression: c, Output: fmt.Sprint(i)})
	}
	return es
}

func TestRestoredPaths(t *testing.T) {
	for _, c := range []struct {
		inputs []string
		want   []string
	}{
		{[]string{"/data/a.jsonl"}, []string{"a.jsonl"}},
		{[]string{"/data/x/a.jsonl", "/data/x/a.jsonl", "/data/y/b.jsonl.gz", "/data/y/c.jsonl.zst"}, []string{"x/a.jsonl", "x/a.jsonl", "y/b.jsonl", "y/c.jsonl"}},
		{[]string{"/data/ab.jsonl", "/data/ac.jsonl"}, []string{"ab.jsonl", "ac.jsonl"}},
		{[]string{"gs://b/logs/a.jsonl", "gs://b/logs/deep/a.jsonl"}, []string{"a.jsonl", "deep/a.jsonl"}},
		{[]string{"gs://b/a.jsonl", "s3://b/a.jsonl"}, []string{"gs/b/a.jsonl", "s3/b/a.jsonl"}},
		{[]string{"/a.jsonl", "gs://b/a.jsonl"}, []string{"a.jsonl", "gs/b/a.jsonl"}},
		{[]string{"/data/a.jsonl.bz2"}, []string{"a.jsonl.bz2"}},
	} {
		paths, err := restoredPaths(entriesOf(c.inputs...))
		if err != nil {
			t.Errorf("%q: %v", c.inputs, err)
			continue
		}
		for i, in := range c.inputs {
			if paths[in] != c.want[i] {
				t.Errorf("%q: %s restored to %q, want %q", c.inputs, in, paths[in], c.want[i])
			}
		}
	}
	for _, inputs := range [][]string{
		{"/data/a.jsonl", "/data/a.jsonl.gz"}, // one name, once decompressed
		{"/data/x/../a.jsonl", "/data/y/../../a.jsonl"},
	} {
		if paths, err := restoredPaths(entriesOf(inputs...)); err == nil {
			t.Errorf("%q: restored to %v, want an error", inputs, paths)
		}
	}
}
