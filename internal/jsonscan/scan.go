package jsonscan

import "bytes"

// errKind names a sentinel error without the cost of an interface value on
// the hot path.
type errKind uint8

const (
	errNone errKind = iota
	errSyntax
	errUTF8
	errSurrogate
	errNumberRange
	errDepth
	errStringTooLong
	errArrayTooLong
)

func (k errKind) sentinel() error {
	return [...]error{nil, ErrSyntax, ErrUTF8, ErrSurrogate, ErrNumberRange, ErrDepth, ErrStringTooLong, ErrArrayTooLong}[k]
}

// A context says what an open array or object is, for extraction. Only the
// containers on the paths the headers read get one; everything else is
// ctxNone and is only validated.
const (
	ctxNone              uint8 = iota
	ctxTop                     // the top-level object
	ctxMessages                // top.messages, an array
	ctxMessage                 // top.messages[i], an object
	ctxContent                 // top.messages[i].content, an array
	ctxPart                    // top.messages[i].content[j], an object
	ctxChoices                 // top.choices, an array
	ctxChoice                  // top.choices[0], an object
	ctxChoiceMessage           // top.choices[0].message, an object
	ctxUsage                   // top.usage, an object
	ctxPromptDetails           // top.usage.prompt_tokens_details, an object
	ctxCompletionDetails       // top.usage.completion_tokens_details, an object
	numCtx
)

// A slot says what the value about to be scanned is, for extraction: the
// key (or array position) it sits under in a container with a context.
const (
	slotNone uint8 = iota
	slotRoot
	slotModel
	slotID
	slotObject
	slotMessages
	slotChoices
	slotUsage
	slotStream
	slotMaxTokens
	slotMaxCompletionTokens
	slotMessage
	slotRole
	slotContent
	slotPart
	slotText
	slotType
	slotChoice
	slotFinishReason
	slotChoiceMessage
	slotRefusal
	slotPromptTokens
	slotCompletionTokens
	slotPromptDetails
	slotCompletionDetails
	slotCachedTokens
	slotReasoningTokens
	slotError
	numSlots
)

// objectCtx and arrayCtx give the context of an object or array scanned
// in a slot.
var objectCtx, arrayCtx = func() (o, a [numSlots]uint8) {
	o[slotRoot] = ctxTop
	o[slotMessage] = ctxMessage
	o[slotPart] = ctxPart
	o[slotChoice] = ctxChoice
	o[slotChoiceMessage] = ctxChoiceMessage
	o[slotUsage] = ctxUsage
	o[slotPromptDetails] = ctxPromptDetails
	o[slotCompletionDetails] = ctxCompletionDetails
	a[slotMessages] = ctxMessages
	a[slotContent] = ctxContent
	a[slotChoices] = ctxChoices
	return o, a
}()

// elemSlot gives the slot of the elements of an array with a context.
// Only the first element of choices counts; the scanner clears the slot
// for the others.
var elemSlot = [numCtx]uint8{ctxMessages: slotMessage, ctxContent: slotPart, ctxChoices: slotChoice}

// A frame is an open array or object.
type frame struct {
	n   int   // elements so far (arrays)
	ctx uint8 // what it is, for extraction
	obj bool  // object rather than array
}

// scanner holds the state of one Scan: the input, the limits, and the
// extraction state that is not yet final (last-wins keys can still change
// it until their container closes).
type scanner struct {
	src []byte
	lim Limits
	out *Fields

	reqFlags  uint16 // key-presence request flags
	system    bool   // a message with a system/developer role
	images    bool   // a content part of type image_url
	stream    bool
	msgRole   int8   // role code of the open message, or -1
	msgHint   uint32 // content bytes of the open message
	msgImage  bool   // the open message has an image_url part
	partText  uint32 // text bytes of the open content part
	partImage bool   // the open content part is of type image_url

	maxTokens, maxCompletionTokens     uint64
	maxTokensKey, maxCompletionKey     bool
	maxTokensOK, maxCompletionTokensOK bool

	finish                     byte
	toolCalls, refusal         bool
	promptTokens, complTokens  uint64
	cachedTokens, reasonTokens uint64
}

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// skipSpace returns the offset of the first non-whitespace byte at or
// after i, or len(src).
func skipSpace(src []byte, i int) int {
	for i < len(src) && isSpace(src[i]) {
		i++
	}
	return i
}

