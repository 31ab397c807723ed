package codec

import (
	"encoding/binary"
	"errors"
	"math"
	"unicode/utf8"

	"github.com/m2m-go/m2m/varint"
)

// Schema is the message type byte of an M2M v1 frame.
type Schema uint8

// The schemas of the reference implementation. Request and EmbeddingRequest
// carry a routing header; Response, Stream, EmbeddingResponse and Error a
// response header; Custom an opaque one.
const (
	SchemaRequest           Schema = 0x01
	SchemaResponse          Schema = 0x02
	SchemaStream            Schema = 0x03
	SchemaEmbeddingRequest  Schema = 0x04
	SchemaEmbeddingResponse Schema = 0x05
	SchemaError             Schema = 0x10
	SchemaCustom            Schema = 0xFE
)

func (s Schema) String() string {
	switch s {
	case SchemaRequest:
		return "request"
	case SchemaResponse:
		return "response"
	case SchemaStream:
		return "stream"
	case SchemaEmbeddingRequest:
		return "embedding-request"
	case SchemaEmbeddingResponse:
		return "embedding-response"
	case SchemaError:
		return "error"
	case SchemaCustom:
		return "custom"
	}
	return "unknown"
}

// routing reports whether frames of schema s carry a routing header.
func (s Schema) routing() bool { return s == SchemaRequest || s == SchemaEmbeddingRequest }

// response reports whether frames of schema s carry a response header.
func (s Schema) response() bool {
	return s == SchemaResponse || s == SchemaStream || s == SchemaEmbeddingResponse || s == SchemaError
}

func (s Schema) known() bool { return s.routing() || s.response() || s == SchemaCustom }

// Security is the security mode byte of an M2M v1 frame.
type Security uint8

// The security modes.
const (
	SecurityNone Security = 0x00
	SecurityHMAC Security = 0x01 // HMAC-SHA256 tag appended
	SecurityAEAD Security = 0x02 // ChaCha20-Poly1305 over the payload section
)

func (s Security) String() string {
	switch s {
	case SecurityNone:
		return "none"
	case SecurityHMAC:
		return "hmac"
	case SecurityAEAD:
		return "aead"
	}
	return "unknown"
}

// Flags is the 32-bit flags field: schema-specific bits 0-15, a reserved
// byte, and common bits 24-31.
type Flags uint32

// Request flags (schemas with a routing header). They describe the JSON;
// only FlagMaxTokens changes the layout: it is set exactly when the header
// holds a max_tokens value.
const (
	FlagSystemPrompt    Flags = 1 << 0
	FlagTools           Flags = 1 << 1
	FlagToolChoice      Flags = 1 << 2
	FlagImages          Flags = 1 << 3
	FlagStream          Flags = 1 << 4
	FlagResponseFormat  Flags = 1 << 5
	FlagMaxTokens       Flags = 1 << 6
	FlagReasoningEffort Flags = 1 << 7
	FlagServiceTier     Flags = 1 << 8
	FlagSeed            Flags = 1 << 9
	FlagLogprobs        Flags = 1 << 10
	FlagUser            Flags = 1 << 11
	FlagTemperature     Flags = 1 << 12
	FlagTopP            Flags = 1 << 13
	FlagStop            Flags = 1 << 14
)

// Response flags (schemas with a response header). FlagCachedTokens,
// FlagReasoningTokens and FlagCostEstimate each add a field.
const (
	FlagToolCalls        Flags = 1 << 0
	FlagRefusal          Flags = 1 << 1
	FlagContentFiltered  Flags = 1 << 2
	FlagUsage            Flags = 1 << 3
	FlagTruncated        Flags = 1 << 4
	FlagCachedTokens     Flags = 1 << 5
	FlagReasoningTokens  Flags = 1 << 6
	FlagCostEstimate     Flags = 1 << 7
	FlagCompressed       Flags = 1 << 24 // the payload is a Brotli stream
	FlagExtensions       Flags = 1 << 25 // defined by the protocol, with no format: never valid
	requestFlagsDefined        = 0x7FFF
	responseFlagsDefined       = 0x00FF
)

// Role is the 2-bit role code of a message in a routing header.
type Role uint8

// The roles. "developer" is written as RoleSystem, as the reference does.
const (
	RoleSystem    Role = 0
	RoleUser      Role = 1
	RoleAssistant Role = 2
	RoleTool      Role = 3
)

func (r Role) String() string { return [...]string{"system", "user", "assistant", "tool"}[r&3] }

// FinishReason is the finish_reason code of a response header.
type FinishReason uint8

// The finish reasons; FinishOther stands for any other value, or none.
const (
	FinishStop          FinishReason = 0x00
	FinishLength        FinishReason = 0x01
	FinishToolCalls     FinishReason = 0x02
	FinishContentFilter FinishReason = 0x03
	FinishOther         FinishReason = 0xFF
)

