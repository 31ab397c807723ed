package codec

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

var (
	katKey   = bytes.Repeat([]byte{0x42}, 32)
	katNonce = unhexString("0102030405060708090a0b0c")
)

func unhexString(s string) []byte {
	var t testing.T
	return unhex(&t, s)
}

// fixedNonces makes every AEAD nonce of e the KAT nonce.
func fixedNonces(e *Encoder) {
	e.opts.security.nonce = bytes.NewReader(bytes.Repeat(katNonce, 1000))
}

func secureCodecs(t *testing.T, mode Security) (*Encoder, *Decoder) {
	t.Helper()
	// The reference's Brotli, for its bytes.
	enc, err := NewEncoder(WithSecurity(mode, katKey), WithQuality(defaultQuality))
	if err != nil {
		t.Fatal(err)
	}
	fixedNonces(enc)
	dec, err := NewDecoder(WithSecurity(mode, katKey))
	if err != nil {
		t.Fatal(err)
	}
	return enc, dec
}

// Known answers of docs/protocol.md §9.1: HMAC tags, and AEAD frames with
// the nonce 01..0c, key 32 x 0x42.
func TestSecureKnownAnswers(t *testing.T) {
	hmacTags := map[int]string{
		0: "f68418f2ce190619a2c4ccf635f0e9e9c0651a3bbbc6627037da630e16bc6672",
		1: "40f93d7a4d4a623c5915d8f1b5a6ad2f087da2085faee87cbebdc1dd3dd9c5ff",
		2: "2516bf53b91a9ec52b88bbc1c3167da04be2126cef400d24d60d535300473190",
		4: "a0ef035daa5f262e3e57c80a0746184d610f86b03f35076013050be876d72494",
		5: "8746645e6c42ab621540a323b22e2464ef5b5ce62e9908c569f6a24417aeb3da",
	}
	aeadFrames := map[int]string{
		0: "234d324d7c317c2200010200000000000000000000000000000000066770742d346f0101020ad7a33b0102030405060708090a0b0c801193f72128a734dfc794801163bbd2ff70b24fbb4629e8022ea92e01f0be5cfadec85705679ebb5493dd02c58c8f41bcc9c5dfb8c72e2a9d3355c34f4b1358170cd108081a5fd5247ac50977c2f4850d7d1e092e59",
		1: "234d324d7c317c1c0001020000000000000000000000000000000001780000a69bc43a0102030405060708090a0b0ca51193f7081f2429dfc794801163bbd2ff70ad1de34970e25371ea2401f0ef07c6e6c686475b0da13e8e528b2b2c1a3b7c76e6",
	}
	hmacEnc, hmacDec := secureCodecs(t, SecurityHMAC)
	aeadEnc, aeadDec := secureCodecs(t, SecurityAEAD)
	for i, ka := range frameKATs {
		plain := unhex(t, ka.frame)
		if tag, ok := hmacTags[i]; ok {
			want := append(bytes.Clone(plain), unhex(t, tag)...)
			want[10] = byte(SecurityHMAC)
			got, err := hmacEnc.AppendFrame(nil, []byte(ka.json))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s HMAC frame = %x, %v\nwant %x", ka.name, got, err, want)
			}
			if text, err := hmacDec.AppendFrame(nil, nil, want); err != nil || string(text) != ka.json {
				t.Errorf("%s HMAC decode = %q, %v", ka.name, text, err)
			}
		}
		if frame, ok := aeadFrames[i]; ok {
			want := unhex(t, frame)
			fixedNonces(aeadEnc)
			got, err := aeadEnc.AppendFrame(nil, []byte(ka.json))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s AEAD frame = %x, %v\nwant %x", ka.name, got, err, want)
			}
			if text, err := aeadDec.AppendFrame(nil, nil, want); err != nil || string(text) != ka.json {
				t.Errorf("%s AEAD decode = %q, %v", ka.name, text, err)
			}
		}
	}
	// The reference's HMAC string form for A (docs/protocol.md §9.1).
	const hmacString = "#M2M|1|IgABAQAAAAAAAAAAAAAAAAAAAAAGZ3B0LTRvAQECCtejOz4AAABuYFWkeyJtb2RlbCI6ImdwdC00byIsIm1lc3NhZ2VzIjpbeyJyb2xlIjoidXNlciIsImNvbnRlbnQiOiJIaSJ9XX32hBjyzhkGGaLEzPY18OnpwGUaO7vGYnA32mMOFrxmcg=="
	if s, err := hmacEnc.AppendFrameString(nil, []byte(frameKATs[0].json)); err != nil || string(s) != hmacString {
		t.Errorf("HMAC string form = %s, %v", s, err)
	}
	if text, _, err := hmacDec.AppendDecode(nil, []byte(hmacString)); err != nil || string(text) != frameKATs[0].json {
		t.Errorf("HMAC string decode = %q, %v", text, err)
	}
}

