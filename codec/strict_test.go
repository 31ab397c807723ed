package codec

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/internal/race"
	"github.com/m2m-go/m2m/varint"
)

// mutate returns a copy of frame changed by f.
func mutate(frame []byte, f func([]byte) []byte) []byte { return f(bytes.Clone(frame)) }

// fixCRC recomputes the CRC of an uncompressed frame after its payload
// changed, so that the test reaches the check it means to.
func fixCRC(frame []byte) []byte {
	hl := int(binary.LittleEndian.Uint16(frame[7:]))
	at := 7 + hl
	binary.LittleEndian.PutUint32(frame[at+4:], crc.Checksum(frame[at+8:]))
	return frame
}

func TestDecodeRejects(t *testing.T) {
	a := unhex(t, frameKATs[0].frame) // request, uncompressed
	e := unhex(t, frameKATs[4].frame) // request, compressed
	dec, _ := NewDecoder()
	for _, tc := range []struct {
		name  string
		frame []byte
		want  error
	}{
		{"trailing byte", append(bytes.Clone(a), 0), ErrMalformed},
		{"trailing byte after brotli", mutate(e, func(b []byte) []byte {
			b = append(b, 0)
			binary.LittleEndian.PutUint32(b[7+36:], binary.LittleEndian.Uint32(b[7+36:])+1)
			return b
		}), ErrMalformed},
		{"payload_len too long", mutate(a, func(b []byte) []byte { b[41]++; return b }), ErrMalformed},
		{"crc", mutate(a, func(b []byte) []byte { b[45] ^= 1; return b }), ErrIntegrity},
		{"payload byte", mutate(a, func(b []byte) []byte { b[len(b)-3] ^= 0x20; return b }), ErrIntegrity},
		{"compressed payload byte", mutate(e, func(b []byte) []byte { b[len(b)-10] ^= 0x55; return b }), ErrMalformed},
		{"not JSON", fixCRC(mutate(a, func(b []byte) []byte { b[len(b)-1] = ' '; return b })), ErrMalformed},
		{"invalid UTF-8 payload", fixCRC(mutate(a, func(b []byte) []byte { b[len(b)-5] = 0xff; return b })), ErrMalformed},
		{"unknown schema", mutate(a, func(b []byte) []byte { b[9] = 0x07; return b }), ErrInvalidCodec},
		{"unknown security", mutate(a, func(b []byte) []byte { b[10] = 0x03; return b }), ErrInvalidCodec},
		{"secured without a key", mutate(a, func(b []byte) []byte { b[10] = 0x01; return b }), ErrInvalidCodec},
		{"reserved byte", mutate(a, func(b []byte) []byte { b[7+19] = 1; return b }), ErrMalformed},
		{"reserved flags byte", mutate(a, func(b []byte) []byte { b[7+6] = 1; return b }), ErrMalformed},
		{"extensions flag", mutate(a, func(b []byte) []byte { b[7+7] |= 2; return b }), ErrMalformed},
		{"reserved request flag", mutate(a, func(b []byte) []byte { b[7+5] |= 0x80; return b }), ErrMalformed},
		{"header_len < 20", mutate(a, func(b []byte) []byte { b[7] = 19; return b }), ErrMalformed},
		{"header_len past the end", mutate(a, func(b []byte) []byte { b[8] = 0xff; return b }), ErrMalformed},
		{"header_len one long", mutate(a, func(b []byte) []byte { b[7]++; return b }), ErrMalformed},
		{"header_len one short", mutate(a, func(b []byte) []byte { b[7]--; return b }), ErrMalformed},
		{"model not UTF-8", mutate(a, func(b []byte) []byte { b[7+21] = 0xc3; return b }), ErrMalformed},
		{"overlong msg_count", mutate(a, func(b []byte) []byte {
			// 01 becomes 81 00: non-canonical, and the header grows a byte.
			b = append(b[:7+27], append([]byte{0x81, 0x00}, b[7+28:]...)...)
			b[7]++
			return b
		}), ErrMalformed},
		{"prefix", mutate(a, func(b []byte) []byte { b[5] = '2'; return b }), ErrInvalidCodec},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := dec.AppendFrame([]byte("keep"), nil, tc.frame)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if string(out) != "keep" {
				t.Fatalf("dst changed to %q on error", out)
			}
		})
	}
}

// TestDecodeTruncated cuts frames at every byte: every cut is an error
// (never a panic, never partial output).
func TestDecodeTruncated(t *testing.T) {
	dec, _ := NewDecoder()
	for _, ka := range frameKATs {
		frame := unhex(t, ka.frame)
		for n := range len(frame) {
			if out, err := dec.AppendFrame(nil, nil, frame[:n]); err == nil || len(out) != 0 {
				t.Fatalf("%s cut to %d bytes: %q, %v", ka.name, n, out, err)
			}
		}
	}
}

