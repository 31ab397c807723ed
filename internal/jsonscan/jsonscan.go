package jsonscan

import (
	"errors"
	"fmt"
	"math"

	"github.com/m2m-go/m2m/internal/cpu"
)

// Limits bounds the resources one value may use. A zero field takes its
// value from [DefaultLimits]; a negative field means no limit. The zero
// Limits is therefore the protocol's defaults.
type Limits struct {
	// MaxDepth is the deepest nesting of arrays and objects allowed: a
	// scalar has depth 0, [] and {} depth 1, {"a":[1]} depth 2.
	MaxDepth int
	// MaxStringLen is the longest string token allowed, keys included,
	// counted in raw bytes between the quotes (an escape such as \u00e9
	// counts its six bytes as written).
	MaxStringLen int
	// MaxArrayLen is the most elements one array may hold.
	MaxArrayLen int
}

// DefaultLimits are the limits of the M2M protocol's security section
// (docs/protocol.md §8): nesting depth 32, strings of 10 MiB and
// arrays of 10,000 elements. serde_json, which the reference uses, allows a
// depth of 127 and has no string or array limit; use Limits{MaxDepth: 127,
// MaxStringLen: -1, MaxArrayLen: -1} to accept exactly what it accepts.
var DefaultLimits = Limits{MaxDepth: 32, MaxStringLen: 10 << 20, MaxArrayLen: 10_000}

// resolve returns l with zero fields replaced by their defaults and
// negative fields by math.MaxInt.
func (l Limits) resolve() Limits {
	fix := func(v, def int) int {
		switch {
		case v == 0:
			return def
		case v < 0:
			return math.MaxInt
		}
		return v
	}
	return Limits{
		MaxDepth:     fix(l.MaxDepth, DefaultLimits.MaxDepth),
		MaxStringLen: fix(l.MaxStringLen, DefaultLimits.MaxStringLen),
		MaxArrayLen:  fix(l.MaxArrayLen, DefaultLimits.MaxArrayLen),
	}
}

// The ways a value can be rejected. Every error [Scan] returns is an
// [*Error] wrapping exactly one of them. The three limit errors also match
// [ErrLimit] under errors.Is.
var (
	// ErrSyntax: not RFC 8259 JSON: an unexpected byte (including a byte
	// order mark, a raw control character in a string, a bad escape or a
	// malformed number), a missing value, input ending early, or anything
	// but whitespace after the value.
	ErrSyntax = errors.New("jsonscan: syntax error")
	// ErrUTF8: a string holds bytes that are not valid UTF-8 (overlong
	// forms, UTF-8-encoded surrogates and code points above U+10FFFF
	// included).
	ErrUTF8 = errors.New("jsonscan: invalid UTF-8 in string")
	// ErrSurrogate: a \u escape of a UTF-16 surrogate is not part of a
	// high-then-low pair.
	ErrSurrogate = errors.New("jsonscan: unpaired surrogate escape")
	// ErrNumberRange: a number is out of serde_json's f64 range; see the
	// package documentation for the exact rule.
	ErrNumberRange = errors.New("jsonscan: number out of range")

	// ErrLimit is matched by each of the three errors below.
	ErrLimit = errors.New("jsonscan: limit exceeded")
	// ErrDepth: arrays and objects nest deeper than Limits.MaxDepth.
	ErrDepth = fmt.Errorf("%w: nesting too deep", ErrLimit)
	// ErrStringTooLong: a string token is longer than Limits.MaxStringLen.
	ErrStringTooLong = fmt.Errorf("%w: string too long", ErrLimit)
	// ErrArrayTooLong: an array has more than Limits.MaxArrayLen elements.
	ErrArrayTooLong = fmt.Errorf("%w: array too long", ErrLimit)
)

// An Error reports why a value was rejected and where.
type Error struct {
	// Offset is the byte offset in the input where the problem was found:
	// the unexpected byte (len(src) when the input ends early), the first
	// byte of a bad UTF-8 sequence, the backslash of a bad escape, the
	// first byte of an out-of-range number, the opening bracket one level
	// too deep, the opening quote of an over-long string, or the first
	// byte of the element one past an array's limit.
	Offset int
	// Err is one of the package's sentinel errors.
	Err error
}

func (e *Error) Error() string { return fmt.Sprintf("%v at offset %d", e.Err, e.Offset) }

func (e *Error) Unwrap() error { return e.Err }

