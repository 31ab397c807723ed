package pipeline

import (
	"context"
	"fmt"
	"io"

	"github.com/m2m-go/m2m/archive"
	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
)

// decompressor is one worker's state.
type decompressor struct {
	dec     *codec.Decoder
	adec    *archive.Decoder // made on the first archive block
	st      *Stats
	secured bool         // every record must be sealed
	check   *headerCheck // Test, of a container: headers against payloads
}

// blockJob is a container block on its way to a worker.
type blockJob struct {
	typ    byte
	body   []byte
	first  int64 // number of its first record
	offset int64 // of the block in the file
}

// decoded is what a worker makes of a block: lines, or an archive block
// unpacked for the consumer to expand in order.
type decoded struct {
	out    []byte
	u      *archive.Unpacked
	dir    []byte // an archive's directory block
	first  int64
	offset int64
}

// Decompress reads a compressed corpus from r, a container file or a file
// of wire strings, one per line, from any M2M implementation, and writes
// the original lines to w. Every record is verified as it is decoded; the
// first bad one stops the run with an error naming its record or line.
func Decompress(ctx context.Context, r io.Reader, w io.Writer, o Options, st *Stats) error {
	if st == nil {
		st = new(Stats)
	}
	in := newInputReader(r)
	kind, err := sniff(in, o)
	if err != nil {
		return err
	}
	n := o.workers()
	check := o.test && kind == kindContainer
	pool := &workerPool[decompressor]{state: make([]*decompressor, n), make: func() (*decompressor, error) {
		dec, err := codec.NewDecoder(o.codecOptions()...)
		d := &decompressor{dec: dec, st: st, secured: o.Security != codec.SecurityNone}
		if err == nil && check {
			d.check, err = newHeaderCheck(o.Codec...)
		}
		return d, err
	}}
	out := countingWriter{w, st}
	consume := func(p []byte) error {
		_, err := out.Write(p)
		return err
	}
	switch kind {
	case kindUnknown:
		if !o.CopyUnknown {
			return ErrUnknownFormat
		}
		n, err := io.Copy(out, in)
		st.BytesIn.Add(n)
		return err
	case kindLines:
		return ordered(ctx, n, 2*n,
			func(ctx context.Context, emit func(*batch) error) error {
				// A wire line longer than a message is an error; the reader
				// marks it by cutting it.
				return readBatches(ctx, in, o.batch(), codec.DefaultLimits.MaxMessage, st, emit)
			},
			func(i int, b *batch) ([]byte, error) {
				d, err := pool.get(i)
				if err != nil {
					return nil, err
				}
				return d.lines(b)
			}, consume)
	}
	key, err := o.containerKey()
	if err != nil {
		return err
	}
	var ar archiveReader
	if check {
		// The archive's writer derives headers with the default limits.
		if ar.check, err = newHeaderCheck(); err != nil {
			return err
		}
	}
	var buf []byte
	err = ordered(ctx, n, 2*n,
		func(ctx context.Context, emit func(blockJob) error) error {
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
				if b.Type != container.TypeRecords && b.Type != container.TypeArchive {
					return fmt.Errorf("block at offset %d: %w: unknown block type %#02x", b.Offset, container.ErrCorrupt, b.Type)
				}
				if b.Type == container.TypeArchive && o.Security != codec.SecurityNone {
					return fmt.Errorf("block at offset %d: %w: an archive is not sealed, and this run requires sealed records", b.Offset, codec.ErrIntegrity)
				}
				st.BytesIn.Add(int64(len(b.Body)))
				if err := emit(blockJob{typ: b.Type, body: append([]byte(nil), b.Body...), first: b.First, offset: b.Offset}); err != nil {
					return err
				}
			}
		},
		func(i int, j blockJob) (decoded, error) {
			d, err := pool.get(i)
			if err != nil {
				return decoded{}, err
			}
			if j.typ == container.TypeArchive {
				if d.adec == nil {
					if d.adec, err = archive.NewDecoder(); err != nil {
						return decoded{}, err
					}
				}
				return unpackArchive(d.adec, j)
			}
			out, err := d.block(j)
			return decoded{out: out}, err
		},
		func(d decoded) error {
			if d.u == nil && d.dir == nil {
				return consume(d.out)
			}
			var err error
			if buf, err = ar.expand(buf[:0], d, st); err != nil {
				return err
			}
			return consume(buf)
		})
	if err == nil && len(ar.entries) > 0 && !ar.dirSeen {
		err = fmt.Errorf("%w: an archive without its directory block", archive.ErrCorrupt)
	}
	return err
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

// block decodes the records of a container block into lines.
func (d *decompressor) block(j blockJob) ([]byte, error) {
	var out []byte
	n := j.first
	err := container.ParseRecords(j.body, func(rec container.Record) error {
		start := len(out)
		var err error
		if out, err = appendRecord(out, d.dec, rec, d.secured); err != nil {
			return fmt.Errorf("record %d: %w", n, err)
		}
		if d.check != nil && rec.Encoding == container.M2M {
			text := out[start:]
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
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.st.Records.Add(n - j.first)
	return out, nil
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

// lines decodes wire strings, one per line.
func (d *decompressor) lines(b *batch) ([]byte, error) {
	var out []byte
	for i, l := range b.lines {
		n := b.first + int64(i) + 1
		if l.continues {
			return nil, fmt.Errorf("line %d: longer than a message may be", n)
		}
		wire := b.buf[l.start:l.end]
		if d.secured {
			if alg, _ := codec.Detect(wire); alg != codec.M2M {
				return nil, fmt.Errorf("line %d: %w: %v message in a secured line file", n, codec.ErrIntegrity, alg)
			}
		}
		var alg codec.Algorithm
		var err error
		if out, alg, err = d.dec.AppendDecode(out, wire); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
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
			out = append(out, '\n')
		}
	}
	d.st.Records.Add(int64(len(b.lines)))
	return out, nil
}
