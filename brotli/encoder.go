package brotli

import "math"

// An Encoder writes Brotli streams. It keeps its tables from one stream to
// the next, so one per goroutine, reused, allocates nothing once its
// buffers have grown to the largest input. It is not safe for concurrent
// use.
type Encoder struct {
	head  []uint32 // by hash: the last position with it, plus base; below base, none
	prev  []uint32 // by position in the chains' reach: the one before with its hash
	base  uint32   // what positions of this stream are stored plus
	dist  [4]int   // the last four distances, the last first
	cmds  []command
	words *wordIndex
	bw    bitWriter

	prefix    prefixScratch
	litHist   [literalAlphabet]uint32
	cmdHist   [commandAlphabet]uint32
	distHist  [distanceAlphabet]uint32
	litDepth  [literalAlphabet]uint8
	cmdDepth  [commandAlphabet]uint8
	distDepth [distanceAlphabet]uint8
	litCode   [literalAlphabet]uint16
	cmdCode   [commandAlphabet]uint16
	distCode  [distanceAlphabet]uint16
}

// NewEncoder returns an Encoder.
func NewEncoder() *Encoder {
	return &Encoder{head: make([]uint32, 1<<hashBits), base: 1, words: words()}
}

// maxMetaBlock is the most bytes a meta-block holds: the format allows 16
// MiB (MLEN, section 9.2), but the commands of one are held until it is
// written, up to 20 bytes for every four of input.
const maxMetaBlock = 1 << 20

// AppendEncode appends a Brotli stream of src to dst and returns the
// extended slice. The window is the smallest that holds src (at most 16
// MiB), which a decoder with little memory will thank it for.
func (e *Encoder) AppendEncode(dst, src []byte) []byte {
	n := len(src)
	lgwin := 10
	for lgwin < 24 && 1<<lgwin-16 < n {
		lgwin++
	}
	w := &e.bw
	w.buf, w.acc, w.n = dst, 0, 0
	writeWindow(w, lgwin)
	if n == 0 {
		w.write(2, 3) // ISLAST, ISLASTEMPTY
		w.flush()
		return e.take()
	}
	if len(e.prev) == 0 {
		e.prev = make([]uint32, 1<<chainBits)
	}
	if uint64(e.base)+uint64(n) >= math.MaxUint32 {
		clear(e.head)
		e.base = 1
	}
	e.dist = [4]int{4, 11, 15, 16}
	for start := 0; start < n; {
		end := min(n, start+maxMetaBlock)
		last := end == n
		mark, acc, bits, dist := len(w.buf), w.acc, w.n, e.dist
		e.parse(src, start, end, 1<<lgwin-16)
		e.writeMetaBlock(src, start, end, last)
		// Stored instead, if smaller: a header of at most 4 bytes, and a
		// byte for the empty last meta-block after it.
		stored := 8*(end-start) + 32
		if last {
			stored += 8
		}
		if w.bitLen()-(mark*8+int(bits)) > stored {
			w.buf, w.acc, w.n, e.dist = w.buf[:mark], acc, bits, dist
			e.writeStored(src[start:end])
			if last {
				w.write(2, 3)
			}
		}
		start = end
	}
	w.flush()
	e.base += uint32(n) + 1
	return e.take()
}

// take returns the bit writer's buffer, which the caller owns.
func (e *Encoder) take() []byte {
	b := e.bw.buf
	e.bw.buf = nil
	return b
}

// writeWindow writes WBITS (section 9.1).
func writeWindow(w *bitWriter, lgwin int) {
	switch {
	case lgwin == 16:
		w.write(1, 0)
	case lgwin == 17:
		w.write(7, 1)
	case lgwin > 17:
		w.write(4, uint64(lgwin-17)<<1|1)
	default:
		w.write(7, uint64(lgwin-8)<<4|1)
	}
}

// writeLength writes MNIBBLES and MLEN-1 of a meta-block of n bytes.
func writeLength(w *bitWriter, n int) {
	nibbles := 4
	switch {
	case n-1 >= 1<<20:
		nibbles = 6
	case n-1 >= 1<<16:
		nibbles = 5
	}
	w.write(2, uint64(nibbles-4))
	w.write(uint(4*nibbles), uint64(n-1))
}

// writeStored writes a meta-block of src uncompressed, not the last.
func (e *Encoder) writeStored(src []byte) {
	w := &e.bw
	w.write(1, 0) // ISLAST
	writeLength(w, len(src))
	w.write(1, 1) // ISUNCOMPRESSED
	w.flush()
	w.buf = append(w.buf, src...)
}

// writeMetaBlock writes the meta-block of src[start:end] from e.cmds: one
// block type and one prefix code a category, no distance postfix or
// direct codes.
func (e *Encoder) writeMetaBlock(src []byte, start, end int, last bool) {
	w := &e.bw
	clear(e.litHist[:])
	clear(e.cmdHist[:])
	clear(e.distHist[:])
	pos := start
	for _, c := range e.cmds {
		e.cmdHist[c.cmd]++
		if c.dist != noDistance {
			e.distHist[c.dist]++
		}
		for _, b := range src[pos : pos+int(c.insert)] {
			e.litHist[b]++
		}
		pos += int(c.insert + c.copy)
	}
	if last {
		w.write(2, 1) // ISLAST, not ISLASTEMPTY
	} else {
		w.write(1, 0)
	}
	writeLength(w, end-start)
	if !last {
		w.write(1, 0) // ISUNCOMPRESSED
	}
	w.write(3, 0) // NBLTYPESL, NBLTYPESI, NBLTYPESD: 1 each
	w.write(6, 0) // NPOSTFIX, NDIRECT
	w.write(2, 0) // the literals' context mode: one tree, so any
	w.write(1, 0) // NTREESL 1
	w.write(1, 0) // NTREESD 1
	e.writePrefixCode(e.litHist[:], e.litDepth[:], e.litCode[:])
	e.writePrefixCode(e.cmdHist[:], e.cmdDepth[:], e.cmdCode[:])
	e.writePrefixCode(e.distHist[:], e.distDepth[:], e.distCode[:])
	pos = start
	for _, c := range e.cmds {
		w.write(uint(e.cmdDepth[c.cmd]), uint64(e.cmdCode[c.cmd]))
		if insertExtra[c.ic] > 0 {
			w.write(uint(insertExtra[c.ic]), uint64(c.insert-insertBase[c.ic]))
		}
		if c.copy > 0 && copyExtra[c.cc] > 0 {
			w.write(uint(copyExtra[c.cc]), uint64(c.copy-copyBase[c.cc]))
		}
		for _, b := range src[pos : pos+int(c.insert)] {
			w.write(uint(e.litDepth[b]), uint64(e.litCode[b]))
		}
		if c.dist != noDistance {
			w.write(uint(e.distDepth[c.dist]), uint64(e.distCode[c.dist]))
			if c.distBits > 0 {
				w.write(uint(c.distBits), uint64(c.distExtra))
			}
		}
		pos += int(c.insert + c.copy)
	}
}
