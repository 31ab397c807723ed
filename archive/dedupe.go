package archive

import (
	"bytes"
	"context"
	"encoding/binary"

	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/varint"
)

// Markers in skeletons, templates and store frames: bytes valid JSON never
// holds raw (a record that holds one is kept as its bytes).
const (
	markEnd      = 0x00 // ends a store entry
	markString   = 0x01 // then a uvarint: a reference to a stored string
	markTemplate = 0x02 // then a uvarint: a reference to a stored template
	maxMarker    = 0x02
)

// Sizes of the units an archive is cut into.
const (
	// defaultBatch is the input a records block holds: large enough that
	// its skeletons compress well, small enough that reading one record
	// decodes little.
	defaultBatch = 8 << 20
	// maxStoreFrame is the most raw bytes a store frame holds, but for one
	// entry longer than that.
	maxStoreFrame = 4 << 20
	// maxStoreFrameMax is LevelMax's: a context model learns over a
	// frame, and dev100's strings code 5.0% smaller in frames of 16 MiB
	// than of 8 in the same model memory (384 MiB, which a 16 MiB frame
	// fills some 13 MiB in; bench/README.md), at the cost of what a read
	// of one record decodes: its frame and the segment's first.
	maxStoreFrameMax = 16 << 20
	// defaultSegment is how many frames of a stream share a dictionary:
	// the segment's first frame, whose raw bytes the others are
	// compressed against.
	defaultSegment = 256
)

// blockJob is one block on its way to being compressed and written.
type blockJob struct {
	kind      byte     // kindRecords, kindStrings, kindTemplates, kindPlain or kindDirectory
	first     uint32   // store blocks: the id of their first entry
	count     int      // store blocks: entries; records blocks: records
	index     []byte   // records blocks: the CRC-32s frame's raw bytes, then the index frame's
	raw       []byte   // the raw skeleton or store frame, or the directory's body
	ends      stepEnds // records and store blocks: where raw's items end
	dict      []byte   // the raw frame raw is compressed against, if any
	dictBlock int
	words     *segmentWords // a strings frame's segment at the zstd levels: a words frame
	counts    container.Counts
	body      []byte  // the finished block, once compressed
	buf       []byte  // the memory of body
	packed    [3]int  // bytes of the frames, once compressed: index, skeletons and CRC-32s, or the store frame
	coder     [3]byte // and their coders
	numbers   int     // of the skeleton or store frame's bytes, its numbers' columns
	rawLen    int     // raw's length and the index frame's, kept once they are given back (settle)
	indexLen  int
	crcsLen   int // records blocks: the CRC-32s frame's raw bytes, at the start of index
	// isDict marks raw as its segment's dictionary (at LevelMax, a copy
	// of its first bytes is), kept while the segment lasts; free is the
	// previous segment's, let go once this block is written: no block
	// using it is still being made.
	isDict bool
	free   []byte
	// heapRaw marks raw as the heap's, not a pooled buffer: a records
	// block's skeletons copied out of the deduper's (see add).
	heapRaw bool
	// last marks a store stream's last frame, made as the input ends: at
	// a textLevel its coding is split across two cores (appendText).
	last bool
}

// release gives the job's memory back, once its block is written.
func (j *blockJob) release() {
	putBuf(j.buf)
	putBuf(j.free)
	*j = blockJob{}
}

// size is what the job holds until its block is made, for the budget of
// the writer's pipeline: its raw bytes, and the block they make, as large
// (raw bytes that do not compress are stored); once made, it holds its
// body (see settle). Bytes, not the capacity of the buffers holding them:
// a pooled buffer may be far larger than its bytes (a store frame's 18
// MiB reused for a block's index), and counting capacity held the
// deduper back while ppm frames were coded, so that fewer were coded at
// once (--max -T2 of 315 MB: 41-49 s, now 32 s).
func (j *blockJob) size() int { return 2 * (len(j.index) + len(j.raw)) }

