package codec

import (
	"bytes"
	"encoding/hex"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// Known answers of docs/protocol.md §9: the frames of §3.13 and §9.1
// (derived by re-implementing the reference's layout), costs (§3.8),
// Brotli (§6.1) and Token v1 (§6.2).

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const (
	testRequest  = `{"model":"gpt-4o","messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"What is 2+2?"}],"temperature":0.7,"max_tokens":1000}`
	testResponse = `{"id":"chatcmpl-abc123","object":"chat.completion","created":1705520400,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"The answer is 4."},"finish_reason":"stop"}],"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}`
)

var frameKATs = []struct {
	name, json, frame, str string
}{
	{
		name:  "A: request, uncompressed (§3.13)",
		json:  `{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}`,
		frame: "234d324d7c317c2200010000000000000000000000000000000000066770742d346f0101020ad7a33b3e0000006e6055a47b226d6f64656c223a226770742d346f222c226d65737361676573223a5b7b22726f6c65223a2275736572222c22636f6e74656e74223a224869227d5d7d",
		str:   "#M2M|1|IgABAAAAAAAAAAAAAAAAAAAAAAAGZ3B0LTRvAQECCtejOz4AAABuYFWkeyJtb2RlbCI6ImdwdC00byIsIm1lc3NhZ2VzIjpbeyJyb2xlIjoidXNlciIsImNvbnRlbnQiOiJIaSJ9XX0=",
	},
	{
		name:  "B: request, zero messages",
		json:  `{"model":"x","messages":[]}`,
		frame: "234d324d7c317c1c0001000000000000000000000000000000000001780000a69bc43a1b0000004757d6b97b226d6f64656c223a2278222c226d65737361676573223a5b5d7d",
	},
	{
		name:  "C: request",
		json:  `{"model":"gpt-4o","messages":[{"role":"user","content":"Test"}]}`,
		frame: "234d324d7c317c2200010000000000000000000000000000000000066770742d346f01010403eca33b40000000baf89ec37b226d6f64656c223a226770742d346f222c226d65737361676573223a5b7b22726f6c65223a2275736572222c22636f6e74656e74223a2254657374227d5d7d",
		str:   "#M2M|1|IgABAAAAAAAAAAAAAAAAAAAAAAAGZ3B0LTRvAQEEA+yjO0AAAAC6+J7DeyJtb2RlbCI6ImdwdC00byIsIm1lc3NhZ2VzIjpbeyJyb2xlIjoidXNlciIsImNvbnRlbnQiOiJUZXN0In1dfQ==",
	},
	{
		name:  "D: response, uncompressed, no usage",
		json:  `{"id":"chatcmpl-456","model":"gpt-4o","choices":[{"message":{"content":"Test"}}]}`,
		frame: "234d324d7c317c2b000200000000000000000000000000000000000c63686174636d706c2d343536066770742d346fff000051000000dbb615c17b226964223a2263686174636d706c2d343536222c226d6f64656c223a226770742d346f222c2263686f69636573223a5b7b226d657373616765223a7b22636f6e74656e74223a2254657374227d7d5d7d",
	},
	{
		name:  "E: TEST_REQUEST, compressed",
		json:  testRequest,
		frame: "234d324d7c317c2400010041100001000000000000000000000000066770742d346f020428e807e63f243c810000001b43f61c1ba600000424994bd94bed988c1c3f20e8e454ef7e2bb01650d23c4a2ce4b42d708e35433588f836fef9b23fcee63b6296a79be61e514919c4ed97b44e8c63a0f2010e63eae35dc697b90af55116f79d8cafd7359991379dbf6a27e0d0b597abf14dd657b115bbe0dfab8ce930bf8c6ff7cb9cd8d40395fdf8352cd9aec48741fe",
	},
	{
		name:  "F: TEST_RESPONSE, compressed",
		json:  testResponse,
		frame: "234d324d7c317c32000200880000010000000000000000000000000f63686174636d706c2d616263313233066770742d346f00320afbed6b39ad00000097c1d7e81b090100c4d239659bd3237ca3e700e83bd574bdbd3ec4872a09a1db7d630491264bbe097a34c9464f9684e698dd45332bac030863fcf4e773986dd7bb9e0f031f0318ced60d01adf7c56576901b3b61e839ba78e1bc87f100617ea419dc91d672affdc82d5768bb80ec3032b7f30852205283d032aff71c41e6c57b9960205b46c1e845ac2c020bda809853fd3ca182309a05ba34f097d5cf779f8facf56118143abe7b81d0754c8ab7478ed6",
	},
}

// TestFrameKnownAnswers checks the reference's frames byte for byte, from
// an encoder with the reference's Brotli (go-brrr at quality 5), and that
// the default encoder's frames, whose Brotli is package brotli's, have
// the same header and decode to the same JSON.
func TestFrameKnownAnswers(t *testing.T) {
	enc, _ := NewEncoder(WithQuality(defaultQuality))
	own, _ := NewEncoder()
	dec, _ := NewDecoder()
	for _, ka := range frameKATs {
		t.Run(ka.name, func(t *testing.T) {
			want := unhex(t, ka.frame)
			got, err := enc.AppendFrame(nil, []byte(ka.json))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("AppendFrame = %x, %v\nwant          %x", got, err, want)
			}
			var hw, ho Header
			frame, err := own.AppendFrame(nil, []byte(ka.json))
			if err == nil && ParseHeader(&hw, want) == nil && ParseHeader(&ho, frame) == nil {
				hw.PayloadLen = ho.PayloadLen // the one field Brotli's bytes set
			}
			if err != nil || !reflect.DeepEqual(hw, ho) {
				t.Fatalf("default encoder: header %+v, %v; want %+v", ho, err, hw)
			}
			if text, err := dec.AppendFrame(nil, nil, frame); err != nil || string(text) != ka.json {
				t.Fatalf("default encoder: decode = %q, %v", text, err)
			}
			text, err := dec.AppendFrame(nil, nil, want)
			if err != nil || string(text) != ka.json {
				t.Fatalf("decode = %q, %v", text, err)
			}
			if ka.str == "" {
				return
			}
			s, err := enc.AppendFrameString(nil, []byte(ka.json))
			if err != nil || string(s) != ka.str {
				t.Fatalf("AppendFrameString = %s, %v\nwant %s", s, err, ka.str)
			}
			text, alg, err := dec.AppendDecode(nil, []byte(ka.str))
			if err != nil || alg != M2M || string(text) != ka.json {
				t.Fatalf("AppendDecode = %q, %v, %v", text, alg, err)
			}
		})
	}
}

