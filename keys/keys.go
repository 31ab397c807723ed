// Package keys derives and exchanges the keys M2M frames are secured with,
// exactly as the Rust reference does (docs/protocol.md §4.4-4.5):
// HKDF-SHA256 with an absent salt and ASCII paths under "m2m/v1/" as info,
// a keyring with a default key, and X25519 key exchange.
//
// The reference has two derivations for session keys, and two for purpose
// keys, with the same info string but different input keys: one from the
// organisation's master key, one from an agent's context (its
// organisation key, or its identity key). This package provides only the
// agent-context ones, through Agent: they are what the reference's own
// frame-encryption tests use, and they let an agent work without the
// organisation's master key. Mixing the two would give two peers different
// keys for the same path; the tests pin that the master-key variants never
// come out of this package.
package keys

import (
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the size of every key this package derives.
const KeySize = 32

// maxDerive is HKDF-SHA256's longest output, 255 blocks.
const maxDerive = 255 * sha256.Size

// ErrInvalidID is returned for organisation, agent and session ids that are
// empty, longer than 128 bytes, or not made of letters, digits, '_' and '-'.
var ErrInvalidID = errors.New("keys: invalid id")

// Derive returns n bytes of HKDF-SHA256 (RFC 5869) of ikm with an absent
// salt (32 zero bytes) and info as given. n may be at most 8,160.
func Derive(ikm []byte, info string, n int) ([]byte, error) {
	if n < 1 || n > maxDerive {
		return nil, fmt.Errorf("keys: cannot derive %d bytes (1 to %d)", n, maxDerive)
	}
	return hkdf.Key(sha256.New, ikm, nil, info, n)
}

func derive32(ikm []byte, info string) []byte {
	k, err := Derive(ikm, info, KeySize)
	if err != nil {
		panic(err) // unreachable: 32 bytes is always derivable
	}
	return k
}

// checkID validates an id the way the reference's try_new does.
func checkID(kind, id string) error {
	if id == "" || len(id) > 128 {
		return fmt.Errorf("%w: %s %q must have 1 to 128 bytes", ErrInvalidID, kind, id)
	}
	for _, c := range []byte(id) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("%w: %s %q may hold only letters, digits, '_' and '-'", ErrInvalidID, kind, id)
		}
	}
	return nil
}

const kdfVersion = "m2m/v1"

// Hierarchy derives an organisation's keys from its master key.
type Hierarchy struct {
	org    string
	master []byte
}

// NewHierarchy returns the key hierarchy of org under master, which must
// have at least 32 bytes.
func NewHierarchy(org string, master []byte) (*Hierarchy, error) {
	if err := checkID("organisation", org); err != nil {
		return nil, err
	}
	if len(master) < KeySize {
		return nil, fmt.Errorf("keys: master key of %d bytes, need at least %d", len(master), KeySize)
	}
	return &Hierarchy{org: org, master: append([]byte(nil), master...)}, nil
}

// OrgKey is the organisation key: info m2m/v1/{org}.
func (h *Hierarchy) OrgKey() []byte { return derive32(h.master, kdfVersion+"/"+h.org) }

// SharedKey is the organisation-wide shared key: info m2m/v1/{org}/shared.
func (h *Hierarchy) SharedKey() []byte { return derive32(h.master, kdfVersion+"/"+h.org+"/shared") }

// AgentKey is an agent's identity key: info m2m/v1/{org}/{agent}.
func (h *Hierarchy) AgentKey(agent string) ([]byte, error) {
	if err := checkID("agent", agent); err != nil {
		return nil, err
	}
	return derive32(h.master, kdfVersion+"/"+h.org+"/"+agent), nil
}

// Agent returns the key context of an agent: what it needs to derive its
// purpose and session keys without the master key.
func (h *Hierarchy) Agent(agent string) (*Agent, error) {
	id, err := h.AgentKey(agent)
	if err != nil {
		return nil, err
	}
	return &Agent{org: h.org, agent: agent, orgKey: h.OrgKey(), identity: id}, nil
}

// Agent holds an agent's organisation key and identity key.
type Agent struct {
	org, agent string
	orgKey     []byte
	identity   []byte
}

// NewAgent builds an agent's context from keys handed to it.
func NewAgent(org, agent string, orgKey, identity []byte) (*Agent, error) {
	if err := checkID("organisation", org); err != nil {
		return nil, err
	}
	if err := checkID("agent", agent); err != nil {
		return nil, err
	}
	if len(orgKey) != KeySize || len(identity) != KeySize {
		return nil, fmt.Errorf("keys: organisation and identity keys must have %d bytes", KeySize)
	}
	return &Agent{org: org, agent: agent, orgKey: append([]byte(nil), orgKey...), identity: append([]byte(nil), identity...)}, nil
}

// Purpose names what a purpose key is for.
type Purpose string

