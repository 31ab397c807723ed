package codec

import (
	"bytes"
	"errors"
	"io"
	"slices"

	brrr "github.com/molecule-man/go-brrr"

	"github.com/m2m-go/m2m/brotli"
)

// The reference's Brotli parameters for M2M v1 payloads. The wire format
// does not fix them (any valid stream decodes), but at these go-brrr's
// encoder (WithQuality, WithWindow) makes our frames byte-identical to the
// reference's.
const (
	defaultQuality = 5
	defaultWindow  = 22
)

// appendWriter is an io.Writer that appends to a slice, so Brotli output
// lands directly in the caller's dst.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// compressor is a reusable Brotli encoder: package brotli's (own), or
// go-brrr's Writer, which writes the same streams as C brotli (and as
// andybalholm/brotli, which the tests cross-check it against) in about
// 60% of the time (see doc.go).
type compressor struct {
	own             *brotli.Encoder
	w               *brrr.Writer
	sink            appendWriter
	quality, window int // go-brrr's
}

func newOwnCompressor() *compressor { return &compressor{own: brotli.NewEncoder()} }

// newCompressor returns go-brrr's encoder at quality and window.
func newCompressor(quality, window int) *compressor {
	c := &compressor{quality: quality, window: window}
	var err error
	if c.w, err = brrr.NewWriterOptions(&c.sink, quality, brrr.WriterOptions{LGWin: window}); err != nil {
		panic("codec: " + err.Error()) // the options have been checked
	}
	return c
}

// appendCompressed appends a complete Brotli stream of src to dst.
func (c *compressor) appendCompressed(dst, src []byte) []byte {
	if c.own != nil {
		return c.own.AppendEncode(dst, src)
	}
	c.sink.b = dst
	c.w.Reset(&c.sink)
	// Writes to an appendWriter cannot fail, so neither can the encoder.
	_, _ = c.w.Write(src)
	_ = c.w.Close()
	dst, c.sink.b = c.sink.b, nil
	return dst
}

// decompressor is a reusable Brotli reader (go-brrr's) with a hard cap on
// its output.
type decompressor struct {
	r   *brrr.Reader
	src bytes.Reader
}

func newDecompressor() *decompressor {
	d := &decompressor{}
	d.r = brrr.NewReader(&d.src)
	return d
}

// appendDecompressed appends the decompression of the Brotli stream src to
// dst. It fails, keeping dst as it was, if src is not exactly one valid
// stream (bytes after the end of the stream are an error, as are streams
// cut short) or if the output would exceed limit bytes; it stops as soon as
// the limit is passed, so memory stays bounded by the limit.
func (d *decompressor) appendDecompressed(dst, src []byte, limit int) ([]byte, error) {
	start := len(dst)
	d.src.Reset(src)
	d.r.Reset(&d.src)
	// Guess 4x the input for the first read, as text compresses about so.
	dst, err := appendRead(dst, d.r, 4*len(src), limit)
	if err == nil && d.src.Len() > 0 {
		// The reader checks for bytes after the stream only among those
		// it has read; it reads 32 KiB at a time.
		err = errTrailing
	}
	switch {
	case err == errOverLimit:
		return dst[:start], errorf(ErrLimit, "payload", -1, "decompresses to more than %d bytes", limit)
	case err != nil:
		// Includes streams cut short, and bytes after the end of the
		// stream.
		return dst[:start], wrap(ErrMalformed, "payload", -1, err)
	}
	return dst, nil
}

// errOverLimit is appendRead's report of output over its limit, and
// errTrailing a decoder's of bytes after the end of its stream.
var (
	errOverLimit = errors.New("over the limit")
	errTrailing  = errors.New("brotli: bytes after the end of the stream")
)

// appendRead reads into the caller's dst up to directRead bytes of output,
// growing it by doubling; past that it reads into chunks of readChunk
// bytes, and appends them when the output is complete. Doubling would
// cost two to three times the limit before failing on it; the chunks cost
// it once, and a copy of the outputs that large.
const (
	directRead = 1 << 20
	readChunk  = 256 << 10
)

// appendRead appends the output of a decompressor r to dst until r returns
// io.EOF, which it reports as nil, or another error, or errOverLimit as
// soon as more than limit bytes have come. It reads into dst itself, with
// room for guess bytes at first and never past limit+1 bytes, and past
// directRead bytes into chunks.
func appendRead(dst []byte, r io.Reader, guess, limit int) ([]byte, error) {
	start := len(dst)
	dst = slices.Grow(dst, min(limit+1, max(guess, 512)))
	for {
		n := len(dst) - start
		if n > limit {
			return dst, errOverLimit
		}
		if len(dst) == cap(dst) {
			if n >= directRead {
				return appendChunks(dst, r, limit-n)
			}
			dst = slices.Grow(dst, min(limit+1-n, n+512))
		}
		m, err := r.Read(dst[len(dst):min(cap(dst), start+limit+1)])
		dst = dst[:len(dst)+m]
		switch {
		case err == io.EOF && len(dst)-start > limit:
			return dst, errOverLimit
		case err == io.EOF:
			return dst, nil
		case err != nil:
			return dst, err
		}
	}
}

// appendChunks is appendRead past directRead bytes, with limit bytes left.
func appendChunks(dst []byte, r io.Reader, limit int) ([]byte, error) {
	var chunks [][]byte
	size := 0
	for {
		if size > limit {
			return dst, errOverLimit
		}
		if len(chunks) == 0 || len(chunks[len(chunks)-1]) == readChunk {
			chunks = append(chunks, make([]byte, 0, readChunk))
		}
		c := chunks[len(chunks)-1]
		m, err := r.Read(c[len(c):min(readChunk, len(c)+limit+1-size)])
		chunks[len(chunks)-1] = c[:len(c)+m]
		size += m
		if err == io.EOF && size <= limit {
			break
		}
		if err != nil && err != io.EOF {
			return dst, err
		}
	}
	out := make([]byte, len(dst), len(dst)+size)
	copy(out, dst)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out, nil
}
