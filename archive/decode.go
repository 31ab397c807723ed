package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/internal/flow"
	"github.com/m2m-go/m2m/internal/huge"
)

// pieceSize is how much decoded output a worker gathers before passing it
// on: a block that decodes to a lot streams through in pieces.
const pieceSize = 256 << 10

// aheadBudget is the decoded output, a worker, that Decode holds while
// it waits to be written in order: a records block's, so that a worker
// can finish one while the block before it is written.
const aheadBudget = 8 << 20

// DecodeOptions configure Decode. The zero value decodes on every CPU.
type DecodeOptions struct {
	Workers int // goroutines decoding records blocks; 0: GOMAXPROCS
	// Check also derives each record's schema and model as the M2M codec
	// does, and compares them with what the index lists (m2m-batch -l
	// reads them from the index alone): a difference is an ErrListing.
	Check bool
}

// ErrListing reports a record whose schema or model in the index is not
// what the record itself calls for.
var ErrListing = errors.New("archive: the index lists another schema or model than the record's")

// Decode writes every record of the archive to w, in order, each as it was
// in the input: the input itself. Records blocks are decoded on
// o.Workers goroutines; every record's length and CRC-32 is checked, and
// the first bad one stops the run with an error naming it. It returns the
// counts of what it wrote.
func (r *Reader) Decode(ctx context.Context, w io.Writer, o DecodeOptions) (Counts, error) {
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	checks := make([]*lister, workers)
	var c Counts
	if err := r.checkBlocks(); err != nil {
		return c, err
	}
	type piece struct {
		out          []byte
		records      int
		lines, bytes int64
	}
	var slab pieceSlab
	stores := map[int]storeFrame{}
	for _, fs := range r.frames {
		for _, f := range fs {
			stores[f.block] = f
		}
	}
	plains := r.plainCopies()
	err := flow.Ordered(ctx, workers, 2*workers, int64(workers)*aheadBudget,
		func(ctx context.Context, emit func(int, int) error) error {
			return r.schedule(workers, plains, emit)
		},
		func(worker int, b int, send func(piece, int) error) error {
			if f, ok := plains[b]; ok {
				return r.checkPlain(f)
			}
			if f, ok := stores[b]; ok {
				if dict, coder, ok := r.frameDict(b); ok && dict < 0 && coder&coderWords != 0 {
					// A segment's first words frame: its coded text first,
					// all the others need of it (see dictKey).
					if _, err := r.cache.get(dictKey(b), func() (any, int, error) { return r.loadStore(f.kind, f, asDict, nil) }); err != nil {
						return err
					}
				}
				return r.cache.prefetch(b, func() (any, int, error) { return r.loadStore(f.kind, f, 0, nil) })
			}
			if o.Check && checks[worker] == nil {
				var err error
				if checks[worker], err = newLister(); err != nil {
					return err
				}
			}
			v, _, err := r.loadRecords(b, 0)
			if err != nil {
				return err
			}
			rb := v.(*recordsBlock)
			if len(rb.recs) != int(r.ix.BlockRecords(b)) {
				return blockErr(b, corruptf("%d records, the index says %d", len(rb.recs), r.ix.BlockRecords(b)))
			}
			// A record that cannot be read ends the run, in its place
			// (flow.Ordered): the records before it are written first,
			// those of its own piece too.
			fail := func(p piece, at int, err error) error {
				if p.out = p.out[:at]; p.records > 0 {
					if serr := send(p, cap(p.out)); serr != nil {
						return serr
					}
				}
				return err
			}
			x := r.expander()
			x.full = true
			defer r.putExpander(x)
			p := piece{out: slab.get()}
			for i := range rb.recs {
				var err error
				at := len(p.out)
				if p.out, err = x.record(p.out, rb, i); err != nil {
					return fail(p, at, fmt.Errorf("record %d: %w", r.ix.First(b)+int64(i), err))
				}
				if o.Check {
					if err := checkListing(checks[worker], &rb.recs[i], p.out[at:at+rb.recs[i].length]); err != nil {
						return fail(p, at, fmt.Errorf("record %d: %w", r.ix.First(b)+int64(i), err))
					}
				}
				p.records++
				p.bytes += int64(len(p.out) - at)
				p.lines += lines(rb.recs[i].flags, rb.recs[i].feeds)
				if len(p.out) >= pieceSize || i == len(rb.recs)-1 {
					if err := send(p, cap(p.out)); err != nil {
						return err
					}
					p = piece{out: slab.get()}
				}
			}
			return nil
		},
		func(p piece) error {
			c.Records += int64(p.records)
			c.Lines += p.lines
			c.Bytes += p.bytes
			_, err := w.Write(p.out)
			putPiece(p.out)
			return err
		})
	if r.cut != nil && (err == nil || errors.Is(err, ErrCorrupt) || errors.Is(err, container.ErrCorrupt) || errors.Is(err, container.ErrTruncated)) {
		// What is lost to the cut is out of reach, and the first record
		// that needs it is where decoding stops.
		if err == nil && !r.lostDir {
			// Cut past its directory: every record it had.
			err = fmt.Errorf("archive: all %d records recovered, from a damaged file: %w", c.Records, r.cut)
		} else {
			err = fmt.Errorf("archive: the first %d records recovered, the rest lost: %w", c.Records, r.cut)
		}
	}
	return c, err
}

