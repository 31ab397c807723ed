package jsonscan

import "bytes"

// The extraction hooks. The scanner calls them only in containers with a
// context (see scan.go), so the bulk of a record (message text, tool
// schemas) never reaches them. Each key hook first undoes what an earlier
// occurrence of the same key set, which makes the last occurrence win.

// text returns the decoded form of the string body raw: raw itself when it
// has no escapes (saved == 0), else a copy unescaped at the end of the
// Fields' buffer, capped so that appending to it cannot clobber the buffer.
func (s *scanner) text(raw []byte, saved int) []byte {
	if saved == 0 {
		return raw
	}
	b := s.out.buf
	n := len(b)
	b = appendUnescaped(b, raw)
	s.out.buf = b
	return b[n:len(b):len(b)]
}

// equal reports whether the string body raw decodes to want, unescaping
// into the Fields' buffer only when it has escapes and the right length.
func (s *scanner) equal(raw []byte, saved int, want string) bool {
	if len(raw)-saved != len(want) {
		return false
	}
	if saved == 0 {
		return string(raw) == want
	}
	n := len(s.out.buf)
	eq := string(s.text(raw, saved)) == want
	s.out.buf = s.out.buf[:n]
	return eq
}

// onOpen is called when an object or array with context ctx opens.
func (s *scanner) onOpen(ctx uint8) {
	switch ctx {
	case ctxTop:
		s.out.IsObject = true
	case ctxMessage:
		s.msgRole, s.msgHint, s.msgImage = -1, 0, false
	case ctxPart:
		s.partText, s.partImage = 0, false
	}
}

// onClose is called when an object or array with context ctx closes; n is
// its element count if it is an array, and parentN that of the array it is
// an element of (so an element's index is parentN-1).
func (s *scanner) onClose(ctx uint8, n, parentN int) {
	out := s.out
	switch ctx {
	case ctxMessages:
		out.MsgCount = n
		out.MessageRoles = padRoles(out.MessageRoles, n)
	case ctxMessage:
		if s.msgRole >= 0 {
			out.MessageRoles = append(padRoles(out.MessageRoles, parentN-1), byte(s.msgRole))
			out.Roles = append(out.Roles, byte(s.msgRole))
			if byte(s.msgRole) == RoleSystem {
				s.system = true
			}
		}
		out.ContentHint += s.msgHint
		s.images = s.images || s.msgImage
	case ctxPart:
		s.msgHint += s.partText
		s.msgImage = s.msgImage || s.partImage
	case ctxTop:
		s.final()
	}
}

// final assembles the flags and numbers once the top-level object closed.
func (s *scanner) final() {
	out := s.out
	f := s.reqFlags
	if s.system {
		f |= ReqSystemPrompt
	}
	if s.images {
		f |= ReqImages
	}
	if s.stream {
		f |= ReqStream
	}
	out.RequestFlags = f
	switch {
	case s.maxTokensKey:
		out.MaxTokens, out.MaxTokensOK = uint32(s.maxTokens), s.maxTokensOK
	case s.maxCompletionKey:
		out.MaxTokens, out.MaxTokensOK = uint32(s.maxCompletionTokens), s.maxCompletionTokensOK
	}

	var r uint16
	if s.toolCalls {
		r |= RespToolCalls
	}
	if s.refusal {
		r |= RespRefusal
	}
	switch s.finish {
	case FinishContentFilter:
		r |= RespContentFiltered
	case FinishLength:
		r |= RespTruncated
	}
	if out.HasUsage {
		r |= RespUsage | RespCostEstimate
	}
	if s.cachedTokens > 0 {
		r |= RespCachedTokens
	}
	if s.reasonTokens > 0 {
		r |= RespReasoningTokens
	}
	out.ResponseFlags = r
	out.FinishReason = s.finish
	out.PromptTokens = uint32(s.promptTokens)
	out.CompletionTokens = uint32(s.complTokens)
	out.CachedTokens = uint32(s.cachedTokens)
	out.ReasoningTokens = uint32(s.reasonTokens)
}

// onKey is called for each key of an object with context ctx (raw is the
// undecoded body). It returns the slot of the key's value.
func (s *scanner) onKey(ctx uint8, raw []byte, saved int) uint8 {
	if saved == 0 {
		return s.key(ctx, raw)
	}
	n := len(s.out.buf)
	slot := s.key(ctx, s.text(raw, saved))
	s.out.buf = s.out.buf[:n]
	return slot
}

// key handles the decoded key of an object with context ctx.
func (s *scanner) key(ctx uint8, key []byte) uint8 {
	switch ctx {
	case ctxTop:
		return s.topKey(key)
	case ctxMessage:
		switch string(key) {
		case "role":
			s.msgRole = -1
			return slotRole
		case "content":
			s.msgHint, s.msgImage = 0, false
			return slotContent
		}
	case ctxPart:
		switch string(key) {
		case "text":
			s.partText = 0
			return slotText
		case "type":
			s.partImage = false
			return slotType
		}
	case ctxChoice:
		switch string(key) {
		case "finish_reason":
			s.finish = FinishUnknown
			return slotFinishReason
		case "message":
			s.toolCalls, s.refusal = false, false
			return slotChoiceMessage
		}
	case ctxChoiceMessage:
		switch string(key) {
		case "tool_calls":
			s.toolCalls = true
		case "refusal":
			s.refusal = false
			return slotRefusal
		}
	case ctxUsage:
		switch string(key) {
		case "prompt_tokens":
			s.promptTokens = 0
			return slotPromptTokens
		case "completion_tokens":
			s.complTokens = 0
			return slotCompletionTokens
		case "prompt_tokens_details":
			s.cachedTokens = 0
			return slotPromptDetails
		case "completion_tokens_details":
			s.reasonTokens = 0
			return slotCompletionDetails
		}
	case ctxPromptDetails:
		if string(key) == "cached_tokens" {
			s.cachedTokens = 0
			return slotCachedTokens
		}
	case ctxCompletionDetails:
		if string(key) == "reasoning_tokens" {
			s.reasonTokens = 0
			return slotReasoningTokens
		}
	}
	return slotNone
}

