package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Type is the kind of a session message.
type Type string

// The message types of the reference.
const (
	Hello  Type = "HELLO"
	Accept Type = "ACCEPT"
	Reject Type = "REJECT"
	Data   Type = "DATA"
	Ping   Type = "PING"
	Pong   Type = "PONG"
	Close  Type = "CLOSE"
)

// ErrMessage is wrapped by every error about a message that does not
// parse: bad JSON, an unknown type, a missing required field.
var ErrMessage = errors.New("session: invalid message")

// Message is the reference's JSON envelope: {"type", "session_id",
// "payload", "timestamp"} with absent fields omitted. Payload is a
// *Capabilities for HELLO and ACCEPT, a *Rejection for REJECT, a
// *DataPayload for DATA, and nil for the others (written as {}).
type Message struct {
	Type      Type
	SessionID string // empty when absent
	Payload   any
	Timestamp uint64 // Unix milliseconds
}

// Capabilities are what a peer offers in HELLO and ACCEPT.
type Capabilities struct {
	Version     string            `json:"version"`
	AgentID     string            `json:"agent_id"`
	AgentType   string            `json:"agent_type"`
	Compression Compression       `json:"compression"`
	Security    ThreatSecurity    `json:"security"`
	Extensions  map[string]string `json:"extensions"`
}

// Compression lists the algorithms and tokenizer encodings a peer supports.
type Compression struct {
	Algorithms        []string `json:"algorithms"` // "m2m", "tokennative", "brotli", "none"
	MaxPayload        uint64   `json:"max_payload"`
	Streaming         bool     `json:"streaming"`
	MLRouting         bool     `json:"ml_routing"`
	Encodings         []string `json:"encodings"`          // "Cl100kBase", "O200kBase", "LlamaBpe"
	PreferredEncoding string   `json:"preferred_encoding"` // default "Cl100kBase"
}

// ThreatSecurity is the reference's content-scanning block; m2m does no
// threat scanning and only negotiates it for compatibility.
type ThreatSecurity struct {
	ThreatDetection bool    `json:"threat_detection"`
	ModelVersion    *string `json:"model_version"`
	BlockingMode    bool    `json:"blocking_mode"`
	BlockThreshold  float32 `json:"block_threshold"`
}

// Rejection is the payload of REJECT.
type Rejection struct {
	Code    string `json:"code"` // VERSION_MISMATCH, NO_COMMON_ALGORITHM, SECURITY_POLICY, RATE_LIMITED, UNKNOWN
	Message string `json:"message"`
}

// The rejection codes.
const (
	CodeVersionMismatch   = "VERSION_MISMATCH"
	CodeNoCommonAlgorithm = "NO_COMMON_ALGORITHM"
	CodeSecurityPolicy    = "SECURITY_POLICY"
	CodeRateLimited       = "RATE_LIMITED"
	CodeUnknown           = "UNKNOWN"
)

// DataPayload is the payload of DATA: a wire message and its algorithm.
type DataPayload struct {
	Algorithm    string  `json:"algorithm"`
	Content      string  `json:"content"`
	OriginalSize *uint64 `json:"original_size,omitempty"`
}

// MarshalJSON writes the envelope as the reference does.
func (m *Message) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	writeJSON(&b, string(m.Type))
	if m.SessionID != "" {
		b.WriteString(`,"session_id":`)
		writeJSON(&b, m.SessionID)
	}
	b.WriteString(`,"payload":`)
	if m.Payload == nil {
		b.WriteString(`{}`)
	} else {
		p, err := json.Marshal(m.Payload)
		if err != nil {
			return nil, err
		}
		b.Write(p)
	}
	fmt.Fprintf(&b, `,"timestamp":%d}`, m.Timestamp)
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, s string) {
	p, _ := json.Marshal(s)
	b.Write(p)
}