// TestHeaderKnownAnswers checks the decoded header fields of the KATs
// against the values the reference document spells out.
func TestHeaderKnownAnswers(t *testing.T) {
	var h Header
	if err := ParseHeader(&h, unhex(t, frameKATs[4].frame)); err != nil {
		t.Fatal(err)
	}
	if h.Schema != SchemaRequest || string(h.Model) != "gpt-4o" || h.MsgCount != 2 ||
		len(h.Roles) != 2 || h.Roles[0] != RoleSystem || h.Roles[1] != RoleUser ||
		h.ContentHint != 40 || h.MaxTokens != 1000 ||
		h.Flags != FlagSystemPrompt|FlagMaxTokens|FlagTemperature|FlagCompressed ||
		!h.HasCost || math.Float32bits(h.Cost) != 0x3C243FE6 || h.CRC != 0x1CF6431B {
		t.Errorf("E header = %+v", h)
	}
	if err := ParseHeader(&h, unhex(t, frameKATs[5].frame)); err != nil {
		t.Fatal(err)
	}
	if h.Schema != SchemaResponse || string(h.ID) != "chatcmpl-abc123" || string(h.Model) != "gpt-4o" ||
		h.FinishReason != FinishStop || h.PromptTokens != 50 || h.CompletionTokens != 10 ||
		h.Flags != FlagUsage|FlagCostEstimate|FlagCompressed ||
		!h.HasCost || math.Float32bits(h.Cost) != 0x396BEDFB || h.CRC != 0xE8D7C197 {
		t.Errorf("F header = %+v", h)
	}
}

// TestCostKnownAnswers pins the f32 bit patterns of docs/protocol.md §3.8
// and the reference's own test values.
func TestCostKnownAnswers(t *testing.T) {
	for _, tc := range []struct {
		model              string
		prompt, completion uint32
		bits               uint32
	}{
		{"gpt-4o", 0, 500, 0x3BA3D70A},
		{"gpt-4o", 10, 1000, 0x3C243FE6},
		{"gpt-4o", 50, 10, 0x396BEDFB},
		{"", 0, 500, 0x3AC49BA6},
		{"gpt-4o", 1, 500, 0x3BA3EC03},
		{"GPT-4O", 1, 500, 0x3BA3EC03}, // lower-cased before matching
	} {
		if got := math.Float32bits(EstimateCost([]byte(tc.model), tc.prompt, tc.completion)); got != tc.bits {
			t.Errorf("EstimateCost(%q, %d, %d) = %#08x, want %#08x", tc.model, tc.prompt, tc.completion, got, tc.bits)
		}
	}
	for _, tc := range []struct {
		model              string
		prompt, completion uint32
		want, tol          float64
	}{
		{"gpt-4o", 1000, 500, 0.0075, 1e-4},
		{"gpt-4o-mini", 10000, 1000, 0.0021, 1e-4},
		{"claude-3.5-sonnet", 5000, 2000, 0.045, 1e-3},
		{"some-unknown-model", 1000, 1000, 0.004, 1e-7}, // 0.10 and 0.30 cents per 1K
	} {
		if got := float64(EstimateCost([]byte(tc.model), tc.prompt, tc.completion)); math.Abs(got-tc.want) > tc.tol {
			t.Errorf("EstimateCost(%q, %d, %d) = %v, want %v", tc.model, tc.prompt, tc.completion, got, tc.want)
		}
	}
}

