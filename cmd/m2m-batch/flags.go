package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/m2m-go/m2m/codec"
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

const usageHead = `Usage: m2m-batch [OPTIONS] [FILE...]
       m2m-batch bench [OPTIONS]

Compress JSONL corpora of LLM API traffic to FILE.m2m (-d: back to FILE),
test (-t) or list (-l) them, or write single records (--record). With no
FILE, or "-", read standard input and write standard output. Inputs are
kept unless --rm is given.

Options:
`

// levelArg matches zstd-style level flags such as -5 and -11.
var levelArg = regexp.MustCompile(`^-([0-9]+)$`)

// rewriteLevels turns "-5" into "--level=5", as zstd users type it, up to
// a "--" that ends the options.
func rewriteLevels(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if m := levelArg.FindStringSubmatch(a); m != nil {
			a = "--level=" + m[1]
		}
		out = append(out, a)
	}
	return out
}

// parseArgs parses the command line. It prints the usage to stderr for
// --help and returns errHelp.
func parseArgs(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := pflag.NewFlagSet("m2m-batch", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	var (
		decompress, test, list, keep, help bool
		quiet, verbose                     int
		level                              int
		algorithm, format, security        string
		keyFile, tok, llama3               string
		workers                            int
		records                            string
	)
	fs.BoolVarP(&decompress, "decompress", "d", false, "decompress")
	fs.BoolVarP(&test, "test", "t", false, "test the integrity of compressed files")
	fs.BoolVarP(&list, "list", "l", false, "list records, formats and models (from headers only)")
	fs.StringVar(&records, "record", "", "write records `LIST` (e.g. 7 or 0-9,42; numbered from 0) of one compressed FILE, decoding only what they need")
	fs.BoolVarP(&c.stdout, "stdout", "c", false, "write to standard output, keep inputs")
	fs.StringVarP(&c.output, "output", "o", "", "write to `FILE` (one input only)")
	fs.BoolVarP(&keep, "keep", "k", true, "keep input files (the default)")
	fs.BoolVar(&c.rm, "rm", false, "remove input files after success")
	fs.BoolVarP(&c.force, "force", "f", false, "overwrite outputs; write compressed data to a terminal")
	fs.IntVarP(&workers, "threads", "T", 0, "use `N` workers (0: all cores)")
	fs.IntVar(&level, "level", 5, "Brotli quality 0-11 (also -0 ... -11)")
	fs.BoolVar(&c.opts.Archive, "archive", false, "archive: blocks compressed as a unit, repeated JSON values stored once (smaller; reading one record decodes its block and the values it refers to)")
	fs.StringVar(&format, "format", "container", "output `format`: container or lines (one wire string per line)")
	fs.StringVar(&algorithm, "algorithm", "auto", "record `encoding`: auto, m2m, tokennative or brotli")
	fs.StringVar(&tok, "tokenizer", "cl100k", "TokenNative `tokenizer`: cl100k, o200k or llama3")
	fs.StringVar(&llama3, "llama3-tokenizer", "", "Llama 3 ranks (original/tokenizer.model) at `PATH`")
	fs.BoolVar(&c.opts.Verify, "verify", false, "decode every record after encoding it and compare")
	fs.StringVar(&security, "security", "none", "seal records: none, hmac (HMAC-SHA256) or aead (ChaCha20-Poly1305)")
	fs.StringVar(&keyFile, "key-file", "", "32-byte key for --security: raw, or 64 hex digits, in `FILE`")
	fs.CountVarP(&quiet, "quiet", "q", "no progress or summary (twice: errors only as exit status)")
	fs.CountVarP(&verbose, "verbose", "v", "more detail (repeatable)")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile to `FILE`")
	fs.StringVar(&c.memProfile, "memprofile", "", "write an allocation profile to `FILE`")
	fs.BoolVarP(&c.version, "version", "V", false, "print the version and kernels, and exit")
	fs.BoolVarP(&help, "help", "h", false, "print this help")
	if err := fs.Parse(rewriteLevels(args)); err != nil {
		return nil, err
	}
	if help {
		fmt.Fprint(stderr, usageHead)
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		return nil, errHelp
	}
	c.files = fs.Args()
	c.verbosity = verbose - quiet

	n := 0
	for _, m := range []struct {
		on bool
		m  mode
	}{{decompress, modeDecompress}, {test, modeTest}, {list, modeList}, {records != "", modeRecord}} {
		if m.on {
			c.mode = m.m
			n++
		}
	}
	if n > 1 {
		return nil, errors.New("-d, -t, -l and --record exclude each other")
	}
	if c.mode == modeRecord {
		var err error
		if c.records, err = parseSpans(records); err != nil {
			return nil, err
		}
		switch {
		case len(c.files) != 1 || c.files[0] == "-":
			return nil, errors.New("--record reads one compressed FILE (not standard input: it seeks)")
		case c.rm:
			return nil, errors.New("--rm and --record exclude each other")
		}
	}
	if c.rm && fs.Changed("keep") {
		return nil, errors.New("--rm and -k exclude each other")
	}
	if c.output != "" && c.stdout {
		return nil, errors.New("-o and -c exclude each other")
	}
	if c.output != "" && len(c.files) > 1 {
		return nil, errors.New("-o takes one input file")
	}
	if c.rm && (c.mode == modeTest || c.mode == modeList) {
		return nil, errors.New("--rm only goes with compression or -d")
	}
	if c.rm && c.stdout {
		return nil, errors.New("--rm and -c exclude each other: nothing would be left on disk")
	}
	if workers < 0 {
		return nil, fmt.Errorf("-T%d: the number of workers cannot be negative", workers)
	}
	c.opts.Workers = workers
	if level < 0 || level > 11 {
		return nil, fmt.Errorf("level %d: Brotli qualities go from 0 to 11", level)
	}
	if level == 0 {
		c.opts.Codec = append(c.opts.Codec, codec.WithQuality(0))
	} else {
		c.opts.Quality = level
	}
	var err error
	if c.opts.Format, err = pipeline.ParseFormat(format); err != nil {
		return nil, err
	}
	if c.opts.Algorithm, err = pipeline.ParseAlgorithm(algorithm); err != nil {
		return nil, err
	}
	enc, err := parseTokenizer(tok)
	if err != nil {
		return nil, err
	}
	c.opts.Codec = append(c.opts.Codec, codec.WithTokenizer(enc))
	if llama3 != "" {
		// The tokenizer package loads the ranks from this file on first use,
		// checking their hash.
		if err := os.Setenv(tokenizer.Llama3Env, llama3); err != nil {
			return nil, err
		}
	}
	if c.opts.Security, err = parseSecurity(security); err != nil {
		return nil, err
	}
	if c.opts.Archive {
		switch {
		case c.mode != modeCompress:
			return nil, errors.New("--archive is for compression: -d, -t and -l read archives as they are")
		case c.opts.Security != codec.SecurityNone:
			return nil, errors.New("--archive and --security exclude each other: an archive's blocks are not sealed")
		case fs.Changed("format") || fs.Changed("algorithm") || fs.Changed("level"):
			return nil, errors.New("--archive sets its own layout: --format, --algorithm and --level do not apply")
		}
	}
	switch {
	case c.opts.Security != codec.SecurityNone && keyFile == "":
		return nil, fmt.Errorf("--security %s needs --key-file", security)
	case c.opts.Security == codec.SecurityNone && keyFile != "":
		return nil, errors.New("--key-file needs --security hmac or aead")
	case keyFile != "":
		if c.opts.Key, err = readKey(keyFile); err != nil {
			return nil, err
		}
	}
	return c, nil
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
