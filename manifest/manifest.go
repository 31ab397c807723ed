// Package manifest reads and writes the manifest of a sharded corpus: the
// list of the compressed files (shards) that a distributed run (m2m-beam,
// in the repository's beam module) made from many JSONL inputs, and the
// single place a reader or an audit starts from. It knows nothing of how
// shards are made or read; m2m-batch reads manifests (-l, -t, --record)
// with package pipeline.
//
// # Format (version 1)
//
// A manifest is JSONL: one JSON object a line, one line per shard, in the
// order of the inputs and, within an input, of byte offsets. Every line
// starts with the key "m2m_manifest" (the format version, 1), which is how
// readers tell a manifest from any other file:
//
//	{"m2m_manifest":1,"input":"gs://logs/day-01.jsonl","compression":"plain",
//	 "start":0,"end":268435513,"records":81234,"lines":81234,"raw":12,
//	 "bytes_in":268435513,"bytes_out":114757430,"crc32":"5d1f0c3a",
//	 "output":"shards/day-01.jsonl.3f2a9c1b.00000.m2m","m2m":"v0.3.0"}
//
// (one line in the file). input is the input file as the run named it;
// compression is how it was stored (plain, gzip or zstd); start and end
// are the byte range of the input file the shard covers (a compressed
// input is one shard, its range the whole file); records and lines are
// what the shard holds (records outnumber lines when a line over the
// protocol's 16 MiB limit is kept in pieces); raw counts the records kept
// as raw bytes; bytes_in is the size of the JSONL the shard restores to
// (end - start for a plain input, the decompressed size for a compressed
// one) and crc32 the CRC-32 (IEEE) of those bytes, in 8 hex digits;
// bytes_out is the size of the shard; output is the shard, relative to
// the manifest's directory unless it is absolute or a URL; m2m is the
// version of the program that wrote it. Readers ignore keys they do not
// know.
//
// The shards of a plain input tile it: the first starts at 0 and each
// starts where the one before it ends, so concatenating their restored
// bytes in order gives the file back. Record N of a manifest is counted in
// manifest order: the records of its first shard, then of the second, and
// so on ([Index]).
//
// A manifest is not sealed: the shards of a secured corpus are, each under
// the corpus key, and a test against the manifest (the CRC-32 of every
// shard's restored bytes) catches shards swapped or replaced; whether the
// manifest itself is the one meant is for its holder to know.
package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Version is the manifest format this package writes and reads.
const Version = 1

// The compressions an entry names.
const (
	Plain = "plain"
	Gzip  = "gzip"
	Zstd  = "zstd"
)

// Entry is one line of a manifest: one shard.
type Entry struct {
	Manifest    int    `json:"m2m_manifest"` // the format version; AppendLine sets it
	Input       string `json:"input"`
	Compression string `json:"compression"`
	Start       int64  `json:"start"`
	End         int64  `json:"end"`
	Records     int64  `json:"records"`
	Lines       int64  `json:"lines"`
	Raw         int64  `json:"raw"`
	BytesIn     int64  `json:"bytes_in"`
	BytesOut    int64  `json:"bytes_out"`
	CRC32       CRC    `json:"crc32"`
	Output      string `json:"output"`
	M2M         string `json:"m2m"`
}

// CRC is a CRC-32, written as 8 lowercase hex digits.
type CRC uint32

// MarshalText writes c as 8 hex digits.
func (c CRC) MarshalText() ([]byte, error) {
	return fmt.Appendf(nil, "%08x", uint32(c)), nil
}

// UnmarshalText reads 8 hex digits.
func (c *CRC) UnmarshalText(b []byte) error {
	if len(b) != 8 {
		return fmt.Errorf("crc32 %q: want 8 hex digits", b)
	}
	v, err := strconv.ParseUint(string(b), 16, 32)
	if err != nil {
		return fmt.Errorf("crc32 %q: want 8 hex digits", b)
	}
	*c = CRC(v)
	return nil
}

// magic is how every line of a manifest starts.
const magic = `{"m2m_manifest":`

// IsManifest reports whether head, the first bytes of a file, is the start
// of a manifest.
func IsManifest(head []byte) bool { return bytes.HasPrefix(head, []byte(magic)) }

// AppendLine appends e as one manifest line, line feed included.
func (e Entry) AppendLine(dst []byte) []byte {
	e.Manifest = Version
	b, err := json.Marshal(e)
	if err != nil {
		// Only strings and integers: Marshal cannot fail.
		panic(err)
	}
	return append(append(dst, b...), '\n')
}

// ErrFormat reports a manifest that is not well formed, or whose shards
// do not tile their inputs.
var ErrFormat = errors.New("manifest: malformed")

