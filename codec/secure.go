package codec

import (
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"io"

	"golang.org/x/crypto/chacha20poly1305"
)

// Frame security (docs/protocol.md §4.1-4.3), with the real
// primitives only:
//
//   - HMAC (security 0x01): the plain frame with security byte 0x01, then
//     HMAC-SHA256 over every byte after the prefix, 32 bytes, at the end.
//   - AEAD (security 0x02): prefix, header (security byte 0x02), a random
//     12-byte nonce, then ChaCha20-Poly1305 of payload_len ‖ crc32 ‖
//     payload with the header as additional data, tag included.
//
// Unlike the reference, a decoder states the mode it requires: frames
// below it are rejected (the reference accepts a frame whose security byte
// was lowered, which is a forgery), a plain decoder refuses secured frames
// instead of ignoring their tag, and AEAD frames are authenticated before
// any of their header is interpreted.

const (
	hmacTagLen = sha256.Size
	aeadKeyLen = chacha20poly1305.KeySize
	nonceLen   = chacha20poly1305.NonceSize
	aeadTagLen = chacha20poly1305.Overhead
	minHMACKey = 16 // the reference's minimum
)

// security is the frame-security configuration of an Encoder or Decoder.
type security struct {
	mode  Security
	key   []byte      // HMAC key, or AEAD key
	mac   hash.Hash   // HMAC-SHA256 with key, reset per frame
	sum   []byte      // HMAC scratch
	aead  cipher.AEAD // for 32-byte keys
	nonce io.Reader   // random source for AEAD nonces; tests inject one
}

// WithSecurity makes an Encoder seal every M2M v1 frame in mode with key,
// and a Decoder require every frame to be sealed at least that strongly
// and verify it with key. HMAC keys must have at least 16 bytes (longer
// keys are used whole, as HMAC does); AEAD keys exactly 32. A Decoder
// configured for HMAC also opens AEAD frames if the key is 32 bytes; one
// configured for AEAD rejects HMAC and plain frames. SecurityNone (the
// default) writes plain frames and refuses secured ones.
func WithSecurity(mode Security, key []byte) Option {
	return func(o *options) error {
		s := security{mode: mode, key: append([]byte(nil), key...), nonce: rand.Reader}
		switch mode {
		case SecurityNone:
			s.key = nil
		case SecurityHMAC:
			if len(key) < minHMACKey {
				return fmt.Errorf("codec: HMAC key of %d bytes, need at least %d", len(key), minHMACKey)
			}
		case SecurityAEAD:
			if len(key) != aeadKeyLen {
				return fmt.Errorf("codec: AEAD key of %d bytes, need exactly %d", len(key), aeadKeyLen)
			}
		default:
			return fmt.Errorf("codec: unknown security mode %#02x", uint8(mode))
		}
		if s.key != nil {
			s.mac = hmac.New(sha256.New, s.key)
			s.sum = make([]byte, 0, hmacTagLen)
		}
		if len(key) == aeadKeyLen {
			var err error
			if s.aead, err = chacha20poly1305.New(s.key); err != nil {
				return err
			}
		}
		o.security = s
		return nil
	}
}

// seal turns the plain frame at dst[start:] into a secured one in place,
// appending what the mode needs.
func (s *security) seal(dst []byte, start int) ([]byte, error) {
	frame := dst[start:]
	frame[len(prefixM2M)+3] = byte(s.mode)
	switch s.mode {
	case SecurityHMAC:
		s.mac.Reset()
		s.mac.Write(frame[len(prefixM2M):])
		return s.mac.Sum(dst), nil
	case SecurityAEAD:
		// The plaintext is the payload section, which starts after the
		// header; the nonce goes in front of it, so shift it 12 bytes.
		hl := int(binary.LittleEndian.Uint16(frame[len(prefixM2M):]))
		at := start + len(prefixM2M) + hl
		n := len(dst) - at
		var room [nonceLen + aeadTagLen]byte
		dst = append(dst, room[:]...)[:len(dst)+nonceLen] // the tag's room stays in cap: Seal works in place
		copy(dst[at+nonceLen:], dst[at:at+n])
		nonce := dst[at : at+nonceLen]
		if _, err := io.ReadFull(s.nonce, nonce); err != nil {
			return dst[:start], fmt.Errorf("codec: reading a nonce: %w", err)
		}
		plain := dst[at+nonceLen:]
		out := s.aead.Seal(plain[:0], nonce, plain, dst[start+len(prefixM2M):at])
		return dst[:at+nonceLen+len(out)], nil
	}
	return dst, nil
}

