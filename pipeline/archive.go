package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/m2m-go/m2m/archive"
	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
)

// archiveBatch is the input a block of an archive holds: 8 MiB, large
// enough for zstd to find what repeats inside a block, small enough that
// reading one record decodes little.
const archiveBatch = 8 << 20

// archiveJob is a deduped block on its way to a worker.
type archiveJob struct {
	b   *batch
	blk *archive.Block
}

// compressArchive writes an archive (see Options.Archive): the reader
// dedupes each batch against everything before it, in order; the workers
// compress the blocks; the writer puts them out, then a directory block.
func compressArchive(ctx context.Context, r io.Reader, out io.Writer, o Options, st *Stats) error {
	if o.Security != codec.SecurityNone {
		return errors.New("pipeline: archives are not sealed; use the default format for --security")
	}
	n := o.workers()
	ao := o.ArchiveOptions
	w := archive.NewBuilder(ao)
	pool := &workerPool[archive.Encoder]{state: make([]*archive.Encoder, n), make: func() (*archive.Encoder, error) { return archive.NewEncoder(ao) }}
	cw, err := container.NewWriter(out, nil)
	if err != nil {
		return err
	}
	var entries []int
	size := archiveBatch
	if o.Batch > 0 {
		size = o.Batch
	}
	err = ordered(ctx, n, n,
		func(ctx context.Context, emit func(archiveJob) error) error {
			return readBatches(ctx, r, size, o.maxLine(), st, func(b *batch) error {
				blk := new(archive.Block)
				w.Begin(blk)
				for _, l := range b.lines {
					w.Add(blk, b.buf[l.start:l.end], l.continues, l.noNewline)
				}
				return emit(archiveJob{b, blk})
			})
		},
		func(i int, j archiveJob) (archiveOut, error) {
			e, err := pool.get(i)
			if err != nil {
				return archiveOut{}, err
			}
			var c container.Counts
			for _, l := range j.b.lines {
				c.Records++
				if !l.continues {
					c.Lines++
				}
				c.Bytes += l.inputBytes()
			}
			body := e.AppendBody(nil, j.blk)
			st.Records.Add(int64(c.Records))
			return archiveOut{container.AppendBlock(nil, container.TypeArchive, c.Records, body), c, j.blk.Entries}, nil
		},
		func(bo archiveOut) error {
			entries = append(entries, bo.entries)
			return cw.Write(bo.block, bo.c)
		})
	if err != nil {
		return err
	}
	if err := cw.Write(container.AppendBlock(nil, container.TypeArchive, 0, archive.AppendDirectory(nil, entries)), container.Counts{}); err != nil {
		return err
	}
	return cw.Close()
}

// archiveOut is a finished archive block.
type archiveOut struct {
	block   []byte
	c       container.Counts
	entries int
}

// archiveReader decodes the archive blocks of a container in order: the
// workers unpack them, and it expands their records with its store.
type archiveReader struct {
	x       archive.Expander
	entries []int
	dirSeen bool
	check   *headerCheck // Test: headers against lines
}

// unpackArchive is a worker's part: decompress and parse an archive block.
func unpackArchive(d *archive.Decoder, j blockJob) (decoded, error) {
	if archive.IsDirectory(j.body) {
		return decoded{dir: j.body, first: j.first}, nil
	}
	u := new(archive.Unpacked)
	if err := d.Unpack(u, j.body); err != nil {
		return decoded{}, fmt.Errorf("record %d (block at offset %d): %w", j.first, j.offset, err)
	}
	return decoded{u: u, first: j.first, offset: j.offset}, nil
}

// expand is the consumer's part: the records of an unpacked block, in
// order, as lines.
func (a *archiveReader) expand(dst []byte, d decoded, st *Stats) ([]byte, error) {
	if d.dir != nil {
		if err := archive.CheckDirectory(d.dir, a.entries); err != nil {
			return dst, fmt.Errorf("directory block: %w", err)
		}
		a.dirSeen = true
		return dst, nil
	}
	if a.dirSeen {
		return dst, fmt.Errorf("block at offset %d: %w: archive block after the directory", d.offset, archive.ErrCorrupt)
	}
	n := d.first
	err := a.x.Block(d.u, func(i int, r *archive.RecIndex, line []byte) error {
		if a.check != nil {
			if err := a.check.archived(r.Header, line, r.Continues); err != nil {
				return err
			}
		}
		dst = append(dst, line...)
		if !r.NoNewline {
			dst = append(dst, '\n')
		}
		if !r.Continues {
			st.Lines.Add(1)
		}
		n++
		return nil
	})
	if err != nil {
		return dst, fmt.Errorf("record %d (block at offset %d): %w", n, d.offset, err)
	}
	a.entries = append(a.entries, d.u.Entries())
	st.Records.Add(int64(len(d.u.Records)))
	return dst, nil
}