// compress makes the block.
func (j *blockJob) compress(e *frameEncoder) error {
	// Room for the raw bytes, should they be stored. ppm's frames
	// (LevelMax) are a fifth of them or less, coded for seconds: room for
	// a quarter, grown if need be (two frames in hand held 36 MiB for 5).
	room := len(j.raw)
	if e.ppmMemory > 0 {
		room /= 4
	}
	j.buf = getBuf(container.BlockRoom + len(j.index) + room + 64)
	body := append(j.buf[:container.BlockRoom], j.kind)
	var err error
	switch j.kind {
	case kindRecords:
		// The records' CRC-32s in a frame of their own: random bytes, but
		// for records that recur whole (a stream's chunks that say the
		// same), which in the index frame spoiled zstd's statistics of its
		// other columns (dev100's index 296,577 -> 274,606 bytes at
		// --archive, bench/README.md); those that recur coded as
		// references (appendCRCs), which zstd at level 3 does not find.
		body = varint.AppendUvarint64(body, uint64(j.count))
		at := len(body)
		if body, err = e.appendFrame(body, j.index[:j.crcsLen], StreamIndex, nil, -1); err != nil {
			return err
		}
		j.coder[2], j.packed[2] = body[at], len(body)-at
		at = len(body)
		if body, err = e.appendFrame(body, j.index[j.crcsLen:], StreamIndex, nil, -1); err != nil {
			return err
		}
		j.coder[0], j.packed[0] = body[at], len(body)-at
		at = len(body)
		if body, err = e.appendFrame(body, j.raw, StreamSkeletons, j.dict, j.dictBlock); err != nil {
			return err
		}
		j.coder[1], j.numbers = body[at], numbersLen(body[at:])
		body = appendEnds(body, j.ends, len(j.raw))
		j.packed[1] = len(body) - at
	case kindStrings, kindTemplates:
		body = varint.AppendUvarint64(body, uint64(j.first))
		body = varint.AppendUvarint64(body, uint64(j.count))
		at := len(body)
		s := StreamStrings
		if j.kind == kindTemplates {
			s = StreamTemplates
		}
		e.last = j.last
		if j.words != nil {
			body, err = e.appendWords(body, j.raw, s, j.words, j.isDict, j.dictBlock)
		} else {
			body, err = e.appendFrame(body, j.raw, s, j.dict, j.dictBlock)
		}
		e.last = false
		if err != nil {
			return err
		}
		j.coder[0], j.numbers = body[at], numbersLen(body[at:])
		body = appendEnds(body, j.ends, len(j.raw))
		j.packed[0] = len(body) - at
	case kindPlain:
		// The dictionary as the segment's other frames take it: the
		// coded text of a words frame and its table as stored, or the
		// raw bytes.
		text, head := j.raw, []byte(nil)
		if j.words != nil {
			j.words.get(e.encodePlain)
			if j.words.table != nil {
				text, head = j.words.coded(), j.words.head
			}
		}
		at := len(body)
		body = varint.AppendUvarint64(body, uint64(j.dictBlock))
		body = varint.AppendUvarint64(body, uint64(len(head)))
		body = append(body, head...)
		frameAt := len(body)
		body = e.appendPlainText(body, text)
		j.coder[0] = body[frameAt]
		j.count, j.packed[0] = len(text), len(body)-at
	case kindDirectory:
		body = append(body, j.raw...)
	}
	j.buf = body
	j.body = container.FinishBlock(body, container.TypeArchive, j.counts.Records)
	j.settle()
	return nil
}

// settle gives back what a made block no longer needs while it waits to
// be written behind slower ones (a ppm frame takes seconds: at LevelMax a
// dozen records blocks or more wait for it): its raw bytes, unless they
// are a dictionary, its index, and, for a body much smaller than the
// buffer it was made in (sized for the raw bytes, should they be stored),
// that buffer, the body moved to memory of its size. The pipeline's
// budget counts a made block by its body.
func (j *blockJob) settle() {
	j.rawLen, j.indexLen = len(j.raw), len(j.index)-j.crcsLen
	if !j.isDict {
		if !j.heapRaw {
			putBuf(j.raw)
		}
		j.raw = nil
	}
	putBuf(j.index)
	j.index = nil
	if len(j.body) < cap(j.buf)/4 {
		body := append([]byte(nil), j.body...)
		putBuf(j.buf)
		j.buf, j.body = nil, body
	}
}

