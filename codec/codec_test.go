package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/internal/sample"
)

// referenceFrame assembles an uncompressed request frame the way the
// reference encoder lays it out, from a hand-written variable header.
func referenceFrame(flags Flags, varHeader []byte, json string) []byte {
	f := []byte(prefixM2M)
	f = binary.LittleEndian.AppendUint16(f, uint16(fixedHeaderLen+len(varHeader)))
	f = append(f, byte(SchemaRequest), 0)
	f = binary.LittleEndian.AppendUint32(f, uint32(flags))
	f = append(f, make([]byte, 12)...)
	f = append(f, varHeader...)
	f = binary.LittleEndian.AppendUint32(f, uint32(len(json)))
	f = binary.LittleEndian.AppendUint32(f, crc.Checksum([]byte(json)))
	return append(f, json...)
}

func cost(model string, prompt, completion uint32) []byte {
	return binary.LittleEndian.AppendUint32(nil, math.Float32bits(EstimateCost([]byte(model), prompt, completion)))
}

// TestReferenceQuirks decodes the layouts the reference encoder produces
// and this package never writes (docs/protocol.md §10.1-10.2).
func TestReferenceQuirks(t *testing.T) {
	dec, _ := NewDecoder()
	var h Header

	// Five messages, one with role "function", which the reference skips:
	// four roles in one byte where msg_count asks for two.
	json := `{"model":"m","messages":[{"role":"user"},{"role":"function"},{"role":"user"},{"role":"user"},{"role":"user"}]}`
	vh := append([]byte{1, 'm', 5, 0x55, 0}, cost("m", 0, 500)...)
	text, err := dec.AppendFrame(nil, &h, referenceFrame(0, vh, json))
	if err != nil || string(text) != json || h.Quirks != QuirkSkippedRoles || h.Roles != nil || h.MsgCount != 5 {
		t.Errorf("skipped roles: %q, %v, %+v", text, err, h)
	}

	// max_tokens null: the flag without its value.
	json = `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":null}`
	vh = append([]byte{1, 'm', 1, 0x01, 2}, cost("m", 0, 500)...)
	text, err = dec.AppendFrame(nil, &h, referenceFrame(FlagMaxTokens, vh, json))
	if err != nil || string(text) != json || h.Quirks != QuirkMaxTokensWithoutValue || h.Flags&FlagMaxTokens != 0 ||
		len(h.Roles) != 1 || h.ContentHint != 2 {
		t.Errorf("max_tokens without value: %q, %v, %+v", text, err, h)
	}

	// The canonical layout of the same fields is not a quirk.
	vh = append([]byte{1, 'm', 1, 0x01, 2, 0x0a}, cost("m", 0, 10)...)
	if _, err := dec.AppendFrame(nil, &h, referenceFrame(FlagMaxTokens, vh, json)); err != nil || h.Quirks != 0 || h.MaxTokens != 10 {
		t.Errorf("canonical: %v, %+v", err, h)
	}
}

