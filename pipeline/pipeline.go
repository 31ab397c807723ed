// Package pipeline compresses, decompresses, tests and lists corpora of
// JSONL records in parallel: a reader splits the input into batches of
// whole lines, a pool of workers, each with its own encoder or decoder,
// turns every batch into a block of records, and a writer puts the blocks
// out in input order; a context cancels everything.
//
// Memory is bounded by the pipeline, never by the input: the bytes of
// batches and results between the stages are held to a budget of 64 MiB
// (the batch the writer waits on always goes on, so the budget cannot
// deadlock the run), decoded output moves in pieces of 256 KiB however
// little input it came from, and each worker holds at most the record it
// works on (up to the protocol's 16 MiB) and its coder. m2m-batch adds a
// soft memory limit for the garbage collector on top, and stays under
// 256 MiB of peak RSS at its default settings on 2 cores for any input.
//
// Nothing the input holds is lost. Each line becomes one record: an M2M
// v1 frame if it is JSON the codec accepts, else the raw line, counted by
// why (blank, not UTF-8, not JSON, over a limit). Line feeds, carriage
// returns before them, a last line without one, and lines longer than a
// message may be (kept as raw pieces) all come back byte for byte.
//
// Output is a container file (package container), or, with FormatLines,
// one wire string per line: the string forms the reference's decoder
// reads, for text channels, or with Options.Archive an archive (package
// archive). Decompress, Test and List read all three, telling them apart
// by their first bytes (a container by its magic, an archive by its first
// block, a lines file by a wire message among its first lines), and lines
// files written by any M2M implementation. An archive is read at any
// offset: from a regular file or a sized reader in place, from a pipe
// through a temporary copy.
//
// With Options.Security, every record is sealed under the key, and a
// container as a whole too: each block carries a MAC that binds its
// records to their numbers and to the file, and the trailer one over the
// index and totals, under a key derived from Options.Key (HKDF-SHA256,
// info "m2m-go/container/v2/mac"). Readers given the key refuse records
// reordered, copied, dropped or taken from another file, a corpus cut
// short, and a container that is not sealed, naming the first records
// concerned. A lines file can carry no such seal: each of its frames is
// sealed, not their order or number.
package pipeline

import (
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/m2m-go/m2m/archive"
	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/keys"
)

// Algorithm is how records are encoded.
type Algorithm int

// The algorithms.
const (
	// Auto: an M2M v1 frame for JSON, the raw line for anything else; in
	// FormatLines, codec's auto-selection.
	Auto Algorithm = iota
	// M2M: an M2M v1 frame for JSON, the raw line for anything else (a
	// line format cannot carry raw lines: there they pass through).
	M2M
	// Brotli: a Brotli message for every line of valid UTF-8.
	Brotli
	// TokenNative: the BPE token ids of every line of valid UTF-8, with the
	// tokenizer of codec.WithTokenizer in Options.Codec (cl100k_base by
	// default). A line the tokenizer refuses (every line, for Llama 3
	// without its ranks) is stored raw.
	TokenNative
	// Hydra: for every line of valid UTF-8, the format codec's Hydra
	// model predicts to be smallest (raw, TokenNative or Brotli in a
	// container, their string forms in FormatLines; see
	// codec.Encoder.AppendHydra). In a secured corpus it writes what Auto
	// does, since only frames and raw lines can be sealed.
	Hydra
)

func (a Algorithm) String() string {
	return [...]string{"auto", "m2m", "brotli", "tokennative", "hydra"}[a]
}

// ParseAlgorithm parses a name as String writes it.
func ParseAlgorithm(s string) (Algorithm, error) {
	for a := Auto; a <= Hydra; a++ {
		if a.String() == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("pipeline: unknown algorithm %q (auto, m2m, brotli, tokennative, hydra)", s)
}

// Format is the layout of compressed output.
type Format int

// The formats.
const (
	FormatContainer Format = iota // a container file
	FormatLines                   // one wire string per line
)

func (f Format) String() string { return [...]string{"container", "lines"}[f] }

// ParseFormat parses a name as String writes it.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "container":
		return FormatContainer, nil
	case "lines":
		return FormatLines, nil
	}
	return 0, fmt.Errorf("pipeline: unknown format %q (container, lines)", s)
}

