package ppm

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/varint"
	"github.com/m2m-go/m2m/words"
)

// Options configure a coder. The zero value means the defaults.
type Options struct {
	// Order is the longest context the model learns, 2 to 64; default 16.
	Order int
	// Memory is the model's size in MiB, 1 to 1024; default 256. A
	// decoder needs the same, and refuses data asking for more than its
	// MaxMemory.
	Memory int
	// MaxMemory is the most a decoder gives a model, in MiB; default 512.
	MaxMemory int
	// Dict is text the data is likely to repeat (an earlier chunk of the
	// same stream), known to encoder and decoder alike: the match model
	// finds repeats in it as in the data itself, at little cost, while the
	// context model starts empty. A decoder refuses data made with another
	// dictionary (its length and CRC-32 are in the header).
	Dict []byte
	// Words has the encoder replace the text's frequent words by codes of
	// bytes the text does not use, or uses rarely, before modelling it
	// (see words.go): smaller and faster on prose, code and JSON; nothing
	// on text with no byte values to spare. A decoder needs nothing: the
	// data says.
	Words bool
	// OnPrefix, if not nil, is called by a decoder, on its own goroutine,
	// as soon as it has decoded the first Prefix bytes (if Prefix > 0 and
	// it decodes that many), with them, and returns the length of the next
	// prefix it wants (0, or no longer than this one: none). A caller that
	// needs only the start of the text (another frame's dictionary, the
	// entries a reader waits for) may so hand it on while the rest is
	// decoded. Nothing writes those bytes afterwards; they are not checked
	// against the CRC-32 of the whole.
	OnPrefix func(prefix []byte) (next int)
	Prefix   int
}

// prefixes calls Options.OnPrefix as a decoder of n bytes reaches each
// prefix it asks for.
type prefixes struct {
	on   func([]byte) int
	want int // the next prefix's length; 0: none
	n    int
}

func (o Options) prefixes(n int) prefixes {
	p := prefixes{on: o.OnPrefix, n: n}
	if p.on != nil {
		p.next(o.Prefix)
	}
	return p
}

func (p *prefixes) next(want int) {
	if want <= p.want || want > p.n {
		want = 0
	}
	p.want = want
}

// reached calls OnPrefix for the prefixes that decoded, the bytes decoded
// so far, holds.
func (p *prefixes) reached(decoded []byte) {
	for p.want > 0 && len(decoded) >= p.want {
		p.next(p.on(decoded[:p.want:p.want]))
	}
}

func (o Options) order() int     { return pick(o.Order, 16) }
func (o Options) memory() int    { return pick(o.Memory, 256) }
func (o Options) maxMemory() int { return pick(o.MaxMemory, 512) }

