package codec

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"testing"
)

func addFrameSeeds(f *testing.F) {
	for _, ka := range frameKATs {
		b, _ := hex.DecodeString(ka.frame)
		f.Add(b)
		if ka.str != "" {
			f.Add([]byte(ka.str))
		}
	}
	f.Add([]byte("#M2M[v3.0]|DATA:G0gA4IzUYs0Z7kSQt5Rd17Rmoim2N9N+ikUHHHLgcMCwBRIIBrUHJJJVAlfrvNoC86Y93dhTpQBYJ1jxLf74"))
	f.Add([]byte(`#T1|{"M":"g4o","messages":[{"c":"Hello","role":"user"}]}`))
	f.Add([]byte("#M2M[v2.0]|DATA:eJyrVspLzE1VslJKzcnJVyjPL8pJUaoFAD/XBlw="))
	f.Add([]byte("plain text"))
}

// FuzzDecodeFrame feeds arbitrary bytes to the binary frame decoder: it
// must never panic, and what it accepts must re-encode to a frame that
// decodes to the same text, with a header that re-encodes to its own bytes.
func FuzzDecodeFrame(f *testing.F) {
	addFrameSeeds(f)
	enc, _ := NewEncoder()
	dec, _ := NewDecoder()
	f.Fuzz(func(t *testing.T, frame []byte) {
		var h Header
		if err := ParseHeader(&h, frame); err == nil && h.Quirks == 0 && h.Security == SecurityNone {
			hl := int(binary.LittleEndian.Uint16(frame[7:]))
			if hb, err := appendHeader(nil, &h); err != nil || !bytes.Equal(hb, frame[7:7+hl]) {
				t.Fatalf("header re-encodes to %x, was %x", hb, frame[7:7+hl])
			}
		}
		text, err := dec.AppendFrame(nil, &h, frame)
		if err != nil {
			return
		}
		again, err := enc.AppendFrame(nil, text)
		if err != nil {
			t.Fatalf("decoded %q, which does not encode: %v", text, err)
		}
		if back, err := dec.AppendFrame(nil, nil, again); err != nil || !bytes.Equal(back, text) {
			t.Fatalf("re-encoded %q decodes to %q, %v", text, back, err)
		}
	})
}

// FuzzDecodeWire feeds arbitrary bytes to the wire decoder, every format:
// it must never panic, and what it accepts in a format we write must
// re-encode and decode to the same text.
func FuzzDecodeWire(f *testing.F) {
	addFrameSeeds(f)
	enc, _ := NewEncoder()
	dec, _ := NewDecoder()
	f.Fuzz(func(t *testing.T, wire []byte) {
		text, alg, err := dec.AppendDecode(nil, wire)
		if err != nil || alg == TokenV1 || alg == Zlib {
			return
		}
		again, err := enc.AppendWire(nil, text, alg)
		if err != nil {
			t.Fatalf("decoded %q as %v, which does not encode: %v", text, alg, err)
		}
		if back, a, err := dec.AppendDecode(nil, again); err != nil || a != alg || !bytes.Equal(back, text) {
			t.Fatalf("re-encoded %q decodes to %q, %v, %v", text, back, a, err)
		}
	})
}

// FuzzRoundTrip encodes arbitrary text in every format that accepts it,
// and as auto-selection and Hydra choose: decoding must give it back, byte
// for byte.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte(testRequest))
	f.Add([]byte(testResponse))
	f.Add([]byte(`{"model":"m","messages":[{"role":"function"}],"max_tokens":null}`))
	f.Add([]byte("#M2M|1|looks like a frame"))
	f.Add([]byte("hello world hello world hello world hello world hello world hello world hello world hello"))
	enc, _ := NewEncoder()
	dec, _ := NewDecoder()
	f.Fuzz(func(t *testing.T, text []byte) {
		if frame, err := enc.AppendFrame(nil, text); err == nil {
			if back, err := dec.AppendFrame(nil, nil, frame); err != nil || !bytes.Equal(back, text) {
				t.Fatalf("frame of %q decodes to %q, %v", text, back, err)
			}
		}
		wire, alg, err := enc.AppendAuto(nil, text)
		if err != nil {
			return // not UTF-8, or over a limit
		}
		if back, a, err := dec.AppendDecode(nil, wire); err != nil || a != alg || !bytes.Equal(back, text) {
			t.Fatalf("auto (%v) wire of %q decodes to %q, %v, %v", alg, text, back, a, err)
		}
		wire, alg, err = enc.AppendHydra(nil, text)
		if err != nil {
			t.Fatalf("hydra refuses %q, which auto takes: %v", text, err)
		}
		if back, a, err := dec.AppendDecode(nil, wire); err != nil || a != alg || !bytes.Equal(back, text) {
			t.Fatalf("hydra (%v) wire of %q decodes to %q, %v, %v", alg, text, back, a, err)
		}
		bin, alg, err := enc.AppendHydraBinary(nil, text)
		if err != nil {
			t.Fatalf("hydra refuses %q in binary form: %v", text, err)
		}
		var back []byte
		switch alg {
		case None:
			back = bin
		case TokenNative:
			back, err = dec.AppendTokenNativeBinary(nil, bin)
		case Brotli:
			back, err = dec.AppendBrotli(nil, bin)
		default:
			t.Fatalf("hydra chose %v in binary form", alg)
		}
		if err != nil || !bytes.Equal(back, text) {
			t.Fatalf("hydra (%v) binary form of %q decodes to %q, %v", alg, text, back, err)
		}
	})
}