// secureFrames returns, per mode, a sealed frame of an uncompressed and a
// compressed request and of a response.
func secureFrames(t *testing.T, enc *Encoder) [][]byte {
	var frames [][]byte
	for _, j := range []string{frameKATs[0].json, testRequest, testResponse} {
		f, err := enc.AppendFrame(nil, []byte(j))
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	return frames
}

// TestSecureTampering flips every bit and cuts every byte of sealed
// frames: each must fail, with an integrity or format error, never a
// panic, never output.
func TestSecureTampering(t *testing.T) {
	for _, mode := range []Security{SecurityHMAC, SecurityAEAD} {
		enc, dec := secureCodecs(t, mode)
		for _, frame := range secureFrames(t, enc) {
			if _, err := dec.AppendFrame(nil, nil, frame); err != nil {
				t.Fatalf("%v: intact frame: %v", mode, err)
			}
			for i := len(prefixM2M); i < len(frame); i++ {
				for bit := range 8 {
					f := bytes.Clone(frame)
					f[i] ^= 1 << bit
					if out, err := dec.AppendFrame(nil, nil, f); err == nil || len(out) != 0 {
						t.Fatalf("%v: flipping bit %d of byte %d: %q, %v", mode, bit, i, out, err)
					}
				}
			}
			for n := range len(frame) {
				if out, err := dec.AppendFrame(nil, nil, frame[:n]); err == nil || len(out) != 0 {
					t.Fatalf("%v: cut to %d bytes: %q, %v", mode, n, out, err)
				}
			}
			if _, err := dec.AppendFrame(nil, nil, append(bytes.Clone(frame), 0)); err == nil {
				t.Fatalf("%v: trailing byte accepted", mode)
			}
		}
	}
}

// TestSecureDowngrade: a decoder that requires security rejects frames
// with less, including an HMAC frame whose security byte was lowered.
func TestSecureDowngrade(t *testing.T) {
	plainEnc, _ := NewEncoder()
	hmacEnc, hmacDec := secureCodecs(t, SecurityHMAC)
	aeadEnc, aeadDec := secureCodecs(t, SecurityAEAD)
	plainDec, _ := NewDecoder()
	json := []byte(testRequest)
	plain, _ := plainEnc.AppendFrame(nil, json)
	hmacFrame, _ := hmacEnc.AppendFrame(nil, json)
	aeadFrame, _ := aeadEnc.AppendFrame(nil, json)
	stripped := bytes.Clone(hmacFrame)
	stripped[10] = 0

	for _, tc := range []struct {
		name  string
		dec   *Decoder
		frame []byte
		want  error
	}{
		{"plain to HMAC decoder", hmacDec, plain, ErrIntegrity},
		{"HMAC byte lowered to 0", hmacDec, stripped, ErrIntegrity},
		{"HMAC byte lowered, to a plain decoder", plainDec, stripped, ErrMalformed}, // the tag is trailing bytes
		{"plain to AEAD decoder", aeadDec, plain, ErrIntegrity},
		{"HMAC to AEAD decoder", aeadDec, hmacFrame, ErrIntegrity},
		{"HMAC to plain decoder", plainDec, hmacFrame, ErrInvalidCodec},
		{"AEAD to plain decoder", plainDec, aeadFrame, ErrInvalidCodec},
	} {
		if out, err := tc.dec.AppendFrame(nil, nil, tc.frame); !errors.Is(err, tc.want) || len(out) != 0 {
			t.Errorf("%s: %q, %v; want %v", tc.name, out, err, tc.want)
		}
	}
	// An HMAC decoder with a 32-byte key opens AEAD frames, which are stronger.
	if text, err := hmacDec.AppendFrame(nil, nil, aeadFrame); err != nil || string(text) != testRequest {
		t.Errorf("AEAD to HMAC decoder: %q, %v", text, err)
	}
}

func TestSecureKeys(t *testing.T) {
	for _, tc := range []struct {
		mode Security
		n    int
		ok   bool
	}{
		{SecurityHMAC, 15, false}, {SecurityHMAC, 16, true}, {SecurityHMAC, 100, true},
		{SecurityAEAD, 31, false}, {SecurityAEAD, 32, true}, {SecurityAEAD, 33, false},
		{Security(3), 32, false},
	} {
		_, err := NewEncoder(WithSecurity(tc.mode, make([]byte, tc.n)))
		if (err == nil) != tc.ok {
			t.Errorf("%v key of %d bytes: %v", tc.mode, tc.n, err)
		}
	}
	// Wrong key.
	enc, _ := secureCodecs(t, SecurityAEAD)
	frame, _ := enc.AppendFrame(nil, []byte(testRequest))
	other, _ := NewDecoder(WithSecurity(SecurityAEAD, bytes.Repeat([]byte{0x99}, 32)))
	if _, err := other.AppendFrame(nil, nil, frame); !errors.Is(err, ErrIntegrity) {
		t.Errorf("wrong key: %v", err)
	}
	// Random nonces differ.
	real, _ := NewEncoder(WithSecurity(SecurityAEAD, katKey))
	a, _ := real.AppendFrame(nil, []byte(testRequest))
	b, _ := real.AppendFrame(nil, []byte(testRequest))
	if bytes.Equal(a, b) {
		t.Error("two AEAD frames of the same JSON are identical: nonces repeat")
	}
}

// TestSecureHeaderView: the header of a secured frame stays readable, and
// AEAD hides the payload section.
func TestSecureHeaderView(t *testing.T) {
	enc, _ := secureCodecs(t, SecurityAEAD)
	frame, _ := enc.AppendFrame(nil, []byte(testRequest))
	var h Header
	if err := ParseHeader(&h, frame); err != nil || h.Security != SecurityAEAD || string(h.Model) != "gpt-4o" || h.PayloadLen != 0 {
		t.Errorf("ParseHeader = %+v, %v", h, err)
	}
	if strings.Contains(string(frame), "helpful") {
		t.Error("AEAD frame shows its plaintext")
	}
}

// FuzzSecureDecode feeds arbitrary bytes to secured decoders: no panics,
// and whatever they accept re-seals and opens to the same text.
func FuzzSecureDecode(f *testing.F) {
	for _, mode := range []Security{SecurityHMAC, SecurityAEAD} {
		enc, _ := NewEncoder(WithSecurity(mode, katKey))
		for _, j := range []string{frameKATs[0].json, testRequest} {
			frame, _ := enc.AppendFrame(nil, []byte(j))
			f.Add(frame)
		}
	}
	hmacEnc, _ := NewEncoder(WithSecurity(SecurityHMAC, katKey))
	hmacDec, _ := NewDecoder(WithSecurity(SecurityHMAC, katKey))
	aeadDec, _ := NewDecoder(WithSecurity(SecurityAEAD, katKey))
	f.Fuzz(func(t *testing.T, frame []byte) {
		for _, dec := range []*Decoder{hmacDec, aeadDec} {
			text, err := dec.AppendFrame(nil, nil, frame)
			if err != nil {
				continue
			}
			again, err := hmacEnc.AppendFrame(nil, text)
			if err != nil {
				t.Fatalf("opened %q, which does not seal: %v", text, err)
			}
			if back, err := hmacDec.AppendFrame(nil, nil, again); err != nil || !bytes.Equal(back, text) {
				t.Fatalf("re-sealed %q opens to %q, %v", text, back, err)
			}
		}
	})
}

func TestSealedRaw(t *testing.T) {
	for _, mode := range []Security{SecurityHMAC, SecurityAEAD} {
		enc, dec := secureCodecs(t, mode)
		for _, raw := range [][]byte{nil, []byte("not json \xff"), bytes.Repeat([]byte("x"), 5000)} {
			sealed, err := enc.AppendSealed(nil, raw)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := dec.AppendOpened(nil, sealed); err != nil || !bytes.Equal(got, raw) {
				t.Fatalf("%v: opened %q, %v", mode, got, err)
			}
			for i := range sealed {
				s := bytes.Clone(sealed)
				s[i] ^= 1
				if _, err := dec.AppendOpened(nil, s); err == nil {
					t.Fatalf("%v: flipped byte %d accepted", mode, i)
				}
			}
		}
		// A sealed record is not a frame, nor the reverse.
		frame, _ := enc.AppendFrame(nil, []byte(testRequest))
		if _, err := dec.AppendOpened(nil, frame); err == nil {
			t.Errorf("%v: a frame opened as a sealed record", mode)
		}
	}
	plain, _ := NewEncoder()
	if _, err := plain.AppendSealed(nil, []byte("x")); err == nil {
		t.Error("sealing without security succeeded")
	}
}
