package pipeline

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/m2m-go/m2m/archive"
	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
)

// Listing is what List finds in a compressed corpus, from the records'
// headers alone: no payload is decompressed.
type Listing struct {
	Format     Format
	Records    int64
	Lines      int64
	Bytes      int64 // of the original input, when the file says (containers)
	Compressed int64 // bytes of the file
	Encodings  [5]int64
	Archived   int64 // records of an archive (their schemas and models are counted below)
	// Archive is what an archive holds, by stream: where the bytes go.
	Archive *archive.Contents
	Schemas map[string]int64 // M2M v1 records by schema
	Models  map[string]int64 // M2M v1 records by model
	Secured map[string]int64 // M2M v1 records by security mode
}

// ModelsByCount returns the models, most records first.
func (l *Listing) ModelsByCount() []string {
	names := slices.Collect(maps.Keys(l.Models))
	slices.SortFunc(names, func(a, b string) int {
		if l.Models[a] != l.Models[b] {
			return int(l.Models[b] - l.Models[a])
		}
		if a < b {
			return -1
		}
		return 1
	})
	return names
}

func (l *Listing) add(enc container.Encoding, frame []byte, h *codec.Header) {
	l.Records++
	l.Encodings[enc]++
	if enc != container.M2M || codec.ParseHeader(h, frame) != nil {
		return
	}
	l.countHeader(h)
}

// countHeader counts a record's M2M v1 header.
func (l *Listing) countHeader(h *codec.Header) {
	l.Schemas[h.Schema.String()]++
	l.Models[string(h.Model)]++
	l.Secured[h.Security.String()]++
}

// List reads a compressed corpus and counts its records by encoding, and
// its M2M v1 records by schema, model and security, from headers alone.
// It checks the container's structure and checksums as it reads, but not
// the payloads: it trusts every header to say what its payload is, which
// Test checks. Given o.Security and o.Key, it also checks a container's
// seal, and refuses one that is not sealed. Of the rest of o, only Format
// matters: see Options.Format for how a file of wire strings is
// recognised. A container or an archive cut short or damaged past some
// point is listed as far as it can be read (for an archive,
// archive.Recover), with an error that says where the rest was lost.
func List(ctx context.Context, r io.Reader, o Options) (*Listing, error) {
	l := &Listing{Schemas: map[string]int64{}, Models: map[string]int64{}, Secured: map[string]int64{}}
	src, err := openSource(r, o)
	defer src.close()
	if err != nil {
		return nil, err
	}
	in := src.br
	var h codec.Header
	switch src.kind {
	case kindUnknown:
		return nil, ErrUnknownFormat
	case kindArchive:
		return listArchive(l, src)
	case kindLines:
		l.Format = FormatLines
		dec, _ := codec.NewDecoder()
		var st Stats
		var frame []byte
		err := readBatches(ctx, countingReader{in, &l.Compressed}, 1<<20, codec.DefaultLimits.MaxMessage, &st, func(b *batch) error {
			for _, ln := range b.lines {
				wire := b.buf[ln.start:ln.end]
				alg, err := codec.Detect(wire)
				switch {
				case err != nil:
					l.add(container.Raw, nil, &h)
				case alg == codec.M2M:
					// The string form is base64: decode it, but not the payload.
					frame, err = dec.FrameOfString(frame[:0], wire)
					if err != nil {
						l.add(container.Raw, nil, &h)
						continue
					}
					l.add(container.M2M, frame, &h)
				case alg == codec.Brotli:
					l.add(container.Brotli, nil, &h)
				case alg == codec.TokenNative:
					l.add(container.TokenNative, nil, &h)
				default:
					l.add(container.Raw, nil, &h)
				}
			}
			putBatch(b)
			return nil
		})
		l.Lines = st.Lines.Load()
		return l, err
	}
	key, err := o.containerKey()
	if err != nil {
		return nil, err
	}
	cr, err := container.NewReader(countingReader{in, &l.Compressed}, key)
	if err != nil {
		return nil, err
	}
	// What is left of a file cut short or damaged is listed: the blocks
	// before the first that does not read whole and sound, with the lines
	// they end (the input's size is in the trailer, which is lost).
	var lines int64
	cut := func(err error) (*Listing, error) {
		l.Lines = lines
		return l, fmt.Errorf("listed what is left of it: %w", err)
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := cr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return cut(err)
		}
		if b.Type != container.TypeRecords {
			return cut(fmt.Errorf("block at offset %d: %w: a block of type %#02x among records blocks", b.Offset, container.ErrCorrupt, b.Type))
		}
		err = b.Each(func(rec container.Record) error {
			l.add(rec.Encoding, rec.Data, &h)
			return nil
		})
		if err != nil {
			return cut(err)
		}
		lines += int64(b.Lines)
	}
	l.Lines, l.Bytes = cr.Lines, cr.Bytes
	return l, nil
}

// listArchive lists an archive, from its block headers and indexes.
func listArchive(l *Listing, src *source) (*Listing, error) {
	r, err := openArchive(src)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	c, err := r.Contents()
	if err != nil {
		return nil, err
	}
	l.Archive = c
	l.Records, l.Lines, l.Bytes, l.Compressed, l.Archived = c.Records, c.Lines, c.Bytes, src.size, c.Records
	for s, n := range c.Schemas {
		l.Schemas[s.String()] += n
		l.Secured[codec.SecurityNone.String()] += n
	}
	for m, n := range c.Models {
		l.Models[m] += n
	}
	if cut := r.Cut(); cut != nil {
		return l, fmt.Errorf("listed what is left of it: %w", cut)
	}
	return l, nil
}

// countingReader counts the bytes it passes on.
type countingReader struct {
	r io.Reader
	n *int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}