// addTo adds the block to c.
func (j *blockJob) addTo(c *Counts) {
	switch j.kind {
	case kindRecords:
		c.Streams[StreamIndex].add(j.indexLen, j.packed[0], 0, j.coder[0])
		c.Streams[StreamCRCs].add(j.crcsLen, j.packed[2], 0, j.coder[2])
		c.Streams[StreamSkeletons].add(j.rawLen, j.packed[1], j.numbers, j.coder[1])
	case kindStrings:
		c.Streams[StreamStrings].add(j.rawLen, j.packed[0], j.numbers, j.coder[0])
	case kindTemplates:
		c.Streams[StreamTemplates].add(j.rawLen, j.packed[0], j.numbers, j.coder[0])
	case kindPlain:
		c.Streams[StreamDicts].add(j.count, j.packed[0], 0, j.coder[0])
	}
	c.Blocks++
}

// stream is one of the deduper's streams of frames: its frame being
// filled, and its segment's dictionary.
type stream struct {
	kind      byte
	raw       []byte
	ends      stepEnds // where raw's items end
	first     uint32   // id of the frame's first entry
	count     int
	dict      []byte // the segment's first frame, raw; nil before it is made
	dictBlock int
	words     *segmentWords // and its words, at the zstd levels
	inSegment int           // frames made in the segment so far
	dictUses  int           // of them, compressed against dict
	refs      refState      // a templates frame's: its group's references so far
	// At LevelMax, raw's length where a strings frame reached its size
	// (see joinTail); 0: not yet.
	cut int
}

// deduper is the in-order stage of writing: it takes the values out of
// the records of each batch, looking each up in the table and storing the
// new ones, and makes the blocks.
type deduper struct {
	o        Options
	jobs     chan<- *blockJob
	t        *table
	skel     stream
	skelBuf  []byte    // the buffer the skeletons of a block are gathered in, if kept
	ending   bool      // the input has ended: the frames made now are the last
	store    [2]stream // strings, templates
	block    int       // number of the next block
	dir      []byte    // the directory's entries
	dirPrev  int       // block of the last directory entry
	dirN     int
	scratch  [maxDepth + 2][]byte
	refs     [maxDepth + 2][]ref // a template's children, by depth
	skelRefs refState            // what the block's skeletons' references are coded against
	// The index's columns, and its table of models, reused block to block;
	// each record's back, the table that finds them, and the backs coded
	// (appendCRCs).
	cols      [6][]byte
	modelIDs  map[string]int
	recBacks  []uint32
	crcs      crcTable
	backsText []byte
	counts    struct{ kept, repeats, strings, templates, refs int64 }
	// The records block being gathered (see moreBatches): its batches so
	// far, their counts and skeletons (nil if none).
	batches    int
	skelCounts container.Counts
	skelText   []byte
}

func newDeduper(o Options, jobs chan<- *blockJob) *deduper {
	return &deduper{o: o, jobs: jobs, t: newTable(), modelIDs: map[string]int{},
		skel:  stream{kind: kindRecords},
		store: [2]stream{{kind: kindStrings}, {kind: kindTemplates}}}
}

// moreBatches reports whether the records block being gathered takes the
// next batch too: at LevelMax, until its skeletons, or its index's
// columns, are a quarter of a batch long (2 MiB; a batch of chat traffic
// leaves about 450 KiB of skeletons and 30 KiB of index; the index's
// bound keeps a block of many short records, whose skeletons are a few
// bytes or none, within what a reader takes of a frame). A
// context model learns the skeletons' shapes and keys over a frame:
// dev100's skeletons code 8.9% smaller in frames of 2 MiB than of a
// batch's, 467,459 bytes against 513,156 (bench/README.md), for a read of
// one record that decodes its block's frame as far as the record, a
// fraction of a second at ppm's speed. At the zstd levels a block is a
// batch: zstd gains less (0.2% with blocks twice as large), and a read
// of one record has milliseconds.
func (d *deduper) moreBatches() bool {
	if d.o.level() != LevelMax {
		return false
	}
	index := 0
	for _, c := range d.cols {
		index += len(c)
	}
	return len(d.skelText) < d.o.batchSize()/4 && index < d.o.batchSize()/4
}

