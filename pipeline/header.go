package pipeline

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/m2m-go/m2m/codec"
)

// ErrHeader is the error Test returns for a record of a container whose
// M2M v1 header is not the one its payload calls for. List counts headers
// without decoding payloads, so it would believe such a header.
var ErrHeader = errors.New("pipeline: M2M header does not match its payload")

// headerCheck derives the M2M v1 header of each decoded record of a
// container as the encoder that wrote it did, and compares it with the
// header the record carries (see Test).
type headerCheck struct {
	enc *codec.Encoder
	buf []byte
}

func newHeaderCheck(opts ...codec.Option) (*headerCheck, error) {
	enc, err := codec.NewEncoder(opts...)
	return &headerCheck{enc: enc}, err
}

// framePrefix is the length of a binary frame's #M2M|1| prefix.
const framePrefix = len("#M2M|1|")

// frame checks the header of frame, a binary M2M v1 frame that has
// decoded to text. Its security byte is left out: the derived header is
// plain, the frame's says how it is sealed.
func (c *headerCheck) frame(frame, text []byte) error {
	var err error
	if c.buf, err = c.enc.AppendHeader(c.buf[:0], text); err != nil {
		return fmt.Errorf("%w: no header derives from the payload: %v", ErrHeader, err)
	}
	h := frame[framePrefix:]
	h = h[:binary.LittleEndian.Uint16(h)] // header_len: the frame decoded, so it fits
	if len(h) == len(c.buf) && bytes.Equal(h[:3], c.buf[:3]) && bytes.Equal(h[4:], c.buf[4:]) {
		return nil
	}
	return mismatch(h, c.buf)
}

// mismatch says how the header got differs from want.
func mismatch(got, want []byte) error {
	var g, w codec.Header
	if codec.ParseHeaderBytes(&g, got) == nil && codec.ParseHeaderBytes(&w, want) == nil {
		switch {
		case g.Schema != w.Schema:
			return fmt.Errorf("%w: schema %v, the payload's is %v", ErrHeader, g.Schema, w.Schema)
		case !bytes.Equal(g.Model, w.Model):
			return fmt.Errorf("%w: model %q, the payload's is %q", ErrHeader, g.Model, w.Model)
		}
	}
	return fmt.Errorf("%w: its fields are not the payload's", ErrHeader)
}