// Options configure a run. The zero value compresses with every CPU, the
// auto algorithm, Brotli quality 5 and the protocol's limits, into a
// container.
type Options struct {
	Workers   int       // 0: GOMAXPROCS
	Algorithm Algorithm // for compression
	// Format is the layout Compress writes. Readers tell a container by
	// its magic, and a file of wire strings by a message among its first
	// lines; FormatLines makes them read anything that is not a container
	// as wire strings, even if every line of it was passed through.
	Format  Format
	Quality int  // Brotli quality, 1-11 (codec.WithQuality); 0 means the codec's default encoder (use codec.WithQuality(0) for 0)
	Verify  bool // decode every record after encoding it and compare
	// Security seals every record with Key (HMAC-SHA256 or AEAD): frames as
	// the protocol defines, other lines as sealed raw records; readers then
	// refuse any record that is not sealed. A container is sealed as a
	// whole too (see package container), under a key derived from Key, so
	// that its records cannot be reordered, copied, dropped or cut off;
	// readers then refuse containers that are not sealed. A lines file has
	// no such seal: each of its frames is sealed alone.
	Security codec.Security
	Key      []byte
	Codec    []codec.Option
	Batch    int // bytes of input per batch; default 256 KiB (archives: 8 MiB)
	// Archive writes an archive instead of per-record messages: every JSON
	// value of 64 bytes or more (a string of text, 32) stored once in the
	// whole corpus, text apart from structure (package archive).
	// Algorithm, Quality and Format do not apply; Security is refused.
	// Workers sets the archive's too.
	Archive        bool
	ArchiveOptions archive.Options
	// CopyUnknown makes Decompress copy input that is not an m2m file to
	// the output as it is (zstd -df does the same), instead of refusing it
	// with ErrUnknownFormat.
	CopyUnknown bool

	lineLimit int  // tests: the longest line kept in one record
	test      bool // Test: check what Decompress need not (see Test)
}

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

func (o Options) batch() int {
	if o.Batch > 0 {
		return o.Batch
	}
	return 256 << 10
}

func (o Options) codecOptions() []codec.Option {
	opts := append([]codec.Option(nil), o.Codec...)
	if o.Quality > 0 {
		opts = append(opts, codec.WithQuality(o.Quality))
	}
	if o.Security != codec.SecurityNone {
		opts = append(opts, codec.WithSecurity(o.Security, o.Key))
	}
	return opts
}

// containerKeyInfo is the HKDF info of a container's MAC key.
const containerKeyInfo = "m2m-go/container/v2/mac"

// containerKey returns the MAC key that seals a container under o.Key, or
// nil without security: HKDF-SHA256 of the key with an info string of its
// own, so that the container's MACs and the frames' never share a key.
func (o Options) containerKey() ([]byte, error) {
	if o.Security == codec.SecurityNone {
		return nil, nil
	}
	return keys.Derive(o.Key, containerKeyInfo, container.MinKeyLen)
}

// maxLine is the longest line kept in one record: the protocol's message
// limit. Longer lines are stored raw, in pieces.
func (o Options) maxLine() int {
	if o.lineLimit > 0 {
		return o.lineLimit
	}
	return codec.DefaultLimits.MaxMessage
}

// Stats count what a run did. The fields are updated as the run goes and
// can be read at any time from other goroutines.
type Stats struct {
	Lines    atomic.Int64 // lines read or written (a last line without line feed included)
	Records  atomic.Int64 // records made or read
	BytesIn  atomic.Int64 // bytes read
	BytesOut atomic.Int64 // bytes written

	// Records by encoding (container.Raw ... container.SealedRaw).
	Encodings [5]atomic.Int64

	// Why lines were stored raw.
	Blank     atomic.Int64 // empty lines
	NotUTF8   atomic.Int64 // not valid UTF-8
	NotJSON   atomic.Int64 // not JSON the codec accepts
	OverLimit atomic.Int64 // over a size or JSON limit (stored raw, in pieces if too long for one record)
	// TokenNative: refused by the tokenizer (Llama 3 without its ranks)
	NotTokenizable atomic.Int64
	Passthrough    atomic.Int64 // in FormatLines: lines passed through as text
	// Archives: records kept as their bytes, no JSON value taken out (not
	// JSON, no value of the archive's minimum size, or a piece of a line
	// over the limit).
	Kept atomic.Int64
}

func (s *Stats) count(e container.Encoding) { s.Encodings[e].Add(1) }

// Memory in flight. Every run holds at most about flowBudget bytes of
// jobs and results between its stages, plus what each worker holds while
// it works (one job, and the result it is making: a record of up to the
// protocol's 16 MiB limit, and its coder's state). Results are sent in
// pieces of about pieceSize bytes, so a small block that decodes to a lot
// streams through instead of being built whole.
const (
	flowBudget = 64 << 20
	pieceSize  = 256 << 10
)