// TestPriceOf checks priceOf, which lower-cases a model name only as far
// as the longest prefix, against lower-casing all of it: prefixes of every
// length in several cases, with and without suffixes, around U+0130 (which
// lower-cases to two runes), and invalid UTF-8.
func TestPriceOf(t *testing.T) {
	want := func(model string) price {
		var low []byte
		for _, r := range model {
			if r == '\u0130' {
				low = append(low, "i\u0307"...)
			} else {
				low = utf8.AppendRune(low, unicode.ToLower(r))
			}
		}
		for _, p := range pricing {
			if strings.HasPrefix(string(low), p.prefix) {
				return p
			}
		}
		return defaultPrice
	}
	names := []string{"", "\xff", "gpt-4o\xff", "\u0130", "gpt-4\u0130", "\u0130gpt-4o", "ÖPT-4o", "claude-3-5-sonnet-20241022"}
	for _, p := range pricing {
		for n := range len(p.prefix) + 1 {
			names = append(names, p.prefix[:n], strings.ToUpper(p.prefix[:n]), p.prefix[:n]+"-X", strings.ToUpper(p.prefix[:n])+"\u0130\u0130")
		}
	}
	for _, name := range names {
		if got, want := priceOf([]byte(name)), want(name); got != want {
			t.Errorf("priceOf(%q) = %+v, want %+v", name, got, want)
		}
	}
}

// TestPriceMemo checks that a priceMemo gives priceOf's price for names
// in an order that repeats some, changes only their case or their end,
// and reuses the memo's buffer for a name that differs from the last in
// its bytes only (the memo must copy the name, not keep the caller's).
func TestPriceMemo(t *testing.T) {
	var m priceMemo
	buf := []byte("gpt-4o")
	for _, name := range []string{"gpt-4o", "gpt-4o", "GPT-4O", "gpt-4o-mini", "gpt-4o", "", "", "claude-3-haiku", "o3", "o3-mini", "o3", "\u0130", "x"} {
		if got, want := m.of([]byte(name)), priceOf([]byte(name)); got != want {
			t.Errorf("of(%q) = %+v, want %+v", name, got, want)
		}
	}
	// A name in a buffer the caller then changes: the memo's copy stands.
	m = priceMemo{}
	m.of(buf)
	copy(buf, "o3-min")
	if got, want := m.of(buf), priceOf(buf); got != want {
		t.Errorf("of(%q) after the buffer changed = %+v, want %+v", buf, got, want)
	}
}

func TestBrotliKnownAnswer(t *testing.T) {
	dec, _ := NewDecoder()
	wire := "#M2M[v3.0]|DATA:G0gA4IzUYs0Z7kSQt5Rd17Rmoim2N9N+ikUHHHLgcMCwBRIIBrUHJJJVAlfrvNoC86Y93dhTpQBYJ1jxLf74"
	text, alg, err := dec.AppendDecode(nil, []byte(wire))
	if want := `{"model":"gpt-4o","messages":[{"role":"user","content":"Hello, world!"}]}`; err != nil || alg != Brotli || string(text) != want {
		t.Fatalf("AppendDecode = %q, %v, %v", text, alg, err)
	}
}

func TestTokenV1KnownAnswer(t *testing.T) {
	dec, _ := NewDecoder()
	text, alg, err := dec.AppendDecode(nil, []byte(`#T1|{"M":"g4o","messages":[{"c":"Hello","role":"user"}]}`))
	want := `{"frequency_penalty":0,"messages":[{"content":"Hello","role":"user"}],"model":"gpt-4o","n":1,"presence_penalty":0,"stream":false,"temperature":1.0,"top_p":1.0}`
	if err != nil || alg != TokenV1 || string(text) != want {
		t.Fatalf("AppendDecode = %s, %v, %v\nwant %s", text, alg, err, want)
	}
}
