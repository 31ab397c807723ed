package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// OpenInput returns a reader of r's contents, decompressed if r is gzip or
// zstd (sniffed by magic bytes, not by name), and a function that releases
// the decompressor. Plain input is returned as it is.
func OpenInput(r io.Reader) (io.Reader, func(), error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(6)
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("gzip input: %w", err)
		}
		return zr, func() { zr.Close() }, nil
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1<<30))
		if err != nil {
			return nil, nil, fmt.Errorf("zstd input: %w", err)
		}
		return zr, zr.Close, nil
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return nil, nil, errors.New("xz input is not supported: decompress it first (xz -dc FILE | m2m-batch)")
	}
	return br, func() {}, nil
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

// readBatches reads r and emits batches of about size bytes of whole lines,
// cutting lines longer than maxLine into pieces. Every byte of r is in
// exactly one batch.
func readBatches(ctx context.Context, r io.Reader, size, maxLine int, st *Stats, emit func(*batch) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	var n int64 // whole lines so far
	b := &batch{}
	flush := func() error {
		if len(b.lines) == 0 {
			return nil
		}
		if err := emit(b); err != nil {
			return err
		}
		b = &batch{first: n}
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