// schedule emits the blocks Decode works on, records blocks in file order
// and store frames depth ahead of it, plain copies of dictionaries
// (plainCopies, to be checked) where they are. The writer closes a store frame when
// it is full, so the records blocks written while it filled come before it
// in the file and refer to it: frame k+depth of a kind is emitted where
// frame k is in the file (frames 0 to depth-1 at the start), for workers
// to decode it while others expand the records that come before it,
// instead of all of them waiting for whichever took it up first. Decode
// asks for one frame ahead a worker: with one, on two workers, the
// records blocks after a frame waited on the worker decoding the next.
// The cache holds depth more frames of each kind than it would in file
// order. Frames are side jobs (flow.Side): the records blocks emitted
// after one are written as soon as they are done, not once it is. (As
// jobs in order, a ppm frame, decoded for seconds, held up the blocks
// before it in the file that other workers had done, until their
// output filled the budget and those workers stopped too.)
func (r *Reader) schedule(depth int, plains map[int]storeFrame, emit func(int, int) error) error {
	next := [2]int{} // of r.frames[k], the next to emit
	ahead := func(k int) error {
		if next[k] >= len(r.frames[k]) {
			return nil
		}
		next[k]++
		return emit(r.frames[k][next[k]-1].block, flow.Side)
	}
	// Each kind's first frame before any's second, which needs the
	// first as its dictionary.
	for range max(depth, 1) {
		for k := range r.frames {
			if err := ahead(k); err != nil {
				return err
			}
		}
	}
	at := [2]int{} // of r.frames[k], the next to meet in the file
	for b := range r.ix.Blocks() {
		switch {
		case at[0] < len(r.frames[0]) && r.frames[0][at[0]].block == b:
			at[0]++
			if err := ahead(0); err != nil {
				return err
			}
		case at[1] < len(r.frames[1]) && r.frames[1][at[1]].block == b:
			at[1]++
			if err := ahead(1); err != nil {
				return err
			}
		case r.ix.BlockRecords(b) > 0:
			if err := emit(b, 0); err != nil {
				return err
			}
		case plains[b].plain != 0:
			if err := emit(b, flow.Side); err != nil {
				return err
			}
		}
	}
	return nil
}

// plainCopies returns the strings frames that have plain copies of
// themselves as dictionaries, by the copies' blocks.
func (r *Reader) plainCopies() map[int]storeFrame {
	m := map[int]storeFrame{}
	for _, f := range r.frames[0] {
		if f.plain != 0 {
			m[f.plain] = f
		}
	}
	return m
}