// TestEncoderRobustness covers inputs on which the reference writes frames
// that decoders misread; ours must parse exactly, without quirks.
func TestEncoderRobustness(t *testing.T) {
	enc, _ := NewEncoder()
	dec, _ := NewDecoder()
	long := strings.Repeat("é", 150) // 300 bytes
	for _, tc := range []struct {
		name, json string
		check      func(h *Header) bool
	}{
		{"model over 255 bytes", `{"model":"` + long + `","messages":[]}`, func(h *Header) bool {
			return len(h.Model) == 254 && utf8.Valid(h.Model)
		}},
		{"id over 255 bytes", `{"id":"chatcmpl-` + long + `","choices":[]}`, func(h *Header) bool {
			return len(h.ID) <= 255 && utf8.Valid(h.ID) && strings.HasPrefix(string(h.ID), "chatcmpl-")
		}},
		{"unknown role", `{"model":"m","messages":[{"role":"system"},{"role":"function"},{"role":"user"},{"content":"x"},7]}`, func(h *Header) bool {
			return h.MsgCount == 5 && slices.Equal(h.Roles, []Role{RoleSystem, RoleTool, RoleUser, RoleTool, RoleTool})
		}},
		{"max_tokens null", `{"model":"m","messages":[],"max_tokens":null}`, func(h *Header) bool {
			return h.Flags&FlagMaxTokens == 0
		}},
		{"max_tokens float", `{"model":"m","messages":[],"max_completion_tokens":100.0}`, func(h *Header) bool {
			return h.Flags&FlagMaxTokens == 0
		}},
		{"max_tokens -0", `{"model":"m","messages":[],"max_tokens":-0}`, func(h *Header) bool {
			return h.Flags&FlagMaxTokens == 0
		}},
		{"max_tokens wins even when null", `{"model":"m","messages":[],"max_tokens":null,"max_completion_tokens":7}`, func(h *Header) bool {
			return h.Flags&FlagMaxTokens == 0
		}},
		{"max_completion_tokens", `{"model":"m","messages":[],"max_completion_tokens":7}`, func(h *Header) bool {
			return h.Flags&FlagMaxTokens != 0 && h.MaxTokens == 7
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame, err := enc.AppendFrame(nil, []byte(tc.json))
			if err != nil {
				t.Fatal(err)
			}
			var h Header
			text, err := dec.AppendFrame(nil, &h, frame)
			if err != nil || string(text) != tc.json || h.Quirks != 0 || !tc.check(&h) {
				t.Fatalf("%q, %v, %+v", text, err, h)
			}
		})
	}
}

// TestSchemas: the schema each kind of value gets, by default and with
// WithReferenceSchemas (the reference encoder's Request or Response); the
// frames decode either way.
func TestSchemas(t *testing.T) {
	enc, _ := NewEncoder()
	ref, _ := NewEncoder(WithReferenceSchemas())
	dec, _ := NewDecoder()
	for _, tc := range []struct {
		json     string
		want, rf Schema
	}{
		{`{"model":"m","messages":[]}`, SchemaRequest, SchemaRequest},
		{`{"model":"gpt-4o","input":"x"}`, SchemaEmbeddingRequest, SchemaRequest},
		{`{"model":"m"}`, SchemaRequest, SchemaRequest},
		{`[1,2]`, SchemaRequest, SchemaRequest},
		{`"text"`, SchemaRequest, SchemaRequest},
		{`{"choices":[]}`, SchemaResponse, SchemaResponse},
		{`{"id":"chatcmpl-1"}`, SchemaResponse, SchemaResponse},
		{`{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[]}`, SchemaStream, SchemaResponse},
		{`{"error":{"message":"bad"}}`, SchemaError, SchemaRequest},
		{`{"type":"error","error":{"type":"overloaded_error"}}`, SchemaError, SchemaRequest},
		// A batch API's result line: "error": null is no error.
		{`{"id":"batch_req_1","custom_id":"r1","response":{"status_code":200,"body":{"id":"chatcmpl-1","choices":[]}},"error":null}`, SchemaRequest, SchemaRequest},
		{`{"object":"list","data":[],"model":"e"}`, SchemaEmbeddingResponse, SchemaRequest},
	} {
		for _, e := range []struct {
			enc  *Encoder
			want Schema
		}{{enc, tc.want}, {ref, tc.rf}} {
			frame, err := e.enc.AppendFrame(nil, []byte(tc.json))
			var h Header
			if err == nil {
				err = ParseHeader(&h, frame)
			}
			if err != nil || h.Schema != e.want {
				t.Errorf("%s: schema %v, %v; want %v", tc.json, h.Schema, err, e.want)
			}
			if text, err := dec.AppendFrame(nil, &h, frame); err != nil || string(text) != tc.json {
				t.Errorf("%s: decoded %q, %v", tc.json, text, err)
			}
		}
	}
}

// corpusLines returns the lines of the corpus named by M2M_CORPUS, or
// skips the test.
func corpusLines(tb testing.TB) [][]byte {
	name := os.Getenv("M2M_CORPUS")
	if name == "" {
		tb.Skip("M2M_CORPUS not set")
	}
	lines, err := readLines(name)
	if err != nil {
		tb.Skipf("M2M_CORPUS: %v", err)
	}
	return lines
}

func readLines(name string) ([][]byte, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return splitLines(data), nil
}