// add takes one batch: its records, in the records block being gathered,
// which it sends unless that takes more (moreBatches), and any store
// frames they fill.
func (d *deduper) add(ctx context.Context, b *batch) error {
	if d.batches == 0 {
		for i := range d.cols {
			d.cols[i] = d.cols[i][:0]
		}
		clear(d.modelIDs)
		d.skelCounts = container.Counts{}
		d.skelRefs = refState{}
		d.recBacks = d.recBacks[:0]
		clear(d.crcs[:])
		d.skelText, d.skelBuf = d.skelBuf, nil
		if d.skelText == nil {
			// Skeletons are a quarter of JSON input, all of other lines.
			d.skelText = getBuf(d.o.batchSize() / 2)
		}
	}
	flags, lens, crcs, schemas, models, table := d.cols[0], d.cols[1], d.cols[2], d.cols[3], d.cols[4], d.cols[5]
	modelIDs := d.modelIDs
	skel := d.skelText
	counts := &d.skelCounts
	first := d.skel.count // the batch's first record, in the block
	for i := range b.recs {
		r := &b.recs[i]
		line := b.buf[r.start:r.end]
		crcs = binary.LittleEndian.AppendUint32(crcs, r.crc)
		back, repeat := d.back(b, first, i)
		d.recBacks = append(d.recBacks, uint32(back))
		if repeat {
			// The same bytes as a record before it: the flags of its
			// place, its CRC-32 by reference to that record, no skeleton.
			flags = append(flags, flagRepeat|r.flags&(flagContinues|flagNoNewline))
			d.counts.repeats++
			if r.flags&flagKept != 0 {
				d.counts.kept++
			}
		} else {
			flags = append(flags, r.flags)
			lens = varint.AppendUvarint64(lens, uint64(len(line)))
			if r.flags&flagLines != 0 {
				lens = varint.AppendUvarint64(lens, uint64(r.feeds))
			}
			if r.flags&flagListed != 0 {
				model := b.arena[r.model[0]:r.model[1]]
				id, ok := modelIDs[string(model)]
				if !ok {
					id = len(modelIDs)
					modelIDs[string(model)] = id
					table = varint.AppendUvarint64(table, uint64(len(model)))
					table = append(table, model...)
				}
				schemas = append(schemas, byte(r.schema))
				models = varint.AppendUvarint64(models, uint64(id))
			}
			if r.flags&flagKept != 0 {
				if cap(skel)-len(skel) < len(line) { // a long line
					old := skel
					skel = append(getBuf(len(skel)+len(line)+d.o.batchSize()/2), old...)
					putBuf(old)
				}
				skel = append(skel, line...)
				d.counts.kept++
			} else {
				var err error
				if skel, err = d.template(ctx, skel, b, line, int(r.nodes), 0); err != nil {
					return err
				}
				skel = append(skel, templateEnds(r.flags))
			}
		}
		d.skel.ends.add(len(skel))
		counts.Records++
		counts.Bytes += int64(len(line))
		counts.Lines += int(lines(r.flags, int(r.feeds)))
		if r.flags&flagNoNewline == 0 {
			counts.Bytes++
		}
	}
	d.cols = [6][]byte{flags, lens, crcs, schemas, models, table}
	d.skelText = skel
	d.skel.count += len(b.recs)
	d.batches++
	if d.moreBatches() {
		return nil
	}
	return d.sendRecords(ctx)
}

