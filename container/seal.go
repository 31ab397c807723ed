package container

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// Sizes of a sealed file's fields, and the shortest MAC key accepted.
const (
	IDLen     = 16 // the file id in a sealed file's header
	MACLen    = 16 // a data block's or the trailer's MAC
	MinKeyLen = 32
)

// Domains of the two MACs, so that neither can pass for the other.
const (
	blockDomain   = "m2m container block\x00"
	trailerDomain = "m2m container trailer\x00"
)

// seal is what a sealed file's MACs need: its id, and the MAC key, nil
// when the file is read without one (its MACs are then carried and
// covered by the checksums, not verified).
type seal struct {
	id  [IDLen]byte
	key []byte
}

// checkKey refuses MAC keys too short to be keys.
func checkKey(key []byte) error {
	if len(key) < MinKeyLen {
		return fmt.Errorf("container: MAC key of %d bytes, need at least %d", len(key), MinKeyLen)
	}
	return nil
}

// blockMAC returns the MAC of a data block of type typ whose first record
// is number first: HMAC-SHA256 over the block domain, the file id, typ,
// first, records and the body's length (8 bytes each, little-endian), and
// the body, cut to MACLen bytes. It binds the block's records to their
// numbers and to the file.
func (s *seal) blockMAC(typ byte, first int64, records int, body []byte) (mac [MACLen]byte) {
	m := hmac.New(sha256.New, s.key)
	var b [len(blockDomain) + IDLen + 1 + 3*8]byte
	p := append(append(append(b[:0], blockDomain...), s.id[:]...), typ)
	p = binary.LittleEndian.AppendUint64(p, uint64(first))
	p = binary.LittleEndian.AppendUint64(p, uint64(records))
	p = binary.LittleEndian.AppendUint64(p, uint64(len(body)))
	m.Write(p)
	m.Write(body)
	copy(mac[:], m.Sum(nil))
	return mac
}

// trailerMAC returns the MAC of a sealed file's trailer: HMAC-SHA256 over
// the trailer domain, the file id, the index block's body with its length
// (8 bytes, little-endian) before it, and the trailer's first 32 bytes
// (index offset and totals), cut to MACLen bytes. The index lists every
// data block's MAC in order, so it binds them all, and the totals.
func (s *seal) trailerMAC(index, totals []byte) (mac [MACLen]byte) {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(trailerDomain))
	m.Write(s.id[:])
	m.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(index))))
	m.Write(index)
	m.Write(totals)
	copy(mac[:], m.Sum(nil))
	return mac
}

// checkBlock reports whether mac is that of the block (see blockMAC);
// without a key, it is taken as it is.
func (s *seal) checkBlock(mac []byte, typ byte, first int64, records int, body []byte) bool {
	if s.key == nil {
		return true
	}
	want := s.blockMAC(typ, first, records, body)
	return hmac.Equal(mac, want[:])
}

// checkTrailer reports whether mac is that of the trailer (see
// trailerMAC); without a key, it is taken as it is.
func (s *seal) checkTrailer(mac, index, totals []byte) bool {
	if s.key == nil {
		return true
	}
	want := s.trailerMAC(index, totals)
	return hmac.Equal(mac, want[:])
}