func pick(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// Errors a decoder reports.
var (
	ErrCorrupt = errors.New("ppm: corrupt data")
	ErrMemory  = errors.New("ppm: the data asks for more model memory than allowed")
	ErrDict    = errors.New("ppm: the data was made with another dictionary")
	ErrTooLong = errors.New("ppm: the data decodes to more than allowed")
	// ErrVersion is data of another format version (an earlier model's:
	// it cannot be decoded by this one).
	ErrVersion = errors.New("ppm: data of another format version")
)

const version = 6 // 1: the model started afresh when full; 2: probabilities learned at 1/32; 3: no words; 4: escapes by one table; 5: 12-bit probabilities, matches of 8 bytes coded

// header = version | order | uvarint memory_mib | uvarint raw_len | crc32 (4, of the raw bytes)
//
//	| uvarint dict_len | crc32 of the dictionary (4, if dict_len > 0) | words (wordTable.appendHeader)
func appendHeader(dst []byte, order, memory, rawLen int, sum uint32, dict []byte) []byte {
	dst = append(dst, version, byte(order))
	dst = varint.AppendUvarint64(dst, uint64(memory))
	dst = varint.AppendUvarint64(dst, uint64(rawLen))
	dst = binary.LittleEndian.AppendUint32(dst, sum)
	dst = varint.AppendUvarint64(dst, uint64(len(dict)))
	if len(dict) > 0 {
		dst = binary.LittleEndian.AppendUint32(dst, crc.Checksum(dict))
	}
	return dst
}

// arenaWords is the model's size in 4-byte words for memory MiB and n
// bytes of data: at most 64 bytes a byte of data, more than text fills
// (about 48 at order 16), so a short input, or a hostile header, does not
// make either side allocate the whole of memory. Both sides size it the
// same way: where the model stops growing depends on it.
func arenaWords(memory, n, order int) int {
	return int(min(int64(memory)<<18, int64(n)*16+1<<16))
}

// AppendEncode appends the coded src to dst.
func AppendEncode(dst, src []byte, o Options) ([]byte, error) {
	order, memory := o.order(), o.memory()
	if order < 2 || order > 64 || memory < 1 || memory > 1024 {
		return dst, fmt.Errorf("ppm: order %d or memory %d MiB out of range", order, memory)
	}
	var t *words.Table
	if o.Words && len(src) >= minWordsText {
		t = chooseWords(src)
	}
	return appendEncode(dst, src, o, t), nil
}

// appendEncode is AppendEncode with the word table t, or none.
func appendEncode(dst, src []byte, o Options, t *words.Table) []byte {
	order, memory := o.order(), o.memory()
	dst = appendHeader(dst, order, memory, len(src), crc.Checksum(src), o.Dict)
	dst = t.AppendHeader(dst)
	m := newModel(arenaWords(memory, len(src), order), order)
	defer m.release()
	var e encoder
	e.init(dst)
	if t == nil {
		m.match.init(o.Dict, len(src))
		for _, b := range src {
			m.encodeSymbol(&e, b)
		}
		return e.finish()
	}
	encodeList(&e, t)
	setClasses(t, m)
	// The dictionary and the text coded in one buffer, the match model's
	// history: encodeSymbol appends each byte of the text where it is.
	dict := t.AppendEncode(make([]byte, 0, len(o.Dict)+len(src)+len(src)/64), o.Dict)
	text := t.AppendEncode(dict, src)
	m.match.start(text[:len(dict)], len(src)) // the decoder sizes its table by the raw length
	for _, b := range text[len(dict):] {
		m.encodeSymbol(&e, b)
	}
	return e.finish()
}

// AppendDecode appends the decoding of src, which AppendEncode made, to
// dst. It refuses, keeping dst as it was, data that asks for more model
// memory than o allows, that decodes to more than maxLen bytes, or whose
// output does not match its length or CRC-32.
func AppendDecode(dst, src []byte, maxLen int, o Options) ([]byte, error) {
	return AppendDecodePrefix(dst, src, maxLen, maxLen, o)
}

// AppendDecodePrefix is AppendDecode that stops after the first n bytes:
// a part of the data is not checked against the CRC-32 of the whole, which
// is the caller's to check some other way.
func AppendDecodePrefix(dst, src []byte, n, maxLen int, o Options) ([]byte, error) {
	start := len(dst)
	if len(src) < 2 {
		return dst, ErrCorrupt
	}
	if src[0] != version {
		return dst, fmt.Errorf("%w: %d, not %d", ErrVersion, src[0], version)
	}
	order := int(src[1])
	memory, k1, err1 := varint.Uvarint64(src[2:])
	rawLen, k2, err2 := varint.Uvarint64(src[2+k1:])
	at := 2 + k1 + k2
	switch {
	case err1 != nil || err2 != nil || len(src) < at+4 || order < 2 || order > 64 || memory == 0:
		return dst, ErrCorrupt
	case memory > uint64(o.maxMemory()):
		return dst, ErrMemory
	case rawLen > uint64(maxLen):
		return dst, fmt.Errorf("%w: %d bytes, over the %d allowed", ErrTooLong, rawLen, maxLen)
	}
	sum := binary.LittleEndian.Uint32(src[at:])
	at += 4
	dictLen, k, err := varint.Uvarint64(src[at:])
	if err != nil {
		return dst, ErrCorrupt
	}
	at += k
	if dictLen != uint64(len(o.Dict)) {
		return dst, ErrDict
	}
	if dictLen > 0 {
		if len(src) < at+4 {
			return dst, ErrCorrupt
		}
		if binary.LittleEndian.Uint32(src[at:]) != crc.Checksum(o.Dict) {
			return dst, ErrDict
		}
		at += 4
	}
	nWords, codes, one, k, err := words.ReadHeader(src[at:])
	if err != nil || uint64(nWords) > rawLen/2 {
		return dst, ErrCorrupt
	}
	at += k
	var d decoder
	if d.init(src[at:]) != nil {
		return dst, ErrCorrupt
	}
	m := newModel(arenaWords(int(memory), int(rawLen), order), order)
	defer m.release()
	want := int(min(rawLen, uint64(max(n, 0)))) // the bytes to decode
	if nWords == 0 {
		m.match.init(o.Dict, int(rawLen))
		pf := o.prefixes(want)
		for range want {
			b, ok := m.decodeSymbol(&d)
			if !ok || d.over > 4 {
				return dst[:start], ErrCorrupt
			}
			dst = append(dst, b)
			if len(dst)-start == pf.want {
				pf.reached(dst[start:])
			}
		}
	} else {
		t := decodeWordList(&d, nWords, codes, one)
		if t == nil {
			return dst, ErrCorrupt
		}
		setClasses(t, m)
		m.match.init(t.AppendEncode(nil, o.Dict), int(rawLen))
		var ok bool
		if dst, ok = decodeWords(t, dst, m, &d, want, int(rawLen), o); !ok {
			return dst[:start], ErrCorrupt
		}
	}
	if uint64(len(dst)-start) == rawLen && crc.Checksum(dst[start:]) != sum {
		return dst[:start], fmt.Errorf("%w: checksum", ErrCorrupt)
	}
	return dst, nil
}