// The purposes of the reference.
const (
	PurposeIdentity       Purpose = "identity"
	PurposeEncryption     Purpose = "encryption"
	PurposeAuthentication Purpose = "authentication"
	PurposeSession        Purpose = "session"
)

// PurposeKey derives a key for one purpose from the agent's identity key:
// info m2m/v1/{org}/{agent}/{purpose}.
func (a *Agent) PurposeKey(p Purpose) ([]byte, error) {
	switch p {
	case PurposeIdentity, PurposeEncryption, PurposeAuthentication, PurposeSession:
	default:
		return nil, fmt.Errorf("keys: unknown purpose %q", p)
	}
	return derive32(a.identity, kdfVersion+"/"+a.org+"/"+a.agent+"/"+string(p)), nil
}

// SessionKey derives the key of a session between this agent and peer from
// the organisation key: info m2m/v1/{org}/session/{lo}:{hi}/{session}, the
// two agent ids in byte order, so both ends derive the same key.
func (a *Agent) SessionKey(peer, session string) ([]byte, error) {
	if err := checkID("agent", peer); err != nil {
		return nil, err
	}
	if err := checkID("session", session); err != nil {
		return nil, err
	}
	lo, hi := a.agent, peer
	if lo > hi {
		lo, hi = hi, lo
	}
	return derive32(a.orgKey, kdfVersion+"/"+a.org+"/session/"+lo+":"+hi+"/"+session), nil
}

// Keyring maps key ids to keys and has a default key: the first one added,
// until SetDefault changes it.
type Keyring struct {
	keys map[string][]byte
	def  string
}

// Add stores key under id. Empty keys are refused.
func (k *Keyring) Add(id string, key []byte) error {
	if len(key) == 0 {
		return errors.New("keys: empty key")
	}
	if k.keys == nil {
		k.keys = map[string][]byte{}
	}
	k.keys[id] = append([]byte(nil), key...)
	if k.def == "" {
		k.def = id
	}
	return nil
}

// AddHex stores the key written in hex under id.
func (k *Keyring) AddHex(id, s string) error {
	key, err := ParseHex(s)
	if err != nil {
		return err
	}
	return k.Add(id, key)
}

// Key returns the key stored under id.
func (k *Keyring) Key(id string) ([]byte, bool) {
	key, ok := k.keys[id]
	return key, ok
}

// Remove deletes the key under id; removing the default leaves none.
func (k *Keyring) Remove(id string) {
	delete(k.keys, id)
	if k.def == id {
		k.def = ""
	}
}

// SetDefault makes the key under id the default.
func (k *Keyring) SetDefault(id string) error {
	if _, ok := k.keys[id]; !ok {
		return fmt.Errorf("keys: no key %q", id)
	}
	k.def = id
	return nil
}

// Default returns the default key.
func (k *Keyring) Default() ([]byte, bool) { return k.Key(k.def) }

// SessionKey derives a session key from the default key: info
// "m2m-v1|{context}|{session}".
func (k *Keyring) SessionKey(context, session string) ([]byte, error) {
	key, ok := k.Default()
	if !ok {
		return nil, errors.New("keys: keyring has no default key")
	}
	return derive32(key, "m2m-v1|"+context+"|"+session), nil
}

// ParseHex decodes a key written in hex, either case; empty is an error.
func ParseHex(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("keys: empty hex key")
	}
	key, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	return key, nil
}

// Exchange is one side of an X25519 key exchange.
type Exchange struct{ priv *ecdh.PrivateKey }

// NewExchange generates a key pair from the system's random source.
func NewExchange() (*Exchange, error) {
	priv, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return &Exchange{priv: priv}, nil
}

// NewExchangeFrom uses a given 32-byte private key.
func NewExchangeFrom(private []byte) (*Exchange, error) {
	priv, err := ecdh.X25519().NewPrivateKey(private)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	return &Exchange{priv: priv}, nil
}

// PublicKey returns the 32-byte public key to send to the peer.
func (e *Exchange) PublicKey() []byte { return e.priv.PublicKey().Bytes() }

// SessionKey computes the shared secret with the peer's public key and
// derives a 32-byte key from it with info context (the reference uses
// "m2m-session-v1"). Low-order peer keys, which give an all-zero secret,
// are an error (the reference accepts them).
func (e *Exchange) SessionKey(peerPublic []byte, context string) ([]byte, error) {
	secret, err := e.Shared(peerPublic)
	if err != nil {
		return nil, err
	}
	return derive32(secret, context), nil
}

// Shared returns the raw X25519 shared secret with the peer.
func (e *Exchange) Shared(peerPublic []byte) ([]byte, error) {
	pub, err := ecdh.X25519().NewPublicKey(peerPublic)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	secret, err := e.priv.ECDH(pub)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	return secret, nil
}