// run scans the whole input. It returns errNone, or the kind and offset of
// the first problem.
//
// It is a pushdown automaton written as one function whose states are
// labels: value (a value starts), after (a value ended), element (an
// array element starts), key (an object key starts) and closed (a
// container ended). The open containers are on an explicit stack kept in
// the Fields, so deep input costs heap, not goroutine stack, and the
// stack's memory is reused from call to call. slot says what the value
// about to be scanned is for extraction; only values in a slot, and
// containers with a context, reach the hooks of hooks.go.
func (s *scanner) run() (errKind, int) {
	src := s.src
	maxDepth, maxStr, maxArr := s.lim.MaxDepth, s.lim.MaxStringLen, s.lim.MaxArrayLen
	stack := s.out.stack[:0]
	win := s.out.win
	var (
		i     int
		slot  = slotRoot
		end   int
		saved int
		kind  errKind
		top   *frame
	)

value: // a value starts at or after i, in slot
	if i < len(src) && src[i] <= ' ' {
		i = skipSpace(src, i)
	}
	if i >= len(src) {
		return errSyntax, i
	}
	switch c := src[i]; c {
	case '"':
		end, saved, kind = win.scanString(src, i+1)
		if kind != errNone {
			return kind, end
		}
		if end-i-2 > maxStr {
			return errStringTooLong, i
		}
		if slot > slotRoot {
			s.onString(slot, src[i+1:end-1], saved)
		}
		i = end
	case '{':
		if len(stack) >= maxDepth {
			return errDepth, i
		}
		ctx := objectCtx[slot]
		if ctx != ctxNone {
			s.onOpen(ctx)
		}
		stack = append(stack, frame{ctx: ctx, obj: true})
		s.out.stack = stack
		i = skipSpace(src, i+1)
		if i < len(src) && src[i] == '}' {
			i++
			goto closed
		}
		goto key
	case '[':
		if len(stack) >= maxDepth {
			return errDepth, i
		}
		ctx := arrayCtx[slot]
		stack = append(stack, frame{ctx: ctx})
		s.out.stack = stack
		i = skipSpace(src, i+1)
		if i < len(src) && src[i] == ']' {
			i++
			goto closed
		}
		top = &stack[len(stack)-1]
		goto element
	case 't':
		if !bytes.HasPrefix(src[i:], []byte("true")) {
			return errSyntax, i
		}
		if slot == slotStream {
			s.stream = true
		}
		i += 4
	case 'f':
		if !bytes.HasPrefix(src[i:], []byte("false")) {
			return errSyntax, i
		}
		if slot == slotError {
			s.out.HasError = false
		}
		i += 5
	case 'n':
		if !bytes.HasPrefix(src[i:], []byte("null")) {
			return errSyntax, i
		}
		if slot == slotError {
			s.out.HasError = false
		}
		i += 4
	default:
		if c != '-' && c-'0' > 9 {
			return errSyntax, i
		}
		var u uint64
		var isUint bool
		end, u, isUint, kind = scanNumber(src, i)
		if kind != errNone {
			return kind, end
		}
		if slot > slotRoot && isUint {
			s.onUint(slot, u)
		}
		i = end
	}

after: // a value ended at i
	if len(stack) == 0 {
		if i = skipSpace(src, i); i != len(src) {
			return errSyntax, i
		}
		return errNone, 0
	}
	if i < len(src) && src[i] <= ' ' {
		i = skipSpace(src, i)
	}
	if i >= len(src) {
		return errSyntax, i
	}
	top = &stack[len(stack)-1]
	switch src[i] {
	case ',':
		i++
		if top.obj {
			if i < len(src) && src[i] <= ' ' {
				i = skipSpace(src, i)
			}
			goto key
		}
		if i < len(src) && src[i] <= ' ' {
			i = skipSpace(src, i)
		}
		goto element
	case '}':
		if top.obj {
			i++
			goto closed
		}
	case ']':
		if !top.obj {
			i++
			goto closed
		}
	}
	return errSyntax, i

element: // an element of the array on top starts at i
	top.n++
	if top.n > maxArr {
		return errArrayTooLong, i
	}
	slot = elemSlot[top.ctx]
	if top.ctx == ctxChoices && top.n > 1 {
		slot = slotNone // only choices[0] counts
	}
	goto value

key: // a key of the object on top starts at i
	if i >= len(src) || src[i] != '"' {
		return errSyntax, i
	}
	end, saved, kind = win.scanString(src, i+1)
	if kind != errNone {
		return kind, end
	}
	if end-i-2 > maxStr {
		return errStringTooLong, i
	}
	slot = slotNone
	if ctx := stack[len(stack)-1].ctx; ctx != ctxNone {
		slot = s.onKey(ctx, src[i+1:end-1], saved)
	}
	i = end
	if i < len(src) && src[i] <= ' ' {
		i = skipSpace(src, i)
	}
	if i >= len(src) || src[i] != ':' {
		return errSyntax, i
	}
	i++
	goto value

closed: // the container on top ended just before i
	if f := stack[len(stack)-1]; f.ctx != ctxNone {
		parentN := 0
		if len(stack) > 1 {
			parentN = stack[len(stack)-2].n
		}
		s.onClose(f.ctx, f.n, parentN)
	}
	stack = stack[:len(stack)-1]
	goto after
}