// checkPlain checks that the plain copy of strings frame f as a dictionary
// (f.plain) holds what f decodes to as one: a read of a record by number
// takes the copy for the frame.
func (r *Reader) checkPlain(f storeFrame) error {
	v, _, err := r.loadPlain(f)
	if err != nil {
		return err
	}
	p := v.(*storeBlock)
	var s *storeBlock
	_, coder, ok := r.frameDict(f.block)
	ppmFrame := ok && coder&^coderFlags == coderPPM
	switch {
	case ppmFrame:
		// A ppm frame's copy is its first ppmDict bytes, which are
		// decoded again, and only they: the frame itself is long gone
		// from the cache, a segment of frames back.
		if s, err = r.storePrefix(f.kind, f, ppmDict); err != nil {
			return err
		}
	case ok && coder&coderWords != 0:
		v, err := r.cache.get(dictKey(f.block), func() (any, int, error) { return r.loadStore(f.kind, f, asDict, nil) })
		if err != nil {
			return err
		}
		s, _ = v.(*storeBlock)
	default:
		if s, err = r.store(f.kind, f, asDict); err != nil {
			return err
		}
	}
	same := s != nil && (p.words.table == nil) == (s.words.table == nil)
	if same && ppmFrame {
		same = bytes.Equal(p.raw, s.raw[:min(len(s.raw), ppmDict)])
	} else if same && p.words.table != nil {
		same = bytes.Equal(p.words.text, s.words.text) &&
			bytes.Equal(p.words.table.AppendHeader(nil), s.words.table.AppendHeader(nil)) &&
			bytes.Equal(p.words.table.AppendList(nil), s.words.table.AppendList(nil))
	} else if same {
		same = s.complete && bytes.Equal(p.raw, s.raw)
	}
	if !same {
		return blockErr(f.plain, corruptf("the plain copy of block %d is not what it decodes to", f.block))
	}
	return nil
}

var piecePool sync.Pool // *[]byte

// pieceSlab is memory new pieces are cut from, 16 at a time: a fresh
// process decoding an archive made some 40 pieces of its own, each faulted
// in 4 KiB at a time (3.5 thousand of the 8 thousand faults of
// m2m-batch -d of dev100), where a slab is a few huge pages. One a Decode,
// so that what is left of it goes with the call.
type pieceSlab struct {
	mu   sync.Mutex
	free []byte
}

// get returns an empty buffer with room for a piece and a record of a
// typical size past it: a recycled one, or one cut from the slab.
func (s *pieceSlab) get() []byte {
	if b, ok := piecePool.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	const n = pieceSize + pieceSize/2
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.free) < n {
		s.free = huge.Bytes(16 * n)[:16*n]
	}
	b := s.free[:0:n]
	s.free = s.free[n:]
	return b
}

// putPiece recycles a piece's memory, unless a long record made it large.
func putPiece(b []byte) {
	if cap(b) <= 4*pieceSize {
		piecePool.Put(&b)
	}
}

// checkListing checks that ri lists the schema and model line calls for,
// or nothing if neither it nor the JSON after its prefix is JSON the codec
// accepts (with its default limits, as the writer derives them: listing).
func checkListing(l *lister, ri *recIndex, line []byte) error {
	h, _ := l.header(ri.flags, line)
	switch listed := ri.flags&flagListed != 0; {
	case h == nil && !listed:
		return nil
	case h == nil:
		return fmt.Errorf("%w: schema %v and model %q listed for a record that is not JSON the codec takes", ErrListing, ri.schema, ri.model)
	case !listed:
		return fmt.Errorf("%w: nothing listed for a %v record", ErrListing, h.Schema)
	case h.Schema != ri.schema:
		return fmt.Errorf("%w: schema %v, the record's is %v", ErrListing, ri.schema, h.Schema)
	case !bytes.Equal(h.Model, ri.model):
		return fmt.Errorf("%w: model %q, the record's is %q", ErrListing, ri.model, h.Model)
	}
	return nil
}

// checkBlocks checks that every block of the archive is a records block,
// a store frame or plain copy the directory lists, or the directory.
func (r *Reader) checkBlocks() error {
	n := 1 // the directory
	if r.lostDir {
		n = 0
	}
	for b := range r.ix.Blocks() {
		if r.ix.BlockRecords(b) > 0 {
			n++
		}
	}
	n += len(r.frames[0]) + len(r.frames[1]) + r.plains
	if n != r.ix.Blocks() {
		return corruptf("%d blocks, of which the index and directory account for %d", r.ix.Blocks(), n)
	}
	return nil
}