// back returns record i of batch b's back (format.go): how many records
// back in the block the last record with its CRC-32 is, if the block's
// crcTable still holds it, else 0; and whether that record has its bytes,
// which makes it a repeat. first is the number in the block of the
// batch's first record. Only records of the same batch are compared, byte
// for byte: a reader rebuilds a repeat from the record it names, which
// its CRC-32 would not tell apart from another of the same CRC-32.
func (d *deduper) back(b *batch, first, i int) (back int, repeat bool) {
	r := &b.recs[i]
	j := d.crcs.last(first+i, r.crc)
	if j < 0 {
		return 0, false
	}
	if j -= first; j >= 0 { // in the batch
		o := &b.recs[j]
		repeat = bytes.Equal(b.buf[o.start:o.end], b.buf[r.start:r.end])
	}
	return i - j, repeat
}

// sendRecords sends the records block gathered.
func (d *deduper) sendRecords(ctx context.Context) error {
	flags, lens, crcs, schemas, models, table := d.cols[0], d.cols[1], d.cols[2], d.cols[3], d.cols[4], d.cols[5]
	skel := d.skelText
	d.skelText, d.batches = nil, 0
	// The CRC-32s of their own first, then the index frame's raw bytes,
	// which start with every record's back (appendCRCs): two frames (see
	// compress).
	index := getBuf(len(flags) + len(lens) + 2*len(crcs) + len(schemas) + len(models) + len(table) + 8)
	d.backsText, index = appendCRCs(d.backsText[:0], index, crcs, d.recBacks)
	crcsLen := len(index)
	index = append(append(append(append(append(index, d.backsText...), flags...), lens...), schemas...), models...)
	index = varint.AppendUvarint64(index, uint64(len(d.modelIDs)))
	index = append(index, table...)
	compact := len(skel) <= cap(skel)/4
	if compact {
		// The block may wait for a worker for seconds (at LevelMax, a
		// dozen blocks or more behind ppm frames): its skeletons wait in
		// memory of their size (a twentieth of the input, where most is
		// stored), the buffer they were gathered in kept for the next.
		d.skelBuf = skel[:0]
		skel = append([]byte(nil), skel...)
	}
	d.skel.raw = skel
	j := d.frameJob(&d.skel)
	j.index, j.crcsLen, j.counts, j.heapRaw = index, crcsLen, d.skelCounts, compact
	return d.send(ctx, j)
}

// template appends the text of node n of line with each of its listed
// children replaced by a reference to an entry (refs.go): a skeleton's
// (depth 0) coded against the block's references before it, a
// template's to a string by id+1 (entry codes them against its group's
// once its place in its frame is known), to a template stored for it
// (children are stored first) or made at most refNear before it by its
// own id minus the child's, to any other by the child's id. Those
// differences are small and recur (the same nesting, record after
// record) where ids only grow: on logprobs traffic, whose every token is
// a template of its own, they make the templates' text a third smaller
// at zstd -3 (bench/README.md).
func (d *deduper) template(ctx context.Context, dst []byte, b *batch, line []byte, n, depth int) ([]byte, error) {
	nodes := b.nodes
	refs := d.refs[depth][:0]
	made := d.store[1].first + uint32(d.store[1].count) // templates from here on are this one's new children
	for c := n + 1; c < int(nodes[n].skip); c = int(nodes[c].skip) {
		mark, id, err := d.entry(ctx, b, line, c, depth)
		if err != nil {
			return dst, err
		}
		refs = append(refs, ref{mark, id})
	}
	d.refs[depth] = refs
	self := d.store[1].first + uint32(d.store[1].count) // this template's id, once stored
	pos := nodes[n].start
	for i, c := 0, n+1; c < int(nodes[n].skip); i, c = i+1, int(nodes[c].skip) {
		dst = append(dst, line[pos:nodes[c].start]...)
		switch {
		case depth == 0:
			dst = d.skelRefs.appendRef(dst, refs[i].mark, refs[i].id)
		case refs[i].mark == markTemplate:
			dst = appendChild(dst, refs[i].id, self, refs[i].id >= made || self-refs[i].id <= refNear)
		default:
			dst = varint.AppendUvarint(append(dst, markString), refs[i].id+1)
		}
		d.counts.refs++
		pos = nodes[c].end
	}
	return append(dst, line[pos:nodes[n].end]...), nil
}