// open verifies a secured frame and returns the plain frame inside it (its
// security byte still set) for the plain decoder, and where in frame that
// plain frame's payload section is. For AEAD the returned frame is built in
// scratch. Nothing of the header is interpreted before authentication
// except header_len, which the additional data needs.
func (s *security) open(frame, scratch []byte) (plain []byte, err error) {
	const off = len(prefixM2M)
	if len(frame) < off+fixedHeaderLen {
		return nil, errorf(ErrMalformed, "fixed header", off, "frame of %d bytes is too short", len(frame))
	}
	got := Security(frame[off+3])
	switch {
	case got == SecurityNone:
		return nil, errorf(ErrIntegrity, "security", off+3, "plain frame where %v is required", s.mode)
	case got == SecurityHMAC && s.mode == SecurityAEAD:
		return nil, errorf(ErrIntegrity, "security", off+3, "HMAC frame where AEAD is required")
	case got > SecurityAEAD:
		return nil, errorf(ErrInvalidCodec, "security", off+3, "unknown security mode %#02x", uint8(got))
	}
	switch got {
	case SecurityHMAC:
		if len(frame) < off+fixedHeaderLen+hmacTagLen {
			return nil, errorf(ErrMalformed, "tag", off, "frame of %d bytes is too short for an HMAC tag", len(frame))
		}
		body, tag := frame[:len(frame)-hmacTagLen], frame[len(frame)-hmacTagLen:]
		s.mac.Reset()
		s.mac.Write(body[off:])
		if s.sum = s.mac.Sum(s.sum[:0]); !hmac.Equal(s.sum, tag) {
			return nil, errorf(ErrIntegrity, "tag", len(body), "HMAC does not verify")
		}
		return body, nil
	default: // SecurityAEAD
		if s.aead == nil {
			return nil, errorf(ErrIntegrity, "security", off+3, "AEAD frame, and the key is not a 32-byte AEAD key")
		}
		hl := int(binary.LittleEndian.Uint16(frame[off:]))
		at := off + hl
		if hl < fixedHeaderLen || len(frame) < at+nonceLen+aeadTagLen {
			return nil, errorf(ErrMalformed, "header_len", off, "frame of %d bytes is too short for header_len %d and an AEAD payload", len(frame), hl)
		}
		nonce, sealed := frame[at:at+nonceLen], frame[at+nonceLen:]
		plain := append(scratch[:0], frame[:at]...)
		plain, err := s.aead.Open(plain, nonce, sealed, frame[off:at])
		if err != nil {
			return nil, errorf(ErrIntegrity, "ciphertext", at+nonceLen, "AEAD does not authenticate")
		}
		return plain, nil
	}
}

// sealedDomain separates sealed raw records from frames: neither can pass
// for the other under the same key.
const sealedDomain = "m2m-sealed-raw\x00"

// AppendSealed appends raw bytes protected as the Encoder's frames are: a
// 32-byte HMAC-SHA256 tag after them, or a 12-byte nonce and their
// ChaCha20-Poly1305 encryption. It lets a container keep lines that are not
// JSON (and so cannot be frames) under the same key. It is a container
// form, not a wire format of the protocol; without security it fails.
func (e *Encoder) AppendSealed(dst, raw []byte) ([]byte, error) {
	s := &e.opts.security
	switch s.mode {
	case SecurityHMAC:
		s.mac.Reset()
		s.mac.Write([]byte(sealedDomain))
		s.mac.Write(raw)
		return s.mac.Sum(append(dst, raw...)), nil
	case SecurityAEAD:
		start := len(dst)
		dst = append(dst, make([]byte, nonceLen)...)
		if _, err := io.ReadFull(s.nonce, dst[start:]); err != nil {
			return dst[:start], fmt.Errorf("codec: reading a nonce: %w", err)
		}
		return s.aead.Seal(dst, dst[start:start+nonceLen], raw, []byte(sealedDomain)), nil
	}
	return dst, errorf(ErrInvalidInput, "security", -1, "sealing needs HMAC or AEAD security")
}

// AppendOpened verifies bytes sealed by AppendSealed in the Decoder's
// security mode and appends the raw bytes to dst.
func (d *Decoder) AppendOpened(dst, sealed []byte) ([]byte, error) {
	s := &d.opts.security
	switch s.mode {
	case SecurityHMAC:
		if len(sealed) < hmacTagLen {
			return dst, errorf(ErrMalformed, "sealed", 0, "%d bytes, too short for a tag", len(sealed))
		}
		raw, tag := sealed[:len(sealed)-hmacTagLen], sealed[len(sealed)-hmacTagLen:]
		s.mac.Reset()
		s.mac.Write([]byte(sealedDomain))
		s.mac.Write(raw)
		if s.sum = s.mac.Sum(s.sum[:0]); !hmac.Equal(s.sum, tag) {
			return dst, errorf(ErrIntegrity, "tag", len(raw), "HMAC does not verify")
		}
		return append(dst, raw...), nil
	case SecurityAEAD:
		if s.aead == nil || len(sealed) < nonceLen+aeadTagLen {
			return dst, errorf(ErrMalformed, "sealed", 0, "%d bytes, too short for AEAD (or no 32-byte key)", len(sealed))
		}
		out, err := s.aead.Open(dst, sealed[:nonceLen], sealed[nonceLen:], []byte(sealedDomain))
		if err != nil {
			return dst, errorf(ErrIntegrity, "ciphertext", nonceLen, "AEAD does not authenticate")
		}
		return out, nil
	}
	return dst, errorf(ErrInvalidInput, "security", -1, "opening needs HMAC or AEAD security")
}
