package archive

import (
	"fmt"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/varint"
)

// Contents is what an archive holds, as its block headers and indexes
// tell: no skeleton or store frame is decoded.
type Contents struct {
	Records, Lines, Bytes int64
	// Streams are the bytes of each stream, by number (StreamIndex ...);
	// Packed counts each frame's header and data.
	Streams [numStreams]StreamCounts
	// Strings and Templates count the entries stored; Repeats the records
	// with the bytes of one before them (Counts.Repeats).
	Strings, Templates, Repeats int64
	Blocks                      int
	// Listed counts the records that are JSON the M2M codec accepts, by
	// schema and by model (what their M2M v1 header would say).
	Schemas map[codec.Schema]int64
	Models  map[string]int64
}

// Contents reads every block of the archive, checking its checksum, and
// the index frame of every records block.
func (r *Reader) Contents() (*Contents, error) {
	c := &Contents{Records: r.ix.Records, Lines: r.ix.Lines, Bytes: r.ix.Bytes, Blocks: r.ix.Blocks(),
		Strings: int64(r.total[0]), Templates: int64(r.total[1]),
		Schemas: map[codec.Schema]int64{}, Models: map[string]int64{}}
	if err := r.checkBlocks(); err != nil {
		return nil, err
	}
	d := r.decoder()
	defer r.decs.Put(d)
	// add counts frame f, of packed bytes header and data, in stream s.
	add := func(s int, f frame, packed int) { c.Streams[s].add(f.rawLen, packed, f.numbersLen(), f.coder) }
	blocks := r.ix.Blocks() - 1 // the directory last
	if r.lostDir {
		blocks++
	}
	for b := range blocks {
		blk, err := r.ix.Block(b)
		if err != nil {
			return nil, err
		}
		body := blk.Body
		if blk.Type != container.TypeArchive || len(body) == 0 {
			return nil, blockErr(b, corruptf("not an archive block"))
		}
		switch body[0] {
		case kindRecords:
			h, err := parseRecords(body, blk.Records, b)
			if err != nil {
				return nil, blockErr(b, err)
			}
			if _, err := parseEnds(h.ends, h.skel.rawLen, h.n); err != nil {
				return nil, blockErr(b, err)
			}
			add(StreamIndex, h.index, h.indexSize)
			add(StreamCRCs, h.crcs, h.crcsSize)
			add(StreamSkeletons, h.skel, h.skelSize)
			crcs, err := d.decode(nil, h.crcs, nil)
			if err != nil {
				return nil, blockErr(b, err)
			}
			raw, err := d.decode(nil, h.index, nil)
			if err != nil {
				return nil, blockErr(b, err)
			}
			recs, err := parseIndexOnly(raw, crcs, h.n)
			if err != nil {
				return nil, blockErr(b, err)
			}
			for _, ri := range recs {
				if ri.flags&flagRepeat != 0 {
					c.Repeats++
				}
				if ri.flags&flagListed != 0 {
					c.Schemas[ri.schema]++
					c.Models[string(ri.model)]++
				}
				if r.cut != nil {
					// The container's index, which had the totals, is
					// lost: the records' own.
					c.Lines += lines(ri.flags, ri.feeds)
					c.Bytes += int64(ri.length)
					if ri.flags&flagNoNewline == 0 {
						c.Bytes++
					}
				}
			}
		case kindStrings, kindTemplates:
			_, k1, err1 := varint.Uvarint64(body[1:])
			count, k2, err2 := varint.Uvarint64(body[1+k1:])
			if err1 != nil || err2 != nil || count > maxFrame {
				return nil, blockErr(b, corruptf("store block header"))
			}
			rest := body[1+k1+k2:]
			f, ends, err := parseFrame(rest, b)
			if err != nil {
				return nil, blockErr(b, corruptf("bad store frame: %v", err))
			}
			if _, err := parseEnds(ends, f.rawLen, int(count)); err != nil {
				return nil, blockErr(b, err)
			}
			s := StreamStrings
			if body[0] == kindTemplates {
				s = StreamTemplates
			}
			add(s, f, len(rest))
		case kindPlain:
			_, _, f, ok := parsePlain(body, b)
			if !ok {
				return nil, blockErr(b, corruptf("plain copy header"))
			}
			c.Streams[StreamDicts].add(f.rawLen, len(body)-1, 0, f.coder)
		default:
			return nil, blockErr(b, fmt.Errorf("%w: block of kind %q", ErrCorrupt, body[0]))
		}
	}
	return c, nil
}