func (f FinishReason) String() string {
	switch f {
	case FinishStop:
		return "stop"
	case FinishLength:
		return "length"
	case FinishToolCalls:
		return "tool_calls"
	case FinishContentFilter:
		return "content_filter"
	}
	return "other"
}

// The fixed layout of a frame.
const (
	prefixM2M       = "#M2M|1|"
	fixedHeaderLen  = 20
	maxHeaderLen    = math.MaxUint16
	maxHeaderString = 255 // model and id are length-prefixed by one byte
)

// Header is the readable part of an M2M v1 frame: the fixed header and the
// routing or response header, everything a gateway needs without touching
// the payload. Decoding fills only the fields of the frame's schema; Model
// and ID alias the frame's bytes.
type Header struct {
	Schema   Schema
	Security Security
	Flags    Flags

	// Model is the model string, from both header kinds. Encoders keep at
	// most 255 bytes of it, cut on a UTF-8 boundary.
	Model []byte

	// Routing header.
	MsgCount    uint32 // messages in the request
	Roles       []Role // one per message; nil when the frame does not say (see Quirks)
	ContentHint uint32 // bytes of message content (wrapping sum)
	MaxTokens   uint32 // valid when Flags has FlagMaxTokens

	// Response header.
	ID               []byte // at most 255 bytes, cut on a UTF-8 boundary
	FinishReason     FinishReason
	PromptTokens     uint32
	CompletionTokens uint32
	CachedTokens     uint32 // valid when Flags has FlagCachedTokens
	ReasoningTokens  uint32 // valid when Flags has FlagReasoningTokens

	// Cost is the estimated cost in USD (see EstimateCost), present when
	// HasCost: always in routing headers this package writes, with
	// FlagCostEstimate in response headers.
	Cost    float32
	HasCost bool

	// Opaque is the variable header of a Custom frame, or of a Stream frame
	// whose header is not a response header (the reference skips both).
	Opaque []byte

	// Quirks records which layout quirks of the reference encoder the
	// decoder had to accept to read this header.
	Quirks Quirks

	// PayloadLen and CRC come from the payload section that follows the
	// header; ParseHeader fills them, except in AEAD frames, where they
	// are encrypted.
	PayloadLen uint32
	CRC        uint32
}

// Quirks are layouts the reference encoder produces that a decoder must
// accept (docs/protocol.md §10.1, §10.2); this package never writes them.
type Quirks uint8

const (
	// QuirkSkippedRoles: fewer role bytes than msg_count needs, because
	// the encoder skipped messages with unknown roles. Roles is nil.
	QuirkSkippedRoles Quirks = 1 << iota
	// QuirkMaxTokensWithoutValue: FlagMaxTokens is set but no value
	// follows (max_tokens was null, a float, negative or not a number).
	// The decoder clears the flag.
	QuirkMaxTokensWithoutValue
)

// appendHeader appends the fixed and variable header of h, with its
// payload_len and crc32 left to the caller. It fails if the header would
// exceed 65,535 bytes, which only tens of thousands of messages can cause.
func appendHeader(dst []byte, h *Header) ([]byte, error) {
	start := len(dst)
	dst = append(dst, 0, 0, byte(h.Schema), byte(h.Security))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.Flags))
	dst = append(dst, make([]byte, 12)...)
	switch {
	case h.Opaque != nil || h.Schema == SchemaCustom:
		dst = append(dst, h.Opaque...)
	case h.Schema.routing():
		dst = appendString(dst, h.Model)
		dst = varint.AppendUvarint(dst, h.MsgCount)
		dst = appendRoles(dst, h.Roles)
		dst = varint.AppendUvarint(dst, h.ContentHint)
		if h.Flags&FlagMaxTokens != 0 {
			dst = varint.AppendUvarint(dst, h.MaxTokens)
		}
		if h.HasCost {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(h.Cost))
		}
	case h.Schema.response():
		dst = appendString(dst, h.ID)
		dst = appendString(dst, h.Model)
		dst = append(dst, byte(h.FinishReason))
		dst = varint.AppendUvarint(dst, h.PromptTokens)
		dst = varint.AppendUvarint(dst, h.CompletionTokens)
		if h.Flags&FlagCachedTokens != 0 {
			dst = varint.AppendUvarint(dst, h.CachedTokens)
		}
		if h.Flags&FlagReasoningTokens != 0 {
			dst = varint.AppendUvarint(dst, h.ReasoningTokens)
		}
		if h.Flags&FlagCostEstimate != 0 {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(h.Cost))
		}
	}
	n := len(dst) - start
	if n > maxHeaderLen {
		return dst[:start], errorf(ErrInvalidInput, "header_len", -1, "header of %d bytes exceeds 65,535", n)
	}
	binary.LittleEndian.PutUint16(dst[start:], uint16(n))
	return dst, nil
}

