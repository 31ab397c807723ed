package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/crc"
)

// Compression is how an input to Compress was compressed before it came to
// us, as OpenInput found it.
type Compression int

// The compressions OpenInput reads.
const (
	Plain Compression = iota
	Gzip
	Zstd
)

func (c Compression) String() string { return [...]string{"plain", "gzip", "zstd"}[c] }

// Input is JSONL to compress, decompressed if it came gzip- or
// zstd-compressed.
type Input struct {
	io.Reader
	// Compression is what the input was; Plain for anything not in a
	// format OpenInput reads, including text whose first bytes merely
	// look like a gzip or zstd magic number.
	Compression Compression
	release     func()
}

// Close releases the decompressor. It does not close the underlying reader.
func (in *Input) Close() {
	if in.release != nil {
		in.release()
		in.release = nil
	}
}

// Magic numbers of the compressed formats OpenInput recognises.
var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	xzMagic   = []byte{0xfd, '7', 'z', 'X', 'Z', 0}
)

// ErrXZ reports xz input, which OpenInput does not decompress.
var ErrXZ = errors.New("pipeline: xz input is not supported: decompress it first (xz -dc FILE | m2m-batch)")

// OpenInput returns r's contents, decompressed if r is a gzip or zstd
// stream (sniffed by its first bytes, not by any name). Input whose first
// bytes look like a magic number but which the decompressor rejects before
// producing a single byte is taken as it is: a text may start with those
// bytes, and nothing a user gives us is refused for it. A stream that
// starts well and is damaged later is an error, reported when read. xz
// input (a valid xz stream header) is refused with ErrXZ.
func OpenInput(r io.Reader) (*Input, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(12)
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		return tryDecompressor(br, Gzip, func(r io.Reader) (io.Reader, func(), error) {
			zr, err := gzip.NewReader(r)
			if err != nil {
				return nil, nil, err
			}
			return zr, func() { zr.Close() }, nil
		})
	case bytes.HasPrefix(head, zstdMagic):
		return tryDecompressor(br, Zstd, func(r io.Reader) (io.Reader, func(), error) {
			zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1<<30))
			if err != nil {
				return nil, nil, err
			}
			return zr, zr.Close, nil
		})
	case isXZHeader(head):
		return nil, ErrXZ
	}
	return &Input{Reader: br}, nil
}

// isXZHeader reports whether head is an xz stream header: the magic, two
// flag bytes and their CRC-32, which text does not produce by chance.
func isXZHeader(head []byte) bool {
	return len(head) >= 12 && bytes.HasPrefix(head, xzMagic) &&
		crc.Checksum(head[6:8]) == uint32(head[8])|uint32(head[9])<<8|uint32(head[10])<<16|uint32(head[11])<<24
}

// tryDecompressor starts a decompressor on br and reads its first byte. If
// that fails, the input is not really compressed: it is returned as it is,
// every byte the decompressor consumed given back.
func tryDecompressor(br *bufio.Reader, c Compression, open func(io.Reader) (io.Reader, func(), error)) (*Input, error) {
	rec := &recorder{r: br}
	zr, release, err := open(rec)
	if err == nil {
		var first [1]byte
		var n int
		n, err = io.ReadFull(zr, first[:])
		if err == nil || err == io.EOF {
			// A stream that holds something, or nothing at all.
			rec.stop()
			return &Input{Reader: io.MultiReader(bytes.NewReader(first[:n]), zr), Compression: c, release: release}, nil
		}
		release()
	}
	// Not a stream of this kind after all: plain bytes.
	return &Input{Reader: io.MultiReader(bytes.NewReader(rec.buf), br)}, nil
}

// recorder keeps a copy of what is read through it until stopped, so that
// a failed attempt at decompressing can be undone.
type recorder struct {
	r       io.Reader
	buf     []byte
	stopped bool
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if !r.stopped {
		r.buf = append(r.buf, p[:n]...)
	}
	return n, err
}

func (r *recorder) stop() { r.stopped, r.buf = true, nil }

