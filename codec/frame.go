package codec

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"

	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/internal/hydra"
	"github.com/m2m-go/m2m/internal/jsonscan"
	"github.com/m2m-go/m2m/tokenizer"
)

// Limits bound every message this package encodes or decodes. The zero
// value of a field means its default.
type Limits struct {
	MaxMessage      int // bytes of a message on the wire; default 16 MiB
	MaxDecompressed int // bytes of decoded text; default 16 MiB
	MaxDepth        int // nesting of JSON arrays and objects; default 32
	MaxString       int // bytes of one JSON string, as written; default 10 MiB
	MaxArray        int // elements of one JSON array, and members of one object in Token v1; default 10,000
}

// DefaultLimits are the protocol's limits (docs/protocol.md §8).
var DefaultLimits = Limits{
	MaxMessage:      16 << 20,
	MaxDecompressed: 16 << 20,
	MaxDepth:        32,
	MaxString:       10 << 20,
	MaxArray:        10_000,
}

func (l Limits) resolve() Limits {
	d := DefaultLimits
	pick := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	return Limits{
		MaxMessage:      pick(l.MaxMessage, d.MaxMessage),
		MaxDecompressed: pick(l.MaxDecompressed, d.MaxDecompressed),
		MaxDepth:        pick(l.MaxDepth, d.MaxDepth),
		MaxString:       pick(l.MaxString, d.MaxString),
		MaxArray:        pick(l.MaxArray, d.MaxArray),
	}
}

func (l Limits) json() jsonscan.Limits {
	return jsonscan.Limits{MaxDepth: l.MaxDepth, MaxStringLen: l.MaxString, MaxArrayLen: l.MaxArray}
}

// options configure an Encoder or Decoder.
type options struct {
	limits Limits
	// quality and window are go-brrr's, if brrr is set (WithQuality,
	// WithWindow); else package brotli encodes.
	quality, window int
	brrr            bool
	security        security
	tokenizer       tokenizer.Encoding
	llama3          tokenizer.Tokenizer // nil: tokenizer.Get's
	// referenceSchemas limits the encoder to the schemas the reference's
	// encoder writes (WithReferenceSchemas).
	referenceSchemas bool
}

// WithReferenceSchemas makes an encoder give M2M v1 frames only the
// schemas the Rust reference's encoder writes, Request and Response, so
// that their headers are the reference's byte for byte: stream chunks
// (which then get a Response header), errors and embedding requests and
// responses (a Request header) included. By default those get the Stream,
// Error, EmbeddingRequest and EmbeddingResponse schemas the protocol
// defines, which the reference decodes but never writes.
func WithReferenceSchemas() Option {
	return func(o *options) error {
		o.referenceSchemas = true
		return nil
	}
}

// tokenizerFor returns the tokenizer of enc: the one WithLlama3 gave for
// Llama 3, else the package's.
func (o *options) tokenizerFor(enc tokenizer.Encoding) (tokenizer.Tokenizer, error) {
	if enc == tokenizer.Llama3 && o.llama3 != nil {
		return o.llama3, nil
	}
	return tokenizer.Get(enc)
}

// An Option configures NewEncoder, NewDecoder and their Reset methods.
type Option func(*options) error

// WithLimits sets the limits; zero fields keep their defaults.
func WithLimits(l Limits) Option {
	return func(o *options) error {
		if l.MaxMessage < 0 || l.MaxDecompressed < 0 || l.MaxDepth < 0 || l.MaxString < 0 || l.MaxArray < 0 {
			return fmt.Errorf("codec: negative limit in %+v", l)
		}
		o.limits = l.resolve()
		return nil
	}
}

// WithQuality has M2M v1 payloads and Brotli messages compressed by the
// Brotli encoder of C brotli's design (go-brrr's) at quality q, 0 to 11,
// in place of package brotli's, and window 22 unless WithWindow says
// otherwise. At quality 5 and window 22, the reference's, M2M v1 frames
// are the reference's byte for byte (see doc.go).
func WithQuality(q int) Option {
	return func(o *options) error {
		if q < 0 || q > 11 {
			return fmt.Errorf("codec: Brotli quality %d outside 0..11", q)
		}
		o.quality, o.brrr = q, true
		return nil
	}
}

