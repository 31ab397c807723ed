package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/m2m-go/m2m/internal/flow"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
)

// countingWriter counts the bytes it passes on.
type countingWriter struct {
	w io.Writer
	n *Stats
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.BytesOut.Add(int64(n))
	return n, err
}

// compressor is one worker's state.
type compressor struct {
	o       Options
	st      *Stats
	enc     *codec.Encoder
	dec     *codec.Decoder // for Verify
	scratch []byte
	check   []byte
}

func newCompressor(o Options, st *Stats) (*compressor, error) {
	enc, err := codec.NewEncoder(o.codecOptions()...)
	if err != nil {
		return nil, err
	}
	c := &compressor{o: o, st: st, enc: enc}
	if o.Verify {
		if c.dec, err = codec.NewDecoder(o.codecOptions()...); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// workerPool creates per-worker state on first use; worker i alone uses
// entry i.
type workerPool[T any] struct {
	state []*T
	make  func() (*T, error)
}

func (p *workerPool[T]) get(i int) (*T, error) {
	if p.state[i] == nil {
		s, err := p.make()
		if err != nil {
			return nil, err
		}
		p.state[i] = s
	}
	return p.state[i], nil
}

// blockOut is a finished block on its way to the writer.
type blockOut struct {
	b *container.BlockBuilder
	c container.Counts
}

var builders = sync.Pool{New: func() any { return new(container.BlockBuilder) }}

// Compress reads JSONL from r (see OpenInput for compressed input) and
// writes the compressed corpus to w, in o.Format. st, if not nil, counts
// the work as it goes.
func Compress(ctx context.Context, r io.Reader, w io.Writer, o Options, st *Stats) error {
	if st == nil {
		st = new(Stats)
	}
	if o.Security != codec.SecurityNone && (o.Algorithm == Brotli || o.Algorithm == TokenNative) {
		return fmt.Errorf("pipeline: %v records cannot be sealed; a secured corpus holds M2M frames and sealed raw lines (algorithm auto or m2m)", o.Algorithm)
	}
	if o.Archive {
		return compressArchive(ctx, r, countingWriter{w, st}, o, st)
	}
	n := o.workers()
	pool := &workerPool[compressor]{state: make([]*compressor, n), make: func() (*compressor, error) { return newCompressor(o, st) }}
	out := countingWriter{w, st}
	produce := func(ctx context.Context, emit func(*batch, int) error) error {
		return readBatches(ctx, r, o.batch(), o.maxLine(), st, func(b *batch) error {
			return emit(b, cap(b.buf))
		})
	}
	if o.Format == FormatLines {
		return flow.Ordered(ctx, n, 2*n, flowBudget, produce,
			func(i int, b *batch, send func([]byte, int) error) error {
				c, err := pool.get(i)
				if err != nil {
					return err
				}
				p, err := c.lines(b)
				if err != nil {
					return err
				}
				putBatch(b)
				return send(p, cap(p))
			},
			func(p []byte) error {
				_, err := out.Write(p)
				piecePool.put(p)
				return err
			})
	}
	key, err := o.containerKey()
	if err != nil {
		return err
	}
	cw, err := container.NewWriter(out, key)
	if err != nil {
		return err
	}
	err = flow.Ordered(ctx, n, 2*n, flowBudget, produce,
		func(i int, b *batch, send func(blockOut, int) error) error {
			c, err := pool.get(i)
			if err != nil {
				return err
			}
			bo, err := c.block(b)
			if err != nil {
				return err
			}
			putBatch(b) // the builder holds copies of its records
			return send(bo, bo.b.Len())
		},
		func(bo blockOut) error {
			err := cw.Write(bo.b.Block(), bo.c)
			builders.Put(bo.b)
			return err
		})
	if err != nil {
		return err
	}
	return cw.Close()
}

// block encodes a batch into a block of records.
func (c *compressor) block(b *batch) (blockOut, error) {
	bb := builders.Get().(*container.BlockBuilder)
	bb.Reset()
	var counts container.Counts
	for i, l := range b.lines {
		data := b.buf[l.start:l.end]
		rec, err := c.record(data, l, b.first+int64(i))
		if err != nil {
			builders.Put(bb)
			return blockOut{}, err
		}
		bb.Add(rec)
		c.st.count(rec.Encoding)
		counts.Records++
		if !l.continues {
			counts.Lines++
		}
		counts.Bytes += l.inputBytes()
	}
	c.st.Records.Add(int64(counts.Records))
	return blockOut{bb, counts}, nil
}

// record encodes one line, sealing raw records in a secured corpus. Its
// Data may alias c.scratch, valid until the next call.
func (c *compressor) record(data []byte, l line, n int64) (container.Record, error) {
	rec, err := c.encode(data, l, n)
	if err != nil || rec.Encoding != container.Raw || c.o.Security == codec.SecurityNone {
		return rec, err
	}
	if c.scratch, err = c.enc.AppendSealed(c.scratch[:0], rec.Data); err != nil {
		return rec, fmt.Errorf("line %d: %w", n+1, err)
	}
	rec.Encoding, rec.Data = container.SealedRaw, c.scratch
	return rec, nil
}

// encode encodes one line as a frame or message, or keeps it raw.
func (c *compressor) encode(data []byte, l line, n int64) (container.Record, error) {
	rec := container.Record{Encoding: container.Raw, Data: data, NoNewline: l.noNewline, Continues: l.continues}
	switch {
	case l.continues:
		c.st.OverLimit.Add(1)
		return rec, nil
	case len(data) == 0:
		c.st.Blank.Add(1)
		return rec, nil
	case !utf8.Valid(data):
		c.st.NotUTF8.Add(1)
		return rec, nil
	}
	var err error
	switch c.o.Algorithm {
	case Auto, M2M:
		c.scratch, err = c.enc.AppendFrame(c.scratch[:0], data)
		rec.Encoding = container.M2M
	case Brotli:
		c.scratch, err = c.enc.AppendBrotli(c.scratch[:0], data)
		rec.Encoding = container.Brotli
	case TokenNative:
		c.scratch, err = c.enc.AppendTokenNativeBinary(c.scratch[:0], data)
		rec.Encoding = container.TokenNative
	case Hydra:
		var alg codec.Algorithm
		c.scratch, alg, err = c.enc.AppendHydraBinary(c.scratch[:0], data)
		switch alg {
		case codec.None:
			return rec, nil
		case codec.M2M:
			rec.Encoding = container.M2M
		case codec.TokenNative:
			rec.Encoding = container.TokenNative
		case codec.Brotli:
			rec.Encoding = container.Brotli
		}
	}
	if err != nil {
		switch {
		case errors.Is(err, codec.ErrLimit):
			c.st.OverLimit.Add(1)
		case c.o.Algorithm == TokenNative:
			c.st.NotTokenizable.Add(1)
		default:
			c.st.NotJSON.Add(1)
		}
		rec.Encoding, rec.Data = container.Raw, data
		return rec, nil
	}
	rec.Data = c.scratch
	if c.o.Verify {
		if err := c.verify(rec, data, n); err != nil {
			return rec, err
		}
	}
	return rec, nil
}

// verify decodes an encoded record and compares it with the line.
func (c *compressor) verify(rec container.Record, want []byte, n int64) error {
	var err error
	switch rec.Encoding {
	case container.M2M:
		c.check, err = c.dec.AppendFrame(c.check[:0], nil, rec.Data)
	case container.Brotli:
		c.check, err = c.dec.AppendBrotli(c.check[:0], rec.Data)
	case container.TokenNative:
		c.check, err = c.dec.AppendTokenNativeBinary(c.check[:0], rec.Data)
	}
	if err == nil && !bytes.Equal(c.check, want) {
		err = errors.New("decodes to different bytes")
	}
	if err != nil {
		return fmt.Errorf("line %d: verification failed: %w", n+1, err)
	}
	return nil
}

// lines encodes a batch as wire strings, one per line.
func (c *compressor) lines(b *batch) ([]byte, error) {
	out := piecePool.get() // recycled, as decompression's pieces are
	for i, l := range b.lines {
		n := b.first + int64(i) + 1
		data := b.buf[l.start:l.end]
		if l.continues {
			return nil, fmt.Errorf("line %d: longer than a message may be; the container format keeps such lines (--format=container)", n)
		}
		if !utf8.Valid(data) {
			return nil, fmt.Errorf("line %d: not valid UTF-8, which wire messages cannot carry; the container format keeps such lines (--format=container)", n)
		}
		start := len(out)
		var alg codec.Algorithm
		var err error
		switch {
		case c.o.Security != codec.SecurityNone:
			// Only frames carry security on the wire.
			if out, err = c.enc.AppendWire(out, data, codec.M2M); err != nil {
				err = fmt.Errorf("a secured line file holds only M2M frames, and this line is not JSON: %w", err)
			}
			alg = codec.M2M
		case c.o.Algorithm == Auto:
			out, alg, err = c.enc.AppendAuto(out, data)
		case c.o.Algorithm == Hydra:
			out, alg, err = c.enc.AppendHydra(out, data)
		case c.o.Algorithm == M2M || c.o.Algorithm == TokenNative:
			alg = codec.M2M
			if c.o.Algorithm == TokenNative {
				alg = codec.TokenNative
			}
			if out, err = c.enc.AppendWire(out, data, alg); err != nil {
				// Not JSON, or text the tokenizer refuses (Llama 3 without
				// its ranks): pass it through, or Brotli if it looks like
				// a message.
				out, alg, err = c.enc.AppendAuto(out[:start], data)
			}
		case c.o.Algorithm == Brotli:
			out, err = c.enc.AppendWire(out, data, codec.Brotli)
			alg = codec.Brotli
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		switch alg {
		case codec.M2M:
			c.st.count(container.M2M)
		case codec.Brotli:
			c.st.count(container.Brotli)
		case codec.TokenNative:
			c.st.count(container.TokenNative)
		default:
			c.st.Passthrough.Add(1)
			c.st.count(container.Raw)
		}
		if c.o.Verify {
			if c.check, _, err = c.dec.AppendDecode(c.check[:0], out[start:]); err != nil || !bytes.Equal(c.check, data) {
				return nil, fmt.Errorf("line %d: verification failed: %v", n, err)
			}
		}
		if !l.noNewline {
			out = append(out, '\n')
		}
	}
	c.st.Records.Add(int64(len(b.lines)))
	return out, nil
}
