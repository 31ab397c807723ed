package codec

import (
	"bytes"
	"io"

	"github.com/andybalholm/brotli"
)

// The Brotli encoders and decoders the codec could use, pooled as the
// codec pools its own: package brotli's encoder (the codec's by default),
// go-brrr's (its encoder at a quality asked for, and its decoder), and
// andybalholm/brotli's, which the tests cross-check against them and the
// benchmarks time beside them: its Writer (what the codec used before
// go-brrr), its matchfinder encoder (NewWriterV2) and its Reader.

// A brotliEncoder appends a complete Brotli stream of src to dst.
type brotliEncoder func(dst, src []byte) []byte

// A brotliDecoder appends the decompression of the stream src to dst, as
// decompressor.appendDecompressed does: exactly one stream, output capped
// at limit bytes.
type brotliDecoder func(dst, src []byte, limit int) ([]byte, error)

var brotliEncoders = []struct {
	name string
	new  func(quality, window int) brotliEncoder
	// fixed: the encoder has one setting, whatever the quality and window.
	fixed bool
}{
	{name: "m2m", new: func(int, int) brotliEncoder { return newOwnCompressor().appendCompressed }, fixed: true},
	{name: "brrr", new: func(q, w int) brotliEncoder { return newCompressor(q, w).appendCompressed }},
	{name: "andybalholm", new: func(q, w int) brotliEncoder {
		return pooledWriter(func(sink io.Writer) resettableWriter {
			return brotli.NewWriterOptions(sink, brotli.WriterOptions{Quality: q, LGWin: w})
		})
	}},
	// The matchfinder encoder: its own parser and entropy coder, with a
	// 1 MiB window (NewWriterV2 fixes it; records are far smaller).
	{name: "andybalholm-v2", new: func(q, w int) brotliEncoder {
		return pooledWriter(func(sink io.Writer) resettableWriter { return brotli.NewWriterV2(sink, q) })
	}},
}

// resettableWriter is what andybalholm/brotli's encoders have in common.
type resettableWriter interface {
	io.WriteCloser
	Reset(io.Writer)
}

// pooledWriter makes a brotliEncoder of one streaming writer, reset for
// every stream and appending to dst.
func pooledWriter(newWriter func(io.Writer) resettableWriter) brotliEncoder {
	var sink appendWriter
	bw := newWriter(&sink)
	return func(dst, src []byte) []byte {
		sink.b = dst
		bw.Reset(&sink)
		_, _ = bw.Write(src)
		_ = bw.Close()
		dst, sink.b = sink.b, nil
		return dst
	}
}

var brotliDecoders = []struct {
	name string
	new  func() brotliDecoder
}{
	{"brrr", func() brotliDecoder { return newDecompressor().appendDecompressed }},
	{"andybalholm", func() brotliDecoder {
		var src bytes.Reader
		r := brotli.NewReader(&src)
		return readerDecoder(&src, r, func() { _ = r.Reset(&src) })
	}},
}

// readerDecoder decodes with a pooled streaming reader r of src, reset by
// reset, through appendRead, as the codec does.
func readerDecoder(src *bytes.Reader, r io.Reader, reset func()) brotliDecoder {
	return func(dst, in []byte, limit int) ([]byte, error) {
		start := len(dst)
		src.Reset(in)
		reset()
		dst, err := appendRead(dst, r, 4*len(in), limit)
		if err == nil && src.Len() > 0 {
			err = errTrailing
		}
		if err != nil {
			return dst[:start], err
		}
		return dst, nil
	}
}