// Role codes of the request routing header (§3.7), as stored in
// [Fields.Roles]. "developer" shares the code of "system".
const (
	RoleSystem    byte = 0
	RoleUser      byte = 1
	RoleAssistant byte = 2
	RoleTool      byte = 3
	// RoleOther marks, in [Fields.MessageRoles], a message that is not an
	// object with one of the roles above.
	RoleOther byte = 0xFF
)

// Finish-reason codes of the response header (§3.9), as stored in
// [Fields.FinishReason].
const (
	FinishStop          byte = 0x00
	FinishLength        byte = 0x01
	FinishToolCalls     byte = 0x02
	FinishContentFilter byte = 0x03
	FinishUnknown       byte = 0xFF // any other string, not a string, or absent
)

// Request-specific flag bits (§3.5), as stored in [Fields.RequestFlags].
// Bit 15 is reserved and never set.
const (
	ReqSystemPrompt    uint16 = 0x0001 // some message's role is "system" or "developer"
	ReqTools           uint16 = 0x0002 // key "tools" or "functions"
	ReqToolChoice      uint16 = 0x0004 // key "tool_choice" or "function_call"
	ReqImages          uint16 = 0x0008 // a content part's type is "image_url"
	ReqStream          uint16 = 0x0010 // "stream" is true
	ReqResponseFormat  uint16 = 0x0020 // key "response_format"
	ReqMaxTokens       uint16 = 0x0040 // key "max_tokens" or "max_completion_tokens"
	ReqReasoningEffort uint16 = 0x0080 // key "reasoning_effort"
	ReqServiceTier     uint16 = 0x0100 // key "service_tier"
	ReqSeed            uint16 = 0x0200 // key "seed"
	ReqLogprobs        uint16 = 0x0400 // key "logprobs"
	ReqUser            uint16 = 0x0800 // key "user"
	ReqTemperature     uint16 = 0x1000 // key "temperature"
	ReqTopP            uint16 = 0x2000 // key "top_p"
	ReqStop            uint16 = 0x4000 // key "stop"
)

// Response-specific flag bits (§3.5), as stored in [Fields.ResponseFlags].
// Bits 8 to 15 are reserved and never set.
const (
	RespToolCalls       uint16 = 0x01 // choices[0].message has a "tool_calls" key
	RespRefusal         uint16 = 0x02 // choices[0].message.refusal is a string
	RespContentFiltered uint16 = 0x04 // choices[0].finish_reason is "content_filter"
	RespUsage           uint16 = 0x08 // key "usage", any value
	RespTruncated       uint16 = 0x10 // choices[0].finish_reason is "length"
	RespCachedTokens    uint16 = 0x20 // usage.prompt_tokens_details.cached_tokens > 0
	RespReasoningTokens uint16 = 0x40 // usage.completion_tokens_details.reasoning_tokens > 0
	RespCostEstimate    uint16 = 0x80 // set together with RespUsage, as the reference encoder does
)