func splitLines(data []byte) [][]byte {
	var lines [][]byte
	for line := range bytes.Lines(data) {
		lines = append(lines, bytes.TrimSuffix(line, []byte("\n")))
	}
	return lines
}

// benchLines returns the corpus named by M2M_CORPUS, or else the embedded
// sample.
func benchLines(tb testing.TB) [][]byte {
	if name := os.Getenv("M2M_CORPUS"); name != "" {
		lines, err := readLines(name)
		if err != nil {
			tb.Fatalf("M2M_CORPUS: %v", err)
		}
		return lines
	}
	return splitLines(sample.JSONL())
}

// roundTrip holds every encoding of text to decoding back to text, and
// re-encoding a decoded header to its original bytes.
func roundTrip(t *testing.T, enc *Encoder, dec *Decoder, text []byte) {
	t.Helper()
	frame, err := enc.AppendFrame(nil, text)
	if err != nil {
		t.Fatalf("AppendFrame(%.80q): %v", text, err)
	}
	var h Header
	got, err := dec.AppendFrame(nil, &h, frame)
	if err != nil || !bytes.Equal(got, text) {
		t.Fatalf("frame of %.80q decodes to %.80q, %v", text, got, err)
	}
	hb, err := appendHeader(nil, &h)
	if hl := int(binary.LittleEndian.Uint16(frame[7:])); err != nil || !bytes.Equal(hb, frame[7:7+hl]) {
		t.Fatalf("header of %.80q re-encodes to %x, want %x", text, hb, frame[7:7+hl])
	}
	for _, alg := range []Algorithm{M2M, Brotli} {
		wire, err := enc.AppendWire(nil, text, alg)
		if err != nil {
			t.Fatalf("AppendWire(%.80q, %v): %v", text, alg, err)
		}
		got, a, err := dec.AppendDecode(nil, wire)
		if err != nil || a != alg || !bytes.Equal(got, text) {
			t.Fatalf("%v wire of %.80q decodes to %.80q, %v, %v", alg, text, got, a, err)
		}
	}
	wire, alg, err := enc.AppendAuto(nil, text)
	if err != nil {
		t.Fatalf("AppendAuto(%.80q): %v", text, err)
	}
	if got, a, err := dec.AppendDecode(nil, wire); err != nil || a != alg || !bytes.Equal(got, text) {
		t.Fatalf("auto (%v) wire of %.80q decodes to %.80q, %v, %v", alg, text, got, a, err)
	}
}

// TestRoundTrip round-trips every line of the project's sample, and of
// M2M_CORPUS when set.
func TestRoundTrip(t *testing.T) {
	enc, _ := NewEncoder()
	dec, _ := NewDecoder()
	for _, line := range splitLines(sample.JSONL()) {
		roundTrip(t, enc, dec, line)
	}
	if os.Getenv("M2M_CORPUS") != "" {
		for _, line := range corpusLines(t) {
			roundTrip(t, enc, dec, line)
		}
	}
}

func TestPassthrough(t *testing.T) {
	enc, _ := NewEncoder()
	dec, _ := NewDecoder()
	for _, text := range []string{"", "hello", "#not-a-prefix", "{}", "# M2M|1|"} {
		wire, err := enc.AppendWire(nil, []byte(text), None)
		if err != nil || string(wire) != text {
			t.Errorf("AppendWire(%q, None) = %q, %v", text, wire, err)
		}
		if got, alg, err := dec.AppendDecode(nil, wire); err != nil || alg != None || string(got) != text {
			t.Errorf("decode %q = %q, %v, %v", text, got, alg, err)
		}
	}
	// Text that starts like a message is never passed through.
	for _, text := range []string{"#M2M|1|x", "#TK|C|x", "#M2M[v3.0]|DATA:", "#T1|{}", "#M2M|2|", "#M3|"} {
		if _, err := enc.AppendWire(nil, []byte(text), None); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("AppendWire(%q, None): %v, want ErrInvalidInput", text, err)
		}
		wire, alg, err := enc.AppendAuto(nil, []byte(text))
		if err != nil || alg == None {
			t.Errorf("AppendAuto(%q) = %v, %v; want anything but None", text, alg, err)
		}
		if got, _, err := dec.AppendDecode(nil, wire); err != nil || string(got) != text {
			t.Errorf("round trip of %q: %q, %v", text, got, err)
		}
	}
}

