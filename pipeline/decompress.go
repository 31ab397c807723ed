package pipeline

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/internal/flow"
)

// decompressor is one worker's state.
type decompressor struct {
	dec     *codec.Decoder
	st      *Stats
	secured bool         // every record must be sealed
	check   *headerCheck // Test, of a container: headers against payloads
}

// blockJob is a container block on its way to a worker.
type blockJob struct {
	body  []byte
	first int64 // number of its first record
}

// pieces collects a worker's decoded lines and sends them on in pieces of
// about pieceSize bytes, so that output never piles up in a worker.
type pieces struct {
	buf  []byte
	send func([]byte, int) error
}

// spill sends what has been collected if it is a piece's worth.
func (p *pieces) spill() error {
	if len(p.buf) < pieceSize {
		return nil
	}
	return p.flush()
}

// flush sends what has been collected.
func (p *pieces) flush() error {
	if len(p.buf) == 0 {
		return nil
	}
	b := p.buf
	p.buf = piecePool.get()
	return p.send(b, cap(b))
}

// finish sends what is left, and lets go of p's buffer: a fresh piece
// taken for nothing at the end of every block was, decompressing dev100's
// container, most of what was allocated.
func (p *pieces) finish() error {
	b := p.buf
	p.buf = nil
	if len(b) == 0 {
		piecePool.put(b)
		return nil
	}
	return p.send(b, cap(b))
}

// A bufPool recycles byte buffers, those whose capacity is within [min,
// max]: smaller ones are not its own, larger ones (made so by a long
// record) are left to the collector. A fresh one has room for size bytes.
// Buffers made afresh and grown by append from nothing were, decompressing
// dev100's container, 277 MB of garbage, which ran the collector 72 times.
type bufPool struct {
	pool           sync.Pool // *[]byte
	size, min, max int
}

func (p *bufPool) get() []byte {
	if b, ok := p.pool.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return make([]byte, 0, p.size)
}

// put gives b back for reuse; nothing may use it after.
func (p *bufPool) put(b []byte) {
	if cap(b) >= p.min && cap(b) <= p.max {
		p.pool.Put(&b)
	}
}

var (
	// piecePool's pieces have room for a piece's worth and a record more.
	piecePool = bufPool{size: pieceSize + pieceSize/4, min: pieceSize, max: 4 * pieceSize}
	// bodyPool holds copies of container blocks' bodies, grown by the
	// copy, up to the size blocks are made.
	bodyPool = bufPool{min: 1, max: 4 << 20}
)

// Decompress reads a compressed corpus from r, a container file or a file
// of wire strings, one per line, from any M2M implementation, and writes
// the original lines to w. Every record is verified as it is decoded; the
// first bad one stops the run with an error naming its record or line.
// Input that is neither is refused with ErrUnknownFormat, or copied as it
// is with Options.CopyUnknown.
func Decompress(ctx context.Context, r io.Reader, w io.Writer, o Options, st *Stats) error {
	if st == nil {
		st = new(Stats)
	}
	src, err := openSource(r, o)
	defer src.close()
	if err != nil {
		return err
	}
	in := src.br
	n := o.workers()
	check := o.test && src.kind == kindRecords
	pool := &workerPool[decompressor]{state: make([]*decompressor, n), make: func() (*decompressor, error) {
		dec, err := codec.NewDecoder(o.codecOptions()...)
		d := &decompressor{dec: dec, st: st, secured: o.Security != codec.SecurityNone}
		if err == nil && check {
			d.check, err = newHeaderCheck(o.Codec...)
		}
		return d, err
	}}
	out := countingWriter{w, st}
	write := func(p []byte) error {
		_, err := out.Write(p)
		piecePool.put(p)
		return err
	}
	switch src.kind {
	case kindArchive:
		return decodeArchive(ctx, src, w, o, st)
	case kindUnknown:
		if !o.CopyUnknown {
			return ErrUnknownFormat
		}
		n, err := io.Copy(out, in)
		st.BytesIn.Add(n)
		return err
	case kindLines:
		return flow.Ordered(ctx, n, 2*n, flowBudget,
			func(ctx context.Context, emit func(*batch, int) error) error {
				// A wire line longer than a message is an error; the reader
				// marks it by cutting it.
				return readBatches(ctx, in, o.batch(), codec.DefaultLimits.MaxMessage, st, func(b *batch) error {
					return emit(b, cap(b.buf))
				})
			},
			func(i int, b *batch, send func([]byte, int) error) error {
				d, err := pool.get(i)
				if err != nil {
					return err
				}
				if err := d.lines(b, &pieces{buf: piecePool.get(), send: send}); err != nil {
					return err
				}
				putBatch(b) // decoded into pieces of their own
				return nil
			},
			write)
	}
	key, err := o.containerKey()
	if err != nil {
		return err
	}
	return flow.Ordered(ctx, n, 2*n, flowBudget,
		func(ctx context.Context, emit func(blockJob, int) error) error {
			cr, err := container.NewReader(in, key)
			if err != nil {
				return err
			}
			for {
				b, err := cr.Next()
				if err == io.EOF {
					return nil
				}
				if err != nil {
					return err
				}
				if b.Type != container.TypeRecords {
					return fmt.Errorf("block at offset %d: %w: a block of type %#02x among records blocks", b.Offset, container.ErrCorrupt, b.Type)
				}
				st.BytesIn.Add(int64(len(b.Body)))
				// A copy: the reader's buffer is for the next block.
				if err := emit(blockJob{body: append(bodyPool.get(), b.Body...), first: b.First}, len(b.Body)); err != nil {
					return err
				}
			}
		},
		func(i int, j blockJob, send func([]byte, int) error) error {
			d, err := pool.get(i)
			if err != nil {
				return err
			}
			if err := d.block(j, &pieces{buf: piecePool.get(), send: send}); err != nil {
				return err
			}
			bodyPool.put(j.body) // decoded into pieces of their own
			return nil
		},
		write)
}