func TestWireRejects(t *testing.T) {
	dec, _ := NewDecoder()
	str := frameKATs[0].str
	for _, tc := range []struct {
		name, wire string
		want       error
	}{
		{"non-canonical base64", str[:len(str)-2] + "1=", ErrMalformed},
		{"missing padding", strings.TrimRight(str, "="), ErrMalformed},
		{"line break", str[:20] + "\n" + str[20:], ErrMalformed},
		{"future version", "#M2M|2|AAAA", ErrInvalidCodec},
		{"dictionary codec", "#M2M|hoAiSGVsbG+FfQ==", ErrInvalidCodec},
		{"M3 codec", "#M3|AQ==", ErrInvalidCodec},
		{"Brotli without DATA:", "#M2M[v3.0]|G0gA", ErrMalformed},
		{"Brotli bad base64", "#M2M[v3.0]|DATA:G0gA!", ErrMalformed},
		{"Brotli not brotli", "#M2M[v3.0]|DATA:" + base64.StdEncoding.EncodeToString([]byte("plain")), ErrMalformed},
		{"passthrough not UTF-8", "\xff\xfe", ErrMalformed},
		{"zlib not zlib", "#M2M[v2.0]|DATA:AAAA", ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out, _, err := dec.AppendDecode(nil, []byte(tc.wire)); !errors.Is(err, tc.want) || len(out) != 0 {
				t.Fatalf("AppendDecode(%q) = %q, %v; want %v", tc.wire, out, err, tc.want)
			}
		})
	}
}

// allocated returns the bytes that f allocates, all told: what a hostile
// message costs in memory, whether or not it is still held after f.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// checkAllocated fails t if grew bytes are over bound. The race detector's
// instrumentation allocates more, so the bound is checked only without it.
func checkAllocated(t *testing.T, what string, grew, bound uint64) {
	t.Helper()
	if grew > bound && !race.Enabled {
		t.Errorf("%s allocated %.1f MiB, over the bound of %.1f MiB", what, float64(grew)/(1<<20), float64(bound)/(1<<20))
	}
}

