package pipeline

import (
	"errors"
	"fmt"
	"io"

	"github.com/m2m-go/m2m/archive"
	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
)

// A Reader reads single records of a container file by number, through
// its index: a record costs one block read and decoded (in an archive,
// also the store sections of the entries it refers to), not a pass over
// the file. Not safe for concurrent use.
type Reader struct {
	ix      *container.Index
	dec     *codec.Decoder
	secured bool
	ar      *archive.Reader // the file is an archive

	// The records block read last, kept for the records read next.
	last     int
	lastBody []byte
}

// Open opens the container file ra, of size bytes, for reading records by
// number. o gives the key of a secured corpus; an archive cannot be one.
// With a key, Open refuses a container that is not sealed and checks its
// seal as far as the index goes, and every block a record is read from
// has its MAC verified, which binds the record to its number and the file
// (see container.OpenIndex for what is not checked).
func Open(ra io.ReaderAt, size int64, o Options) (*Reader, error) {
	key, err := o.containerKey()
	if err != nil {
		return nil, err
	}
	ix, err := container.OpenIndex(ra, size, key)
	if damaged(err) {
		// Cut short or damaged past some point: the records of its whole
		// blocks can still be read (see Cut).
		if rix, rerr := container.RecoverIndex(ra, size, key); rerr == nil && rix.Blocks() > 0 {
			ix, err = rix, nil
		}
	}
	if err != nil {
		return nil, err
	}
	r := &Reader{ix: ix, secured: o.Security != codec.SecurityNone, last: -1}
	if ix.Blocks() == 0 {
		return r, nil
	}
	typ, err := ix.Type(0)
	if err != nil {
		return nil, err
	}
	switch typ {
	case container.TypeArchive:
		if r.secured {
			return nil, fmt.Errorf("%w: an archive is not sealed, and this run requires sealed records", codec.ErrIntegrity)
		}
		if r.ar, err = archive.NewIndexReader(ix); err != nil {
			return nil, err
		}
	case container.TypeRecords:
		if r.dec, err = codec.NewDecoder(o.codecOptions()...); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("first block: %w: unknown block type %#02x", container.ErrCorrupt, typ)
	}
	return r, nil
}

// Close lets go of the Reader's decoders and caches, for the next Reader
// to use; it does not close the file. The Reader must not be used after.
func (r *Reader) Close() {
	if r.ar != nil {
		r.ar.Close()
	}
	*r = Reader{}
}

// Records returns the number of records in the file, or in what is left
// of it (see Cut).
func (r *Reader) Records() int64 { return r.ix.Records }

// Cut returns, for a file Open found cut short or damaged past some point
// (container.RecoverIndex), where and why the rest is lost; nil for a
// whole file. The records of its whole blocks are read as any, each
// checked; a record past them, or in an archive one that needs a store
// frame past them, fails with this error.
func (r *Reader) Cut() error { return r.ix.Cut() }

// AppendRecord appends record n (from 0) to dst as it was in the input:
// its bytes, then a line feed if one followed them. Records are lines, or
// pieces of lines too long for one; in order, they are the input.
func (r *Reader) AppendRecord(dst []byte, n int64) ([]byte, error) {
	dst, err := r.appendRecord(dst, n)
	if cut := r.Cut(); err != nil && cut != nil {
		err = fmt.Errorf("record %d is not in what is left of the file: %w", n, cut)
	}
	return dst, err
}

// appendRecord is AppendRecord, its errors not yet told apart from the
// cut's.
func (r *Reader) appendRecord(dst []byte, n int64) ([]byte, error) {
	b, err := r.ix.Find(n)
	if err != nil {
		return dst, err
	}
	i := int(n - r.ix.First(b))
	if r.ar != nil {
		return r.ar.AppendRecord(dst, n)
	}
	if b != r.last {
		blk, err := r.ix.Block(b)
		if err != nil {
			return dst, err
		}
		if blk.Type != container.TypeRecords {
			return dst, fmt.Errorf("block at offset %d: %w: a block of type %#02x among records blocks", blk.Offset, container.ErrCorrupt, blk.Type)
		}
		r.last, r.lastBody = b, blk.Body
	}
	j := 0
	var decErr error
	err = container.ParseRecords(r.lastBody, func(rec container.Record) error {
		if j++; j <= i {
			return nil
		}
		dst, decErr = appendRecord(dst, r.dec, rec, r.secured)
		return errFound
	})
	switch {
	case err == errFound && decErr == nil:
		return dst, nil
	case err == errFound:
		err = decErr
	case err == nil:
		err = fmt.Errorf("%w: the block holds %d records, the index says more", container.ErrCorrupt, j)
	default:
		r.last = -1
	}
	return dst, fmt.Errorf("record %d: %w", n, err)
}

// errFound stops a walk over a block's records at the one wanted.
var errFound = errors.New("found")