// Fields receives what [Scan] extracts from one JSON value: everything the
// M2M v1 encoder needs to classify it (§3.11) and to build its request
// routing header (§3.5, §3.7) or response header (§3.5, §3.9). Both sets
// are filled in the same pass whatever the classification.
//
// Every lookup is in the top-level object; when the value is not an object,
// every field is zero but FinishReason, which is [FinishUnknown]. Duplicate keys are allowed and the last occurrence
// wins at every level, as with serde_json's map: a later "messages" array
// replaces all that an earlier one contributed, a later "role" in a message
// replaces the earlier one.
//
// The byte slices alias either the input or a buffer owned by the Fields,
// so they stay valid until the input is modified or the Fields is passed to
// Scan again. Reusing one Fields per worker makes Scan allocation-free once
// its buffers have grown to the largest record.
type Fields struct {
	// IsObject reports whether the value is an object.
	IsObject bool
	// Presence of top-level keys, whatever their values (null included),
	// but HasError: an "error" whose value is neither null nor false (a
	// batch API's result line, or a gateway's log of a call that went
	// well, says "error": null).
	HasModel, HasMessages, HasChoices     bool
	HasUsage, HasError, HasInput, HasData bool
	// IDChatcmpl reports whether "id" is a string starting with "chatcmpl-"
	// (after unescaping). With HasMessages, HasModel and HasChoices it
	// decides request versus response; see [Fields.IsResponse].
	IDChatcmpl bool

	// Model, ID and Object are the decoded (unescaped) values of the
	// top-level "model", "id" and "object" keys when those are strings
	// (non-nil then, even when empty), and nil otherwise; the encoder
	// writes "" for nil.
	Model, ID, Object []byte

	// RequestFlags holds the request-specific flag bits (Req*).
	RequestFlags uint16
	// MsgCount is the number of elements of "messages" when it is an
	// array, whatever they are; 0 otherwise. The encoder writes it
	// truncated to uint32, as the reference does.
	MsgCount int
	// Roles lists, in order, the role code of each message that is an
	// object whose "role" is "system", "developer", "user", "assistant" or
	// "tool". Other messages are skipped, not replaced by a placeholder,
	// so len(Roles) <= MsgCount (§3.7, §10.2).
	Roles []byte
	// MessageRoles has one entry per message, in order: its role code as in
	// Roles, or RoleOther. An encoder that keeps the role list aligned with
	// MsgCount, writing a placeholder for unknown roles, uses it.
	MessageRoles []byte
	// ContentHint is the wrapping uint32 sum over messages of the byte
	// length of the decoded "content" when it is a string, or, when it is
	// an array, of the decoded "text" of every element whose "text" is a
	// string.
	ContentHint uint32
	// MaxTokens is "max_tokens" if that key exists (even as null), else
	// "max_completion_tokens", truncated to uint32; MaxTokensOK reports
	// whether that value is an unsigned integer (a literal with no sign,
	// fraction or exponent that fits in uint64), and MaxTokens is 0 when
	// it is not. ReqMaxTokens may be set while MaxTokensOK is false
	// (§10.1); the encoder writes the varint only when both are.
	MaxTokens   uint32
	MaxTokensOK bool

	// ResponseFlags holds the response-specific flag bits (Resp*).
	ResponseFlags uint16
	// FinishReason is the code of choices[0].finish_reason (Finish*).
	FinishReason byte
	// Token counts from "usage", each 0 unless it is an unsigned integer,
	// truncated to uint32: usage.prompt_tokens, usage.completion_tokens,
	// usage.prompt_tokens_details.cached_tokens and
	// usage.completion_tokens_details.reasoning_tokens. The flags
	// RespCachedTokens and RespReasoningTokens test the untruncated value.
	PromptTokens, CompletionTokens, CachedTokens, ReasoningTokens uint32

	buf   []byte  // unescaped strings
	stack []frame // open arrays and objects
	win   *window // the string kernel's masks, if it has any (here, not in the scanner, which each Scan zeroes)
}

// IsResponse reports whether the M2M v1 encoder treats the value as a
// response (§3.11): it is not a request with both "messages" and "model"
// keys, and it has a "choices" key or an "id" starting with "chatcmpl-".
// Everything else, non-objects included, is encoded as a request.
func (f *Fields) IsResponse() bool {
	return !(f.HasMessages && f.HasModel) && (f.HasChoices || f.IDChatcmpl)
}

// reset clears f for a new value, keeping its buffers.
func (f *Fields) reset() {
	*f = Fields{FinishReason: FinishUnknown, Roles: f.Roles[:0], MessageRoles: f.MessageRoles[:0], buf: f.buf[:0], stack: f.stack[:0], win: f.win}
	if f.win == nil {
		f.win = new(window)
	}
	f.win.reset()
}

// Scan validates src as exactly one JSON value under the acceptance rules
// of the package documentation and the limits lim, and fills out with the
// header fields of the value. It returns nil or an [*Error]; after an error
// out holds partial results that mean nothing.
//
// Scan never panics on any input (a nil out is a programmer error and
// does). It allocates only to grow out's buffers and to return an error.
func Scan(src []byte, lim Limits, out *Fields) error {
	out.reset()
	s := scanner{src: src, lim: lim.resolve(), out: out, finish: FinishUnknown}
	if kind, off := s.run(); kind != errNone {
		return &Error{Offset: off, Err: kind.sentinel()}
	}
	return nil
}

// The architecture files. Each build has exactly one of string_amd64.go
// and string_other.go (purego, or any other GOARCH), and that file defines:
//
//	var kernels []cpu.Kernel // what it can dispatch to; registered here
//	type window              // what a kernel keeps of the input, held by Fields
//	func (*window) reset()   // forgets it, for a new input
//	func (*window) scanString(src []byte, i int) (end, saved int, kind errKind)
//
// window.scanString is [scanString] done by the selected kernel, or
// scanString itself when none is (the generic code every kernel is tested
// against). The amd64 kernel and its Go declaration are generated
// (masks_amd64.s, masks_stubs_amd64.go, by _asm/main.go).
func init() { cpu.Register("jsonscan", kernels...) }