// topKey handles a key of the top-level object.
func (s *scanner) topKey(key []byte) uint8 {
	out := s.out
	switch string(key) {
	case "model":
		out.HasModel, out.Model = true, nil
		return slotModel
	case "id":
		out.ID, out.IDChatcmpl = nil, false
		return slotID
	case "object":
		out.Object = nil
		return slotObject
	case "messages":
		out.HasMessages = true
		out.MsgCount, out.Roles, out.MessageRoles, out.ContentHint = 0, out.Roles[:0], out.MessageRoles[:0], 0
		s.system, s.images = false, false
		return slotMessages
	case "choices":
		out.HasChoices = true
		s.finish, s.toolCalls, s.refusal = FinishUnknown, false, false
		return slotChoices
	case "usage":
		out.HasUsage = true
		s.promptTokens, s.complTokens, s.cachedTokens, s.reasonTokens = 0, 0, 0, 0
		return slotUsage
	case "stream":
		s.stream = false
		return slotStream
	case "max_tokens":
		s.reqFlags |= ReqMaxTokens
		s.maxTokensKey, s.maxTokensOK, s.maxTokens = true, false, 0
		return slotMaxTokens
	case "max_completion_tokens":
		s.reqFlags |= ReqMaxTokens
		s.maxCompletionKey, s.maxCompletionTokensOK, s.maxCompletionTokens = true, false, 0
		return slotMaxCompletionTokens
	case "tools", "functions":
		s.reqFlags |= ReqTools
	case "tool_choice", "function_call":
		s.reqFlags |= ReqToolChoice
	case "response_format":
		s.reqFlags |= ReqResponseFormat
	case "reasoning_effort":
		s.reqFlags |= ReqReasoningEffort
	case "service_tier":
		s.reqFlags |= ReqServiceTier
	case "seed":
		s.reqFlags |= ReqSeed
	case "logprobs":
		s.reqFlags |= ReqLogprobs
	case "user":
		s.reqFlags |= ReqUser
	case "temperature":
		s.reqFlags |= ReqTemperature
	case "top_p":
		s.reqFlags |= ReqTopP
	case "stop":
		s.reqFlags |= ReqStop
	case "error":
		out.HasError = true // until its value turns out null or false
		return slotError
	case "input":
		out.HasInput = true
	case "data":
		out.HasData = true
	}
	return slotNone
}

// onString is called for a string value in a slot other than slotNone.
func (s *scanner) onString(slot uint8, raw []byte, saved int) {
	out := s.out
	switch slot {
	case slotModel:
		out.Model = s.text(raw, saved)
	case slotID:
		out.ID = s.text(raw, saved)
		out.IDChatcmpl = bytes.HasPrefix(out.ID, []byte("chatcmpl-"))
	case slotObject:
		out.Object = s.text(raw, saved)
	case slotRole:
		s.msgRole = s.role(raw, saved)
	case slotContent:
		s.msgHint = uint32(len(raw) - saved)
	case slotText:
		s.partText = uint32(len(raw) - saved)
	case slotType:
		s.partImage = s.equal(raw, saved, "image_url")
	case slotFinishReason:
		s.finish = s.finishReason(raw, saved)
	case slotRefusal:
		s.refusal = true
	}
}

// role returns the role code of a role string, or -1.
func (s *scanner) role(raw []byte, saved int) int8 {
	switch {
	case s.equal(raw, saved, "user"):
		return int8(RoleUser)
	case s.equal(raw, saved, "assistant"):
		return int8(RoleAssistant)
	case s.equal(raw, saved, "system"), s.equal(raw, saved, "developer"):
		return int8(RoleSystem)
	case s.equal(raw, saved, "tool"):
		return int8(RoleTool)
	}
	return -1
}

// finishReason returns the code of a finish_reason string.
func (s *scanner) finishReason(raw []byte, saved int) byte {
	switch {
	case s.equal(raw, saved, "stop"):
		return FinishStop
	case s.equal(raw, saved, "length"):
		return FinishLength
	case s.equal(raw, saved, "tool_calls"):
		return FinishToolCalls
	case s.equal(raw, saved, "content_filter"):
		return FinishContentFilter
	}
	return FinishUnknown
}

// onUint is called for a number value that is an unsigned integer, in a
// slot other than slotNone.
func (s *scanner) onUint(slot uint8, u uint64) {
	switch slot {
	case slotMaxTokens:
		s.maxTokens, s.maxTokensOK = u, true
	case slotMaxCompletionTokens:
		s.maxCompletionTokens, s.maxCompletionTokensOK = u, true
	case slotPromptTokens:
		s.promptTokens = u
	case slotCompletionTokens:
		s.complTokens = u
	case slotCachedTokens:
		s.cachedTokens = u
	case slotReasoningTokens:
		s.reasonTokens = u
	}
}

// padRoles extends roles with RoleOther to n entries.
func padRoles(roles []byte, n int) []byte {
	for len(roles) < n {
		roles = append(roles, RoleOther)
	}
	return roles
}