// Read reads a manifest: every line must be an entry of this version (a
// last line without line feed is one too). It checks each entry alone;
// Check checks them together.
func Read(r io.Reader) ([]Entry, error) {
	br := bufio.NewReader(r)
	var entries []Entry
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var e Entry
			if !IsManifest(line) {
				return nil, fmt.Errorf("%w: line %d is not a manifest entry", ErrFormat, n)
			}
			if jerr := json.Unmarshal(line, &e); jerr != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrFormat, n, jerr)
			}
			if verr := e.valid(); verr != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrFormat, n, verr)
			}
			entries = append(entries, e)
		}
		if err == io.EOF {
			return entries, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (e *Entry) valid() error {
	switch {
	case e.Manifest != Version:
		return fmt.Errorf("format version %d; this reader knows %d", e.Manifest, Version)
	case e.Input == "" || e.Output == "":
		return errors.New("no input or no output")
	case e.Compression != Plain && e.Compression != Gzip && e.Compression != Zstd:
		return fmt.Errorf("unknown compression %q", e.Compression)
	case e.Start < 0 || e.End < e.Start:
		return fmt.Errorf("byte range %d-%d", e.Start, e.End)
	case e.Records < 0 || e.Lines < 0 || e.Raw < 0 || e.BytesIn < 0 || e.BytesOut < 0:
		return errors.New("a negative count")
	case e.Lines > e.Records || e.Raw > e.Records:
		return fmt.Errorf("%d records cannot hold %d lines (%d raw)", e.Records, e.Lines, e.Raw)
	case e.Compression == Plain && e.End-e.Start != e.BytesIn:
		return fmt.Errorf("plain range %d-%d is not %d bytes", e.Start, e.End, e.BytesIn)
	}
	return nil
}

// Check checks that the entries, in order, tile their inputs: the shards
// of one input are adjacent, the first starts at 0, each starts where the
// one before ended, a compressed input is one shard, and no input or
// output comes twice.
func Check(entries []Entry) error {
	inputs := map[string]bool{}
	outputs := map[string]bool{}
	for i, e := range entries {
		if outputs[e.Output] {
			return fmt.Errorf("%w: shard %s listed twice", ErrFormat, e.Output)
		}
		outputs[e.Output] = true
		if i > 0 && entries[i-1].Input == e.Input {
			prev := entries[i-1]
			if e.Compression != Plain || prev.Compression != Plain {
				return fmt.Errorf("%w: compressed input %s in more than one shard", ErrFormat, e.Input)
			}
			if e.Start != prev.End {
				return fmt.Errorf("%w: %s: shard %s starts at %d, the one before ends at %d", ErrFormat, e.Input, e.Output, e.Start, prev.End)
			}
			continue
		}
		if inputs[e.Input] {
			return fmt.Errorf("%w: the shards of %s are not together", ErrFormat, e.Input)
		}
		inputs[e.Input] = true
		if e.Start != 0 {
			return fmt.Errorf("%w: %s: its first shard starts at %d", ErrFormat, e.Input, e.Start)
		}
	}
	return nil
}

// Sort puts entries in manifest order: by input, then by byte range (an
// empty shard, which a line longer than a piece makes, before the one that
// starts where it does), then by output, so that the order does not depend
// on the order entries came in (empty shards of one offset are otherwise
// alike).
func Sort(entries []Entry) {
	sort.Slice(entries, func(i, j int) bool {
		a, b := &entries[i], &entries[j]
		if a.Input != b.Input {
			return a.Input < b.Input
		}
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		if a.End != b.End {
			return a.End < b.End
		}
		return a.Output < b.Output
	})
}

// Totals sums the entries.
type Totals struct {
	Shards, Inputs      int
	Records, Lines, Raw int64
	BytesIn, BytesOut   int64
}

// Sum returns the totals of entries.
func Sum(entries []Entry) Totals {
	t := Totals{Shards: len(entries)}
	for i, e := range entries {
		if i == 0 || entries[i-1].Input != e.Input {
			t.Inputs++
		}
		t.Records += e.Records
		t.Lines += e.Lines
		t.Raw += e.Raw
		t.BytesIn += e.BytesIn
		t.BytesOut += e.BytesOut
	}
	return t
}

// Resolve returns where the shard output of a manifest at manifestPath
// is: output itself if it is absolute or a URL (scheme://), else output
// relative to the manifest's directory. URLs are joined with slashes,
// local paths with the system's separator.
func Resolve(manifestPath, output string) string {
	if strings.Contains(output, "://") || path.IsAbs(output) || filepath.IsAbs(output) {
		return output
	}
	if strings.Contains(manifestPath, "://") {
		i := strings.LastIndexByte(manifestPath, '/')
		return manifestPath[:i+1] + output
	}
	return filepath.Join(filepath.Dir(manifestPath), filepath.FromSlash(output))
}

// Index numbers the records of a manifest's shards in manifest order.
type Index struct {
	first []int64 // first[i] is the number of shard i's first record; last is the total
}

// NewIndex indexes entries, in manifest order.
func NewIndex(entries []Entry) *Index {
	ix := &Index{first: make([]int64, len(entries)+1)}
	for i, e := range entries {
		ix.first[i+1] = ix.first[i] + e.Records
	}
	return ix
}

// Records returns the number of records of all shards.
func (ix *Index) Records() int64 { return ix.first[len(ix.first)-1] }

// Locate returns the shard that holds record n (from 0, in manifest
// order) and its number in that shard (from 0).
func (ix *Index) Locate(n int64) (shard int, rec int64, err error) {
	if n < 0 || n >= ix.Records() {
		return 0, 0, fmt.Errorf("record %d: the manifest's shards hold %d records", n, ix.Records())
	}
	// The last shard whose first record is at or before n (empty shards,
	// which share their first number with the next, are skipped).
	i := sort.Search(len(ix.first)-1, func(i int) bool { return ix.first[i+1] > n })
	return i, n - ix.first[i], nil
}