// inputKind is what a file given to Decompress, Test, List or Open holds.
type inputKind int

const (
	kindUnknown inputKind = iota // not an m2m file
	kindRecords                  // a container of per-record messages
	kindArchive                  // an archive (package archive)
	kindLines                    // wire strings, one a line (or nothing at all)
)

// sniffWindow is how much of an input sniff looks at to find a wire
// message in a lines file that starts with lines passed through as text.
const sniffWindow = 1 << 20

// ErrUnknownFormat reports input that is neither a container file nor a
// file of wire strings: Test and List refuse it, and Decompress too unless
// Options.CopyUnknown is set.
var ErrUnknownFormat = errors.New("pipeline: not an m2m file (no container magic, and no line of its first MiB is an M2M message)")

// sniff reads what in holds from its first bytes, without consuming any.
// A container is a per-record one or an archive by its first block; a file
// of wire strings is recognised by a line, among those that start in the
// first MiB, that is a message of a known format; an empty input is an
// empty one. With o.Format FormatLines, whatever is not a container is
// taken for a file of wire strings: one whose lines were all passed
// through as text looks like any text file.
func sniff(in *bufio.Reader, o Options) (inputKind, error) {
	head, err := in.Peek(sniffWindow)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return kindUnknown, err
	}
	switch {
	case container.IsCutMagic(head):
		return kindUnknown, fmt.Errorf("%w: the file ends inside the container's magic", container.ErrTruncated)
	case container.HasMagic(head):
		if t, ok := container.FirstBlockType(head); ok && t == container.TypeArchive {
			return kindArchive, nil
		}
		return kindRecords, nil
	case len(head) == 0 || o.Format == FormatLines:
		return kindLines, nil
	}
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		if alg, err := codec.Detect(line); err != nil || alg != codec.None {
			return kindLines, nil
		}
	}
	return kindUnknown, nil
}

// source is a compressed corpus to read: what it holds, sniffed once, and
// the means to read it. One seam for Decompress, Test and List.
type source struct {
	kind inputKind
	br   *bufio.Reader // the input as a stream; nil for an archive known by its first bytes
	// An archive is read at any offset: the input itself if it is a
	// regular file, else a temporary copy of it.
	ra    io.ReaderAt
	size  int64
	close func()
}

// openSource sniffs r and, for an archive, finds it a ReaderAt: r itself
// if it is a regular file or has a Size (bytes.Reader, io.SectionReader),
// else a temporary copy. The caller calls close once done.
func openSource(r io.Reader, o Options) (*source, error) {
	ra, size, ok := readerAt(r)
	if ok {
		// An archive is known by its first block's type, a few bytes in:
		// one read of them at its start, not the MiB a sniff for wire
		// strings peeks (half a millisecond of a decompression's start,
		// when nothing else runs yet).
		var head [64]byte
		n, _ := ra.ReadAt(head[:], 0)
		if t, isArchive := container.FirstBlockType(head[:n]); isArchive && t == container.TypeArchive {
			return &source{kind: kindArchive, ra: ra, size: size, close: func() {}}, nil
		}
	}
	s := &source{br: bufio.NewReaderSize(r, sniffWindow), close: func() {}}
	var err error
	if s.kind, err = sniff(s.br, o); err != nil || s.kind != kindArchive {
		return s, err
	}
	if ok {
		s.ra, s.size = ra, size
		return s, nil
	}
	// A pipe: an archive's records refer to values anywhere before them,
	// so it is read from a copy.
	tmp, err := os.CreateTemp("", "m2m-archive-*.tmp")
	if err != nil {
		return s, err
	}
	s.close = func() { tmp.Close(); os.Remove(tmp.Name()) }
	if s.size, err = io.Copy(tmp, s.br); err != nil {
		s.close()
		return s, fmt.Errorf("copying the archive to a temporary file: %w", err)
	}
	s.ra = tmp
	return s, nil
}

