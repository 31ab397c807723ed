package archive

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/internal/flow"
)

// Options configure a Writer. The zero value means the defaults.
type Options struct {
	// Level is the zstd level of the frames, 1 to 4 (fastest, default,
	// better, best), or LevelMax; default 3.
	Level int
	// ModelMemory is the most model memory a ppm frame (LevelMax) gets,
	// in MiB, from 1 to 512: each worker codes with one model at a time,
	// and a frame takes what its size needs up to this. Default 384: the
	// model of a 16 MiB store frame of text stops growing some 13 MiB in,
	// which costs 0.2% over 512 on dev100's strings (256 MiB: 1.8%).
	ModelMemory int
	// Workers is how many goroutines scan and compress; default
	// GOMAXPROCS.
	Workers int
	// MinSize is the length from which a JSON value is stored once and
	// referred to; default 64 bytes. A string that reads as text (a
	// space, an escape but \/ or a byte past 0x7F in it) is from half of
	// it.
	MinSize int
	// FrameSize is the most raw bytes of text a store frame holds, in MiB,
	// 1 to 16; default 4, 16 at LevelMax; a templates frame holds half of
	// it but at LevelMax, and at levels 3 and 4 the first strings frame
	// of a segment, the others' dictionary, twice. A read of one record decodes its
	// store frames about half through, so that smaller frames read records
	// faster and compress worse: frames of 2 MiB read a random record of a
	// GiB archive in about 60% of the time of 4 MiB, for 2.8% more bytes
	// on dev100 (0.9% on dev, 7.0% on a GiB of scrambled copies of dev;
	// bench/README.md).
	FrameSize int

	// Sizes of the units, smaller in tests: input per records block, raw
	// bytes per store frame, frames per dictionary segment, and a line's
	// length from which it is cut where its values end (cutValues).
	batch, storeFrame, segment, longLine int
	// noWords: strings frames without words replaced, to compare.
	noWords bool
}

func (o Options) level() int { return min(pick(o.Level, 3), LevelMax) }
func (o Options) ppmMemory() int {
	if o.level() < LevelMax {
		return 0
	}
	return min(pick(o.ModelMemory, defaultModelMemory), maxModelMemory)
}

// LevelMax is the smallest level: the frames are coded by a context model
// (package ppm) instead of zstd. It compresses and decompresses at a few
// MB/s a core, about 100 times slower.
const LevelMax = 5

// Model memory of LevelMax, in MiB: the default and the most a writer
// uses or a reader allows.
const (
	defaultModelMemory = 384
	maxModelMemory     = 512
)

func (o Options) workers() int   { return pick(o.Workers, runtime.GOMAXPROCS(0)) }
func (o Options) minSize() int   { return pick(o.MinSize, 64) }
func (o Options) batchSize() int { return pick(o.batch, defaultBatch) }
func (o Options) frameSize() int {
	switch {
	case o.storeFrame > 0:
		return o.storeFrame
	case o.FrameSize > 0:
		return min(o.FrameSize<<20, maxStoreFrameMax)
	case o.level() == LevelMax:
		return maxStoreFrameMax
	}
	return maxStoreFrame
}
func (o Options) segmentLen() int { return pick(o.segment, defaultSegment) }
func (o Options) longLen() int    { return pick(o.longLine, MaxLine) }