func TestAutoSelection(t *testing.T) {
	enc, _ := NewEncoder()
	request := `{"model":"gpt-4o","messages":[{"role":"user","content":"` + strings.Repeat("Tell me about Go. ", 20) + `"}]}`
	for _, tc := range []struct {
		name, text string
		want       Algorithm
	}{
		{"small", `{"model":"gpt-4o"}`, None},
		{"LLM request", request, M2M},
		{"large LLM request", request + strings.Repeat(" ", 2000), M2M},
		{"repetitive non-LLM JSON", `{"log":"` + strings.Repeat("hello world ", 100) + `"}`, Brotli},
		{"small varied JSON: TokenNative wins", `{"a":1,"b":[1,2,3],"c":"some text that does not repeat very much at all, honestly","d":{"e":false},"f":"x"}`, TokenNative},
		{"varied non-LLM JSON over 1 KiB", `{"a":1,"b":[1,2,3],"c":"` + randomWords(1200) + `"}`, M2M},
		{"repetitive text", strings.Repeat("hello world ", 100), Brotli},
		{"incompressible text", "Zq8!xB2@kL9#mN4$pR7%tV1^wY6&zA3*cE5(gH0)jK-uO=iU+yT[oP]lM;nB:vC'xZ<aS>dF?qW/eR.tY,", None},
	} {
		_, alg, err := enc.AppendAuto(nil, []byte(tc.text))
		if err != nil || alg != tc.want {
			t.Errorf("%s: AppendAuto = %v, %v; want %v", tc.name, alg, err, tc.want)
		}
	}
	// A sealing encoder keeps the sealed frame where TokenNative is shorter.
	sealed, _ := NewEncoder(WithSecurity(SecurityHMAC, make([]byte, 32)))
	small := `{"model":"gpt-4o","messages":[{"role":"user","content":"Could you explain, in plain words, why the sky looks blue during the day but turns orange and red at sunset? My daughter asked me this evening and I realised I only half remember the physics."}]}`
	if _, alg, _ := enc.AppendAuto(nil, []byte(small)); alg != TokenNative {
		t.Errorf("small request: %v, want TokenNative (else the next check proves nothing)", alg)
	}
	if _, alg, err := sealed.AppendAuto(nil, []byte(small)); err != nil || alg != M2M {
		t.Errorf("small request under HMAC: %v, %v; want a sealed M2M frame", alg, err)
	}
}

// randomWords returns n bytes of seeded random lower-case words: text with
// little repetition.
func randomWords(n int) string {
	r := rand.New(rand.NewPCG(9, 9))
	var b strings.Builder
	for b.Len() < n {
		for range 2 + r.IntN(7) {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
		b.WriteByte(' ')
	}
	return b.String()[:n]
}

func TestAppendHeaderMatchesFrame(t *testing.T) {
	enc, _ := NewEncoder()
	for _, text := range []string{
		`{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"max_tokens":5}`,
		`{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o","choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"` + strings.Repeat("x", 200) + `"}}],"usage":{"prompt_tokens":3,"completion_tokens":4}}`,
		`[1,2,3]`,
	} {
		hdr, err := enc.AppendHeader(nil, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		frame, _ := enc.AppendFrame(nil, []byte(text))
		if !bytes.HasPrefix(frame[len(prefixM2M):], hdr) {
			t.Errorf("%.40s: header %x is not the frame's", text, hdr)
		}
		var h, want Header
		if err := ParseHeaderBytes(&h, hdr); err != nil {
			t.Fatal(err)
		}
		if err := ParseHeader(&want, frame); err != nil {
			t.Fatal(err)
		}
		want.PayloadLen, want.CRC = 0, 0
		if !reflect.DeepEqual(h, want) {
			t.Errorf("%.40s: parsed %+v, want %+v", text, h, want)
		}
		if err := ParseHeaderBytes(&h, append(hdr, 0)); err == nil {
			t.Error("a header with a byte after it parsed")
		}
	}
	if _, err := enc.AppendHeader(nil, []byte(`{"a":`)); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("not JSON: %v", err)
	}
}