// appendString appends a one-byte length and s, which callers have cut to
// at most 255 bytes.
func appendString(dst, s []byte) []byte {
	return append(append(dst, byte(len(s))), s...)
}

// truncateString cuts s to at most 255 bytes on a UTF-8 boundary.
func truncateString(s []byte) []byte {
	if len(s) <= maxHeaderString {
		return s
	}
	s = s[:maxHeaderString]
	for len(s) > 0 && !utf8.Valid(s) {
		s = s[:len(s)-1]
	}
	return s
}

// appendRoles packs roles four to a byte, the first in the low bits.
func appendRoles(dst []byte, roles []Role) []byte {
	for i := 0; i < len(roles); i += 4 {
		var b byte
		for j := i; j < min(i+4, len(roles)); j++ {
			b |= byte(roles[j]&3) << (2 * (j - i))
		}
		dst = append(dst, b)
	}
	return dst
}

// parseHeader reads the fixed and variable header at the start of frame
// (the bytes after the prefix) into h, and returns the header length.
// Every field must be consistent: header_len at least 20 and inside the
// frame, a known schema and security mode, no reserved or undefined bits,
// and a variable header that the schema's fields fill exactly.
func parseHeader(h *Header, frame []byte) (int, error) {
	const off = len(prefixM2M) // offsets in errors count from the frame start
	if len(frame) < fixedHeaderLen {
		return 0, errorf(ErrMalformed, "fixed header", off, "%d bytes, need 20", len(frame))
	}
	hl := int(binary.LittleEndian.Uint16(frame))
	if hl < fixedHeaderLen || hl > len(frame) {
		return 0, errorf(ErrMalformed, "header_len", off, "%d outside 20..%d", hl, len(frame))
	}
	*h = Header{Roles: h.Roles[:0]}
	h.Schema, h.Security = Schema(frame[2]), Security(frame[3])
	h.Flags = Flags(binary.LittleEndian.Uint32(frame[4:]))
	if !h.Schema.known() {
		return 0, errorf(ErrInvalidCodec, "schema", off+2, "unknown schema %#02x", frame[2])
	}
	if h.Security > SecurityAEAD {
		return 0, errorf(ErrInvalidCodec, "security", off+3, "unknown security mode %#02x", frame[3])
	}
	defined := Flags(FlagCompressed)
	switch {
	case h.Schema.routing():
		defined |= requestFlagsDefined
	case h.Schema.response():
		defined |= responseFlagsDefined
	}
	if bad := h.Flags &^ defined; bad != 0 {
		return 0, errorf(ErrMalformed, "flags", off+4, "undefined or reserved bits %#08x set", uint32(bad))
	}
	for i, b := range frame[8:fixedHeaderLen] {
		if b != 0 {
			return 0, errorf(ErrMalformed, "reserved", off+8+i, "reserved byte is %#02x", b)
		}
	}
	v := frame[fixedHeaderLen:hl]
	var err error
	switch {
	case h.Schema.routing():
		err = h.parseRouting(v)
	case h.Schema == SchemaStream:
		// The reference skips Stream headers; ours are response headers.
		if h.parseResponse(v) != nil {
			*h = Header{Schema: h.Schema, Security: h.Security, Flags: h.Flags, Roles: h.Roles[:0], Opaque: v}
		}
	case h.Schema.response():
		err = h.parseResponse(v)
	default:
		h.Opaque = v
	}
	if err != nil {
		return 0, wrap(ErrMalformed, h.Schema.String()+" header", off+fixedHeaderLen, err)
	}
	return hl, nil
}

// headerReader walks a variable header, remembering the first error.
type headerReader struct {
	b   []byte
	err error
}

func (r *headerReader) fail(e error) {
	if r.err == nil {
		r.err = e
	}
}