// WithWindow has Brotli compressed as WithQuality says, with a window of
// lgwin, 10 to 24 (log2 of its bytes), and quality 5 unless WithQuality
// says otherwise.
func WithWindow(lgwin int) Option {
	return func(o *options) error {
		if lgwin < 10 || lgwin > 24 {
			return fmt.Errorf("codec: Brotli window %d outside 10..24", lgwin)
		}
		o.window, o.brrr = lgwin, true
		return nil
	}
}

func buildOptions(opts []Option) (options, error) {
	o := options{limits: DefaultLimits, quality: defaultQuality, window: defaultWindow}
	for _, f := range opts {
		if err := f(&o); err != nil {
			return options{}, err
		}
	}
	return o, nil
}

// compressThreshold is the JSON size from which the reference compresses
// M2M v1 payloads (and always does, even when Brotli does not shrink them).
const compressThreshold = 100

// An Encoder writes messages. It owns a Brotli writer and scratch buffers,
// so one per goroutine, reused, allocates nothing in steady state beyond
// Brotli's own work. It is not safe for concurrent use.
type Encoder struct {
	opts    options
	c       *compressor // made on first use (see brotli): Header needs none
	fields  jsonscan.Fields
	h       Header
	scratch []byte
	ids     []uint32 // token ids
	rep     repetition
	hx      *hydra.Extractor // Hydra's features; allocated on first use (64 KiB)
	prices  priceMemo        // the price of the model of the record framed last
}

// NewEncoder returns an Encoder with the given options.
func NewEncoder(opts ...Option) (*Encoder, error) {
	e := &Encoder{}
	if err := e.Reset(opts...); err != nil {
		return nil, err
	}
	return e, nil
}

// Reset changes the Encoder's options, keeping its buffers.
func (e *Encoder) Reset(opts ...Option) error {
	o, err := buildOptions(opts)
	if err != nil {
		return err
	}
	if e.c != nil && (o.brrr != (e.c.own == nil) || o.brrr && (e.c.quality != o.quality || e.c.window != o.window)) {
		e.c = nil // another encoder is asked for
	}
	e.opts = o
	return nil
}

// brotli returns the Encoder's Brotli encoder, made as its options ask
// the first time: an Encoder that only reads headers, as archive writers
// and checks do, never makes one (package brotli's hash table, and its
// static dictionary's index, built once a process: m2m-batch -t of an
// archive faulted ~90 fewer pages of its ~4,600 without it).
func (e *Encoder) brotli() *compressor {
	if e.c == nil {
		if e.opts.brrr {
			e.c = newCompressor(e.opts.quality, e.opts.window)
		} else {
			e.c = newOwnCompressor()
		}
	}
	return e.c
}

// AppendFrame appends the binary M2M v1 frame of the JSON text to dst: the
// #M2M|1| prefix, the header the JSON's shape calls for (see HeaderOf), the
// payload length and CRC-32, and the JSON, Brotli-compressed from 100 bytes
// on. It fails with ErrInvalidInput if text is not valid JSON within the
// limits, and with ErrLimit if the frame would exceed MaxMessage.
func (e *Encoder) AppendFrame(dst, text []byte) ([]byte, error) {
	if err := e.scan(text); err != nil {
		return dst, err
	}
	return e.appendFrame(dst, text)
}

// appendFrame writes the frame of text with the header in e.h.
func (e *Encoder) appendFrame(dst, text []byte) ([]byte, error) {
	start := len(dst)
	if len(text) >= compressThreshold {
		e.h.Flags |= FlagCompressed
	}
	dst = append(dst, prefixM2M...)
	dst, err := appendHeader(dst, &e.h)
	if err != nil {
		return dst[:start], err
	}
	lenAt := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.LittleEndian.AppendUint32(dst, crc.Checksum(text))
	payloadAt := len(dst)
	if e.h.Flags&FlagCompressed != 0 {
		dst = e.brotli().appendCompressed(dst, text)
	} else {
		dst = append(dst, text...)
	}
	binary.LittleEndian.PutUint32(dst[lenAt:], uint32(len(dst)-payloadAt))
	if e.opts.security.mode != SecurityNone {
		if dst, err = e.opts.security.seal(dst, start); err != nil {
			return dst, err
		}
	}
	if n := len(dst) - start; n > e.opts.limits.MaxMessage {
		return dst[:start], errorf(ErrLimit, "frame", -1, "%d bytes exceed the %d-byte message limit", n, e.opts.limits.MaxMessage)
	}
	return dst, nil
}

