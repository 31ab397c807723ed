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
	p.buf = getPiece()
	return p.send(b, cap(b))
}

// finish sends what is left, and lets go of p's buffer: a fresh piece
// taken for nothing at the end of every block was, decompressing dev100's
// container, most of what was allocated.
func (p *pieces) finish() error {
	b := p.buf
	p.buf = nil
	if len(b) == 0 {
		putPiece(b)
		return nil
	}
	return p.send(b, cap(b))
}

var piecePool sync.Pool // *[]byte

// getPiece returns an empty piece with room for a piece's worth and a
// record more (a fresh one grown by append from nothing was, with block
// bodies copied afresh, the garbage that ran the collector 72 times
// decompressing dev100's container).
func getPiece() []byte {
	if p, ok := piecePool.Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return make([]byte, 0, pieceSize+pieceSize/4)
}

// putPiece recycles a piece's memory, unless a long record made it large
// (or it is none of getPiece's).
func putPiece(b []byte) {
	if cap(b) >= pieceSize && cap(b) <= 4*pieceSize {
		piecePool.Put(&b)
	}
}

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
		putPiece(p)
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
				if err := d.lines(b, &pieces{buf: getPiece(), send: send}); err != nil {
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
				if err := emit(blockJob{body: append(getBody(), b.Body...), first: b.First}, len(b.Body)); err != nil {
					return err
				}
			}
		},
		func(i int, j blockJob, send func([]byte, int) error) error {
			d, err := pool.get(i)
			if err != nil {
				return err
			}
			if err := d.block(j, &pieces{buf: getPiece(), send: send}); err != nil {
				return err
			}
			putBody(j.body) // decoded into pieces of their own
			return nil
		},
		write)
}

// Copies of block bodies are recycled, as pieces are.
var bodyPool sync.Pool // *[]byte

func getBody() []byte {
	if p, ok := bodyPool.Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return nil
}

// putBody gives b back for reuse once nothing uses it, unless it is larger
// than blocks are made (an uncommon writer's).
func putBody(b []byte) {
	if cap(b) <= 4<<20 {
		bodyPool.Put(&b)
	}
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