// A ref is a child's reference, as entry returns it.
type ref struct {
	mark byte
	id   uint32
}

// idTemplate marks a template's id in the table.
const idTemplate = 1 << 31

// entry returns the reference to the entry holding node c of line,
// storing it first if it is new: a string as it is, an object or array as
// a template, its own values stored first.
func (d *deduper) entry(ctx context.Context, b *batch, line []byte, c, depth int) (byte, uint32, error) {
	k := b.keys[c]
	if id, ok := d.t.find(k); ok {
		if id&idTemplate != 0 {
			return markTemplate, id &^ idTemplate, nil
		}
		return markString, id, nil
	}
	nd := b.nodes[c]
	text := line[nd.start:nd.end]
	s, mark, tag := &d.store[0], byte(markString), uint32(0)
	if nd.x != 0 || text[0] == '{' || text[0] == '[' {
		s, mark, tag = &d.store[1], markTemplate, idTemplate
		buf, src, n := d.scratch[depth][:0], line, c
		if nd.x != 0 {
			// A string of JSON text: a template of that text unescaped,
			// between a quote and the dialect that escapes it again, and
			// a quote (escape.go).
			buf, src, n = append(buf, '"', nd.dialect), b.innerText(c), c+1
		}
		var err error
		if buf, err = d.template(ctx, buf, b, src, n, depth+1); err != nil {
			return 0, 0, err
		}
		if nd.x != 0 {
			buf = append(buf, '"')
		}
		d.scratch[depth], text = buf, buf
		d.counts.templates++
	} else {
		d.counts.strings++
	}
	// A frame is closed before it would pass its size, so that a frame and
	// its dictionary fit the encoder's window (a longer entry alone may),
	// or at LevelMax, for strings, a quarter past it (see joinTail).
	if size := d.storeFrameSize(s); s.count > 0 && len(s.raw)+len(text)+1 > size {
		if d.joinTail(s) && s.cut == 0 {
			s.cut = len(s.raw)
		}
		var err error
		switch {
		case s.cut == 0:
			err = d.sendFrame(ctx, s)
		case len(s.raw)-s.cut+len(text)+1 > size/4:
			err = d.splitFrame(ctx, s)
		}
		if err != nil {
			return 0, 0, err
		}
	}
	id := s.first + uint32(s.count)
	if s.raw == nil {
		s.raw = getBuf(d.frameCap(s))
	}
	if tag != 0 {
		if s.count%refGroup == 0 {
			s.refs = refState{}
		}
		s.raw = appendRelative(s.raw, text, &s.refs)
	} else {
		s.raw = append(s.raw, text...)
	}
	s.raw = append(s.raw, markEnd)
	s.ends.add(len(s.raw))
	s.count++
	d.t.insert(k, id|tag)
	return mark, id, nil
}

// joinTail reports whether a frame of s that reaches its size stays open
// for a quarter more of it: the strings frames of LevelMax. If the stream
// ends meanwhile, its last entries join that frame instead of making one
// of their own, which a fresh model would code: dev100's strings, 18.7 MB,
// in one frame, 3,020,088 bytes, against 2,719,785 for the first 16 MiB
// and 419,226 for the 1.95 MB after them with the first 8 MiB as their
// dictionary (−3.8%; bench/README.md). Else the frame is cut where it
// reached its size (splitFrame). At the zstd levels a frame's dictionary
// gives its matches the text before it, and a smaller frame reads one
// record faster; templates frames' references are coded by groups of
// entries from the frame's start (appendRelative), which a cut would move.
func (d *deduper) joinTail(s *stream) bool {
	return s.kind == kindStrings && d.o.level() == LevelMax
}

// splitFrame sends the frame of s as it was at its cut, and keeps the
// entries after it as the next frame, open.
func (d *deduper) splitFrame(ctx context.Context, s *stream) error {
	rest := append(getBuf(d.frameCap(s)), s.raw[s.cut:]...)
	s.raw = s.raw[:s.cut]
	s.ends, s.count = entryStepEnds(s.raw)
	if err := d.sendFrame(ctx, s); err != nil {
		putBuf(rest)
		return err
	}
	s.raw = rest
	s.ends, s.count = entryStepEnds(rest)
	return nil
}