// AppendFrameString appends the string form of the frame: the #M2M|1|
// prefix and the standard, padded base64 of the rest of the binary frame,
// which is what the reference's engine, sessions and HTTP API carry.
func (e *Encoder) AppendFrameString(dst, text []byte) ([]byte, error) {
	var err error
	if e.scratch, err = e.AppendFrame(e.scratch[:0], text); err != nil {
		return dst, err
	}
	return appendStringForm(dst, prefixM2M, e.scratch[len(prefixM2M):], e.opts.limits)
}

// appendStringForm appends prefix and the base64 of body, if the result
// fits in the message limit.
func appendStringForm(dst []byte, prefix string, body []byte, l Limits) ([]byte, error) {
	if n := len(prefix) + base64.StdEncoding.EncodedLen(len(body)); n > l.MaxMessage {
		return dst, errorf(ErrLimit, "message", -1, "%d bytes exceed the %d-byte message limit", n, l.MaxMessage)
	}
	return base64.StdEncoding.AppendEncode(append(dst, prefix...), body), nil
}

// A Decoder reads messages. It owns a Brotli reader and scratch buffers,
// so one per goroutine, reused, allocates nothing in steady state beyond
// the output. It is not safe for concurrent use.
type Decoder struct {
	opts    options
	d       *decompressor
	h       Header
	fields  jsonscan.Fields
	scratch []byte
	opened  []byte        // the plain frame inside a secured one
	ids     []uint32      // token ids
	v1      tokenV1Writer // rewrites Token v1, keeping its buffers
}

// NewDecoder returns a Decoder with the given options; only WithLimits
// matters to decoding.
func NewDecoder(opts ...Option) (*Decoder, error) {
	d := &Decoder{}
	if err := d.Reset(opts...); err != nil {
		return nil, err
	}
	return d, nil
}

// Reset changes the Decoder's options, keeping its buffers.
func (d *Decoder) Reset(opts ...Option) error {
	o, err := buildOptions(opts)
	if err != nil {
		return err
	}
	if d.d == nil {
		d.d = newDecompressor()
	}
	d.opts = o
	return nil
}

// ParseHeader reads the header of a binary M2M v1 frame (with its prefix)
// into h without touching the payload: what a gateway routes on, and what
// m2m-batch -l lists. Model and ID alias frame. It checks everything the
// header says about itself and that the payload section begins inside the
// frame; it does not check the payload.
func ParseHeader(h *Header, frame []byte) error {
	_, err := parseFrameHeader(h, frame, true)
	return err
}

// parseFrameHeader is ParseHeader, returning where the payload starts. If
// sealed and the frame is AEAD, the payload section is encrypted: its
// position is that of the nonce, and PayloadLen and CRC stay zero.
func parseFrameHeader(h *Header, frame []byte, sealed bool) (int, error) {
	if !bytes.HasPrefix(frame, []byte(prefixM2M)) {
		return 0, errorf(ErrInvalidCodec, "prefix", 0, "not an M2M v1 frame")
	}
	hl, err := parseHeader(h, frame[len(prefixM2M):])
	if err != nil {
		return 0, err
	}
	at := len(prefixM2M) + hl
	if sealed && h.Security == SecurityAEAD {
		return at, nil
	}
	if len(frame)-at < 8 {
		return 0, errorf(ErrMalformed, "payload_len", at, "frame ends inside the payload section")
	}
	h.PayloadLen = binary.LittleEndian.Uint32(frame[at:])
	h.CRC = binary.LittleEndian.Uint32(frame[at+4:])
	return at + 8, nil
}

