package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/m2m-go/m2m/archive"
	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/internal/getopt"
	"github.com/m2m-go/m2m/pipeline"
	"github.com/m2m-go/m2m/tokenizer"
)

// mode is what the run does to each file.
type mode int

const (
	modeCompress mode = iota
	modeDecompress
	modeTest
	modeList
	modeRecord // --record: single records, by number
)

// config is the parsed command line.
type config struct {
	mode       mode
	files      []string
	stdout     bool   // -c
	output     string // -o
	rm         bool   // --rm: remove inputs that were processed without error
	force      bool
	verbosity  int // -v adds one, -q takes one away; 0 is the default
	opts       pipeline.Options
	records    []span // --record
	version    bool
	cpuProfile string
	memProfile string
}

func (c *config) logLevel() slog.Level {
	switch {
	case c.verbosity < 0:
		return slog.LevelError
	case c.verbosity > 0:
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

// errHelp reports that --help was given and the usage printed.
var errHelp = errors.New("help requested")

// usage is the text of --help. TestHelp checks that it names every flag.
const usage = `Usage: m2m-batch [OPTIONS] [FILE...]
       m2m-batch bench [OPTIONS]

Compress JSONL logs of LLM API traffic to FILE.m2m; restore, test or list
them. A FILE may be gzip- or zstd-compressed: a.jsonl.gz gives a.jsonl.m2m,
which -d restores to a.jsonl. With no FILE, or -, read standard input and
write standard output. Inputs are kept unless --rm is given.

Modes (compression is the default):
  -d, --decompress      restore FILE.m2m to FILE
  -t, --test            decode and check every record
  -l, --list            count records, encodings and models from headers
                        alone (-t checks headers against payloads)
      --record LIST     write records LIST of one FILE.m2m (7 or 0-9,42; from 0)
  -t, -l and --record also read a shard manifest (m2m-beam's manifest.jsonl):
  every shard it lists, as one corpus, checked against the manifest (-t: the
  records, bytes and CRC-32 each shard restores); records are numbered across
  the shards in manifest order.

Output:
  -c, --stdout          write to standard output
  -o, --output FILE     write to FILE (one input only)
  -f, --force           overwrite outputs; write compressed data to a terminal;
                        read a terminal; with -d, copy input that is not m2m
  -k, --keep            keep inputs (default)
      --rm              remove inputs after success

Compression:
  -#, --level N         Brotli quality, 0-11, of the encoder of C brotli's
                        design (5 writes the reference's bytes); by default
                        m2m's own, faster and smaller than 5; with --archive,
                        the zstd level, 1-4 (default 3; 4, text parsed by
                        price, is 3% smaller at half the speed), or 5, the
                        same as --max
      --archive         an archive: every JSON value of 64 bytes or more
                        (text, 32) stored once, text apart from structure;
                        smaller
      --max             the smallest archive (--archive -5): text coded by a
                        context model, at a few MB/s a core both ways
      --model-memory M  --max's model memory per worker in MiB, 1-512
                        (default 384)
      --frame-size M    an archive's frames of text in MiB, 1-16 (default 4,
                        templates half, the first strings frame, the others'
                        dictionary, twice; --max 16, and its last strings
                        frame up to a quarter more): smaller reads one
                        record faster, larger compresses better
      --format F        container (default) or lines (a wire string a line)
      --algorithm A     auto (default), m2m, brotli, tokennative or hydra
      --tokenizer T     TokenNative's: cl100k (default), o200k or llama3
      --llama3-tokenizer PATH
                        Llama 3 ranks (original/tokenizer.model)
      --verify          decode each record after encoding it, and compare
      --security S      seal records: none (default), hmac or aead;
                        -d, -t, -l, --record: require them sealed
      --key-file FILE   the 32-byte key: raw, or 64 hex digits

Other:
  -T, --threads N       workers (default 0: one a core)
  -q, --quiet           no progress or summary; twice: no error messages
  -v, --verbose         more detail (repeatable)
      --cpuprofile FILE write a CPU profile
      --memprofile FILE write an allocation profile
  -V, --version         print the version and the kernels in use
  -h, --help            print this help

Examples:
  m2m-batch logs.jsonl.gz             logs.jsonl.m2m, logs.jsonl.gz kept
  m2m-batch --archive -o all.m2m -    an archive of standard input
  m2m-batch -d logs.jsonl.m2m         logs.jsonl
  m2m-batch --record 42 logs.jsonl.m2m
  zcat day-*.gz | m2m-batch > day.m2m
`

// args holds the flags that validate turns into a config.
type args struct {
	decompress, test, list, keep, help bool
	quiet, verbose                     int
	level, workers, modelMemory        int
	frameSize                          int
	max                                bool
	algorithm, format, security        string
	keyFile, tok, llama3, records      string
}

// newFlagSet defines the flags, writing into c and a, with their
// defaults. The usage text (usage) describes them.
func newFlagSet(c *config, a *args) *getopt.Set {
	a.keep = true
	a.format, a.algorithm, a.tok, a.security = "container", "auto", "cl100k", "none"
	var fs getopt.Set
	fs.Bool(&a.decompress, "decompress", 'd')
	fs.Bool(&a.test, "test", 't')
	fs.Bool(&a.list, "list", 'l')
	fs.String(&a.records, "record", 0)
	fs.Bool(&c.stdout, "stdout", 'c')
	fs.String(&c.output, "output", 'o')
	fs.Bool(&a.keep, "keep", 'k')
	fs.Bool(&c.rm, "rm", 0)
	fs.Bool(&c.force, "force", 'f')
	fs.Int(&a.workers, "threads", 'T')
	fs.Int(&a.level, "level", 0)
	fs.Digits("level") // -5 is --level 5, as zstd users type it
	fs.Bool(&c.opts.Archive, "archive", 0)
	fs.Bool(&a.max, "max", 0)
	fs.Int(&a.modelMemory, "model-memory", 0)
	fs.Int(&a.frameSize, "frame-size", 0)
	fs.String(&a.format, "format", 0)
	fs.String(&a.algorithm, "algorithm", 0)
	fs.String(&a.tok, "tokenizer", 0)
	fs.String(&a.llama3, "llama3-tokenizer", 0)
	fs.Bool(&c.opts.Verify, "verify", 0)
	fs.String(&a.security, "security", 0)
	fs.String(&a.keyFile, "key-file", 0)
	fs.Count(&a.quiet, "quiet", 'q')
	fs.Count(&a.verbose, "verbose", 'v')
	fs.String(&c.cpuProfile, "cpuprofile", 0)
	fs.String(&c.memProfile, "memprofile", 0)
	fs.Bool(&c.version, "version", 'V')
	fs.Bool(&a.help, "help", 'h')
	return &fs
}

// parseArgs parses the command line. It prints the usage to stdout for
// --help and returns errHelp.
func parseArgs(argv []string, stdout io.Writer) (*config, error) {
	c := &config{}
	var a args
	fs := newFlagSet(c, &a)
	if err := fs.Parse(argv); err != nil {
		return nil, err
	}
	if a.help {
		fmt.Fprint(stdout, usage)
		return nil, errHelp
	}
	c.files = fs.Args()
	if err := c.validate(fs, &a); err != nil {
		return nil, err
	}
	return c, nil
}

// validate checks the flags against each other and fills in the rest of c.
func (c *config) validate(fs *getopt.Set, a *args) error {
	c.verbosity = a.verbose - a.quiet
	n := 0
	for _, m := range []struct {
		on bool
		m  mode
	}{{a.decompress, modeDecompress}, {a.test, modeTest}, {a.list, modeList}, {a.records != "", modeRecord}} {
		if m.on {
			c.mode = m.m
			n++
		}
	}
	if n > 1 {
		return errors.New("-d, -t, -l and --record exclude each other")
	}
	if c.mode == modeRecord {
		var err error
		if c.records, err = parseSpans(a.records); err != nil {
			return err
		}
		switch {
		case len(c.files) != 1 || c.files[0] == "-":
			return errors.New("--record reads one compressed FILE (not standard input: it seeks)")
		case c.rm:
			return errors.New("--rm and --record exclude each other")
		}
	}
	if c.rm && fs.Changed("keep") {
		return errors.New("--rm and -k exclude each other")
	}
	if c.output != "" && c.stdout {
		return errors.New("-o and -c exclude each other")
	}
	if c.output != "" && len(c.files) > 1 {
		return errors.New("-o takes one input file")
	}
	if c.rm && (c.mode == modeTest || c.mode == modeList) {
		return errors.New("--rm only goes with compression or -d")
	}
	if c.rm && c.stdout {
		return errors.New("--rm and -c exclude each other: nothing would be left on disk")
	}
	if a.workers < 0 {
		return fmt.Errorf("-T %d: the number of workers cannot be negative", a.workers)
	}
	c.opts.Workers = a.workers
	c.opts.CopyUnknown = c.force && c.mode == modeDecompress
	if a.max {
		if fs.Changed("level") && a.level != archive.LevelMax {
			return fmt.Errorf("--max and level %d exclude each other", a.level)
		}
		c.opts.Archive, a.level = true, archive.LevelMax
	}
	if fs.Changed("model-memory") {
		switch {
		case !c.opts.Archive || !a.max && !(fs.Changed("level") && a.level == archive.LevelMax):
			return errors.New("--model-memory goes with --max")
		case a.modelMemory < 1 || a.modelMemory > 512:
			return fmt.Errorf("--model-memory %d: from 1 to 512 MiB", a.modelMemory)
		}
		c.opts.ArchiveOptions.ModelMemory = a.modelMemory
	}
	if fs.Changed("frame-size") {
		switch {
		case !c.opts.Archive:
			return errors.New("--frame-size goes with --archive or --max")
		case a.frameSize < 1 || a.frameSize > 16:
			return fmt.Errorf("--frame-size %d: from 1 to 16 MiB", a.frameSize)
		}
		c.opts.ArchiveOptions.FrameSize = a.frameSize
	}
	switch {
	case c.opts.Archive:
		if fs.Changed("level") && (a.level < 1 || a.level > archive.LevelMax) {
			return fmt.Errorf("level %d: archive levels go from 1 to %d", a.level, archive.LevelMax)
		}
		if fs.Changed("level") || a.max {
			c.opts.ArchiveOptions.Level = a.level
		}
	case !fs.Changed("level"):
		// The codec's own Brotli encoder.
	case a.level < 0 || a.level > 11:
		return fmt.Errorf("level %d: Brotli qualities go from 0 to 11", a.level)
	case a.level == 0:
		c.opts.Codec = append(c.opts.Codec, codec.WithQuality(0))
	default:
		c.opts.Quality = a.level
	}
	var err error
	if c.opts.Format, err = pipeline.ParseFormat(a.format); err != nil {
		return err
	}
	if c.opts.Algorithm, err = pipeline.ParseAlgorithm(a.algorithm); err != nil {
		return err
	}
	enc, err := parseTokenizer(a.tok)
	if err != nil {
		return err
	}
	c.opts.Codec = append(c.opts.Codec, codec.WithTokenizer(enc))
	if a.llama3 != "" {
		// Loaded now, its hash checked, for encoders and decoders alike.
		tok, err := tokenizer.LoadLlama3(a.llama3)
		if err != nil {
			return err
		}
		c.opts.Codec = append(c.opts.Codec, codec.WithLlama3(tok))
	}
	if c.opts.Security, err = parseSecurity(a.security); err != nil {
		return err
	}
	if c.opts.Archive {
		switch {
		case c.mode != modeCompress:
			return errors.New("--archive is for compression: -d, -t and -l read archives as they are")
		case c.opts.Security != codec.SecurityNone:
			return errors.New("--archive and --security exclude each other: an archive's blocks are not sealed")
		case fs.Changed("format") || fs.Changed("algorithm"):
			return errors.New("--archive sets its own layout: --format and --algorithm do not apply")
		}
	}
	switch {
	case c.opts.Security != codec.SecurityNone && a.keyFile == "":
		return fmt.Errorf("--security %s needs --key-file", a.security)
	case c.opts.Security == codec.SecurityNone && a.keyFile != "":
		return errors.New("--key-file needs --security hmac or aead")
	case a.keyFile != "":
		if c.opts.Key, err = readKey(a.keyFile); err != nil {
			return err
		}
	}
	return nil
}

// span is a range of record numbers, first to last inclusive.
type span struct{ first, last int64 }

// parseSpans parses a --record list: numbers and ranges, comma-separated.
func parseSpans(s string) ([]span, error) {
	var out []span
	for _, f := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(f, "-")
		first, err1 := strconv.ParseInt(a, 10, 64)
		last, err2 := first, error(nil)
		if isRange {
			last, err2 = strconv.ParseInt(b, 10, 64)
		}
		if err1 != nil || err2 != nil || first < 0 || last < first {
			return nil, fmt.Errorf("--record %q: want record numbers from 0 and ranges such as 3-9, comma-separated", s)
		}
		out = append(out, span{first, last})
	}
	return out, nil
}

func parseTokenizer(s string) (tokenizer.Encoding, error) {
	switch strings.ToLower(s) {
	case "cl100k", "cl100k_base":
		return tokenizer.Cl100kBase, nil
	case "o200k", "o200k_base":
		return tokenizer.O200kBase, nil
	case "llama3":
		return tokenizer.Llama3, nil
	}
	return 0, fmt.Errorf("unknown tokenizer %q (cl100k, o200k, llama3)", s)
}

func parseSecurity(s string) (codec.Security, error) {
	for _, m := range []codec.Security{codec.SecurityNone, codec.SecurityHMAC, codec.SecurityAEAD} {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown security mode %q (none, hmac, aead)", s)
}

// keySize is the key length both security modes take.
const keySize = 32

// readKey reads a 32-byte key: the file holds either the 32 bytes
// themselves or 64 hex digits, with surrounding white space allowed around
// the digits. Anything else is an error; a key is never truncated or
// padded.
func readKey(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	if len(b) == keySize {
		return b, nil
	}
	t := bytes.TrimSpace(b)
	if len(t) == 2*keySize {
		if k, err := hex.DecodeString(string(t)); err == nil {
			return k, nil
		}
	}
	return nil, fmt.Errorf("key file %s: want %d raw bytes or %d hex digits, found %d bytes", path, keySize, 2*keySize, len(b))
}
