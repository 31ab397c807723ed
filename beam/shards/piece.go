package shards

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"path"
	"strings"

	"github.com/m2m-go/m2m/crc"
)

// DefaultPieceSize is the bytes of plain input that make one shard.
const DefaultPieceSize = 256 << 20

// A Piece is the part of an input file that one shard holds: bytes
// [Start, End) of it as cut by offset, before the cut is moved to a line
// boundary; for a gzip or zstd file (Whole), the whole file.
type Piece struct {
	Input      string // the file, as the filesystem lists it
	Index      int    // the piece's number in its file, from 0
	Start, End int64  // the nominal byte range
	Whole      bool   // a compressed file: one piece, read decompressed
}

// pieces cuts a file of size bytes into pieces of pieceSize bytes (the
// last one shorter); an empty file is one empty piece.
func pieces(input string, size, pieceSize int64, whole bool) []Piece {
	if whole {
		return []Piece{{Input: input, Start: 0, End: size, Whole: true}}
	}
	var ps []Piece
	for k := int64(0); k == 0 || k*pieceSize < size; k++ {
		ps = append(ps, Piece{Input: input, Index: int(k), Start: k * pieceSize, End: min((k+1)*pieceSize, size)})
	}
	return ps
}

// compressedMagic reports whether a file that starts with head is gzip,
// zstd or xz: such a file is not cut (a compressed stream cannot be read
// from the middle). pipeline.OpenInput has the last word on what it is.
func compressedMagic(head []byte) bool {
	for _, m := range []string{"\x1f\x8b", "\x28\xb5\x2f\xfd", "\xfd7zXZ\x00"} {
		if strings.HasPrefix(string(head), m) {
			return true
		}
	}
	return false
}

// shardName is the deterministic name of piece k of input: its base name
// (without a .gz, .zst or .zstd suffix, characters outside [A-Za-z0-9._-]
// replaced), a CRC-32 of the whole input path (inputs of one name in
// different directories), and k. A retried or re-run piece gets the same
// name, and replaces its shard instead of adding one.
func shardName(input string, k int) string {
	b := []byte(trimCompressionSuffix(path.Base(strings.ReplaceAll(input, "\\", "/"))))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 96 {
		b = b[:96]
	}
	if len(b) == 0 || b[0] == '.' {
		b = append([]byte("_"), b...)
	}
	return fmt.Sprintf("%s.%08x.%05d.m2m", b, crc32.ChecksumIEEE([]byte(input)), k)
}

// A pieceReader reads the lines of a piece from a reader positioned at the
// piece's nominal start, and counts and checksums them. Pieces are cut at
// line boundaries as splittable text reads cut them: a piece that does not
// start at offset 0 starts after the first line feed at or after its
// nominal start, and runs through the first line feed at or after its
// nominal end (or to the end of the file). Every line of the file is in
// exactly one piece; a piece in which no line starts (inside a line longer
// than a piece) is empty.
type pieceReader struct {
	br    *bufio.Reader
	pos   int64 // offset in the file of the next byte br gives
	end   int64 // the nominal end
	done  bool
	start int64  // the effective start
	n     int64  // bytes given
	crc   uint32 // their CRC-32
}

// newPieceReader starts reading the piece [start, end) from r, which is
// positioned at offset start of the file.
func newPieceReader(r io.Reader, start, end int64) (*pieceReader, error) {
	p := &pieceReader{br: bufio.NewReaderSize(r, 1<<20), pos: start, end: end}
	if start > 0 {
		// Skip the end of the line the piece before holds.
		for {
			chunk, err := p.br.ReadSlice('\n')
			p.pos += int64(len(chunk))
			if err == nil {
				break
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err == io.EOF {
				p.done = true
				break
			}
			return nil, err
		}
	}
	p.start = p.pos
	if p.pos > end {
		// The line feed that ends the piece before is past this one's end:
		// no line starts here.
		p.done = true
	}
	return p, nil
}

// Read gives the piece's bytes: freely up to the nominal end, then through
// the next line feed.
func (p *pieceReader) Read(b []byte) (int, error) {
	if p.done {
		return 0, io.EOF
	}
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var err error
	if p.pos < p.end {
		n, err = p.br.Read(b[:min(int64(len(b)), p.end-p.pos)])
	} else {
		// Past the nominal end: up to and including the next line feed.
		if p.br.Buffered() == 0 {
			_, err = p.br.Peek(1)
		}
		if p.br.Buffered() > 0 {
			head, _ := p.br.Peek(min(p.br.Buffered(), len(b)))
			if i := bytes.IndexByte(head, '\n'); i >= 0 {
				head = head[:i+1]
				p.done = true
			}
			n = copy(b, head)
			p.br.Discard(n)
			err = nil
		}
	}
	p.pos += int64(n)
	p.n += int64(n)
	p.crc = crc.Update(p.crc, b[:n])
	if err == io.EOF {
		p.done = true
		if n > 0 {
			err = nil
		}
	}
	return n, err
}

// countReader counts and checksums what passes through it: the JSONL a
// compressed input holds.
type countReader struct {
	r   io.Reader
	n   int64
	crc uint32
}

func (c *countReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	c.crc = crc.Update(c.crc, b[:n])
	return n, err
}