// TestBrotliBomb decodes a frame whose 64 MiB of zeros compress to a few
// hundred bytes: it must fail on the limit, with memory bounded by it.
func TestBrotliBomb(t *testing.T) {
	var payload bytes.Buffer
	w := brotli.NewWriterLevel(&payload, 1)
	zeros := make([]byte, 1<<20)
	for range 64 {
		w.Write(zeros)
	}
	w.Close()
	enc, _ := NewEncoder()
	frame, err := enc.AppendFrame(nil, []byte(`{"model":"x","messages":[],"pad":"`+strings.Repeat("a", 200)+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	// Swap the payload for the bomb (header and CRC no longer matter).
	at := 7 + int(binary.LittleEndian.Uint16(frame[7:]))
	frame = append(frame[:at+8], payload.Bytes()...)
	binary.LittleEndian.PutUint32(frame[at:], uint32(payload.Len()))

	dec, _ := NewDecoder()
	grew := allocated(func() { _, err = dec.AppendFrame(nil, nil, frame) })
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("64 MiB bomb: %v, want ErrLimit", err)
	}
	// The output costs the limit and 2 MiB (doubling to 1 MiB, then
	// chunks), and Brotli's window its size (4 MiB here, up to 16 MiB)
	// grown by doubling: about 26 MiB here, where doubling the output all
	// the way cost 53 MiB.
	checkAllocated(t, "decoding the bomb", grew, 2*16<<20)
	// A smaller limit stops sooner.
	small, _ := NewDecoder(WithLimits(Limits{MaxDecompressed: 1 << 10}))
	if _, err := small.AppendFrame(nil, nil, frame); !errors.Is(err, ErrLimit) {
		t.Fatalf("1 KiB limit: %v", err)
	}
}

// TestZlibBomb decodes a legacy zlib message whose 64 MiB of zeros
// compress to 64 KiB: it must fail on the limit, with memory bounded by it
// (inflating into a buffer to copy it took 64 MiB).
func TestZlibBomb(t *testing.T) {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	zeros := make([]byte, 1<<20)
	for range 64 {
		w.Write(zeros)
	}
	w.Close()
	wire := []byte(prefixZlib + base64.StdEncoding.EncodeToString(z.Bytes()))
	dec, _ := NewDecoder()
	var out []byte
	var err error
	grew := allocated(func() { out, _, err = dec.AppendDecode([]byte("keep"), wire) })
	if !errors.Is(err, ErrLimit) || string(out) != "keep" {
		t.Fatalf("64 MiB bomb: %.20q, %v, want ErrLimit", out, err)
	}
	// The output costs the limit and 2 MiB (doubling to 1 MiB, then
	// chunks), and flate a window of 32 KiB.
	checkAllocated(t, "decoding the bomb", grew, 20<<20)
}

// unevenReader yields n bytes of a pattern in reads of uneven sizes, with
// io.EOF on the last.
type unevenReader struct{ off, n int }

func (r *unevenReader) Read(p []byte) (int, error) {
	m := min(len(p), r.n-r.off, 1+r.off%65_521*31%70_001)
	for i := range m {
		p[i] = byte((r.off + i) % 251)
	}
	if r.off += m; r.off == r.n {
		return m, io.EOF
	}
	return m, nil
}

// TestAppendRead reads outputs of the sizes around appendRead's cuts, at
// and just over the limit, after a prefix in dst, with and without room.
func TestAppendRead(t *testing.T) {
	for _, n := range []int{0, 1, 511, 512, directRead - 1, directRead, directRead + 1,
		directRead + readChunk - 1, directRead + readChunk, directRead + readChunk + 1, 3*directRead + 12345} {
		want := make([]byte, n)
		for i := range want {
			want[i] = byte(i % 251)
		}
		for _, room := range []int{0, n + 10} {
			dst := append(make([]byte, 0, 4+room), "keep"...)
			got, err := appendRead(dst, &unevenReader{n: n}, 100, n)
			if err != nil || string(got[:4]) != "keep" || !bytes.Equal(got[4:], want) {
				t.Errorf("%d bytes, room for %d, at the limit: %d bytes, %v", n, room, len(got)-4, err)
			}
			if n == 0 {
				continue
			}
			if _, err := appendRead(dst, &unevenReader{n: n}, 100, n-1); err != errOverLimit {
				t.Errorf("%d bytes, room for %d, one over the limit: %v", n, room, err)
			}
		}
	}
	// And through the decoders, past the cuts.
	text := []byte(strings.Repeat(`{"k":"`+randomWords(5000)+`"}`, 3*directRead/5000))
	enc, _ := NewEncoder(WithQuality(1))
	dec, _ := NewDecoder()
	stream, _ := enc.AppendBrotli(nil, text)
	if got, err := dec.AppendBrotli([]byte("keep"), stream); err != nil || string(got[:4]) != "keep" || !bytes.Equal(got[4:], text) {
		t.Errorf("Brotli of %d bytes: %d bytes, %v", len(text), len(got)-4, err)
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(text)
	w.Close()
	if got, err := appendInflated([]byte("keep"), z.Bytes(), len(text)); err != nil || string(got[:4]) != "keep" || !bytes.Equal(got[4:], text) {
		t.Errorf("zlib of %d bytes: %d bytes, %v", len(text), len(got)-4, err)
	}
}

// TestHeaderLayouts parses a request header of 64 KiB that claims 260,000
// messages and fits none of the layouts the reference writes: trying the
// hundred thousand layouts must not cost memory (listing them took 10.8
// MiB).
func TestHeaderLayouts(t *testing.T) {
	v := varint.AppendUvarint([]byte{0}, 4*65_000) // no model, msg_count
	v = append(v, bytes.Repeat([]byte{0xff}, 1<<16-1-fixedHeaderLen-len(v))...)
	frame := append([]byte(prefixM2M), 0xff, 0xff, byte(SchemaRequest), 0)
	frame = binary.LittleEndian.AppendUint32(frame, uint32(FlagMaxTokens))
	frame = append(append(frame, make([]byte, 12)...), v...)
	var h Header
	var err error
	grew := allocated(func() { err = ParseHeader(&h, frame) })
	if !errors.Is(err, ErrMalformed) {
		t.Errorf("ParseHeader: %v, want ErrMalformed", err)
	}
	checkAllocated(t, "parsing the header", grew, 4<<10)
}

func TestLimits(t *testing.T) {
	enc, _ := NewEncoder(WithLimits(Limits{MaxDepth: 3, MaxArray: 4, MaxString: 10, MaxMessage: 300}))
	for _, tc := range []struct {
		json string
		ok   bool
	}{
		{`{"a":[[1]]}`, true},
		{`{"a":[[[1]]]}`, false},
		{`[1,2,3,4]`, true},
		{`[1,2,3,4,5]`, false},
		{`"0123456789"`, true}, // 10 bytes inside the quotes
		{`"0123456789a"`, false},
		{`{"s":"` + strings.Repeat("é", 4) + `","t":[` + strings.Repeat(`"ab",`, 3) + `"c"]}`, true},
	} {
		_, err := enc.AppendFrame(nil, []byte(tc.json))
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrLimit)) {
			t.Errorf("AppendFrame(%s) = %v, want ok %v (or ErrLimit)", tc.json, err, tc.ok)
		}
	}
	// Text that Brotli cannot shrink, to test the frame-size limit.
	r := rand.New(rand.NewPCG(1, 1))
	noise := make([]byte, 600)
	for i := range noise {
		noise[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[r.IntN(36)]
	}
	enc, _ = NewEncoder(WithLimits(Limits{MaxMessage: 300}))
	if _, err := enc.AppendFrame(nil, []byte(`{"q":"`+string(noise[:100])+`"}`)); err != nil {
		t.Errorf("frame under the message limit: %v", err)
	}
	if _, err := enc.AppendFrame(nil, []byte(`{"q":"`+string(noise)+`"}`)); !errors.Is(err, ErrLimit) {
		t.Errorf("frame over the message limit: %v", err)
	}
}
