//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/tokenizer"
	"github.com/m2m-go/m2m/varint"
)

// longestToken returns the id of the cl100k token with the most bytes.
func longestToken(t *testing.T) uint32 {
	tok, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	var best uint32
	n := 0
	for id := range uint32(tokenizer.Cl100kBase.NVocab()) {
		if m, err := tok.DecodedLen([]uint32{id}); err == nil && m > n {
			best, n = id, m
		}
	}
	return best
}

// memoryBudget is the peak resident memory m2m-batch is documented to stay
// under at default settings on any input (README, pipeline package doc).
const memoryBudget = 256 << 20

// peakRSS runs the binary in dir with args and returns its exit status and
// its peak resident set size in bytes, as the kernel counted it. The
// kernel's count starts from this process's own peak (the child shares its
// memory until exec), so the caller keeps that small: what it measures is
// an upper bound.
func peakRSS(t *testing.T, dir string, args ...string) (int, int64, string) {
	t.Helper()
	cmd := command(args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Run()
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Fatal("no rusage")
	}
	return cmd.ProcessState.ExitCode(), int64(ru.Maxrss) << 10, stderr.String()
}

// maxJSON is a JSON record of n bytes, just under the protocol's 16 MiB
// message limit (in two strings: one may have 10 MiB), that compresses to
// almost nothing. Its bytes 6-13 may be changed freely.
func maxJSON(n int) []byte {
	half := n / 2
	b := make([]byte, 0, n)
	b = append(b, `{"a":"`...)
	b = append(b, bytes.Repeat([]byte{'x'}, half-len(b)-2)...)
	b = append(b, `","b":"`...)
	b = append(b, bytes.Repeat([]byte{'y'}, n-len(b)-2)...)
	return append(b, `"}`...)
}

