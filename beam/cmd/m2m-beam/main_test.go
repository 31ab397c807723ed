package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	tmp, err := privateTempDir()
	if err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// parse parses args as main does, after the mode.
func parse(t *testing.T, args ...string) *config {
	t.Helper()
	var c config
	fs := flag.NewFlagSet("m2m-beam", flag.ContinueOnError)
	c.define(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return &c
}

func TestCheck(t *testing.T) {
	for _, a := range []struct {
		mode string
		args []string
	}{
		{"compress", []string{"--input", "in/*", "--output", "out"}},
		{"compress", []string{"--input", "in/*", "--output", "out", "--archive", "--level", "4"}},
		{"compress", []string{"--input", "in/*", "--output", "out", "--security", "aead", "--key-file", "k"}},
		{"test", []string{"--manifest", "m"}},
		{"test", []string{"--manifest", "m", "--security", "hmac", "--key-file", "k", "--threads", "2"}},
		{"decompress", []string{"--manifest", "m", "--output", "out"}},
	} {
		if err := parse(t, a.args...).check(a.mode); err != nil {
			t.Errorf("%s %q: %v", a.mode, a.args, err)
		}
	}
	for _, a := range []struct {
		mode string
		args []string
	}{
		{"compress", []string{"--output", "out"}},
		{"compress", []string{"--input", "in/*"}},
		{"compress", []string{"--input", "in/*", "--output", "out", "--manifest", "m"}},
		{"compress", []string{"--input", "in/*", "--output", "out", "--level", "12"}},
		{"compress", []string{"--input", "in/*", "--output", "out", "--security", "hmac"}},
		{"test", []string{"--manifest", "m", "--output", "out"}},
		{"test", []string{"--manifest", "m", "--archive"}},
		{"decompress", []string{"--manifest", "m"}},
		{"decompress", []string{"--manifest", "m", "--output", "o", "--piece-size", "9"}},
	} {
		if err := parse(t, a.args...).check(a.mode); err == nil {
			t.Errorf("%s %q: accepted", a.mode, a.args)
		}
	}
}

// TestRun runs the three modes on Prism, as the command does.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	in := []byte("{\"a\":1}\n{\"b\":[true,null]}\nnot json\n")
	if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in", "a.jsonl"), in, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	manifestPath := filepath.Join(out, "manifest.jsonl")
	restored := filepath.Join(dir, "restored")
	for _, r := range []struct {
		mode string
		args []string
		want string
	}{
		{"compress", []string{"--input", filepath.Join(dir, "in", "*"), "--output", out}, "compressed 1 inputs in 1 shards: 3 records, 3 lines (1 raw), 35 bytes of JSONL"},
		{"test", []string{"--manifest", manifestPath}, "tested 1 inputs"},
		{"decompress", []string{"--manifest", manifestPath, "--output", restored}, "restored 1 inputs"},
	} {
		var stderr bytes.Buffer
		if err := parse(t, r.args...).run(t.Context(), r.mode, nil, &stderr); err != nil {
			t.Fatalf("%s: %v", r.mode, err)
		}
		if !strings.Contains(stderr.String(), r.want) || !strings.Contains(stderr.String(), "metrics: bytes_in=35 ") {
			t.Errorf("%s: summary %q, want %q and the metrics", r.mode, stderr.String(), r.want)
		}
	}
	if got, err := os.ReadFile(filepath.Join(restored, "a.jsonl")); err != nil || !bytes.Equal(got, in) {
		t.Errorf("restored %q (%v), want %q", got, err, in)
	}
}