// readerAt returns r as a ReaderAt and its size, if it is one: a regular
// file, or a reader with a Size (bytes.Reader, io.SectionReader).
func readerAt(r io.Reader) (io.ReaderAt, int64, bool) {
	switch f := r.(type) {
	case interface {
		io.ReaderAt
		Size() int64
	}:
		return f, f.Size(), true
	case interface {
		io.ReaderAt
		Stat() (fs.FileInfo, error)
	}:
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			return f, st.Size(), true
		}
	}
	return nil, 0, false
}

// line is one line (or piece of one) in a batch.
type line struct {
	start, end int  // in batch.buf, line feed excluded
	noNewline  bool // no line feed follows in the input
	continues  bool // a piece of a longer line, which the next piece continues
}

// inputBytes is how many bytes of input the line stands for.
func (l line) inputBytes() int64 {
	if l.noNewline {
		return int64(l.end - l.start)
	}
	return int64(l.end-l.start) + 1
}

// batch is a run of whole lines, the unit of work.
type batch struct {
	buf   []byte
	lines []line
	first int64 // number of the first line in the input (from 0)
}

// Batches are recycled: each made afresh, grown by append from nothing,
// was four bytes allocated for every byte of input, and the collector,
// with a few MiB live, ran every few MiB (m2m-batch on dev100: 125
// collections in 1.6 s, each stopping both cores).
var batches sync.Pool // *batch

// getBatch returns an empty batch of lines from number first on, with room
// for size bytes.
func getBatch(size int, first int64) *batch {
	b, _ := batches.Get().(*batch)
	if b == nil {
		b = &batch{buf: make([]byte, 0, size+size/8)}
	}
	b.buf, b.lines, b.first = b.buf[:0], b.lines[:0], first
	return b
}

// putBatch gives b back for reuse once nothing uses it or its bytes: a
// batch made large by a long line is left to the collector.
func putBatch(b *batch) {
	if cap(b.buf) <= 4<<20 {
		batches.Put(b)
	}
}

// readBatches reads r and emits batches of about size bytes of whole lines,
// cutting lines longer than maxLine into pieces. Every byte of r is in
// exactly one batch. Whoever emit gives a batch to calls putBatch when done
// with it.
func readBatches(ctx context.Context, r io.Reader, size, maxLine int, st *Stats, emit func(*batch) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	var n int64 // whole lines so far
	b := getBatch(size, 0)
	flush := func() error {
		if len(b.lines) == 0 {
			return nil
		}
		if err := emit(b); err != nil {
			return err
		}
		b = getBatch(size, n)
		return ctx.Err()
	}
	for {
		start := len(b.buf)
		cut := false // whether this line was cut into pieces
		for {
			chunk, err := br.ReadSlice('\n')
			st.BytesIn.Add(int64(len(chunk)))
			b.buf = append(b.buf, chunk...)
			for content := len(b.buf) - start; content > maxLine && (err != nil || content-1 > maxLine); content = len(b.buf) - start {
				// Too long for one record: keep a piece, go on with the rest.
				end := start + maxLine
				rest := bytes.Clone(b.buf[end:])
				b.buf = b.buf[:end]
				b.lines = append(b.lines, line{start: start, end: end, noNewline: true, continues: true})
				if ferr := flush(); ferr != nil {
					return ferr
				}
				start = len(b.buf)
				b.buf = append(b.buf, rest...)
				cut = true
			}
			switch {
			case err == nil:
				b.lines = append(b.lines, line{start: start, end: len(b.buf) - 1})
			case errors.Is(err, bufio.ErrBufferFull):
				continue
			case err != io.EOF:
				return err
			case len(b.buf) > start || cut:
				// The last line, without a line feed (possibly the empty end
				// of a cut line).
				b.lines = append(b.lines, line{start: start, end: len(b.buf), noNewline: true})
				n++
				st.Lines.Add(1)
				return flush()
			default:
				return flush()
			}
			break
		}
		n++
		st.Lines.Add(1)
		if len(b.buf) >= size {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}
