package keys

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// master is 00 01 .. 1f, the reference's test master key.
var master = func() []byte {
	m := make([]byte, 32)
	for i := range m {
		m[i] = byte(i)
	}
	return m
}()

// The known answers of docs/protocol.md §9.2.
const (
	katAgentKey       = "c87f687fae1cf5991cd0cc64e113ec09750b0d1c41338a41cd8ad90bdd60dba1" // pinned
	katOrgKey         = "2c57ed50feb743f2c695b7dd9e35e2151b75f2d5b43d812fe3c22814dd78c1ea"
	katSharedKey      = "3d5923e5674e21bf372b4c96ba88a89a6116ade50739d0f478016a22b0faa7e2"
	katSessionAgent   = "aebfa29c12287cea40515c0dd13f4238627126487f238826cdcc151149c7abf1" // org-key IKM: ours
	katSessionMaster  = "566465b44cf9b0045ca4dbd60f2330462d332893aeb5ad89a0baf1ab52859375" // master IKM: not ours
	katPurposeAgent   = "baf434d4a2b2326b7c687151fc783ee501ed826ebe8a711053be6d2545b03549" // identity IKM: ours
	katPurposeMaster  = "a15e8160cd4d469ad635bfc0d5cfd9bdd605ca2db11e5a33ea46425fff554ddd" // master IKM: not ours
	katKeyringSession = "824687009f542ae82a0d4bf7525022efe77606efa528dc76712270264eca10fd"
)

func TestHierarchyKnownAnswers(t *testing.T) {
	h, err := NewHierarchy("test-org", master)
	if err != nil {
		t.Fatal(err)
	}
	agentKey, _ := h.AgentKey("agent-001")
	check := func(name string, got []byte, want string) {
		t.Helper()
		if hex.EncodeToString(got) != want {
			t.Errorf("%s = %x, want %s", name, got, want)
		}
	}
	check("agent key", agentKey, katAgentKey)
	check("org key", h.OrgKey(), katOrgKey)
	check("shared key", h.SharedKey(), katSharedKey)

	alice, _ := h.Agent("alice")
	bob, _ := h.Agent("bob")
	ab, _ := alice.SessionKey("bob", "sess-001")
	ba, _ := bob.SessionKey("alice", "sess-001")
	check("session key (alice)", ab, katSessionAgent)
	check("session key (bob)", ba, katSessionAgent)

	a1, _ := h.Agent("agent-001")
	p, _ := a1.PurposeKey(PurposeEncryption)
	check("purpose key", p, katPurposeAgent)

	// The master-key variants of the same paths must never come out of
	// this package: every key it can derive differs from them.
	for _, k := range [][]byte{ab, ba, p, h.OrgKey(), h.SharedKey(), agentKey} {
		if s := hex.EncodeToString(k); s == katSessionMaster || s == katPurposeMaster {
			t.Errorf("derived the master-key variant %s", s)
		}
	}
	// ...and they are what HKDF gives with the master key as IKM, so the
	// difference is only the IKM.
	if k, _ := Derive(master, "m2m/v1/test-org/session/alice:bob/sess-001", 32); hex.EncodeToString(k) != katSessionMaster {
		t.Errorf("master-IKM session key = %x", k)
	}
}

func TestKeyring(t *testing.T) {
	var k Keyring
	if _, err := k.SessionKey("ctx", "sess-1"); err == nil {
		t.Error("empty keyring derived a key")
	}
	if err := k.Add("main", master); err != nil {
		t.Fatal(err)
	}
	k.AddHex("other", "0123456789ABCDEF")
	got, _ := k.SessionKey("ctx", "sess-1")
	if hex.EncodeToString(got) != katKeyringSession {
		t.Errorf("keyring session key = %x", got)
	}
	if key, _ := k.Key("other"); !bytes.Equal(key, []byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}) {
		t.Errorf("hex key = %x", key)
	}
	if err := k.SetDefault("other"); err != nil {
		t.Fatal(err)
	}
	if again, _ := k.SessionKey("ctx", "sess-1"); bytes.Equal(again, got) {
		t.Error("SetDefault did not change the default key")
	}
	k.Remove("other")
	if _, ok := k.Default(); ok {
		t.Error("removing the default left a default")
	}
	for _, s := range []string{"", "abc", "zz"} {
		if _, err := ParseHex(s); err == nil {
			t.Errorf("ParseHex(%q) succeeded", s)
		}
	}
	if err := k.Add("empty", nil); err == nil {
		t.Error("empty key accepted")
	}
}

// TestHKDF checks RFC 5869's SHA-256 vectors A.1-A.3 and the length limit.
func TestHKDF(t *testing.T) {
	// A.3: no salt, no info.
	ikm := bytes.Repeat([]byte{0x0b}, 22)
	okm, err := Derive(ikm, "", 42)
	if want := "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"; err != nil || hex.EncodeToString(okm) != want {
		t.Errorf("RFC 5869 A.3 = %x, %v", okm, err)
	}
	if _, err := Derive(ikm, "", 8160); err != nil {
		t.Errorf("8160 bytes: %v", err)
	}
	if _, err := Derive(ikm, "", 8161); err == nil {
		t.Error("8161 bytes derived")
	}
}

func TestIDs(t *testing.T) {
	for _, id := range []string{"agent 001", "agent@001", "agent/001", strings.Repeat("a", 129), ""} {
		if _, err := NewHierarchy(id, master); !errors.Is(err, ErrInvalidID) {
			t.Errorf("org %q: %v", id, err)
		}
	}
	h, _ := NewHierarchy("my_org-1", master)
	if _, err := h.Agent("my_agent_123"); err != nil {
		t.Errorf("valid agent id: %v", err)
	}
	if _, err := NewHierarchy("org", master[:31]); err == nil {
		t.Error("31-byte master key accepted")
	}
}

// TestX25519 uses RFC 7748 §6.1's keys.
func TestX25519(t *testing.T) {
	alice, err := NewExchangeFrom(unhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
	if err != nil {
		t.Fatal(err)
	}
	bob, _ := NewExchangeFrom(unhex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
	s1, _ := alice.Shared(bob.PublicKey())
	s2, _ := bob.Shared(alice.PublicKey())
	if want := "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"; hex.EncodeToString(s1) != want || !bytes.Equal(s1, s2) {
		t.Errorf("shared = %x / %x", s1, s2)
	}
	k, _ := alice.SessionKey(bob.PublicKey(), "m2m-session-v1")
	if want := "8de61faff3e9d7bb5371c57d0654bd2319684894cf427067ea961bda6ab9e7a3"; hex.EncodeToString(k) != want {
		t.Errorf("session key = %x", k)
	}
	// A low-order point gives an all-zero secret: refused.
	if _, err := alice.SessionKey(make([]byte, 32), "x"); err == nil {
		t.Error("all-zero public key accepted")
	}
	e1, _ := NewExchange()
	e2, _ := NewExchange()
	k1, _ := e1.SessionKey(e2.PublicKey(), "c")
	k2, _ := e2.SessionKey(e1.PublicKey(), "c")
	if !bytes.Equal(k1, k2) {
		t.Error("random exchange disagrees")
	}
	// The reference's test fixture master_for_org("alpha").
	m := sha256.Sum256([]byte("m2m-test-master-v1:alpha"))
	h, _ := NewHierarchy("alpha", m[:])
	if hex.EncodeToString(h.OrgKey()) != "0500470efccbde584449dee1790f6f4e58c3cbcf3aea1d8b89d5d30997706dc3" {
		t.Errorf("alpha org key = %x", h.OrgKey())
	}
}
