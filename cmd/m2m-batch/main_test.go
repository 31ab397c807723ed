package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/m2m-go/m2m/internal/forge"
	"github.com/m2m-go/m2m/internal/sample"
	"github.com/m2m-go/m2m/pipeline"
)

// The end-to-end tests run the built binary against temporary files, as a
// user would.

var (
	binary string
	// emulator runs the binary when this machine cannot (qemu-aarch64 for
	// an arm64 test run on amd64, as CI does); "" runs it directly.
	emulator string
)

// command returns a command that runs the binary with args.
func command(args ...string) *exec.Cmd {
	if emulator != "" {
		return exec.Command(emulator, append([]string{binary}, args...)...)
	}
	return exec.Command(binary, args...)
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "m2m-batch-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "m2m-batch")
	if runtime.GOOS == "windows" {
		binary += ".exe"
	}
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building m2m-batch: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	if err := exec.Command(binary, "-V").Run(); err != nil {
		// Not runnable here: a cross-architecture run under an emulator.
		emulator, err = exec.LookPath("qemu-" + map[string]string{"arm64": "aarch64", "amd64": "x86_64", "386": "i386"}[runtime.GOARCH])
		if err != nil {
			fmt.Fprintf(os.Stderr, "cannot run the %s binary here, and no qemu for it\n", runtime.GOARCH)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one run of the binary did.
type result struct {
	code           int
	stdout, stderr string
}

// m2m runs the binary in dir with stdin (nil: empty) and returns what it did.
func m2m(t *testing.T, dir string, stdin []byte, args ...string) result {
	t.Helper()
	cmd := command(args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running m2m-batch %v: %v", args, err)
	}
	return r
}

// ok runs the binary and fails the test unless it exits with 0.
func ok(t *testing.T, dir string, stdin []byte, args ...string) result {
	t.Helper()
	r := m2m(t, dir, stdin, args...)
	if r.code != 0 {
		t.Fatalf("m2m-batch %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r
}

// fails runs the binary, wants exit status code, and returns stderr.
func fails(t *testing.T, dir string, code int, stdin []byte, args ...string) string {
	t.Helper()
	r := m2m(t, dir, stdin, args...)
	if r.code != code {
		t.Fatalf("m2m-batch %s: exit %d, want %d\n%s", strings.Join(args, " "), r.code, code, r.stderr)
	}
	return r.stderr
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// noTemporaries fails if dir holds a temporary output file.
func noTemporaries(t *testing.T, dir string) {
	t.Helper()
	tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(tmp) > 0 {
		t.Errorf("temporary files left behind: %v", tmp)
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	data := sample.JSONL()
	write(t, filepath.Join(dir, "s.jsonl"), data)

	r := ok(t, dir, nil, "s.jsonl")
	if !strings.Contains(r.stderr, "450 records") || r.stdout != "" {
		t.Errorf("summary %q, stdout %q", r.stderr, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "s.jsonl")); err != nil {
		t.Errorf("input not kept: %v", err)
	}
	if r := ok(t, dir, nil, "-t", "s.jsonl.m2m"); !strings.Contains(r.stderr, "OK, 450 records") {
		t.Errorf("-t said %q", r.stderr)
	}
	r = ok(t, dir, nil, "-l", "s.jsonl.m2m")
	for _, want := range []string{"container, 450 records, 450 lines", "m2m 450", "request 246", "response 131", "gpt-4.1"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("-l output lacks %q:\n%s", want, r.stdout)
		}
	}

	// -d writes FILE from FILE.m2m, and refuses to overwrite it.
	if msg := fails(t, dir, exitError, nil, "-d", "s.jsonl.m2m"); !strings.Contains(msg, "already exists") {
		t.Errorf("overwrite refused with %q", msg)
	}
	if err := os.Rename(filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "orig.jsonl")); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, nil, "-d", "s.jsonl.m2m")
	if !bytes.Equal(read(t, filepath.Join(dir, "s.jsonl")), data) {
		t.Fatal("-d did not give back the input")
	}
	// -f overwrites; -o names the output; -c writes stdout.
	ok(t, dir, nil, "-f", "-d", "s.jsonl.m2m")
	ok(t, dir, nil, "-d", "-o", "o.jsonl", "s.jsonl.m2m")
	if !bytes.Equal(read(t, filepath.Join(dir, "o.jsonl")), data) {
		t.Fatal("-o did not give back the input")
	}
	if r := ok(t, dir, nil, "-dc", "s.jsonl.m2m"); r.stdout != string(data) {
		t.Fatal("-dc did not give back the input")
	}
	noTemporaries(t, dir)
}

func TestStdio(t *testing.T) {
	dir := t.TempDir()
	data := sample.JSONL()
	packed := ok(t, dir, data, "-q", "-T2", "-9").stdout
	if r := ok(t, dir, []byte(packed), "-q", "-d"); r.stdout != string(data) || r.stderr != "" {
		t.Fatalf("stdin round trip: %d bytes back, stderr %q", len(r.stdout), r.stderr)
	}
	// "-" is standard input too.
	if r := ok(t, dir, []byte(packed), "-d", "-"); r.stdout != string(data) {
		t.Fatal(`"-" round trip failed`)
	}
}

func TestRemove(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.jsonl"), []byte(`{"model":"m","messages":[]}`+"\n"))
	ok(t, dir, nil, "-q", "--rm", "a.jsonl")
	if _, err := os.Stat(filepath.Join(dir, "a.jsonl")); !os.IsNotExist(err) {
		t.Errorf("--rm kept the input: %v", err)
	}
	ok(t, dir, nil, "-q", "-d", "--rm", "a.jsonl.m2m")
	if _, err := os.Stat(filepath.Join(dir, "a.jsonl.m2m")); !os.IsNotExist(err) {
		t.Errorf("-d --rm kept the input: %v", err)
	}
	if got := string(read(t, filepath.Join(dir, "a.jsonl"))); got != `{"model":"m","messages":[]}`+"\n" {
		t.Errorf("got back %q", got)
	}
}

// nasty are inputs that must come back byte for byte.
var nasty = map[string]string{
	"empty":            "",
	"blank lines":      "\n\n{\"a\":1}\n\n\n",
	"crlf":             "{\"model\":\"m\",\"messages\":[]}\r\n{\"b\":2}\r\n\r\n",
	"no final newline": "{\"a\":1}\n{\"model\":\"x\"}",
	"not json":         "hello\n{\"a\":\n[1,2\nnull\n",
	"invalid utf-8":    "{\"a\":\"\xff\xfe\"}\n\xc3\x28\n",
	"lookalikes":       "#M2M|1|abc\n#TK|C|AAAA\n#M2M[v3.0]|DATA:\n",
	"nul bytes":        "\x00\x00\n{\"a\":\"\\u0000\"}\n",
}

func TestNasty(t *testing.T) {
	dir := t.TempDir()
	for name, in := range nasty {
		for _, alg := range []string{"auto", "m2m", "brotli", "tokennative", "hydra"} {
			packed := ok(t, dir, []byte(in), "-q", "--verify", "--algorithm", alg).stdout
			if got := ok(t, dir, []byte(packed), "-d").stdout; got != in {
				t.Errorf("%s, %s: got back %q", name, alg, got)
			}
		}
	}
}

// TestHugeLines: a line over the protocol's 16 MiB limit is stored raw (in
// pieces), reported, and comes back.
func TestHugeLines(t *testing.T) {
	if testing.Short() || emulator != "" {
		t.Skip("34 MiB of lines: not in -short mode or under an emulator")
	}
	dir := t.TempDir()
	json16 := `{"pad":"` + strings.Repeat("x", 16<<20-10) + `"}` // exactly 16 MiB: one frame
	in := json16 + "\n" + strings.Repeat("y", 17<<20) + "\n" + `{"a":1}`
	write(t, filepath.Join(dir, "big.jsonl"), []byte(in))
	r := ok(t, dir, nil, "big.jsonl")
	if !strings.Contains(r.stderr, "over a limit") {
		t.Errorf("the long line was not reported: %q", r.stderr)
	}
	if got := ok(t, dir, nil, "-dc", "big.jsonl.m2m").stdout; got != in {
		t.Fatalf("huge lines did not come back (%d bytes of %d)", len(got), len(in))
	}
}

// TestCompressedInput: gzip and zstd input is compressed as the JSONL it
// holds, and the output named after that: a.jsonl.gz gives a.jsonl.m2m,
// which -d restores to a.jsonl. Text that merely starts with a magic
// number is text.
func TestCompressedInput(t *testing.T) {
	dir := t.TempDir()
	data := sample.JSONL()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	zs, _ := zstd.NewWriter(nil)
	for name, packed := range map[string][]byte{"g.jsonl.gz": gz.Bytes(), "z.jsonl.zst": zs.EncodeAll(data, nil), "Z.JSONL.ZSTD": zs.EncodeAll(data, nil)} {
		write(t, filepath.Join(dir, name), packed)
		ok(t, dir, nil, "-q", name)
		base := name[:strings.LastIndexByte(name, '.')]
		if _, err := os.Stat(filepath.Join(dir, name+".m2m")); !os.IsNotExist(err) {
			t.Errorf("%s: output named after the compressed file", name)
		}
		ok(t, dir, nil, "-q", "-d", base+".m2m")
		if !bytes.Equal(read(t, filepath.Join(dir, base)), data) {
			t.Errorf("%s: -d did not restore %s", name, base)
		}
		if !bytes.Equal(read(t, filepath.Join(dir, name)), packed) {
			t.Errorf("%s: the original was touched", name)
		}
	}
	// A .gz name on plain text keeps its name: the output restores it.
	write(t, filepath.Join(dir, "plain.gz"), []byte("\x1f\x8b is not gzip\n{}\n"))
	ok(t, dir, nil, "-q", "plain.gz")
	if r := ok(t, dir, nil, "-dc", "plain.gz.m2m"); r.stdout != "\x1f\x8b is not gzip\n{}\n" {
		t.Errorf("text with a gzip magic came back as %q", r.stdout)
	}
}

func TestLines(t *testing.T) {
	dir := t.TempDir()
	data := sample.JSONL()
	write(t, filepath.Join(dir, "s.jsonl"), data)
	ok(t, dir, nil, "-q", "--format=lines", "-o", "s.lines", "s.jsonl")
	lines := read(t, filepath.Join(dir, "s.lines"))
	if !bytes.HasPrefix(lines, []byte("#")) || bytes.Count(lines, []byte("\n")) != 450 {
		t.Errorf("not one wire string a line: %.40q", lines)
	}
	if got := ok(t, dir, nil, "-dc", "s.lines").stdout; got != string(data) {
		t.Fatal("lines did not come back")
	}
	if r := ok(t, dir, nil, "-l", "s.lines"); !strings.Contains(r.stdout, "lines, 450 records") {
		t.Errorf("-l of a lines file: %q", r.stdout)
	}
	// A bad line is reported by its number.
	at := bytes.Index(lines, []byte("\n#M2M|1|")) + len("\n#M2M|1|")
	bad := slices.Concat(lines[:at], []byte("!"), lines[at:])
	write(t, filepath.Join(dir, "bad.lines"), bad)
	want := fmt.Sprintf("line %d:", bytes.Count(lines[:at], []byte("\n"))+1)
	if msg := fails(t, dir, exitError, nil, "-t", "bad.lines"); !strings.Contains(msg, want) {
		t.Errorf("bad line reported as %q, want %q", msg, want)
	}
}

func TestCorrupted(t *testing.T) {
	dir := t.TempDir()
	data := sample.JSONL()
	write(t, filepath.Join(dir, "s.jsonl"), data)
	ok(t, dir, nil, "-q", "s.jsonl")
	packed := read(t, filepath.Join(dir, "s.jsonl.m2m"))

	for _, at := range []int{len(packed) / 3, len(packed) / 2, len(packed) - 40} {
		bad := bytes.Clone(packed)
		bad[at] ^= 0x10
		write(t, filepath.Join(dir, "bad.m2m"), bad)
		msg := fails(t, dir, exitError, nil, "-t", "bad.m2m")
		if !strings.Contains(msg, "bad.m2m:") || !strings.Contains(msg, "record") && !strings.Contains(msg, "offset") {
			t.Errorf("flip at %d: -t said %q, which names no record or offset", at, msg)
		}
		fails(t, dir, exitError, nil, "-d", "-o", "out.jsonl", "bad.m2m")
		if _, err := os.Stat(filepath.Join(dir, "out.jsonl")); !os.IsNotExist(err) {
			t.Errorf("flip at %d: partial output left: %v", at, err)
		}
	}
	// (An empty file is an empty lines file, which is valid.)
	for _, n := range []int{1, 7, 8, 12, 100, len(packed) / 2, len(packed) - 1} {
		write(t, filepath.Join(dir, "cut.m2m"), packed[:n])
		fails(t, dir, exitError, nil, "-t", "cut.m2m")
		fails(t, dir, exitError, nil, "-d", "-o", "out.jsonl", "cut.m2m")
		if _, err := os.Stat(filepath.Join(dir, "out.jsonl")); !os.IsNotExist(err) {
			t.Errorf("cut at %d: partial output left", n)
		}
	}
	// -l lists the records of the blocks before the cut, and fails.
	if r := m2m(t, dir, nil, "-l", "cut.m2m"); r.code != exitError || !strings.Contains(r.stdout, "cut.m2m: container, ") ||
		strings.Contains(r.stdout, " 0 records") || !strings.Contains(r.stderr, "truncated") {
		t.Errorf("-l of a cut container: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
	noTemporaries(t, dir)
}

func TestSecurity(t *testing.T) {
	dir := t.TempDir()
	data := sample.JSONL()[:200000]
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	data = append(data, "not json, sealed raw\n"...)
	write(t, filepath.Join(dir, "s.jsonl"), data)
	write(t, filepath.Join(dir, "hex.key"), []byte(strings.Repeat("0123456789abcdef", 4)+"\n"))
	write(t, filepath.Join(dir, "raw.key"), bytes.Repeat([]byte{7}, 32))
	write(t, filepath.Join(dir, "short.key"), bytes.Repeat([]byte{7}, 31))
	for _, mode := range []string{"hmac", "aead"} {
		out := "s." + mode + ".m2m"
		ok(t, dir, nil, "-q", "--security", mode, "--key-file", "hex.key", "-o", out, "s.jsonl")
		ok(t, dir, nil, "-t", "--security", mode, "--key-file", "hex.key", out)
		if got := ok(t, dir, nil, "-dc", "--security", mode, "--key-file", "hex.key", out).stdout; got != string(data) {
			t.Fatalf("%s: round trip failed", mode)
		}
		// Without the key, with the wrong key, or expecting less.
		fails(t, dir, exitError, nil, "-t", out)
		fails(t, dir, exitError, nil, "-t", "--security", mode, "--key-file", "raw.key", out)
		if r := ok(t, dir, nil, "-l", out); !strings.Contains(r.stdout, mode) {
			t.Errorf("-l does not show %s: %q", mode, r.stdout)
		}
	}
	// An AEAD reader refuses HMAC frames: a downgrade.
	fails(t, dir, exitError, nil, "-t", "--security", "aead", "--key-file", "hex.key", "s.hmac.m2m")
	// Keys of the wrong length, and missing keys, are usage errors.
	if msg := fails(t, dir, exitUsage, nil, "--security", "hmac", "--key-file", "short.key", "s.jsonl"); !strings.Contains(msg, "32") {
		t.Errorf("short key: %q", msg)
	}
	fails(t, dir, exitUsage, nil, "--security", "aead", "s.jsonl")
	// Secured lines files hold frames only: a line that is not JSON is an
	// error there, named by its number.
	if msg := fails(t, dir, exitError, nil, "-q", "--format=lines", "--security", "hmac", "--key-file", "raw.key", "-o", "j.lines", "s.jsonl"); !strings.Contains(msg, "not JSON") {
		t.Errorf("secured lines of a file with a non-JSON line: %q", msg)
	}
	write(t, filepath.Join(dir, "j.jsonl"), data[:len(data)-len("not json, sealed raw\n")])
	ok(t, dir, nil, "-q", "--format=lines", "--security", "hmac", "--key-file", "raw.key", "-o", "j.lines", "j.jsonl")
	if got := ok(t, dir, nil, "-dc", "--security", "hmac", "--key-file", "raw.key", "j.lines").stdout; got != string(data[:len(data)-len("not json, sealed raw\n")]) {
		t.Error("secured lines did not come back")
	}
	fails(t, dir, exitError, nil, "-t", "j.lines")
}

// TestSealAttacks: what can be done to a sealed corpus without its key,
// every checksum made right again (see internal/forge), fails -t, -d and
// --record with the key, exit 1, naming the records or the seal.
func TestSealAttacks(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "s.jsonl"), append(sample.JSONL(), "not json, sealed raw\n"...))
	write(t, filepath.Join(dir, "empty.jsonl"), nil)
	write(t, filepath.Join(dir, "hex.key"), []byte(strings.Repeat("0123456789abcdef", 4)+"\n"))
	key := []string{"--security", "hmac", "--key-file", "hex.key"}
	ok(t, dir, nil, append([]string{"-q", "-o", "a.m2m", "s.jsonl"}, key...)...)
	ok(t, dir, nil, append([]string{"-q", "-o", "b.m2m", "s.jsonl"}, key...)...)
	parse := func(name string) *forge.File {
		f, err := forge.Parse(read(t, filepath.Join(dir, name)))
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Blocks) < 4 {
			t.Fatalf("%s: %d blocks", name, len(f.Blocks))
		}
		return f
	}
	attacks := map[string]func(f *forge.File){
		"records-reordered": func(f *forge.File) {
			var err error
			if f.Blocks[1].Body, err = forge.SwapRecords(f.Blocks[1].Body, 0, 1); err != nil {
				t.Fatal(err)
			}
		},
		"blocks-swapped":        func(f *forge.File) { f.Blocks[1], f.Blocks[2] = f.Blocks[2], f.Blocks[1] },
		"block-duplicated":      func(f *forge.File) { f.Blocks = append(f.Blocks[:2], f.Blocks[1:]...) },
		"block-dropped":         func(f *forge.File) { f.Blocks = append(f.Blocks[:1], f.Blocks[2:]...) },
		"cut-after-block-0":     func(f *forge.File) { f.Blocks = f.Blocks[:1] },
		"block-of-another-file": func(f *forge.File) { f.Blocks[2] = parse("b.m2m").Blocks[2] },
	}
	for name, attack := range attacks {
		f := parse("a.m2m")
		attack(f)
		write(t, filepath.Join(dir, name+".m2m"), f.Bytes())
		ok(t, dir, nil, "-l", name+".m2m") // the checksums hold
	}
	ok(t, dir, nil, "-q", "-o", "empty-not-sealed.m2m", "empty.jsonl")
	for name := range attacks {
		for _, mode := range [][]string{{"-t"}, {"-dc"}, {"--record", "0"}} {
			msg := fails(t, dir, exitError, nil, append(append(mode, key...), name+".m2m")...)
			if !strings.Contains(msg, "bad seal") || !strings.Contains(msg, "record") {
				t.Errorf("%s %v: %q", name, mode, msg)
			}
		}
	}
	for _, mode := range [][]string{{"-t"}, {"-dc"}, {"--record", "0"}} {
		if msg := fails(t, dir, exitError, nil, append(append(mode, key...), "empty-not-sealed.m2m")...); !strings.Contains(msg, "not sealed") {
			t.Errorf("empty, not sealed, %v: %q", mode, msg)
		}
	}
}

// TestHeaderChecked: a frame whose header names another model than its
// payload, every checksum made right again, is listed by -l as the header
// says (it reads headers alone), and fails -t, naming the record.
func TestHeaderChecked(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "s.jsonl"), sample.JSONL())
	ok(t, dir, nil, "-q", "s.jsonl")
	f, err := forge.Parse(read(t, filepath.Join(dir, "s.jsonl.m2m")))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Replace([]byte("\x06gpt-4o"), []byte("\x06Xpt-4o")) {
		t.Fatal("no header names gpt-4o")
	}
	write(t, filepath.Join(dir, "forged.m2m"), f.Bytes())
	if r := ok(t, dir, nil, "-lv", "forged.m2m"); !strings.Contains(r.stdout, "Xpt-4o 1") {
		t.Errorf("-l: %q", r.stdout)
	}
	if msg := fails(t, dir, exitError, nil, "-t", "forged.m2m"); !strings.Contains(msg, "record ") || !strings.Contains(msg, "Xpt-4o") {
		t.Errorf("-t: %q", msg)
	}
}

func TestUsage(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.jsonl"), []byte("{}\n"))
	for _, args := range [][]string{
		{"-d", "-t"},
		{"-12"},
		{"--algorithm", "zip"},
		{"--format", "csv"},
		{"-T", "-1"},
		{"-c", "-o", "x", "a.jsonl"},
		{"-o", "x", "a.jsonl", "a.jsonl"},
		{"--tokenizer", "gpt2"},
		{"--no-such-flag"},
	} {
		fails(t, dir, exitUsage, nil, args...)
	}
	if msg := fails(t, dir, exitError, nil, "-d", "a.jsonl"); !strings.Contains(msg, "suffix") {
		t.Errorf("-d on an unknown suffix: %q", msg)
	}
	// A missing file fails, and the others are still done.
	write(t, filepath.Join(dir, "b.jsonl"), []byte("{}\n"))
	fails(t, dir, exitError, nil, "-q", "missing.jsonl", "b.jsonl")
	if _, err := os.Stat(filepath.Join(dir, "b.jsonl.m2m")); err != nil {
		t.Errorf("the good file after the missing one: %v", err)
	}
	if r := ok(t, dir, nil, "-V"); !strings.HasPrefix(r.stdout, "m2m-batch ") || !strings.Contains(r.stdout, "crc=") {
		t.Errorf("-V said %q", r.stdout)
	}
	// Values of flags are not taken for levels: the messages quote what
	// was typed.
	for _, args := range [][]string{{"-T", "-1"}, {"-qT", "-1"}, {"--record", "-1", "a.jsonl"}, {"--threads", "-1"}} {
		if msg := fails(t, dir, exitUsage, nil, args...); strings.Contains(msg, "level") || !strings.Contains(msg, "-1") {
			t.Errorf("%v: %q", args, msg)
		}
	}
	if r := ok(t, dir, nil, "-T", "1", "-3", "-q", "-c", "a.jsonl"); r.stdout == "" {
		t.Error("-T 1 -3: no output")
	}
}

// TestHelp: --help goes to standard output, reads like zstd's (no
// "[=true|false]", no repeated defaults) and names every flag.
func TestHelp(t *testing.T) {
	r := ok(t, t.TempDir(), nil, "--help")
	if r.stderr != "" || !strings.HasPrefix(r.stdout, "Usage: m2m-batch") {
		t.Fatalf("--help: stdout %.40q, stderr %q", r.stdout, r.stderr)
	}
	for _, bad := range []string{"[=true|false]", "(default true)", "(default false)"} {
		if strings.Contains(r.stdout, bad) {
			t.Errorf("--help says %q", bad)
		}
	}
	for _, want := range []string{".gz", "--archive", "Examples:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help does not mention %s", want)
		}
	}
	c, err := parseArgs([]string{"-h"}, io.Discard)
	if c != nil || !errors.Is(err, errHelp) {
		t.Fatal("-h is not help")
	}
	for _, name := range flagNames() {
		if !strings.Contains(r.stdout, "--"+name+" ") && !strings.Contains(r.stdout, "--"+name+"\n") {
			t.Errorf("--help does not name --%s", name)
		}
	}
}