// AppendFrame decodes the binary M2M v1 frame (with its prefix) and appends
// its JSON to dst; if h is not nil it receives the header. It verifies
// everything: the header (see ParseHeader), that the payload fills the
// frame exactly, the Brotli stream, the limits, UTF-8, the CRC-32, and that
// the payload is JSON. On error dst is returned as it was: never partial
// content.
func (d *Decoder) AppendFrame(dst []byte, h *Header, frame []byte) ([]byte, error) {
	if h == nil {
		h = &d.h
	}
	if len(frame) > d.opts.limits.MaxMessage {
		return dst, errorf(ErrLimit, "frame", -1, "%d bytes exceed the %d-byte message limit", len(frame), d.opts.limits.MaxMessage)
	}
	if sec := &d.opts.security; sec.mode != SecurityNone {
		plain, err := sec.open(frame, d.opened)
		if err != nil {
			return dst, err
		}
		if Security(frame[len(prefixM2M)+3]) == SecurityAEAD {
			d.opened = plain[:0] // keep the buffer
		}
		frame = plain
	} else if len(frame) > len(prefixM2M)+3 && frame[len(prefixM2M)+3] != 0 && frame[len(prefixM2M)+3] <= byte(SecurityAEAD) {
		return dst, errorf(ErrInvalidCodec, "security", len(prefixM2M)+3, "frame is secured (%v); decoding it needs a key", Security(frame[len(prefixM2M)+3]))
	}
	payloadAt, err := parseFrameHeader(h, frame, false)
	if err != nil {
		return dst, err
	}
	payload := frame[payloadAt:]
	if int64(h.PayloadLen) != int64(len(payload)) {
		what := "bytes after the payload"
		if int64(h.PayloadLen) > int64(len(payload)) {
			what = "frame ends inside the payload"
		}
		return dst, errorf(ErrMalformed, "payload", payloadAt, "%s (payload_len %d, %d bytes present)", what, h.PayloadLen, len(payload))
	}
	return d.appendPayload(dst, payload, payloadAt, h)
}

// appendPayload decompresses (if h says so) and verifies a frame's payload.
func (d *Decoder) appendPayload(dst, payload []byte, at int, h *Header) ([]byte, error) {
	start := len(dst)
	lim := d.opts.limits
	if h.Flags&FlagCompressed != 0 {
		var err error
		if dst, err = d.d.appendDecompressed(dst, payload, lim.MaxDecompressed); err != nil {
			err.(*Error).Offset = at
			return dst, err
		}
	} else {
		if len(payload) > lim.MaxDecompressed {
			return dst, errorf(ErrLimit, "payload", at, "%d bytes exceed the %d-byte limit", len(payload), lim.MaxDecompressed)
		}
		dst = append(dst, payload...)
	}
	text := dst[start:]
	if got := crc.Checksum(text); got != h.CRC {
		return dst[:start], errorf(ErrIntegrity, "crc32", at-4, "checksum %08x, frame says %08x", got, h.CRC)
	}
	// The scan checks UTF-8 too: JSON outside strings is ASCII, and it
	// validates strings as utf8.Valid does.
	if err := jsonscan.Scan(text, lim.json(), &d.fields); err != nil {
		return dst[:start], wrap(ErrMalformed, "payload", at, fmt.Errorf("decoded text is not JSON: %w", err))
	}
	return dst, nil
}

// AppendHeader appends the M2M v1 header (fixed and variable, as in a
// frame after its #M2M|1| prefix) that AppendFrame would give the JSON
// text, without compressing anything: what an archive keeps readable for
// each record. It fails like AppendFrame if text is not JSON within the
// limits.
func (e *Encoder) AppendHeader(dst, text []byte) ([]byte, error) {
	if err := e.scan(text); err != nil {
		return dst, err
	}
	if len(text) >= compressThreshold {
		e.h.Flags |= FlagCompressed
	}
	return appendHeader(dst, &e.h)
}

// Header returns the M2M v1 header AppendFrame would give text (without the
// payload length and CRC, which only an encoding knows), or the error
// AppendFrame would report for text that is not JSON it accepts. The
// header and the slices in it are the Encoder's, valid until its next use.
func (e *Encoder) Header(text []byte) (*Header, error) {
	if err := e.scan(text); err != nil {
		return nil, err
	}
	return &e.h, nil
}

// ParseHeaderBytes reads a header written by AppendHeader into h, checking
// it as ParseHeader does and that it fills hdr exactly. Model and ID alias
// hdr.
func ParseHeaderBytes(h *Header, hdr []byte) error {
	n, err := parseHeader(h, hdr)
	if err == nil && n != len(hdr) {
		err = errorf(ErrMalformed, "header_len", len(prefixM2M), "%d bytes of header, %d given", n, len(hdr))
	}
	return err
}
