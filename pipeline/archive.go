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

// compressArchive writes an archive (see Options.Archive).
func compressArchive(ctx context.Context, r io.Reader, w io.Writer, o Options, st *Stats) error {
	if o.Security != codec.SecurityNone {
		return errors.New("pipeline: archives are not sealed; use the default format for --security")
	}
	ao := o.ArchiveOptions
	ao.Workers = o.Workers
	aw, err := archive.NewWriter(ctx, w, ao)
	if err != nil {
		return err
	}
	_, err = io.Copy(aw, statsReader{r, st})
	if cerr := aw.Close(); err == nil {
		err = cerr
	}
	c := aw.Counts()
	st.Records.Store(c.Records)
	st.Lines.Store(c.Lines)
	st.Kept.Store(c.Kept)
	return err
}

// statsReader counts the bytes read, as Stats.BytesIn.
type statsReader struct {
	r  io.Reader
	st *Stats
}

func (s statsReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.st.BytesIn.Add(int64(n))
	return n, err
}

// openArchive opens the archive src, or, if it was cut short or damaged
// past some point, what is left of it (archive.Recover): its readers give
// up what can be read, and then fail with Cut's error.
func openArchive(src *source) (*archive.Reader, error) {
	r, err := archive.NewReader(src.ra, src.size)
	if damaged(err) {
		if rr, rerr := archive.Recover(src.ra, src.size); rerr == nil {
			return rr, nil
		}
	}
	return r, err
}

// damaged reports whether err says a file was cut short or damaged, which
// what is left of it may be read past (container.RecoverIndex).
func damaged(err error) bool {
	return errors.Is(err, container.ErrTruncated) || errors.Is(err, container.ErrCorrupt) || errors.Is(err, archive.ErrCorrupt)
}

// decodeArchive writes every record of the archive src to w.
func decodeArchive(ctx context.Context, src *source, w io.Writer, o Options, st *Stats) error {
	if o.Security != codec.SecurityNone {
		return errors.Join(codec.ErrIntegrity, errors.New("an archive is not sealed, and this run requires sealed records"))
	}
	r, err := openArchive(src)
	if err != nil {
		return err
	}
	defer r.Close()
	c, err := r.Decode(ctx, countingWriter{w, st}, archive.DecodeOptions{Workers: o.workers(), Check: o.test})
	if errors.Is(err, archive.ErrListing) {
		err = fmt.Errorf("%w: %w", ErrHeader, err)
	}
	st.Records.Store(c.Records)
	st.Lines.Store(c.Lines)
	st.BytesIn.Store(src.size)
	return err
}
