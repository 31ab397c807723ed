// Package session implements the M2M session protocol of the Rust reference
// (docs/protocol.md §7): HELLO, ACCEPT and REJECT to negotiate,
// DATA to carry messages of any codec format, PING, PONG and CLOSE, all in
// the reference's JSON envelope, over any byte stream (see Conn).
//
// Negotiation follows the reference: a common major version; the first of
// my algorithms that the peer also offers; my preferred tokenizer encoding
// if the peer has it, else my first that it has, else cl100k, the
// protocol's canonical fallback. TokenNative messages are sent with the
// agreed encoding. (The reference tokenizes "LlamaBpe" as cl100k and so
// cannot decode the Llama 3 ids m2m sends under it; it does not offer
// LlamaBpe by default, and neither does m2m. m2m decodes the reference's
// L messages, whose ids mean the same in both.) m2m also negotiates frame security, in
// the capabilities' "extensions" map, which the reference ignores: the key
// "frame_security" lists the modes a peer accepts, best first ("aead",
// "hmac", "none"); a peer without it, such as the reference, accepts only
// "none". The agreed mode is the first of mine the peer accepts; any mode
// but none needs M2M v1 (the only format that carries security) and a key
// both ends derive for the session (see package keys).
//
// The state machine is stricter than the reference's: a message in the
// wrong state is an error naming both, a rejected HELLO closes the
// session, a session expires after its idle timeout, and DATA is decoded
// only in a format both ends offered (the reference decodes whatever the
// content's prefix names).
package session

import (
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/tokenizer"
)

// Protocol constants.
const (
	Version          = "3.0"
	AgentType        = "m2m-go"
	EncodingCl100k   = "Cl100kBase"
	EncodingO200k    = "O200kBase"
	EncodingLlama3   = "LlamaBpe"
	ExtFrameSecurity = "frame_security"
	DefaultTimeout   = 300 * time.Second
)

var algorithmNames = map[codec.Algorithm]string{
	codec.None: "none", codec.M2M: "m2m", codec.TokenNative: "tokennative", codec.Brotli: "brotli",
}

// AlgorithmName returns the session name of a codec algorithm.
func AlgorithmName(a codec.Algorithm) string { return algorithmNames[a] }

// encodingOf returns the tokenizer of a session encoding name.
func encodingOf(name string) (tokenizer.Encoding, bool) {
	switch name {
	case EncodingCl100k:
		return tokenizer.Cl100kBase, true
	case EncodingO200k:
		return tokenizer.O200kBase, true
	case EncodingLlama3:
		return tokenizer.Llama3, true
	}
	return 0, false
}

func algorithmOf(name string) (codec.Algorithm, bool) {
	for a, n := range algorithmNames {
		if n == name {
			return a, true
		}
	}
	return 0, false
}

// State is where a session is in its life.
type State int

// The states.
const (
	Initial State = iota
	HelloSent
	Established
	Closing
	Closed
)

func (s State) String() string {
	return [...]string{"initial", "hello-sent", "established", "closing", "closed"}[s]
}

// Errors of the state machine.
var (
	ErrState    = errors.New("session: message not allowed in this state")
	ErrRejected = errors.New("session: negotiation failed")
	ErrExpired  = errors.New("session: expired")
	// ErrNotAgreed: DATA in a format that the negotiation did not agree on.
	ErrNotAgreed = errors.New("session: algorithm not agreed")
)

// Config configures a Session; the zero value is a plain session offering
// M2M, Brotli and passthrough.
type Config struct {
	// Algorithms to offer, best first. Default: M2M, Brotli, TokenNative,
	// None.
	Algorithms []codec.Algorithm
	// Encodings to offer, best first, and the preferred one. Defaults:
	// cl100k and o200k, cl100k.
	Encodings []string
	Preferred string
	// Security lists the frame security modes to accept, best first.
	// Default: none only.
	Security []codec.Security
	// Key returns the frame key of a session, for modes other than none.
	Key func(sessionID string) ([]byte, error)
	// Codec options for the session's encoder and decoder (limits, Brotli).
	Codec []codec.Option
	// Timeout is the idle time after which the session expires; default 300s.
	Timeout time.Duration
	// Now returns the current time; default time.Now. For tests.
	Now func() time.Time
}

