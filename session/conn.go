package session

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Framing is how a Conn delimits messages on a byte stream.
type Framing int

const (
	// LengthPrefixed writes each message as a 4-byte big-endian length and
	// the JSON: any byte stream, binary-safe.
	LengthPrefixed Framing = iota
	// Lines writes each message as one line of JSON: text streams (the
	// envelope never contains a raw newline).
	Lines
)

// DefaultMaxMessage bounds one envelope: the protocol's 16 MiB message
// limit, grown by base64 and JSON escaping, plus room for the envelope.
const DefaultMaxMessage = 24 << 20

// ErrTooLarge is returned for a message over the Conn's limit.
var ErrTooLarge = errors.New("session: message too large")

// Conn sends and receives session messages over a byte stream.
type Conn struct {
	r       *bufio.Reader
	w       io.Writer
	framing Framing
	max     int
}

// NewConn returns a Conn on rw; max bounds the size of one message (0
// means DefaultMaxMessage).
func NewConn(rw io.ReadWriter, framing Framing, max int) *Conn {
	if max <= 0 {
		max = DefaultMaxMessage
	}
	return &Conn{r: bufio.NewReader(rw), w: rw, framing: framing, max: max}
}

// Send writes one message.
func (c *Conn) Send(m *Message) error {
	p, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if len(p) > c.max {
		return fmt.Errorf("%w: %d bytes", ErrTooLarge, len(p))
	}
	switch c.framing {
	case LengthPrefixed:
		p = append(binary.BigEndian.AppendUint32(nil, uint32(len(p))), p...)
	case Lines:
		p = append(p, '\n')
	}
	_, err = c.w.Write(p)
	return err
}

// Receive reads one message.
func (c *Conn) Receive() (*Message, error) {
	var p []byte
	switch c.framing {
	case LengthPrefixed:
		var n [4]byte
		if _, err := io.ReadFull(c.r, n[:]); err != nil {
			return nil, err
		}
		size := binary.BigEndian.Uint32(n[:])
		if int64(size) > int64(c.max) {
			return nil, fmt.Errorf("%w: %d bytes announced", ErrTooLarge, size)
		}
		p = make([]byte, size)
		if _, err := io.ReadFull(c.r, p); err != nil {
			return nil, err
		}
	case Lines:
		for {
			chunk, err := c.r.ReadSlice('\n')
			p = append(p, chunk...)
			if len(p) > c.max+1 {
				return nil, fmt.Errorf("%w: line over %d bytes", ErrTooLarge, c.max)
			}
			if err == nil {
				break
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				if err == io.EOF && len(p) > 0 {
					err = io.ErrUnexpectedEOF
				}
				return nil, err
			}
		}
	}
	m := new(Message)
	if err := json.Unmarshal(p, m); err != nil {
		return nil, err
	}
	return m, nil
}

// Dial negotiates a session as the client on c.
func Dial(c *Conn, cfg Config) (*Session, error) {
	s := New(cfg)
	hello, err := s.Hello()
	if err != nil {
		return nil, err
	}
	if err := c.Send(hello); err != nil {
		return nil, err
	}
	m, err := c.Receive()
	if err != nil {
		return nil, err
	}
	if err := s.HandleAccept(m); err != nil {
		return nil, err
	}
	return s, nil
}

// Serve negotiates a session as the server on c: it reads the HELLO and
// answers it. A rejection is sent, then returned as an error.
func Serve(c *Conn, cfg Config) (*Session, error) {
	s := New(cfg)
	m, err := c.Receive()
	if err != nil {
		return nil, err
	}
	reply, herr := s.HandleHello(m)
	if reply != nil {
		if err := c.Send(reply); err != nil {
			return nil, err
		}
	}
	if herr != nil {
		return nil, herr
	}
	return s, nil
}