// UnmarshalJSON reads an envelope, choosing the payload's shape from the
// type (the reference tries shapes in turn, so a malformed DATA payload
// becomes an empty one there).
func (m *Message) UnmarshalJSON(p []byte) error {
	var raw struct {
		Type      *Type           `json:"type"`
		SessionID *string         `json:"session_id"`
		Payload   json.RawMessage `json:"payload"`
		Timestamp *uint64         `json:"timestamp"`
	}
	if err := json.Unmarshal(p, &raw); err != nil {
		return fmt.Errorf("%w: %v", ErrMessage, err)
	}
	if raw.Type == nil || raw.Timestamp == nil {
		return fmt.Errorf("%w: type and timestamp are required", ErrMessage)
	}
	*m = Message{Type: *raw.Type, Timestamp: *raw.Timestamp}
	if raw.SessionID != nil {
		m.SessionID = *raw.SessionID
	}
	present := len(raw.Payload) > 0 && string(raw.Payload) != "null"
	switch m.Type {
	case Hello, Accept:
		c := new(Capabilities)
		if err := c.unmarshal(raw.Payload); err != nil {
			return err
		}
		m.Payload = c
	case Reject:
		var r struct{ Code, Message *string }
		if err := strictUnmarshal(raw.Payload, &r); err != nil || r.Code == nil || r.Message == nil {
			return fmt.Errorf("%w: REJECT needs a payload with code and message", ErrMessage)
		}
		m.Payload = &Rejection{Code: *r.Code, Message: *r.Message}
	case Data:
		var d struct {
			Algorithm    *string `json:"algorithm"`
			Content      *string `json:"content"`
			OriginalSize *uint64 `json:"original_size"`
		}
		if err := strictUnmarshal(raw.Payload, &d); err != nil || d.Algorithm == nil || d.Content == nil {
			return fmt.Errorf("%w: DATA needs a payload with algorithm and content", ErrMessage)
		}
		m.Payload = &DataPayload{Algorithm: *d.Algorithm, Content: *d.Content, OriginalSize: d.OriginalSize}
	case Ping, Pong, Close:
		if present && raw.Payload[0] != '{' {
			return fmt.Errorf("%w: %s payload must be an object", ErrMessage, m.Type)
		}
	default:
		return fmt.Errorf("%w: unknown type %q", ErrMessage, m.Type)
	}
	return nil
}

func strictUnmarshal(p []byte, v any) error {
	if len(p) == 0 {
		return errors.New("missing payload")
	}
	return json.Unmarshal(p, v)
}

// unmarshal reads Capabilities, requiring the fields the reference
// requires and defaulting the others as it does.
func (c *Capabilities) unmarshal(p []byte) error {
	var raw struct {
		Version     *string `json:"version"`
		AgentID     *string `json:"agent_id"`
		AgentType   *string `json:"agent_type"`
		Compression *struct {
			Algorithms        *[]string `json:"algorithms"`
			MaxPayload        *uint64   `json:"max_payload"`
			Streaming         *bool     `json:"streaming"`
			MLRouting         *bool     `json:"ml_routing"`
			Encodings         []string  `json:"encodings"`
			PreferredEncoding *string   `json:"preferred_encoding"`
		} `json:"compression"`
		Security *struct {
			ThreatDetection *bool    `json:"threat_detection"`
			ModelVersion    *string  `json:"model_version"`
			BlockingMode    *bool    `json:"blocking_mode"`
			BlockThreshold  *float32 `json:"block_threshold"`
		} `json:"security"`
		Extensions map[string]string `json:"extensions"`
	}
	if err := strictUnmarshal(p, &raw); err != nil {
		return fmt.Errorf("%w: capabilities: %v", ErrMessage, err)
	}
	cp, sp := raw.Compression, raw.Security
	if raw.Version == nil || raw.AgentID == nil || raw.AgentType == nil || cp == nil || sp == nil ||
		cp.Algorithms == nil || cp.MaxPayload == nil || cp.Streaming == nil || cp.MLRouting == nil ||
		sp.ThreatDetection == nil || sp.BlockingMode == nil || sp.BlockThreshold == nil {
		return fmt.Errorf("%w: capabilities lack a required field", ErrMessage)
	}
	*c = Capabilities{
		Version: *raw.Version, AgentID: *raw.AgentID, AgentType: *raw.AgentType,
		Compression: Compression{
			Algorithms: *cp.Algorithms, MaxPayload: *cp.MaxPayload, Streaming: *cp.Streaming,
			MLRouting: *cp.MLRouting, Encodings: cp.Encodings, PreferredEncoding: EncodingCl100k,
		},
		Security: ThreatSecurity{
			ThreatDetection: *sp.ThreatDetection, ModelVersion: sp.ModelVersion,
			BlockingMode: *sp.BlockingMode, BlockThreshold: *sp.BlockThreshold,
		},
		Extensions: raw.Extensions,
	}
	if cp.PreferredEncoding != nil {
		c.Compression.PreferredEncoding = *cp.PreferredEncoding
	}
	if c.Compression.Encodings == nil {
		c.Compression.Encodings = []string{}
	}
	if c.Extensions == nil {
		c.Extensions = map[string]string{}
	}
	return nil
}