// entryStepEnds returns the ends of the entries of raw, a frame's raw
// bytes (each entry ended by markEnd), and how many they are.
func entryStepEnds(raw []byte) (stepEnds, int) {
	var s stepEnds
	at := appendEntryEnds(nil, raw, 0, len(raw))
	for _, e := range at {
		s.add(int(e) + 1)
	}
	return s, len(at)
}

// frameJob closes the frame of s and returns its block. Only strings
// frames are compressed against a dictionary: for skeletons and templates
// it saved 0.1-0.5% of an archive, for two more encoders a worker (16 MiB
// of history and tables each).
func (d *deduper) frameJob(s *stream) *blockJob {
	j := &blockJob{kind: s.kind, first: s.first, count: s.count, raw: s.raw, ends: s.ends, dictBlock: -1, last: d.ending}
	// zstd needs a frame and its dictionary within its window; ppm's match
	// model takes a dictionary of any length.
	// Only strings frames have one: the others are kept by no one.
	window := encoderWindow
	if textLevel(d.o.level()) {
		window = textWindow
	}
	fits := d.o.level() == LevelMax || len(s.dict)+len(s.raw) <= window
	if s.kind == kindStrings {
		if s.inSegment > 0 && fits {
			j.dict, j.dictBlock, j.words = s.dict, s.dictBlock, s.words
			s.dictUses++
		} else if s.inSegment == 0 {
			// The first frame of a segment: the dictionary of the others.
			// ppm's is its first ppmDict bytes, kept in memory of their
			// size (10 MiB less while a --max run lasts), the frame's
			// buffer given back once the frame is made.
			dict := s.raw
			if d.o.level() == LevelMax && len(dict) > ppmDict {
				dict = append(getBuf(ppmDict), dict[:ppmDict]...)
			} else {
				j.isDict = true
			}
			j.free = s.dict
			s.dict, s.dictBlock, s.words, s.dictUses = dict, d.block, nil, 0
			if d.o.level() < LevelMax && !d.o.noWords {
				s.words = &segmentWords{raw: s.raw, workers: d.o.workers()}
			}
			j.words = s.words
		}
		s.inSegment = (s.inSegment + 1) % d.o.segmentLen()
	}
	if s.kind != kindRecords {
		d.list(s.kind, s.count)
	}
	d.block++
	s.first += uint32(s.count)
	s.raw, s.ends, s.count = nil, nil, 0
	s.cut = 0
	return j
}

// list adds block d.block, of kind and n (its entries; a plain copy's
// distance back to its dictionary), to the directory.
func (d *deduper) list(kind byte, n int) {
	d.dir = append(d.dir, kind)
	d.dir = varint.AppendUvarint64(d.dir, uint64(d.block-d.dirPrev))
	d.dir = varint.AppendUvarint64(d.dir, uint64(n))
	d.dirPrev = d.block
	d.dirN++
}

// sendFrame closes the frame of s and sends its block, then, if that
// ended a strings segment that a plain copy of its dictionary pays for,
// the copy.
func (d *deduper) sendFrame(ctx context.Context, s *stream) error {
	if err := d.send(ctx, d.frameJob(s)); err != nil {
		return err
	}
	if s.kind == kindStrings && s.inSegment == 0 {
		return d.sendPlain(ctx, s, d.o.segmentLen())
	}
	return nil
}