func pick(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// Counts are what a Writer has written so far. Each stream's Raw bytes
// are its frames' before compression, Packed after (frame headers
// included).
type Counts struct {
	Records int64 // records: lines (those of a value pretty-printed joined), and pieces of lines longer than MaxLine
	Lines   int64 // lines (a last one without a line feed included)
	Bytes   int64 // bytes of input
	// Kept counts records stored as their bytes, with no value taken out:
	// not JSON (or no value of MinSize), or holding a byte the format
	// uses as a marker.
	Kept int64
	// Repeats counts records with the bytes of one before them in their
	// batch, which have no skeleton of their own (a stream's chunks that
	// say the same thing).
	Repeats int64
	// Strings and Templates count the entries stored; Refs the references
	// to them.
	Strings, Templates, Refs int64
	Streams                  [numStreams]StreamCounts
	Blocks                   int64
}

// StreamCounts are the bytes of one stream.
type StreamCounts struct {
	Frames      int64
	Raw, Packed int64
	// Split, Shaped and Words count the frames whose numbers were split
	// out (package numcol), whose entries were shaped and whose words were
	// replaced by codes (package words).
	Split, Shaped, Words int64
	// Numbers is how many of the Packed bytes are split frames' columns
	// of numbers.
	Numbers int64
}

// add counts a frame of raw bytes, packed into packed with coder, numbers
// of them the columns of its numbers.
func (c *StreamCounts) add(raw, packed, numbers int, coder byte) {
	c.Frames++
	c.Raw += int64(raw)
	c.Packed += int64(packed)
	c.Numbers += int64(numbers)
	if coder&coderNumbers != 0 {
		c.Split++
	}
	if coder&coderShapes != 0 {
		c.Shaped++
	}
	if coder&coderWords != 0 {
		c.Words++
	}
}

// The streams of an archive, for Counts and Stats.
const (
	StreamIndex     = iota // per record: flags, length, schema and model
	StreamCRCs             // per record: its CRC-32
	StreamSkeletons        // records with their stored values taken out
	StreamStrings          // stored JSON strings
	StreamTemplates        // stored objects and arrays, their stored values taken out
	StreamDicts            // large strings segments' dictionaries, stored again uncompressed (see kindPlain)
	numStreams
)

// StreamNames are the streams' names, by number.
var StreamNames = [numStreams]string{"index", "crcs", "skeletons", "strings", "templates", "dicts"}

// A Writer writes an archive of the JSONL written to it: each line a
// record, every JSON value of MinSize bytes or more (a string of text,
// half that) stored once in the archive and referred to wherever it
// recurs. It scans and compresses on Options.Workers goroutines; Write
// returns once its bytes are queued. Close must be called to finish the
// archive.
type Writer struct {
	o       Options
	ctx     context.Context
	cancel  context.CancelFunc
	batches chan *batch
	done    chan struct{}
	err     error // the pipeline's, once done is closed
	cur     *batch
	partial int // start of the line not yet ended in cur.buf
	cut     bool
	long    longScan  // a long line's structure, from partial on
	group   lineGroup // lines of one value pretty-printed, joined into a record (joins)
	closed  bool
	counts  Counts
	mu      sync.Mutex // guards counts while the pipeline runs
}

// NewWriter starts an archive on w. The context stops the work when
// cancelled; Close then returns its error.
func NewWriter(ctx context.Context, w io.Writer, o Options) (*Writer, error) {
	cw, err := container.NewWriter(w, nil)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	aw := &Writer{o: o, ctx: ctx, cancel: cancel, batches: make(chan *batch), done: make(chan struct{})}
	aw.cur = getBatch(aw.batchCap())
	go func() {
		aw.err = aw.run(cw)
		if aw.err != nil {
			cancel()
		}
		close(aw.done)
	}()
	return aw, nil
}

// batch is a run of whole records, the unit of scanning and of a records
// block.
type batch struct {
	buf   []byte
	recs  []rec
	nodes []node // the splittable records' values, each record's in pre-order
	keys  []key  // one per node
	arena []byte // the records' models
	inner inner  // their strings of JSON text, unescaped
}

// rec is one record of a batch.
type rec struct {
	start, end int32
	flags      byte
	crc        uint32
	nodes      int32 // the record's first node in batch.nodes (its root), or -1
	feeds      int32 // line feeds within it (flagLines)
	schema     codec.Schema
	model      [2]int32 // span of the model in batch.arena
}

// Record flags, in the index.
const (
	flagKept      = 0x01 // the skeleton is the record's bytes, line_len of them
	flagListed    = 0x02 // the record has a schema and model in the index
	flagRepeat    = 0x04 // the same bytes as the record its CRC-32 refers to (format.go): no length, schema, model or skeleton of its own
	flagLines     = 0x08 // lines joined (joins): line feeds within it, how many in the index
	flagContinues = 0x40 // a piece of a line the next record continues
	flagNoNewline = 0x80 // not followed by a line feed in the input
	flagsDefined  = flagKept | flagListed | flagRepeat | flagLines | flagContinues | flagNoNewline
)

// lines is how many lines of the input a record with flags and feeds
// line feeds within it ends: a piece of a line ends none of its own.
func lines(flags byte, feeds int) int64 {
	if flags&flagContinues != 0 {
		return int64(feeds)
	}
	return int64(feeds) + 1
}

// Write queues the JSONL in p. It blocks while the pipeline is full.
func (w *Writer) Write(p []byte) (int, error) {
	if w.closed {
		return 0, errors.New("archive: Write after Close")
	}
	n := 0
	for len(p) > 0 {
		if err := w.ctx.Err(); err != nil {
			return n, w.failure()
		}
		i := bytes.IndexByte(p, '\n')
		line := p
		if i >= 0 {
			line = p[:i]
		}
		// A long line is cut as it comes: the batch holds at most a
		// byte more of it than a record.
		chunk := line[:min(len(line), w.partial+MaxLine+1-len(w.cur.buf))]
		w.grow(len(chunk))
		w.cur.buf = append(w.cur.buf, chunk...)
		n += len(chunk)
		p = p[len(chunk):]
		if err := w.cutLong(false); err != nil {
			return n, err
		}
		if i >= 0 && len(chunk) == len(line) {
			p = p[1:]
			n++
			if err := w.lineEnd(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// grow makes room for n more bytes in the batch, where a line longer than
// its buffer holds goes on: to twice the buffer, at most to the longest
// the batch holds. Go's append would grow it by a quarter at a time, and
// a record of 16 MiB left a batch of 20 or more.
func (w *Writer) grow(n int) {
	b := w.cur.buf
	if cap(b)-len(b) >= n {
		return
	}
	w.cur.buf = growCap(b, max(n, min(2*cap(b), w.partial+MaxLine+1)-len(b)))
	putBuf(b)
}

// cutLong cuts pieces off a line longer than MaxLine (Options.longLine in
// tests), as they come: where its values end (cutValues), else MaxLine
// bytes. At the end of the input (eof), what is left of the line may be
// MaxLine bytes and not be cut.
func (w *Writer) cutLong(eof bool) error {
	if w.cut || len(w.cur.buf)-w.partial > w.o.longLen() {
		if err := w.cutValues(); err != nil {
			return err
		}
	}
	for len(w.cur.buf)-w.partial > MaxLine {
		w.add(w.partial+MaxLine, flagContinues|flagNoNewline)
		w.cut = true
		w.long.n -= MaxLine
		if err := w.flushIfFull(); err != nil {
			return err
		}
	}
	return nil
}

// A longScan follows the structure of a long line: how far from the
// line's start in progress it has come, at what nesting, and whether in a
// string (after a backslash).
type longScan struct {
	n        int
	depth    int
	str, esc bool
}

// minPiece is the least a piece of a long line cut where a value ends
// holds: an array of numbers is not cut into a record a number.
const minPiece = 256

// cutValues cuts a long line where a value at its top level ends: before
// the comma after each element of an array on one line (a data set's
// file of one array, as json.dump writes it without indent), or member
// of an object, and before the bracket that closes it, once a piece holds
// minPiece bytes. Each piece is then a value after a comma, which the
// scanners take apart as a JSON line behind a prefix (appendLine), where
// pieces of MaxLine bytes were text: dev's records as one line of 21 MB
// 9.05x at level 3, now 12.03x, dev100's 9.10x, now 17.03x (as dev100
// itself; bench/README.md). Only a line longer than MaxLine is so cut,
// each of its pieces a record.
func (w *Writer) cutValues() error {
	s := &w.long
	for i := w.partial + s.n; i < len(w.cur.buf); i++ {
		c := w.cur.buf[i]
		switch {
		case s.str:
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.str = false
			}
			continue
		case c == '"':
			s.str = true
			continue
		case c == '{' || c == '[':
			s.depth++
			continue
		case c == '}' || c == ']':
			s.depth--
			if s.depth != 0 {
				continue
			}
		case c != ',' || s.depth != 1:
			continue
		}
		if i-w.partial < minPiece {
			continue
		}
		w.add(i, flagContinues|flagNoNewline)
		w.cut = true
		if err := w.flushIfFull(); err != nil {
			return err
		}
		i = w.partial // the same byte, in the batch that now holds it
	}
	s.n = len(w.cur.buf) - w.partial
	return nil
}

// endLine ends the line in progress with flags (0, or flagNoNewline for a
// last line without a line feed).
func (w *Writer) endLine(flags byte) error {
	w.add(len(w.cur.buf), flags)
	w.cut, w.long, w.group.at = false, longScan{}, 0
	return w.flushIfFull()
}

// add ends a record at end of the batch's buffer, with flags, and the
// line feeds joined into it: all of them, or, for a piece of lines joined
// cut where a value ends (cutValues), those before the cut.
func (w *Writer) add(end int, flags byte) {
	feeds := w.group.feeds
	if feeds > 0 && end < len(w.cur.buf) {
		feeds = bytes.Count(w.cur.buf[w.partial:end], newline)
	}
	if feeds > 0 {
		flags |= flagLines
	}
	w.cur.recs = append(w.cur.recs, rec{start: int32(w.partial), end: int32(end), flags: flags, feeds: int32(feeds)})
	w.mu.Lock()
	w.counts.Lines += lines(flags, feeds)
	w.mu.Unlock()
	w.partial, w.group.feeds = end, w.group.feeds-feeds
}

// maxGroup and maxGroupLines bound the lines joined into one record, in
// bytes and in line feeds: lines that reach either are no value
// pretty-printed (unjoin; the lines a batch takes at once so bounded).
const (
	maxGroup      = 1 << 20
	maxGroupLines = 1 << 16
)

// A lineGroup follows the brackets of the lines joined into the record in
// progress (joins): how many are open after its last line, which of them
// are arrays, how many line feeds it holds, and where its last line
// starts, from the record's start.
type lineGroup struct {
	depth     int
	arrays    uint64 // bit d: the bracket open at depth d+1 is '['
	feeds, at int
}

// lineEnd ends the line that ends the batch's buffer (its line feed
// read, not in the buffer): a record, or joined by the next into one
// (joins), or the end of lines joined that turned out not to be one
// value, each then a record of its own.
func (w *Writer) lineEnd() error {
	switch w.joins() {
	case join:
		w.grow(1)
		w.cur.buf = append(w.cur.buf, '\n')
		w.group.feeds++
		w.group.at = len(w.cur.buf) - w.partial
		return nil
	case unjoin:
		w.unjoin()
	}
	return w.endLine(0)
}

const (
	end    = iota // the line ends a record
	join          // the next line joins it
	unjoin        // the lines joined before it and it are a record each
)

// joins says what the line that ends the batch's buffer does: the lines
// of a JSON value pretty-printed, as json.dump(indent=2) and jq write
// them, are one record whose values are taken apart as a line's are,
// where a record a line cost an index entry and a CRC-32 each and kept no
// object whole (dev as one indented array: 11.16x at level 3, now 13.31x;
// bench/README.md). A line that ends inside an object or array, brackets
// counted outside strings from the last line that ended outside all, is
// joined by the next, up to the line that closes them all, or one that
// ends where only arrays are open, closing an object or array or once the
// record holds minPiece bytes (a data set's one indented array: each
// element a record, the bracket that opens it in the first; numbers one a
// line, a record of some). A line that ends inside a string, closes a
// bracket not open or of the other kind, or nests past maxDepth, is no
// JSON pretty-printed, nor are lines joined up to maxGroup bytes or
// maxGroupLines line feeds: they
// are then a record each, as they would have been (prose with a '{' not
// closed on its line), and brackets are counted again from outside all. A
// line outside all that starts with '{' or '[' and ends with '}' or ']'
// (whitespace aside), as JSONL's do, is a record, not scanned.
func (w *Writer) joins() int {
	g := &w.group
	if w.cut { // a long line cut where its values end: ends with it
		g.depth, g.arrays = 0, 0
		return end
	}
	line := w.cur.buf[w.partial+g.at:]
	switch {
	case g.depth == 0 && whole(line):
		return end
	case !g.scan(line) || len(w.cur.buf)-w.partial >= maxGroup || g.feeds >= maxGroupLines:
		g.depth, g.arrays = 0, 0
		return unjoin
	case g.depth == 0:
		return end
	}
	open := uint64(1)<<g.depth - 1
	if g.arrays&open == open && (closes(line) || len(w.cur.buf)-w.partial >= minPiece) {
		return end
	}
	return join
}

// closes reports whether line ends with '}' or ']', a comma and whitespace
// aside: the end of an array's element that is an object or array.
func closes(line []byte) bool {
	line = trimComma(line)
	for len(line) > 0 && isSpace(line[len(line)-1]) {
		line = line[:len(line)-1]
	}
	return len(line) > 0 && (line[len(line)-1] == '}' || line[len(line)-1] == ']')
}

// unjoin makes each line joined into the record in progress a record,
// their line feeds taken out of the batch's buffer, so that the line
// that ends it is in progress alone.
func (w *Writer) unjoin() {
	b := w.cur.buf
	rest, to := b[w.partial:], w.partial
	for range w.group.feeds {
		i := bytes.IndexByte(rest, '\n')
		copy(b[to:], rest[:i])
		w.cur.recs = append(w.cur.recs, rec{start: int32(to), end: int32(to + i)})
		to, rest = to+i, rest[i+1:]
	}
	w.cur.buf = b[:to+copy(b[to:], rest)]
	w.mu.Lock()
	w.counts.Lines += int64(w.group.feeds)
	w.mu.Unlock()
	w.partial, w.group.feeds, w.group.at = to, 0, 0
}

// whole reports whether line starts with '{' or '[' and ends with '}' or
// ']', whitespace aside.
func whole(line []byte) bool {
	i, j := skipSpace(line, 0), len(line)
	for j > i && isSpace(line[j-1]) {
		j--
	}
	return j-i >= 2 && (line[i] == '{' || line[i] == '[') && (line[j-1] == '}' || line[j-1] == ']')
}

// scan follows the brackets of line, outside strings, and reports whether
// it ends outside a string, closing only brackets open, of their kind,
// and nesting no deeper than maxDepth.
func (g *lineGroup) scan(line []byte) bool {
	str, esc := false, false
	for _, c := range line {
		switch {
		case str:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				str = false
			}
		case c == '"':
			str = true
		case c == '{' || c == '[':
			if g.depth == maxDepth {
				return false
			}
			g.arrays &^= 1 << g.depth
			if c == '[' {
				g.arrays |= 1 << g.depth
			}
			g.depth++
		case c == '}' || c == ']':
			if g.depth == 0 || (c == ']') != (g.arrays>>(g.depth-1)&1 != 0) {
				return false
			}
			g.depth--
		}
	}
	return !str
}

// batchCap is the room a batch starts with: its size, and some of the
// line that ends it.
func (w *Writer) batchCap() int { return w.o.batchSize() + w.o.batchSize()/4 }

// flushIfFull sends the batch on once it holds a batch's worth of
// records, keeping the line in progress for the next: batchSize bytes of
// lines, or half as many lines. The lines' bytes alone would let a batch
// of empty lines grow without end, and its records' CRC-32s past what a
// reader takes of a frame (20 million empty lines made an archive its
// own reader refused: TestEmptyLines).
func (w *Writer) flushIfFull() error {
	if w.partial < w.o.batchSize() && len(w.cur.recs) < w.o.batchSize()/2 {
		return nil
	}
	next := getBatch(max(w.batchCap(), len(w.cur.buf)-w.partial))
	next.buf = append(next.buf, w.cur.buf[w.partial:]...)
	w.cur.buf = w.cur.buf[:w.partial]
	if err := w.send(w.cur); err != nil {
		return err
	}
	w.cur, w.partial = next, 0
	return nil
}

func (w *Writer) send(b *batch) error {
	select {
	case w.batches <- b:
		return nil
	case <-w.ctx.Done():
		return w.failure()
	}
}

// failure is the error that stopped the pipeline, if it has ended, else
// the context's: the pipeline ends only once Close has been called.
func (w *Writer) failure() error {
	select {
	case <-w.done:
		if w.err != nil {
			return w.err
		}
	default:
	}
	return w.ctx.Err()
}

// wait waits for the pipeline to end and returns its error.
func (w *Writer) wait() error {
	<-w.done
	if w.err == nil {
		return w.ctx.Err()
	}
	return w.err
}

// Close ends the last line, waits for every block to be written, and
// writes the directory, the container's index and its trailer. It does not
// close the underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return errors.New("archive: Close twice")
	}
	w.closed = true
	err := w.ctx.Err()
	if err == nil && !w.cut && w.group.feeds > 0 && len(w.cur.buf)-w.partial == w.group.at {
		// The input ends with the line feed last joined: it ends the
		// record instead.
		w.cur.buf = w.cur.buf[:len(w.cur.buf)-1]
		w.group.feeds--
		err = w.endLine(0)
	}
	if err == nil && (len(w.cur.buf) > w.partial || w.cut) {
		if err = w.cutLong(true); err == nil {
			err = w.endLine(flagNoNewline)
		}
	}
	if err == nil && len(w.cur.recs) > 0 {
		err = w.send(w.cur)
	}
	close(w.batches)
	if werr := w.wait(); err == nil || werr != nil && !errors.Is(werr, context.Canceled) {
		err = werr
	}
	w.cancel()
	return err
}

// Counts returns what has been written so far.
func (w *Writer) Counts() Counts {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.counts
}

// Memory in flight: the batches and frames between the stages (see
// flow.Ordered).
const flowBudget = 64 << 20

// run is the pipeline: workers scan batches; the deduper, in order, takes
// values out into the store and makes blocks; workers compress them; the
// blocks are written in order, then the directory.
func (w *Writer) run(cw *container.Writer) error {
	n := w.o.workers()
	jobs := make(chan *blockJob)
	d := newDeduper(w.o, jobs)
	encoders := make([]*frameEncoder, n)
	dicts := &dictEncoders{level: zstdLevel(w.o.level()), workers: n}
	scanners := make([]*scanner, n)
	// A ppm frame (LevelMax) takes seconds to compress. For the next to
	// be taken up by another worker meanwhile, it and the records blocks
	// written in between (a dozen or so, their skeletons and index twice
	// to the budget) must fit in the queue and the budget besides the
	// first: with 2n jobs and 64 MiB, frames were compressed one at a
	// time on any number of workers. At least 8 at the zstd levels too:
	// at a textLevel a strings frame takes 0.2-0.4 s (zenc, its
	// dictionary twice as long), and with 4 jobs on 2
	// workers the deduper waited for each (dev100 -T2, medians of 9
	// alternating runs: 8 jobs 1.32 s, 16 1.28, 4 1.92; 1 GiB of
	// scrambled dev100, peak RSS 245-248 MB with 8, 256-260 with 16).
	queue, budget := max(2*n, 8), int64(flowBudget)
	if w.o.level() == LevelMax {
		queue = max(queue, 64)
		budget += 2 * int64(n) * int64(w.o.frameSize()+w.o.frameSize()/4) // a strings frame's tail joins it (joinTail); int64: 32-bit ints overflow at 64 workers
	}
	var writeErr error
	writing := make(chan struct{})
	go func() {
		defer close(writing)
		writeErr = flow.Ordered(w.ctx, n, queue, budget,
			func(ctx context.Context, emit func(*blockJob, int) error) error {
				for j := range jobs {
					if err := emit(j, j.size()); err != nil {
						return err
					}
				}
				return nil
			},
			func(i int, j *blockJob, send func(*blockJob, int) error) error {
				if encoders[i] == nil {
					encoders[i] = newFrameEncoder(w.o.level(), w.o.ppmMemory(), dicts)
				}
				if err := j.compress(encoders[i]); err != nil {
					return err
				}
				return send(j, len(j.body))
			},
			func(j *blockJob) error {
				w.mu.Lock()
				j.addTo(&w.counts)
				w.mu.Unlock()
				err := cw.Write(j.body, j.counts)
				j.release()
				return err
			})
		if writeErr != nil {
			w.cancel()
		}
	}()
	// Scanning is a fifth of the work: a batch being scanned for every
	// two workers keeps them fed. More held batches the reader filled
	// ahead for nothing, fresh memory the kernel zeroed (dev100 -T2: 2
	// batches' worth against 1, 549 -> 509 ms, medians of 11 alternating).
	scanBudget := min(int64(max(1, n/2))*2*int64(w.batchCap()), flowBudget)
	scanErr := flow.Ordered(w.ctx, n, 2*n, scanBudget,
		func(ctx context.Context, emit func(*batch, int) error) error {
			for {
				select {
				case b, ok := <-w.batches:
					if !ok {
						return nil
					}
					if err := emit(b, 2*cap(b.buf)); err != nil {
						return err
					}
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		},
		func(i int, b *batch, send func(*batch, int) error) error {
			if scanners[i] == nil {
				var err error
				if scanners[i], err = newScanner(w.o.minSize()); err != nil {
					return err
				}
			}
			scanners[i].scan(b)
			return send(b, 0)
		},
		func(b *batch) error {
			if err := d.add(w.ctx, b); err != nil {
				return err
			}
			defer putBatch(b)
			w.mu.Lock()
			w.counts.Records += int64(len(b.recs))
			w.counts.Bytes += int64(len(b.buf)) + int64(len(b.recs)) - int64(countNoNewline(b))
			w.counts.Kept, w.counts.Repeats = d.counts.kept, d.counts.repeats
			w.counts.Strings, w.counts.Templates, w.counts.Refs = d.counts.strings, d.counts.templates, d.counts.refs
			w.mu.Unlock()
			return nil
		})
	if scanErr == nil {
		scanErr = d.finish(w.ctx)
	}
	close(jobs)
	<-writing
	for _, e := range encoders {
		if e != nil {
			e.release()
		}
	}
	dicts.release()
	d.release()
	if scanErr == nil {
		scanErr = writeErr
	}
	if scanErr != nil {
		return scanErr
	}
	return cw.Close()
}

func countNoNewline(b *batch) int {
	n := 0
	for i := range b.recs {
		if b.recs[i].flags&flagNoNewline != 0 {
			n++
		}
	}
	return n
}

// scanner is a worker's part of writing: it finds each record's values
// and their keys, CRC, schema and model.
type scanner struct {
	min int
	lst *lister
	h   hasher
}

// hashers: every worker of one archive hashes with the same seeds.
var seeds = sync.OnceValue(newHasher)

func newScanner(min int) (*scanner, error) {
	lst, err := newLister()
	if err != nil {
		return nil, err
	}
	return &scanner{min: min, lst: lst, h: seeds()}, nil
}

// markers are the bytes the format gives a meaning in skeletons, store
// entries and templates; a record that holds one is kept as its bytes.
// Valid JSON never holds them raw.
func hasMarker(p []byte) bool { return indexMarker(p) < len(p) }

func (s *scanner) scan(b *batch) {
	b.nodes, b.keys, b.arena, b.inner.text = b.nodes[:0], b.keys[:0], b.arena[:0], b.inner.text[:0]
	// Room for a node and its key every 128 bytes (dev's have one every
	// 240): grown from nothing, they were copied into fresh memory at each
	// doubling, a fifth of --archive's page faults on dev. Made, not
	// grown: memory fresh from the system is not cleared, so only what is
	// used is touched.
	if n := len(b.buf) / 128; cap(b.nodes) < n || cap(b.keys) < n {
		b.nodes, b.keys = make([]node, 0, n), make([]key, 0, n)
	}
	for i := range b.recs {
		r := &b.recs[i]
		line := b.buf[r.start:r.end]
		r.crc = crc.Checksum(line)
		r.nodes = -1
		if h, err := s.lst.header(r.flags, line); err == nil {
			r.schema = h.Schema
			r.model = [2]int32{int32(len(b.arena)), int32(len(b.arena) + len(h.Model))}
			b.arena = append(b.arena, h.Model...)
			r.flags |= flagListed
		}
		first := len(b.nodes)
		var ok bool
		if len(line) >= s.min && !hasMarker(line) {
			b.nodes, ok = appendLine(b.nodes, line, s.min, &b.inner)
		}
		if !ok || len(b.nodes)-first < 2 {
			b.nodes = b.nodes[:first]
			r.flags |= flagKept
			continue
		}
		r.nodes = int32(first)
		b.keys = append(b.keys, key{}) // the root's, never looked up
		b.keys = s.appendKeys(b.keys, b, line, first+1, len(b.nodes))
	}
}

// A lister finds the M2M v1 header a record is listed by (header): a
// worker's, with its codec and scratch.
type lister struct {
	enc, sub *codec.Encoder // the record's header; a member's (nested)
	csv      []byte         // a CSV field's text, its quotes undoubled
}

func newLister() (*lister, error) {
	enc, err := codec.NewEncoder()
	if err != nil {
		return nil, err
	}
	sub, err := codec.NewEncoder()
	if err != nil {
		return nil, err
	}
	return &lister{enc: enc, sub: sub}, nil
}

// header returns the M2M v1 header of a record with flags: that of its
// line, JSON the codec takes, or of the JSON after its prefix (a log's
// timestamp, an event stream's "data: "; prefixed), a comma after it
// aside (an array's element), or of a CSV field's (csvField), so that -l
// counts the models of such logs too; and where that names no model, the
// header of the first object among its members' values, or theirs, that
// does (a Batch file's "body", a gateway's "request" and "response"). A
// piece of a long line is never listed: its line is what a header would
// be of.
func (l *lister) header(flags byte, line []byte) (*codec.Header, error) {
	if flags&flagContinues != 0 {
		return nil, errPiece
	}
	line = trimComma(line)
	v := line
	h, err := l.enc.Header(v)
	if err != nil {
		if v = prefixed(line); v != nil {
			h, err = l.enc.Header(v)
		}
	}
	if err != nil && len(line) > 0 && line[0] != '{' {
		var ok bool
		if l.csv, ok = appendCSVJSON(l.csv[:0], line); ok {
			v = l.csv
			h, err = l.enc.Header(v)
		}
	}
	if err == nil && len(h.Model) == 0 {
		if n := l.nested(v, 2); n != nil {
			return n, nil
		}
	}
	return h, err
}

// nested returns the header of the first object among the values of the
// members of object v, or depth-1 levels further, whose header names a
// model, or nil.
func (l *lister) nested(v []byte, depth int) *codec.Header {
	var found *codec.Header
	eachMember(v, func(m []byte) bool {
		if m[0] != '{' {
			return false
		}
		if h, err := l.sub.Header(m); err == nil && len(h.Model) > 0 {
			found = h
		} else if depth > 1 {
			found = l.nested(m, depth-1)
		}
		return found != nil
	})
	return found
}

var errPiece = errors.New("archive: a piece of a line")

// appendKeys appends the keys of nodes from to to of b, whose spans are
// in src, to dst: the nodes of a string of JSON text have theirs in that
// text unescaped.
func (s *scanner) appendKeys(dst []key, b *batch, src []byte, from, to int) []key {
	for c := from; c < to; c++ {
		nd := b.nodes[c]
		dst = append(dst, s.h.sum(src[nd.start:nd.end]))
		if nd.x != 0 {
			dst = s.appendKeys(dst, b, b.innerText(c), c+1, int(nd.skip))
			c = int(nd.skip) - 1
		}
	}
	return dst
}

// innerText returns the text unescaped of node c, a string of JSON text.
func (b *batch) innerText(c int) []byte {
	return b.inner.text[b.nodes[c].x-1:][:b.nodes[c+1].end]
}
