package codec

import (
	"bytes"
	"errors"

	"github.com/m2m-go/m2m/internal/jsonscan"
)

// scan validates text as JSON within the limits and fills e.h with the
// header its shape calls for.
func (e *Encoder) scan(text []byte) error {
	if err := jsonscan.Scan(text, e.opts.limits.json(), &e.fields); err != nil {
		kind := ErrInvalidInput
		if errors.Is(err, jsonscan.ErrLimit) {
			kind = ErrLimit
		}
		return wrap(kind, "json", -1, err)
	}
	headerOf(&e.h, &e.fields, e.opts.referenceSchemas, &e.prices)
	return nil
}

// headerOf fills h with the header M2M v1 gives a JSON value with the
// scanned fields f. The schema follows the reference encoder's rule
// (M2MCodec::encode: messages and model make a Request, choices or a
// chatcmpl- id a Response, anything else a Request), extended, unless
// reference is set, with the schemas the protocol defines and the
// reference decodes but never writes:
//
//   - an object whose "object" is "chat.completion.chunk": Stream, with a
//     response header;
//   - one with both "messages" and "model": Request;
//   - one with "error" and no "choices": Error, with a response header
//     ("error": null or false is no error: a batch API's result line);
//   - one whose "object" is "list" and that has "data": EmbeddingResponse,
//     with a response header;
//   - one with "choices", or whose "id" starts with "chatcmpl-": Response;
//   - one with "input" and "model" (and no "messages"): EmbeddingRequest,
//     with a routing header;
//   - anything else, arrays and scalars included: Request.
//
// The reference's decoder reads all of these: it parses the headers of
// EmbeddingRequest, EmbeddingResponse and Error frames as we write them and
// skips those of Stream frames.
func headerOf(h *Header, f *jsonscan.Fields, reference bool, prices *priceMemo) {
	roles := h.Roles[:0]
	*h = Header{Schema: schemaOf(f)}
	if reference {
		h.Schema = referenceSchemaOf(f)
	}
	if h.Schema.routing() {
		h.Model = truncateString(f.Model)
		h.MsgCount = uint32(f.MsgCount)
		h.Roles = rolesOf(roles, f)
		h.ContentHint = f.ContentHint
		h.Flags = Flags(f.RequestFlags)
		// The flag says "a max_tokens value follows": set it only when one
		// does, unlike the reference, whose decoder would otherwise read the
		// cost as max_tokens (docs/protocol.md §10.1).
		if f.MaxTokensOK {
			h.MaxTokens = f.MaxTokens
		} else {
			h.Flags &^= FlagMaxTokens
		}
		h.Cost, h.HasCost = requestCost(h, prices.of(f.Model)), true
		return
	}
	h.Roles = roles
	h.ID = truncateString(f.ID)
	h.Model = truncateString(f.Model)
	h.FinishReason = FinishReason(f.FinishReason)
	h.PromptTokens, h.CompletionTokens = f.PromptTokens, f.CompletionTokens
	h.CachedTokens, h.ReasoningTokens = f.CachedTokens, f.ReasoningTokens
	h.Flags = Flags(f.ResponseFlags) &^ FlagCostEstimate
	if h.Flags&FlagUsage != 0 {
		h.Flags |= FlagCostEstimate
		h.Cost, h.HasCost = prices.of(f.Model).cost(f.PromptTokens, f.CompletionTokens), true
	}
}

func schemaOf(f *jsonscan.Fields) Schema {
	switch {
	case !f.IsObject:
		return SchemaRequest
	case bytes.Equal(f.Object, []byte("chat.completion.chunk")):
		return SchemaStream
	case f.HasMessages && f.HasModel:
		return SchemaRequest
	case f.HasError && !f.HasChoices:
		return SchemaError
	case bytes.Equal(f.Object, []byte("list")) && f.HasData:
		return SchemaEmbeddingResponse
	case f.HasChoices || f.IDChatcmpl:
		return SchemaResponse
	case f.HasInput && f.HasModel:
		return SchemaEmbeddingRequest
	}
	return SchemaRequest
}

// referenceSchemaOf is the schema the reference's encoder gives a value:
// Request or Response only.
func referenceSchemaOf(f *jsonscan.Fields) Schema {
	switch {
	case !f.IsObject:
		return SchemaRequest
	case f.HasMessages && f.HasModel:
		return SchemaRequest
	case f.HasChoices || f.IDChatcmpl:
		return SchemaResponse
	}
	return SchemaRequest
}

// rolesOf appends one role per message to dst. A message without a
// recognised role gets RoleTool where the reference writes nothing: the
// commonest such role is the legacy "function", a tool result, and a
// placeholder keeps the list as long as msg_count says, which is what
// decoders read.
func rolesOf(dst []Role, f *jsonscan.Fields) []Role {
	for _, r := range f.MessageRoles {
		if r == jsonscan.RoleOther {
			r = byte(RoleTool)
		}
		dst = append(dst, Role(r))
	}
	return dst
}