// sendPlain sends a plain copy of the dictionary of s, a strings segment
// of frames frames now ended, if it pays: for a segment of half the full
// number of frames or more, most of them compressed against it. A record
// read by number decodes its strings frame spliced behind its dictionary
// (frameDecoder.zstdInput), whose zstd decoding, 3 MB of coded text from
// a fresh process, was the longest step of m2m-batch --record N on a GiB
// archive; a copy is read as it is. It costs 1-2% of such a segment
// (strings compress 3.5x: about 300 MB a full segment, 3 MB a copy). At
// LevelMax the copy is the ppmDict bytes the segment's frames take, coded
// by zstd (appendPlainText), 0.3% of a full segment (2.3 MB against some
// 660 MB), and what it saves is more: a context model decodes them at a
// few MB/s, 3-4 s of every such read. Smaller archives, whose segments
// are short, pay nothing.
func (d *deduper) sendPlain(ctx context.Context, s *stream, frames int) error {
	full := d.o.segmentLen()
	if s.dict == nil || frames < max(full/2, 1) || s.dictUses < max(frames/2, 1) {
		return nil
	}
	// raw is the segment's dictionary, which its next first frame frees
	// once written (after this job): isDict keeps release from freeing it.
	j := &blockJob{kind: kindPlain, raw: s.dict, dictBlock: s.dictBlock, words: s.words, isDict: true}
	d.list(kindPlain, d.block-s.dictBlock)
	d.block++
	return d.send(ctx, j)
}

func (d *deduper) send(ctx context.Context, j *blockJob) error {
	select {
	case d.jobs <- j:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// finish sends the records block gathered, closes the store frames and
// makes the directory.
func (d *deduper) finish(ctx context.Context) error {
	if d.batches > 0 {
		if err := d.sendRecords(ctx); err != nil {
			return err
		}
	}
	d.ending = true
	// Templates first: a strings frame of a segment waits for the
	// segment's word table, made on another worker, which a worker given
	// the templates frame meanwhile does not (dev --archive -T2: a worker
	// idle ~60 ms at the end of a 0.3 s run).
	for i := len(d.store) - 1; i >= 0; i-- {
		s := &d.store[i]
		if s.count > 0 {
			if err := d.sendFrame(ctx, s); err != nil {
				return err
			}
		}
		if s.kind == kindStrings && s.inSegment > 0 { // the last segment, not full
			if err := d.sendPlain(ctx, s, s.inSegment); err != nil {
				return err
			}
		}
	}
	body := varint.AppendUvarint64(varint.AppendUvarint64(nil, Version), uint64(d.dirN))
	return d.send(ctx, &blockJob{kind: kindDirectory, raw: append(body, d.dir...)})
}

// release gives back, for another writer, the buffers the deduper keeps
// to its end: the block's skeletons' and each store stream's last
// dictionary. Every job is done with them.
func (d *deduper) release() {
	putBuf(d.skelBuf)
	d.skelBuf = nil
	for i := range d.store {
		putBuf(d.store[i].dict)
		d.store[i].dict = nil
	}
}

// frameCap is the most raw bytes a frame of s holds but for one long
// entry: its size, and a quarter more where its tail joins it.
func (d *deduper) frameCap(s *stream) int {
	n := d.storeFrameSize(s)
	if d.joinTail(s) {
		n += n / 4
	}
	return n
}

// storeFrameSize is the most raw bytes a frame of s holds: at the zstd
// levels a templates frame holds half what a strings frame does. A record
// read by number decodes its templates frames, like its strings frame, as
// far as it needs, and templates, a tenth of an archive, have no
// dictionary to lose: on the 1.07 GB archive of bench/README.md, one
// record in 3.9 ms in place of 4.8, for 0.4% of the archive (dev100 0.3%).
// At LevelMax, whose ppm models restart every frame, they hold as much.
//
// At a textLevel the first strings frame of a segment, the others'
// dictionary, holds twice what they do: what recurs is found at any
// distance in it, where a frame finds little of what is only in the
// frames before it (dev100's strings 4.34 -> 4.10 MB, with zenc's rows
// scaled to the window: bench/README.md, "A dictionary twice a frame").
// A record read by number decodes the dictionary whole, where the
// segment has no plain copy of it.
func (d *deduper) storeFrameSize(s *stream) int {
	switch {
	case s.kind == kindTemplates && d.o.level() != LevelMax:
		return d.o.frameSize() / 2
	case s.kind == kindStrings && s.inSegment == 0 && textLevel(d.o.level()):
		return 2 * d.o.frameSize()
	}
	return d.o.frameSize()
}
