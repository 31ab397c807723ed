package archive

import (
	"bytes"

	"github.com/m2m-go/m2m/varint"
)

// refByte starts a reference in a template: refByte, then the entry id as
// a uvarint. A line holding the byte itself is kept as it is, with no
// references (valid JSON never holds it raw).
const refByte = 0x01

// cutRef splits a template at its first reference: the text before it,
// the id it names and the template after it. found is false, and lit all
// of tmpl, if it holds none; err reports a reference cut short or too
// large.
func cutRef(tmpl []byte) (lit []byte, id uint32, rest []byte, found bool, err error) {
	i := bytes.IndexByte(tmpl, refByte)
	if i < 0 {
		return tmpl, 0, nil, false, nil
	}
	id, n, err := varint.Uvarint(tmpl[i+1:])
	if err != nil {
		return tmpl[:i], 0, nil, true, corruptf("bad reference")
	}
	return tmpl[:i], id, tmpl[i+1+n:], true, nil
}

// Options configure an archive writer. The zero value means the defaults.
type Options struct {
	// MinSize is the length from which a JSON value is stored once and
	// referred to; default 64 bytes.
	MinSize int
	// GenCap bounds the dedupe store: it holds at most two generations
	// of entries, each of GenCap to 2*GenCap bytes of text; default and
	// most 32 MiB.
	GenCap int
	// Level is the zstd level of the blocks' sections, 1 to 4 (fastest,
	// default, better, best); default 3.
	Level int
}

func (o Options) minSize() int { return pick(o.MinSize, 64) }
func (o Options) genCap() int  { return min(pick(o.GenCap, maxGenCap), maxGenCap) }
func (o Options) level() int   { return min(pick(o.Level, 3), 4) }

func pick(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// A Block is one block of an archive before compression: its records, the
// skeleton of each (its text with stored values replaced by references),
// and the entries it adds to the store.
type Block struct {
	genCap     int
	FirstEntry uint32
	Entries    int
	Store      []byte // per entry: uvarint length, template
	Skel       []byte // the records' skeletons, end to end
	Records    []Rec
}

// Rec is one record of a Block.
type Rec struct {
	Line      []byte // the original bytes, line feed excluded (aliases the caller's)
	SkelLen   int
	Template  bool // the skeleton holds references
	Continues bool // a piece of a line the next record continues
	NoNewline bool // not followed by a line feed in the input
}

// Reset empties the block for reuse.
func (b *Block) Reset() {
	*b = Block{Store: b.Store[:0], Skel: b.Skel[:0], Records: b.Records[:0]}
}

// A Builder dedupes lines into blocks, in archive order. It holds the
// writer's store; one per archive, not safe for concurrent use.
type Builder struct {
	o       Options
	s       *store
	nodes   []node
	scratch [maxDepth + 1][]byte
}

// NewBuilder returns a Builder.
func NewBuilder(o Options) *Builder {
	return &Builder{o: o, s: newStore(o.genCap())}
}

// Begin starts a block: the store may start a new generation.
func (w *Builder) Begin(b *Block) {
	b.Reset()
	w.s.beginBlock()
	b.genCap, b.FirstEntry = w.s.genCap, w.s.next()
}

// Add appends one record. JSON values of MinSize bytes or more that the
// store holds become references; new ones become entries.
func (w *Builder) Add(b *Block, line []byte, continues, noNewline bool) {
	r := Rec{Line: line, Continues: continues, NoNewline: noNewline}
	start := len(b.Skel)
	var ok bool
	if !continues && len(line) >= w.o.minSize() && bytes.IndexByte(line, refByte) < 0 {
		w.nodes, ok = tree(w.nodes, line, w.o.minSize())
	}
	if ok && len(w.nodes) > 1 {
		b.Skel = w.template(b, b.Skel, line, 0, 0)
		r.Template = true
	} else {
		b.Skel = append(b.Skel, line...)
	}
	r.SkelLen = len(b.Skel) - start
	b.Records = append(b.Records, r)
}

// template appends the text of node n with each of its listed children
// replaced by a reference to an entry (made if need be).
func (w *Builder) template(b *Block, dst, src []byte, n, depth int) []byte {
	nodes := w.nodes
	pos := nodes[n].start
	for c := n + 1; c < int(nodes[n].skip); c = int(nodes[c].skip) {
		dst = append(dst, src[pos:nodes[c].start]...)
		if id, ok := w.entry(b, src, c, depth); ok {
			dst = varint.AppendUvarint(append(dst, refByte), id)
		} else {
			dst = w.template(b, dst, src, c, depth+1)
		}
		pos = nodes[c].end
	}
	return append(dst, src[pos:nodes[n].end]...)
}

// entry returns the id of the entry holding node c's text, storing it if
// the store does not hold it yet. It reports false if the store has no
// room for it this block.
func (w *Builder) entry(b *Block, src []byte, c, depth int) (uint32, bool) {
	text := src[w.nodes[c].start:w.nodes[c].end]
	id, h, found := w.s.find(text)
	if found && id >= w.s.cur {
		return id, true
	}
	if !w.s.room(len(text)) {
		return id, found // an old entry is still held until the next block
	}
	// A value held in the old generation only is stored again, whole, so
	// that what is still in use lives on and no entry refers to one of an
	// older generation (a reader with random access follows no chains).
	tmpl := w.template(b, w.scratch[depth][:0], src, c, depth+1)
	w.scratch[depth] = tmpl
	if !w.s.room(len(text)) {
		return 0, false // its children took the room: the caller keeps the template
	}
	b.Store = varint.AppendUvarint(b.Store, uint32(len(tmpl)))
	b.Store = append(b.Store, tmpl...)
	b.Entries++
	return w.s.add(text, h), true
}