// Test decodes a compressed corpus as Decompress does, and checks every
// record, without writing anything. In a container it also derives each
// M2M v1 record's header from its decoded JSON, as the encoder does, and
// fails with ErrHeader, naming the record, if the record carries another:
// List trusts headers, and only Test can tell them true. Only m2m writes
// containers, so their headers must be exactly ours. Lines files are not
// checked so: other implementations derive some headers otherwise (the
// reference's encoder writes stream chunks as responses, embedding
// requests and responses and errors as requests, and leaves out roles it
// does not know).
func Test(ctx context.Context, r io.Reader, o Options, st *Stats) error {
	o.test = true
	return Decompress(ctx, r, io.Discard, o, st)
}

// block decodes the records of a container block into lines, sent on in
// pieces.
func (d *decompressor) block(j blockJob, p *pieces) error {
	n := j.first
	err := container.ParseRecords(j.body, func(rec container.Record) error {
		start := len(p.buf)
		var err error
		if p.buf, err = appendRecord(p.buf, d.dec, rec, d.secured); err != nil {
			return fmt.Errorf("record %d: %w", n, err)
		}
		if d.check != nil && rec.Encoding == container.M2M {
			text := p.buf[start:]
			if !rec.NoNewline {
				text = text[:len(text)-1]
			}
			if err := d.check.frame(rec.Data, text); err != nil {
				return fmt.Errorf("record %d: %w", n, err)
			}
		}
		d.st.count(rec.Encoding)
		if !rec.Continues {
			d.st.Lines.Add(1)
		}
		n++
		return p.spill()
	})
	if err != nil {
		return err
	}
	d.st.Records.Add(n - j.first)
	return p.finish()
}

// appendRecord appends the line a container record holds, with its line
// feed if the input had one. If secured, every record must be sealed.
func appendRecord(dst []byte, dec *codec.Decoder, rec container.Record, secured bool) ([]byte, error) {
	if secured && rec.Encoding != container.M2M && rec.Encoding != container.SealedRaw {
		// Frames are sealed (the decoder requires it), and so are sealed
		// raw records; nothing else is.
		return dst, fmt.Errorf("%w: unsealed %v record in a secured corpus", codec.ErrIntegrity, rec.Encoding)
	}
	var err error
	switch rec.Encoding {
	case container.Raw:
		dst = append(dst, rec.Data...)
	case container.SealedRaw:
		dst, err = dec.AppendOpened(dst, rec.Data)
	case container.M2M:
		dst, err = dec.AppendFrame(dst, nil, rec.Data)
	case container.Brotli:
		dst, err = dec.AppendBrotli(dst, rec.Data)
	case container.TokenNative:
		dst, err = dec.AppendTokenNativeBinary(dst, rec.Data)
	}
	if err == nil && !rec.NoNewline {
		dst = append(dst, '\n')
	}
	return dst, err
}

// lines decodes wire strings, one per line, sent on in pieces.
func (d *decompressor) lines(b *batch, p *pieces) error {
	for i, l := range b.lines {
		n := b.first + int64(i) + 1
		if l.continues {
			return fmt.Errorf("line %d: longer than a message may be", n)
		}
		wire := b.buf[l.start:l.end]
		if d.secured {
			if alg, _ := codec.Detect(wire); alg != codec.M2M {
				return fmt.Errorf("line %d: %w: %v message in a secured line file", n, codec.ErrIntegrity, alg)
			}
		}
		var alg codec.Algorithm
		var err error
		if p.buf, alg, err = d.dec.AppendDecode(p.buf, wire); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		switch alg {
		case codec.M2M:
			d.st.count(container.M2M)
		case codec.Brotli:
			d.st.count(container.Brotli)
		case codec.TokenNative:
			d.st.count(container.TokenNative)
		default:
			d.st.count(container.Raw)
		}
		if !l.noNewline {
			p.buf = append(p.buf, '\n')
		}
		if err := p.spill(); err != nil {
			return err
		}
	}
	d.st.Records.Add(int64(len(b.lines)))
	return p.finish()
}