func (c *Config) defaults() {
	if len(c.Algorithms) == 0 {
		c.Algorithms = []codec.Algorithm{codec.M2M, codec.Brotli, codec.TokenNative, codec.None}
	}
	if len(c.Encodings) == 0 {
		c.Encodings = []string{EncodingCl100k, EncodingO200k}
	}
	if c.Preferred == "" {
		c.Preferred = EncodingCl100k
	}
	if len(c.Security) == 0 {
		c.Security = []codec.Security{codec.SecurityNone}
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Agreement is the outcome of a negotiation.
type Agreement struct {
	Algorithm codec.Algorithm
	// Fallbacks are the other algorithms both offer, in my order: Send uses
	// the first that can carry a text the agreed one cannot (M2M needs
	// JSON, TokenNative text without overlong runs, None text that does not
	// look like a message). Empty under frame security. Receive accepts
	// the agreed algorithm and these, and nothing else.
	Fallbacks     []codec.Algorithm
	Encoding      string
	FrameSecurity codec.Security
	Streaming     bool
	MLRouting     bool
}

// Negotiate settles what mine can use with peer, by the rules of the
// package documentation, or returns the rejection to send.
func Negotiate(mine, peer *Capabilities) (Agreement, *Rejection) {
	major := func(v string) string { return strings.SplitN(v, ".", 2)[0] }
	if major(mine.Version) != major(peer.Version) {
		return Agreement{}, &Rejection{Code: CodeVersionMismatch,
			Message: fmt.Sprintf("Version %s not compatible with %s", peer.Version, mine.Version)}
	}
	var a Agreement
	var common []codec.Algorithm
	for _, name := range mine.Compression.Algorithms {
		if alg, ok := algorithmOf(name); ok && slices.Contains(peer.Compression.Algorithms, name) && !slices.Contains(common, alg) {
			common = append(common, alg)
		}
	}
	if len(common) == 0 {
		return Agreement{}, &Rejection{Code: CodeNoCommonAlgorithm, Message: "No common compression algorithm"}
	}
	a.Algorithm, a.Fallbacks = common[0], common[1:]
	a.Encoding = EncodingCl100k
	if slices.Contains(peer.Compression.Encodings, mine.Compression.PreferredEncoding) {
		a.Encoding = mine.Compression.PreferredEncoding
	} else {
		for _, e := range mine.Compression.Encodings {
			if slices.Contains(peer.Compression.Encodings, e) {
				a.Encoding = e
				break
			}
		}
	}
	a.Streaming = mine.Compression.Streaming && peer.Compression.Streaming
	a.MLRouting = mine.Compression.MLRouting && peer.Compression.MLRouting

	theirs := securityModes(peer)
	found := false
	for _, m := range securityModes(mine) {
		if slices.Contains(theirs, m) {
			a.FrameSecurity, found = m, true
			break
		}
	}
	if !found {
		return Agreement{}, &Rejection{Code: CodeSecurityPolicy, Message: "No common frame security mode"}
	}
	if a.FrameSecurity != codec.SecurityNone {
		if !slices.Contains(mine.Compression.Algorithms, "m2m") || !slices.Contains(peer.Compression.Algorithms, "m2m") {
			return Agreement{}, &Rejection{Code: CodeSecurityPolicy, Message: "Frame security needs the m2m algorithm"}
		}
		a.Algorithm, a.Fallbacks = codec.M2M, nil
	}
	return a, nil
}

// securityModes reads the frame_security extension; without it a peer
// accepts plain frames only.
func securityModes(c *Capabilities) []codec.Security {
	list, ok := c.Extensions[ExtFrameSecurity]
	if !ok {
		return []codec.Security{codec.SecurityNone}
	}
	var modes []codec.Security
	for name := range strings.SplitSeq(list, ",") {
		switch strings.TrimSpace(name) {
		case "none":
			modes = append(modes, codec.SecurityNone)
		case "hmac":
			modes = append(modes, codec.SecurityHMAC)
		case "aead":
			modes = append(modes, codec.SecurityAEAD)
		}
	}
	return modes
}

// Session is one end of a session. It is not safe for concurrent use.
type Session struct {
	cfg    Config
	state  State
	id     string
	local  Capabilities
	agreed Agreement
	enc    *codec.Encoder
	dec    *codec.Decoder
	seen   time.Time // last activity
}

// New returns a session in state Initial.
func New(cfg Config) *Session {
	cfg.defaults()
	s := &Session{cfg: cfg}
	s.local = Capabilities{
		Version: Version, AgentID: newUUID(), AgentType: AgentType,
		Compression: Compression{
			Encodings: cfg.Encodings, PreferredEncoding: cfg.Preferred, Streaming: true,
		},
		Security:   ThreatSecurity{BlockThreshold: 0.8},
		Extensions: map[string]string{},
	}
	for _, a := range cfg.Algorithms {
		s.local.Compression.Algorithms = append(s.local.Compression.Algorithms, AlgorithmName(a))
	}
	var modes []string
	for _, m := range cfg.Security {
		modes = append(modes, m.String())
	}
	if len(modes) != 1 || modes[0] != "none" {
		s.local.Extensions[ExtFrameSecurity] = strings.Join(modes, ",")
	}
	return s
}

// State returns the session's state.
func (s *Session) State() State { return s.state }

// ID returns the session id, once known.
func (s *Session) ID() string { return s.id }

// Agreement returns what was negotiated, once established.
func (s *Session) Agreement() Agreement { return s.agreed }

// Capabilities returns what this end offers.
func (s *Session) Capabilities() *Capabilities { return &s.local }

func (s *Session) message(t Type, payload any) *Message {
	return &Message{Type: t, SessionID: s.id, Payload: payload, Timestamp: uint64(s.cfg.Now().UnixMilli())}
}

func (s *Session) wrongState(t Type) error {
	return fmt.Errorf("%w: %s in state %s", ErrState, t, s.state)
}

// Hello starts a negotiation as the client.
func (s *Session) Hello() (*Message, error) {
	if s.state != Initial {
		return nil, s.wrongState(Hello)
	}
	s.state = HelloSent
	m := s.message(Hello, &s.local)
	m.SessionID = ""
	return m, nil
}

// HandleHello answers a client's HELLO as the server: ACCEPT, establishing
// the session, or REJECT, closing it.
func (s *Session) HandleHello(m *Message) (*Message, error) {
	if s.state != Initial || m.Type != Hello {
		return nil, s.wrongState(m.Type)
	}
	peer, ok := m.Payload.(*Capabilities)
	if !ok {
		return nil, fmt.Errorf("%w: HELLO without capabilities", ErrMessage)
	}
	a, rej := Negotiate(&s.local, peer)
	if rej != nil {
		s.state = Closed
		return s.message(Reject, rej), fmt.Errorf("%w: %s: %s", ErrRejected, rej.Code, rej.Message)
	}
	s.id = newUUID()
	if err := s.establish(a); err != nil {
		s.state = Closed
		rej := &Rejection{Code: CodeSecurityPolicy, Message: err.Error()}
		return s.message(Reject, rej), err
	}
	return s.message(Accept, &s.local), nil
}

// HandleAccept completes the client's negotiation with the server's ACCEPT
// or REJECT.
func (s *Session) HandleAccept(m *Message) error {
	if s.state != HelloSent {
		return s.wrongState(m.Type)
	}
	switch m.Type {
	case Reject:
		s.state = Closed
		if r, ok := m.Payload.(*Rejection); ok {
			return fmt.Errorf("%w: %s: %s", ErrRejected, r.Code, r.Message)
		}
		return fmt.Errorf("%w: unknown rejection", ErrRejected)
	case Accept:
	default:
		return s.wrongState(m.Type)
	}
	peer, ok := m.Payload.(*Capabilities)
	if !ok || m.SessionID == "" {
		return fmt.Errorf("%w: ACCEPT needs capabilities and a session id", ErrMessage)
	}
	a, rej := Negotiate(&s.local, peer)
	if rej != nil {
		s.state = Closed
		return fmt.Errorf("%w: %s: %s", ErrRejected, rej.Code, rej.Message)
	}
	s.id = m.SessionID
	if err := s.establish(a); err != nil {
		s.state = Closed
		return err
	}
	return nil
}

// establish builds the codecs for the agreement.
func (s *Session) establish(a Agreement) error {
	opts := slices.Clone(s.cfg.Codec)
	if a.FrameSecurity != codec.SecurityNone {
		if s.cfg.Key == nil {
			return fmt.Errorf("%w: %v frames need a key", ErrRejected, a.FrameSecurity)
		}
		key, err := s.cfg.Key(s.id)
		if err != nil {
			return fmt.Errorf("%w: session key: %v", ErrRejected, err)
		}
		opts = append(opts, codec.WithSecurity(a.FrameSecurity, key))
	}
	if enc, ok := encodingOf(a.Encoding); ok {
		opts = append(opts, codec.WithTokenizer(enc))
	}
	var err error
	if s.enc, err = codec.NewEncoder(opts...); err != nil {
		return err
	}
	if s.dec, err = codec.NewDecoder(opts...); err != nil {
		return err
	}
	s.agreed, s.state, s.seen = a, Established, s.cfg.Now()
	return nil
}

// active checks that the session is established and not expired, and
// records activity.
func (s *Session) active(t Type) error {
	if s.state != Established {
		return s.wrongState(t)
	}
	now := s.cfg.Now()
	if now.Sub(s.seen) > s.cfg.Timeout {
		s.state = Closed
		return ErrExpired
	}
	s.seen = now
	return nil
}

// Send wraps text in a DATA message, encoded with the agreed algorithm, or
// the first fallback that can carry it.
func (s *Session) Send(text []byte) (*Message, error) {
	if err := s.active(Data); err != nil {
		return nil, err
	}
	alg := s.agreed.Algorithm
	wire, err := s.enc.AppendWire(nil, text, alg)
	for _, fb := range s.agreed.Fallbacks {
		if !errors.Is(err, codec.ErrInvalidInput) || !utf8.Valid(text) {
			break
		}
		alg = fb
		wire, err = s.enc.AppendWire(nil, text, alg)
	}
	if err != nil {
		return nil, err
	}
	size := uint64(len(text))
	return s.message(Data, &DataPayload{Algorithm: AlgorithmName(alg), Content: string(wire), OriginalSize: &size}), nil
}

// Receive decodes a DATA message. The format comes from the content's
// prefix, as in the reference, whatever the algorithm field says, and it
// must be one that both ends offered: the agreed algorithm or one of its
// fallbacks (the peer orders the same algorithms by its own preference, so
// it may send any of them). Content without a prefix is passthrough, so it
// is accepted only if both offered none; the legacy formats, which no
// session negotiates, never are. Anything else is refused before it is
// decoded, with an error wrapping ErrNotAgreed; in a secured session
// anything but a secured M2M frame is refused with codec.ErrIntegrity.
func (s *Session) Receive(m *Message) ([]byte, error) {
	if m.Type != Data {
		return nil, fmt.Errorf("%w: %s is not DATA", ErrMessage, m.Type)
	}
	if err := s.active(Data); err != nil {
		return nil, err
	}
	d, ok := m.Payload.(*DataPayload)
	if !ok {
		return nil, fmt.Errorf("%w: DATA without a data payload", ErrMessage)
	}
	alg, err := codec.Detect([]byte(d.Content[:min(len(d.Content), maxPrefix)]))
	switch {
	case err != nil:
		return nil, err
	case s.agreed.FrameSecurity != codec.SecurityNone && alg != codec.M2M:
		return nil, fmt.Errorf("%w: %v content in a %v session", codec.ErrIntegrity, alg, s.agreed.FrameSecurity)
	case alg != s.agreed.Algorithm && !slices.Contains(s.agreed.Fallbacks, alg):
		return nil, fmt.Errorf("%w: %v content in a session that agreed on %v", ErrNotAgreed, alg, append([]codec.Algorithm{s.agreed.Algorithm}, s.agreed.Fallbacks...))
	}
	text, _, err := s.dec.AppendDecode(nil, []byte(d.Content))
	return text, err
}

// maxPrefix is more than the longest prefix codec.Detect reads, and at
// least what it quotes of an unsupported one.
const maxPrefix = 32

// Handle answers the control messages: PING gets PONG in any state but
// Closed, PONG is noted, CLOSE closes. It returns the reply to send, if any.
func (s *Session) Handle(m *Message) (*Message, error) {
	switch m.Type {
	case Ping:
		if s.state == Closed {
			return nil, s.wrongState(Ping)
		}
		s.seen = s.cfg.Now()
		return s.message(Pong, nil), nil
	case Pong:
		s.seen = s.cfg.Now()
		return nil, nil
	case Close:
		s.state = Closed
		return nil, nil
	}
	return nil, fmt.Errorf("%w: %s is not a control message", ErrMessage, m.Type)
}

// Ping returns a PING to keep the session alive.
func (s *Session) Ping() (*Message, error) {
	if s.state != Established {
		return nil, s.wrongState(Ping)
	}
	return s.message(Ping, nil), nil
}

// Close starts closing the session and returns the CLOSE to send.
func (s *Session) Close() (*Message, error) {
	if s.state == Closed || s.state == Closing {
		return nil, s.wrongState(Close)
	}
	s.state = Closing
	return s.message(Close, nil), nil
}

// newUUID returns a random (version 4) UUID in lower-case hyphenated form.
func newUUID() string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // never fails
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