func (r *headerReader) byte() byte {
	if len(r.b) < 1 {
		r.fail(errShortHeader)
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *headerReader) string() []byte {
	n := int(r.byte())
	if len(r.b) < n {
		r.fail(errShortHeader)
		return nil
	}
	s := r.b[:n:n]
	r.b = r.b[n:]
	if !utf8.Valid(s) {
		r.fail(errHeaderUTF8)
	}
	return s
}

func (r *headerReader) uvarint() uint32 {
	x, n, err := varint.Uvarint(r.b)
	if err != nil {
		r.fail(err)
		return 0
	}
	r.b = r.b[n:]
	return x
}

func (r *headerReader) f32() float32 {
	if len(r.b) < 4 {
		r.fail(errShortHeader)
		return 0
	}
	f := math.Float32frombits(binary.LittleEndian.Uint32(r.b))
	r.b = r.b[4:]
	return f
}

var (
	errShortHeader = errors.New("header_len ends inside a field")
	errLongHeader  = errors.New("bytes left over after the last field")
	errHeaderUTF8  = errors.New("invalid UTF-8")
)

// parseRouting reads a routing header, which must fill v exactly. The
// canonical layout has ceil(msg_count/4) role bytes, a max_tokens value iff
// FlagMaxTokens, and the 4-byte cost the reference always writes. The
// reference also writes fewer role bytes (skipping unknown roles) and the
// flag without a value; those layouts are accepted when the canonical one
// does not fit and they do. Last comes the canonical layout without a cost,
// which the protocol's specification allows.
func (h *Header) parseRouting(v []byte) error {
	r := headerReader{b: v}
	h.Model = r.string()
	h.MsgCount = r.uvarint()
	if r.err != nil {
		return r.err
	}
	rest := r.b
	need := (int(h.MsgCount) + 3) / 4
	withMax := h.Flags&FlagMaxTokens != 0
	padded := rolesPadded(rest, int(h.MsgCount))
	if padded && h.routingTail(rest, need, withMax, true) {
		h.Roles = unpackRoles(h.Roles, rest[:need], int(h.MsgCount))
		return nil
	}
	// Nearest layouts first: the flag without its value, then fewer role
	// bytes (with and then without the value). Some frames fit more than
	// one; the header alone cannot tell, so for quirk layouts the header
	// fields are a best effort (the payload, which the CRC covers, decodes
	// the same either way). They are tried one by one, never listed: a
	// header of 64 KiB has a hundred thousand.
	fits := func(roleBytes int, valued bool) bool {
		if !h.routingTail(rest, roleBytes, valued, true) {
			return false
		}
		if roleBytes < need {
			h.Quirks |= QuirkSkippedRoles
			h.Roles = nil
		} else {
			h.Roles = unpackRoles(h.Roles, rest[:need], int(h.MsgCount))
		}
		if valued != withMax {
			h.Quirks |= QuirkMaxTokensWithoutValue
			h.Flags &^= FlagMaxTokens
		}
		return true
	}
	if withMax && padded && fits(need, false) {
		return nil
	}
	for rb := min(need-1, len(rest)); rb >= 0; rb-- { // role bytes are inside the header
		if fits(rb, withMax) || withMax && fits(rb, false) {
			return nil
		}
	}
	if padded && h.routingTail(rest, need, withMax, false) {
		h.Roles = unpackRoles(h.Roles, rest[:need], int(h.MsgCount))
		return nil
	}
	return errLongHeader
}

// routingTail reads what follows the roles if they take roleBytes bytes,
// and reports whether that fills rest exactly: content_hint, max_tokens if
// withMax, and a 4-byte cost if withCost.
func (h *Header) routingTail(rest []byte, roleBytes int, withMax, withCost bool) bool {
	if roleBytes > len(rest) {
		return false
	}
	r := headerReader{b: rest[roleBytes:]}
	hint := r.uvarint()
	var maxTokens uint32
	if withMax {
		maxTokens = r.uvarint()
	}
	want := 0
	if withCost {
		want = 4
	}
	if r.err != nil || len(r.b) != want {
		return false
	}
	h.ContentHint, h.MaxTokens, h.HasCost = hint, maxTokens, withCost
	if withCost {
		h.Cost = r.f32()
	}
	return true
}

// rolesPadded reports whether the role bytes of n messages at the start of
// rest exist and have their unused high bits zero, as encoders must write.
func rolesPadded(rest []byte, n int) bool {
	need := (n + 3) / 4
	if need > len(rest) {
		return false
	}
	return n%4 == 0 || rest[need-1]>>(2*(n%4)) == 0
}

// unpackRoles appends n 2-bit roles from packed to dst.
func unpackRoles(dst []Role, packed []byte, n int) []Role {
	for i := range n {
		dst = append(dst, Role(packed[i/4]>>(2*(i%4))&3))
	}
	return dst
}

// parseResponse reads a response header, which must fill v exactly.
func (h *Header) parseResponse(v []byte) error {
	r := headerReader{b: v}
	h.ID = r.string()
	h.Model = r.string()
	h.FinishReason = FinishReason(r.byte())
	h.PromptTokens = r.uvarint()
	h.CompletionTokens = r.uvarint()
	if h.Flags&FlagCachedTokens != 0 {
		h.CachedTokens = r.uvarint()
	}
	if h.Flags&FlagReasoningTokens != 0 {
		h.ReasoningTokens = r.uvarint()
	}
	if h.HasCost = h.Flags&FlagCostEstimate != 0; h.HasCost {
		h.Cost = r.f32()
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail(errLongHeader)
	}
	return r.err
}