// TestMemoryInputs writes TestMemoryBound's inputs to the directory
// M2M_MEMORY_INPUTS names; without it, it does nothing.
func TestMemoryInputs(t *testing.T) {
	dir := os.Getenv("M2M_MEMORY_INPUTS")
	if dir == "" {
		t.Skip("TestMemoryBound runs it")
	}
	big := maxJSON(16<<20 - 16)
	// Quality 1 (a small encoder): this process's memory bounds the
	// readings (see peakRSS).
	enc, err := codec.NewEncoder(codec.WithQuality(1))
	if err != nil {
		t.Fatal(err)
	}
	frame, err := enc.AppendFrame(nil, big)
	if err != nil {
		t.Fatal(err)
	}
	wire, err := enc.AppendWire(nil, big, codec.Brotli)
	if err != nil {
		t.Fatal(err)
	}

	// A container of 48 such records, in blocks of 16: a few KB that
	// decode to 805 MB.
	var packed bytes.Buffer
	cw, err := container.NewWriter(&packed, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		var bb container.BlockBuilder
		for range 16 {
			bb.Add(container.Record{Encoding: container.M2M, Data: frame})
		}
		if err := cw.Write(bb.Block(), container.Counts{Records: 16, Lines: 16, Bytes: 16 * int64(len(big)+1)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "bomb.m2m"), packed.Bytes())
	// A lines file of 48 such wire strings.
	write(t, filepath.Join(dir, "bomb.lines"), bytes.Repeat(append(wire, '\n'), 48))
	// A container of 9 TokenNative records of 16 MiB of ids of the
	// longest cl100k token: each would decode to 715 MB.
	id := longestToken(t)
	tn := append([]byte{byte(tokenizer.Cl100kBase)}, bytes.Repeat(varint.AppendUvarint(nil, id), (16<<20-1)/3)...)
	packed.Reset()
	if cw, err = container.NewWriter(&packed, nil); err != nil {
		t.Fatal(err)
	}
	for range 3 { // three blocks of three: a block holds at most 64 MiB
		var bb container.BlockBuilder
		for range 3 {
			bb.Add(container.Record{Encoding: container.TokenNative, Data: tn})
		}
		cw.Write(bb.Block(), container.Counts{Records: 3, Lines: 3})
	}
	cw.Close()
	write(t, filepath.Join(dir, "tokens.m2m"), packed.Bytes())
	// A lines file of Token v1 messages of 16 MiB of control characters,
	// each standing for 31 bytes.
	tv1 := append([]byte("#T1|"), bytes.Repeat([]byte{0x02}, 16<<20-5)...)
	write(t, filepath.Join(dir, "tokenv1.lines"), bytes.Repeat(append(tv1, '\n'), 4))
	// An archive of 200 records that each hold the same 8 MiB value: 1.6
	// GB decoded from a few MB.
	f, err := os.Create(filepath.Join(dir, "same.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	value := append(maxJSON(8<<20), '\n')
	for range 200 {
		f.Write(value)
	}
	f.Close()
	// 40 lines of 16 MiB - 1 to compress.
	f, err = os.Create(filepath.Join(dir, "big.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	line := maxJSON(16<<20 - 1)
	for i := range 40 {
		copy(line[6:], fmt.Sprintf("%08d", i))
		f.Write(append(line, '\n'))
	}
	f.Close()
	// One line of 200 MiB, for the archive.
	f, err = os.Create(filepath.Join(dir, "long.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	for range 200 {
		f.Write(chunk)
	}
	f.Write([]byte{'\n'})
	f.Close()
}

// TestMemoryBound: whatever the input, m2m-batch holds at most its
// documented budget. Each case is a small file that decodes to much more
// (every record within the protocol's limits), or input of maximal lines.
// The inputs are made by another run of this test binary
// (TestMemoryInputs), and the runs measured from a third
// (TestMemoryProbe), which stays small: a child's peak is at least its
// parent's (see peakRSS), and this process has run every other test.
func TestMemoryBound(t *testing.T) {
	if testing.Short() || emulator != "" {
		t.Skip("decodes gigabytes: not in -short mode or under an emulator")
	}
	dir := t.TempDir()
	gen := exec.Command(os.Args[0], "-test.run=^TestMemoryInputs$")
	gen.Env = append(os.Environ(), "M2M_MEMORY_INPUTS="+dir)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("making the inputs: %v\n%s", err, out)
	}
	probe := exec.Command(os.Args[0], "-test.run=^TestMemoryProbe$", "-test.v")
	probe.Env = append(os.Environ(), "M2M_MEMORY_PROBE="+dir)
	out, err := probe.CombinedOutput()
	t.Logf("the probe:\n%s", out)
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestMemoryProbe")) {
		t.Errorf("the probe failed: %v", err)
	}
}

// TestMemoryProbe runs TestMemoryBound's cases on the inputs in the
// directory M2M_MEMORY_PROBE names; without it, it does nothing.
func TestMemoryProbe(t *testing.T) {
	dir := os.Getenv("M2M_MEMORY_PROBE")
	if dir == "" {
		t.Skip("TestMemoryBound runs it")
	}
	var self syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	t.Logf("the probe's own peak RSS, which bounds every reading from below: %.1f MiB", float64(self.Maxrss)/(1<<10))
	for _, c := range []struct {
		name string
		args []string
	}{
		{"test a container of maximal records", []string{"-t", "bomb.m2m"}},
		{"test a container of TokenNative bombs", []string{"-t", "tokens.m2m"}},
		{"read a TokenNative bomb by number", []string{"--record", "3", "tokens.m2m"}},
		{"test a lines file of Token v1 bombs", []string{"-t", "--format=lines", "tokenv1.lines"}},
		{"archive 200 records of one 8 MiB value", []string{"-q", "--archive", "-o", "same.m2m", "same.jsonl"}},
		{"test that archive", []string{"-t", "same.m2m"}},
		{"read it by number", []string{"--record", "199", "same.m2m"}},
		{"test a lines file of maximal records", []string{"-t", "bomb.lines"}},
		{"decompress a container of maximal records", []string{"-dcq", "bomb.m2m"}},
		{"compress 40 lines of 16 MiB", []string{"-cq", "big.jsonl"}},
		{"archive one line of 200 MiB", []string{"-cq", "--archive", "long.jsonl"}},
	} {
		code, rss, stderr := peakRSS(t, dir, c.args...)
		t.Logf("%s: exit %d, peak RSS %.1f MiB", c.name, code, float64(rss)/(1<<20))
		bomb := strings.Contains(strings.ToLower(c.name), "bomb")
		switch {
		case bomb && (code != 1 || !strings.Contains(stderr, "limit")):
			t.Errorf("%s: exit %d, want 1 and a limit named: %s", c.name, code, stderr)
		case !bomb && code != 0:
			t.Errorf("%s: exit %d: %s", c.name, code, stderr)
		}
		if rss > memoryBudget {
			t.Errorf("%s: peak RSS %.1f MiB, over the %d MiB budget", c.name, float64(rss)/(1<<20), memoryBudget>>20)
		}
	}
}