// flagNames lists the long names of every flag.
func flagNames() []string {
	return newFlagSet(new(config), new(args)).Names()
}

// TestNotOurs: -t, -l and -d refuse input that is not an m2m file, as zstd
// does; -d -f copies it as it is.
func TestNotOurs(t *testing.T) {
	dir := t.TempDir()
	data := sample.JSONL()
	write(t, filepath.Join(dir, "plain.jsonl"), data)
	write(t, filepath.Join(dir, "plain.m2m"), data)
	for _, args := range [][]string{{"-t", "plain.jsonl"}, {"-l", "plain.jsonl"}, {"-dc", "plain.jsonl"}, {"-d", "plain.m2m"}} {
		if msg := fails(t, dir, exitError, nil, args...); !strings.Contains(msg, "not an m2m file") {
			t.Errorf("%v: %q", args, msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "plain")); !os.IsNotExist(err) {
		t.Errorf("-d of a file that is not m2m left an output: %v", err)
	}
	if r := ok(t, dir, nil, "-dcf", "plain.jsonl"); r.stdout != string(data) {
		t.Error("-dcf did not copy the input")
	}
	ok(t, dir, nil, "-q", "-df", "plain.m2m")
	if !bytes.Equal(read(t, filepath.Join(dir, "plain")), data) {
		t.Error("-df did not copy the input")
	}
	// -f does not make -t or -l accept it.
	fails(t, dir, exitError, nil, "-tf", "plain.jsonl")
	noTemporaries(t, dir)
}

// TestCorpus round-trips the corpus named by M2M_CORPUS.
func TestCorpus(t *testing.T) {
	path := os.Getenv("M2M_CORPUS")
	if path == "" {
		t.Skip("M2M_CORPUS not set")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ok(t, dir, nil, "-q", "-o", "c.m2m", abs)
	ok(t, dir, nil, "-t", "c.m2m")
	ok(t, dir, nil, "-q", "-d", "-o", "c.jsonl", "c.m2m")
	if !bytes.Equal(read(t, filepath.Join(dir, "c.jsonl")), read(t, abs)) {
		t.Fatal("the corpus did not come back byte for byte")
	}
}

// TestTerminal: compressed data is not written to a terminal without -f;
// text is. Data is not read from a terminal without -f.
func TestTerminal(t *testing.T) {
	defer func(f func(any) bool) { isTerminal = f }(isTerminal)
	var ttyIn, ttyOut bool // whether stdin, stdout (and stderr) pretend to be terminals
	isTerminal = func(f any) bool {
		switch f.(type) {
		case *strings.Reader:
			return ttyIn
		case *bytes.Buffer:
			return ttyOut
		}
		return false
	}
	try := func(args []string, in string) (code int, stdout, stderr string) {
		var o, e bytes.Buffer
		code = run(args, strings.NewReader(in), &o, &e)
		return code, o.String(), e.String()
	}
	ttyIn = true
	for _, args := range [][]string{{"-q"}, {"-dq"}, {"-t"}, {"-l"}} {
		if code, _, stderr := try(args, "{}\n"); code != exitError || !strings.Contains(stderr, "standard input is a terminal") {
			t.Errorf("%v from a terminal: exit %d, stderr %q", args, code, stderr)
		}
	}
	if code, stdout, stderr := try([]string{"-qf"}, "{}\n"); code != exitOK || stdout == "" {
		t.Errorf("-f from a terminal: exit %d, stderr %q", code, stderr)
	}
	ttyIn, ttyOut = false, true
	if code, stdout, stderr := try([]string{"-q"}, "{}\n"); code != exitError || !strings.Contains(stderr, "standard output is a terminal") || stdout != "" {
		t.Errorf("compressing to a terminal: exit %d, stderr %q, %d bytes out", code, stderr, len(stdout))
	}
	if code, stdout, stderr := try([]string{"-q", "-f"}, "{}\n"); code != exitOK || stdout == "" {
		t.Errorf("-f: exit %d, stderr %q", code, stderr)
	}
	for _, args := range [][]string{{"-q", "--format=lines"}, {"-q", "-d"}} {
		in := "{}\n"
		if args[1] == "-d" {
			in = "#M2M[v3.0]|DATA:CwGAe30DAw==\n"
		}
		if code, stdout, stderr := try(args, in); code != exitOK || stdout == "" {
			t.Errorf("%v to a terminal: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// TestArchive: --archive writes an archive that -t, -l, -d and --record
// read, and refuses the flags that do not apply to it.
func TestArchive(t *testing.T) {
	dir := t.TempDir()
	data := sample.JSONL()
	write(t, filepath.Join(dir, "s.jsonl"), data)
	ok(t, dir, nil, "--archive", "-q", "-o", "a.m2m", "s.jsonl")
	ok(t, dir, nil, "-q", "-o", "p.m2m", "s.jsonl")
	if a, p := len(read(t, filepath.Join(dir, "a.m2m"))), len(read(t, filepath.Join(dir, "p.m2m"))); a*2 > p {
		t.Errorf("archive of %d bytes, per-record container of %d", a, p)
	}
	if r := ok(t, dir, nil, "-t", "a.m2m"); !strings.Contains(r.stderr, "OK, 450 records") {
		t.Errorf("-t said %q", r.stderr)
	}
	r := ok(t, dir, nil, "-l", "a.m2m")
	for _, want := range []string{"a.m2m: archive, 450 records", "(12 repeating one before them)", "strings and", "request 246", "gpt-4.1"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("-l output lacks %q:\n%s", want, r.stdout)
		}
	}
	// -l -v says where the bytes go.
	r = ok(t, dir, nil, "-l", "-v", "a.m2m")
	for _, want := range []string{"stream", "index", "crcs", "skeletons", "strings", "templates", "of file"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("-l -v output lacks %q:\n%s", want, r.stdout)
		}
	}
	// Levels 1 to 4; 4 is smaller.
	ok(t, dir, nil, "--archive", "-q", "-1", "-o", "a1.m2m", "s.jsonl")
	ok(t, dir, nil, "--archive", "-q", "-4", "-o", "a4.m2m", "s.jsonl")
	if a1, a4 := len(read(t, filepath.Join(dir, "a1.m2m"))), len(read(t, filepath.Join(dir, "a4.m2m"))); a4 >= a1 {
		t.Errorf("level 4 wrote %d bytes, level 1 %d", a4, a1)
	}
	if r := ok(t, dir, nil, "-dc", "a4.m2m"); r.stdout != string(data) {
		t.Fatal("-dc of level 4 did not give back the input")
	}
	// --max (level 5) is smaller still, and reads the same way.
	ok(t, dir, nil, "--max", "-q", "--model-memory", "32", "-o", "a5.m2m", "s.jsonl")
	if a4, a5 := len(read(t, filepath.Join(dir, "a4.m2m"))), len(read(t, filepath.Join(dir, "a5.m2m"))); a5*10 > a4*9 {
		t.Errorf("--max wrote %d bytes, level 4 %d", a5, a4)
	}
	if r := ok(t, dir, nil, "-dc", "a5.m2m"); r.stdout != string(data) {
		t.Fatal("-dc of --max did not give back the input")
	}
	if r := ok(t, dir, nil, "--record", "3", "a5.m2m"); r.stdout != strings.SplitAfter(string(data), "\n")[3] {
		t.Errorf("--max: --record 3 wrote %.200q", r.stdout)
	}
	if r := ok(t, dir, nil, "-dc", "a.m2m"); r.stdout != string(data) {
		t.Fatal("-dc did not give back the input")
	}
	lines := strings.SplitAfter(string(data), "\n")
	for _, file := range []string{"a.m2m", "p.m2m"} {
		if r := ok(t, dir, nil, "--record", "449,0,7-9", file); r.stdout != lines[449]+lines[0]+lines[7]+lines[8]+lines[9] {
			t.Errorf("%s: --record 449,0,7-9 wrote %.200q", file, r.stdout)
		}
		if msg := fails(t, dir, exitError, nil, "--record", "450", file); !strings.Contains(msg, "out of range") {
			t.Errorf("%s: --record past the end: %q", file, msg)
		}
	}
	for _, args := range [][]string{
		{"--archive", "-d", "a.m2m"},
		{"--archive", "--level", "9", "s.jsonl"},
		{"--max", "-3", "s.jsonl"},
		{"--archive", "--model-memory", "64", "s.jsonl"},
		{"--max", "--model-memory", "513", "s.jsonl"},
		{"--frame-size", "2", "s.jsonl"},
		{"--archive", "--frame-size", "17", "s.jsonl"},
		{"--archive", "--frame-size", "0", "s.jsonl"},
		{"--archive", "--format", "lines", "s.jsonl"},
		{"--record", "1", "-t", "a.m2m"},
		{"--record", "1"},
		{"--record", "3-1", "a.m2m"},
		{"--record", "1", "a.m2m", "p.m2m"},
	} {
		fails(t, dir, exitUsage, nil, args...)
	}
	noTemporaries(t, dir)
}

// TestFrameSize: --frame-size cuts an archive's text into frames of that
// many MiB, which -l -v counts, and the records read back the same.
func TestFrameSize(t *testing.T) {
	dir := t.TempDir()
	// 2.6 MB of strings that do not repeat: one frame by default; with
	// frames of 1 MiB, two: the first, the others' dictionary, holds 2.
	var in bytes.Buffer
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 3000 {
		fmt.Fprintf(&in, `{"model":"m","messages":[{"role":"user","content":"%d %s"}]}`+"\n", i, letters(rng, 860))
	}
	write(t, filepath.Join(dir, "s.jsonl"), in.Bytes())
	frames := func(file string) string {
		for _, line := range strings.Split(ok(t, dir, nil, "-l", "-v", file).stdout, "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "strings" {
				return f[1]
			}
		}
		t.Fatalf("-l -v %s: no strings line", file)
		return ""
	}
	for _, c := range []struct{ size, frames string }{{"", "1"}, {"1", "2"}} {
		args := []string{"--archive", "-q", "-o", "f.m2m", "-f", "s.jsonl"}
		if c.size != "" {
			args = append(args, "--frame-size", c.size)
		}
		ok(t, dir, nil, args...)
		if got := frames("f.m2m"); got != c.frames {
			t.Errorf("--frame-size %q: %s strings frames, want %s", c.size, got, c.frames)
		}
		if r := ok(t, dir, nil, "-dc", "f.m2m"); r.stdout != in.String() {
			t.Fatalf("--frame-size %q: -dc did not give back the input", c.size)
		}
		if r := ok(t, dir, nil, "--record", "2999", "f.m2m"); r.stdout != strings.SplitAfter(in.String(), "\n")[2999] {
			t.Errorf("--frame-size %q: --record 2999 wrote %.100q", c.size, r.stdout)
		}
	}
}

// letters returns n random lower-case letters: text that does not repeat.
func letters(rng *rand.Rand, n int) []byte {
	text := make([]byte, n)
	for j := range text {
		text[j] = 'a' + byte(rng.IntN(26))
	}
	return text
}

// TestCutArchive: an archive cut inside its last strings frame (a copy
// that stopped) gives up the records before the first that needs that
// frame: with -c, on standard output, exit 1, saying how many; written to
// a file, none (an error removes it).
func TestCutArchive(t *testing.T) {
	dir := t.TempDir()
	// 2.6 MB of strings that do not repeat, in three frames of 1 MiB,
	// written as they fill: the records block, at the end, refers to all.
	var in bytes.Buffer
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 3000 {
		fmt.Fprintf(&in, `{"n":%d,"text":"%s"}`+"\n", i, letters(rng, 860))
	}
	write(t, filepath.Join(dir, "s.jsonl"), in.Bytes())
	ok(t, dir, nil, "--archive", "-q", "--frame-size", "1", "-o", "f.m2m", "s.jsonl")
	packed := read(t, filepath.Join(dir, "f.m2m"))
	write(t, filepath.Join(dir, "cut.m2m"), packed[:len(packed)-100_000])
	r := m2m(t, dir, nil, "-dc", "cut.m2m")
	if r.code != exitError || len(r.stdout) < in.Len()/2 || !strings.HasPrefix(in.String(), r.stdout) || !strings.Contains(r.stderr, "records recovered") {
		t.Errorf("-dc of a cut archive: exit %d, %d bytes of %d (a prefix of the input: %v), %q",
			r.code, len(r.stdout), in.Len(), strings.HasPrefix(in.String(), r.stdout), r.stderr)
	}
	if msg := fails(t, dir, exitError, nil, "-t", "cut.m2m"); !strings.Contains(msg, "records recovered") || !strings.Contains(msg, "record") {
		t.Errorf("-t of a cut archive: %q", msg)
	}
	// -l lists what is left, --record reads a record of it: both on
	// standard output, and both fail.
	if r := m2m(t, dir, nil, "-l", "cut.m2m"); r.code != exitError || !strings.Contains(r.stdout, "cut.m2m: archive, 3000 records") || !strings.Contains(r.stderr, "truncated") {
		t.Errorf("-l of a cut archive: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
	if r := m2m(t, dir, nil, "--record", "5", "cut.m2m"); r.code != exitError || r.stdout != strings.SplitAfter(in.String(), "\n")[5] || !strings.Contains(r.stderr, "damaged") {
		t.Errorf("--record 5 of a cut archive: exit %d, %.80q, %q", r.code, r.stdout, r.stderr)
	}
	if msg := fails(t, dir, exitError, nil, "--record", "2999", "cut.m2m"); !strings.Contains(msg, "not in what is left") {
		t.Errorf("--record 2999 of a cut archive: %q", msg)
	}
	fails(t, dir, exitError, nil, "-d", "-o", "out.jsonl", "cut.m2m")
	if _, err := os.Stat(filepath.Join(dir, "out.jsonl")); !os.IsNotExist(err) {
		t.Errorf("-d of a cut archive to a file: partial output left: %v", err)
	}
	noTemporaries(t, dir)
}

// TestBenchCommand: m2m-batch bench measures every row, archives and a
// zstd baseline included, and checks that each round-trips.
func TestBenchCommand(t *testing.T) {
	dir := t.TempDir()
	data := sample.JSONL()
	data = data[:bytes.IndexByte(data[40000:], '\n')+40001]
	write(t, filepath.Join(dir, "small.jsonl"), data)
	var out, errs bytes.Buffer
	if code := runBench(context.Background(), []string{"--time", "1ms", "--corpus", filepath.Join(dir, "small.jsonl")}, &out, &errs); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, r := range benchRows {
		if !strings.Contains(out.String(), r.name) {
			t.Errorf("no row %q:\n%s", r.name, out.String())
		}
	}
}

// TestRatio: a ratio is raw bytes over packed ones, under 1 where packing
// made records larger (each tiny record in a frame of its own), in the
// summary, the listing and the status line alike.
func TestRatio(t *testing.T) {
	in := strings.Repeat(`{"a":1}`+"\n", 100)
	var packed, e bytes.Buffer
	if code := run([]string{"-c"}, strings.NewReader(in), &packed, &e); code != exitOK {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	if packed.Len() <= len(in) {
		t.Skipf("%d bytes packed into %d: no longer larger", len(in), packed.Len())
	}
	want := fmt.Sprintf("ratio %.2f", float64(len(in))/float64(packed.Len()))
	if !strings.Contains(e.String(), want) {
		t.Errorf("compressing: %q, want %q", e.String(), want)
	}
	var o bytes.Buffer
	e.Reset()
	if code := run([]string{"-l"}, bytes.NewReader(packed.Bytes()), &o, &e); code != exitOK || !strings.Contains(o.String()+e.String(), want) {
		t.Errorf("listing: exit %d, %q, want %q", code, o.String()+e.String(), want)
	}
	var st pipeline.Stats
	st.BytesIn.Store(int64(packed.Len()))
	st.BytesOut.Store(int64(len(in)))
	if line := statusLine("f", 1, -1, &st, time.Second, true); !strings.Contains(line, want) {
		t.Errorf("status line decoding: %q, want %q", line, want)
	}
}

// TestCounts checks the listing's name-count pairs: the first limit of
// them in order, the rest counted as others.
func TestCounts(t *testing.T) {
	m := map[string]int64{"a": 5, "b": 3, "": 2, "c": 1}
	order := []string{"a", "b", "", "c"}
	for _, c := range []struct {
		limit int
		want  string
	}{
		{0, ` a 5 b 3 "" 2 c 1`},
		{4, ` a 5 b 3 "" 2 c 1`},
		{2, ` a 5 b 3 (2 others 3)`},
		{1, ` a 5 (3 others 6)`},
	} {
		if got := counts(m, order, c.limit); got != c.want {
			t.Errorf("limit %d: %q, want %q", c.limit, got, c.want)
		}
	}
}
