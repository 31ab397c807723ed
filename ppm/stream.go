package ppm

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/m2m-go/m2m/varint"
)

// A stream is its chunks, each coded alone (AppendEncode) or stored if
// that is not smaller, then an end:
//
//	stream = (uvarint len | kind | data)* | 0
//
// with len counting kind and data, kind 0 (data is the bytes themselves)
// or 1 (data is AppendEncode's).
// Chunks are independent, so a stream can be cut, and its chunks coded
// on several cores by a caller that wants it (package archive does).

const (
	// DefaultChunk is the input a Writer codes as one chunk: large enough
	// that the model has learned most of what it will (4 MiB of text
	// codes ~2% larger than 16 MiB, 1 MiB ~17% larger; bench/README.md),
	// small enough for a model of 192 MiB.
	DefaultChunk = 4 << 20
	// MaxChunk is the most input a chunk holds, and so what a Reader
	// holds at a time besides its model.
	MaxChunk = 64 << 20
)

// Kinds of chunk.
const (
	chunkStored = 0
	chunkCoded  = 1
)

// ErrChunk reports a chunk over MaxChunk or over the Reader's limit.
var ErrChunk = errors.New("ppm: chunk over the limit")

// A Writer codes what is written to it in chunks of Options.Chunk bytes.
// Close writes the last chunk and the end of the stream.
type Writer struct {
	w     io.Writer
	o     Options
	chunk int
	buf   []byte
	out   []byte
	err   error
}

// NewWriter returns a Writer coding to w in chunks of chunk bytes (0:
// DefaultChunk), each with the options o.
func NewWriter(w io.Writer, chunk int, o Options) (*Writer, error) {
	if chunk == 0 {
		chunk = DefaultChunk
	}
	if chunk < 1 || chunk > MaxChunk {
		return nil, fmt.Errorf("ppm: chunk of %d bytes: from 1 to %d", chunk, MaxChunk)
	}
	if o.Dict != nil {
		return nil, errors.New("ppm: a stream's chunks take no dictionary")
	}
	return &Writer{w: w, o: o, chunk: chunk}, nil
}

// Write buffers p, coding each chunk as it fills.
func (w *Writer) Write(p []byte) (int, error) {
	n := 0
	for w.err == nil && len(p) > 0 {
		k := min(len(p), w.chunk-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p, n = p[k:], n+k
		if len(w.buf) == w.chunk {
			w.flush()
		}
	}
	return n, w.err
}

func (w *Writer) flush() {
	if w.err != nil || len(w.buf) == 0 {
		return
	}
	w.out, w.err = AppendEncode(append(w.out[:0], chunkCoded), w.buf, w.o)
	if len(w.out) > len(w.buf) {
		w.out = append(append(w.out[:0], chunkStored), w.buf...)
	}
	if w.err == nil {
		var hdr [10]byte
		if _, w.err = w.w.Write(varint.AppendUvarint64(hdr[:0], uint64(len(w.out)))); w.err == nil {
			_, w.err = w.w.Write(w.out)
		}
	}
	w.buf = w.buf[:0]
}

// Close codes what is buffered and ends the stream. It does not close the
// underlying writer.
func (w *Writer) Close() error {
	w.flush()
	if w.err == nil {
		_, w.err = w.w.Write([]byte{0})
		if w.err == nil {
			w.err = errors.New("ppm: Writer closed")
			return nil
		}
	}
	return w.err
}

// A Reader decodes a stream a Writer made.
type Reader struct {
	r        *bufio.Reader
	o        Options
	maxChunk int
	in, out  []byte
	at       int
	err      error
}

// NewReader returns a Reader of the stream r; o gives its model memory
// limit. It refuses chunks that decode to more than maxChunk bytes (0:
// MaxChunk), before decoding them.
func NewReader(r io.Reader, maxChunk int, o Options) *Reader {
	if maxChunk <= 0 || maxChunk > MaxChunk {
		maxChunk = MaxChunk
	}
	return &Reader{r: bufio.NewReader(r), o: o, maxChunk: maxChunk}
}

// Read reads decoded bytes. It returns io.EOF at the end of the stream,
// and io.ErrUnexpectedEOF if the stream is cut short.
func (r *Reader) Read(p []byte) (int, error) {
	for r.at == len(r.out) {
		if r.err != nil {
			return 0, r.err
		}
		r.next()
	}
	n := copy(p, r.out[r.at:])
	r.at += n
	return n, nil
}

// next decodes the next chunk, or sets r.err.
func (r *Reader) next() {
	r.out, r.at = r.out[:0], 0
	n, err := readUvarint(r.r)
	switch {
	case err == io.EOF:
		r.err = io.ErrUnexpectedEOF
		return
	case err != nil:
		r.err = fmt.Errorf("%w: %w", ErrCorrupt, err)
		return
	case n == 0:
		r.err = io.EOF
		return
	case n > uint64(r.maxChunk)+1:
		// A chunk is stored if coding does not shrink it.
		r.err = ErrChunk
		return
	}
	r.in = append(r.in[:0], make([]byte, n)...)
	if _, err := io.ReadFull(r.r, r.in); err != nil {
		r.err = io.ErrUnexpectedEOF
		return
	}
	switch r.in[0] {
	case chunkStored:
		r.out = append(r.out, r.in[1:]...)
	case chunkCoded:
		if r.out, err = AppendDecode(r.out, r.in[1:], r.maxChunk, r.o); errors.Is(err, ErrTooLong) {
			r.err = fmt.Errorf("%w: %w", ErrChunk, err)
		} else if err != nil {
			r.err = err
		}
	default:
		r.err = fmt.Errorf("%w: chunk of kind %d", ErrCorrupt, r.in[0])
	}
}

// readUvarint reads a uvarint of at most 10 bytes, as varint.Uvarint64
// checks them.
func readUvarint(r io.ByteReader) (uint64, error) {
	var buf [10]byte
	for i := range buf {
		b, err := r.ReadByte()
		if err != nil {
			if i > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		buf[i] = b
		if b < 0x80 {
			x, _, err := varint.Uvarint64(buf[:i+1])
			return x, err
		}
	}
	_, _, err := varint.Uvarint64(buf[:])
	return 0, err
}
