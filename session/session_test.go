package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/internal/race"
	"github.com/m2m-go/m2m/internal/sample"
	"github.com/m2m-go/m2m/keys"
)

// TestEnvelopeJSON pins the bytes of the envelope and the capabilities,
// field for field in the reference's order (docs/protocol.md §7.1-7.2).
func TestEnvelopeJSON(t *testing.T) {
	s := New(Config{Algorithms: []codec.Algorithm{codec.M2M, codec.TokenNative, codec.Brotli, codec.None}})
	s.local.AgentID = "6f1c2a9e-8d4b-4c1e-9a7f-3b2d1e0c5a48"
	hello, _ := s.Hello()
	hello.Timestamp = 1705520400000
	got, err := json.Marshal(hello)
	want := `{"type":"HELLO","payload":{"version":"3.0","agent_id":"6f1c2a9e-8d4b-4c1e-9a7f-3b2d1e0c5a48","agent_type":"m2m-go",` +
		`"compression":{"algorithms":["m2m","tokennative","brotli","none"],"max_payload":0,"streaming":true,"ml_routing":false,` +
		`"encodings":["Cl100kBase","O200kBase"],"preferred_encoding":"Cl100kBase"},` +
		`"security":{"threat_detection":false,"model_version":null,"blocking_mode":false,"block_threshold":0.8},` +
		`"extensions":{}},"timestamp":1705520400000}`
	if err != nil || string(got) != want {
		t.Errorf("HELLO =\n%s, %v\nwant\n%s", got, err, want)
	}
	ping := &Message{Type: Ping, SessionID: "s1", Timestamp: 5}
	if got, _ := json.Marshal(ping); string(got) != `{"type":"PING","session_id":"s1","payload":{},"timestamp":5}` {
		t.Errorf("PING = %s", got)
	}
	var back Message
	if err := json.Unmarshal([]byte(want), &back); err != nil || back.Payload.(*Capabilities).AgentType != "m2m-go" {
		t.Errorf("HELLO does not parse back: %v", err)
	}
}

func TestParseMessages(t *testing.T) {
	for _, tc := range []struct {
		json string
		ok   bool
	}{
		{`{"type":"PING","payload":{},"timestamp":1}`, true},
		{`{"type":"PONG","session_id":null,"timestamp":1}`, true},
		{`{"type":"CLOSE","session_id":"x","payload":{},"timestamp":1}`, true},
		{`{"type":"PING","payload":{}}`, false},                            // timestamp is required
		{`{"type":"NOPE","payload":{},"timestamp":1}`, false},              // unknown type
		{`{"type":"DATA","payload":{"content":"x"},"timestamp":1}`, false}, // algorithm missing
		{`{"type":"DATA","payload":{"algorithm":"m2m","content":"x"},"timestamp":1}`, true},
		{`{"type":"REJECT","payload":{"code":"UNKNOWN","message":"m"},"timestamp":1}`, true},
		{`{"type":"REJECT","payload":{"code":"UNKNOWN"},"timestamp":1}`, false},
		{`{"type":"HELLO","payload":{"version":"3.0","agent_id":"a","agent_type":"t","compression":{"algorithms":["m2m"],"max_payload":0,"streaming":true,"ml_routing":false},"security":{"threat_detection":false,"blocking_mode":false,"block_threshold":0.8}},"timestamp":1}`, true},
		{`{"type":"HELLO","payload":{"version":"3.0","agent_id":"a","agent_type":"t","compression":{"algorithms":["m2m"],"streaming":true,"ml_routing":false},"security":{"threat_detection":false,"blocking_mode":false,"block_threshold":0.8}},"timestamp":1}`, false}, // max_payload missing
		{`{"type":"PING","payload":"x","timestamp":1}`, false},
		{`not json`, false},
	} {
		var m Message
		err := json.Unmarshal([]byte(tc.json), &m)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrMessage) && tc.json != "not json") {
			t.Errorf("%s: %v, want ok %v", tc.json, err, tc.ok)
		}
	}
	var m Message
	json.Unmarshal([]byte(`{"type":"HELLO","payload":{"version":"3.0","agent_id":"a","agent_type":"t","compression":{"algorithms":["m2m"],"max_payload":0,"streaming":true,"ml_routing":false},"security":{"threat_detection":false,"blocking_mode":false,"block_threshold":0.8}},"timestamp":1}`), &m)
	if c := m.Payload.(*Capabilities); c.Compression.PreferredEncoding != EncodingCl100k || c.Extensions == nil {
		t.Errorf("defaults not applied: %+v", c)
	}
}

func caps(version string, algs, encs []string, preferred string, ext map[string]string) *Capabilities {
	if ext == nil {
		ext = map[string]string{}
	}
	return &Capabilities{Version: version, Compression: Compression{Algorithms: algs, Encodings: encs, PreferredEncoding: preferred}, Extensions: ext}
}

func TestNegotiate(t *testing.T) {
	all := []string{"m2m", "tokennative", "brotli", "none"}
	a, rej := Negotiate(caps("3.0", []string{"brotli", "m2m"}, nil, EncodingCl100k, nil), caps("3.1", all, nil, "", nil))
	if rej != nil || a.Algorithm != codec.Brotli || !slices.Equal(a.Fallbacks, []codec.Algorithm{codec.M2M}) || a.Encoding != EncodingCl100k {
		t.Errorf("first of mine: %+v, %v", a, rej)
	}
	if _, rej := Negotiate(caps("3.0", all, nil, "", nil), caps("4.0", all, nil, "", nil)); rej == nil || rej.Code != CodeVersionMismatch {
		t.Errorf("version: %v", rej)
	}
	if _, rej := Negotiate(caps("3.0", []string{"m2m"}, nil, "", nil), caps("3.0", []string{"brotli"}, nil, "", nil)); rej == nil || rej.Code != CodeNoCommonAlgorithm {
		t.Errorf("no common algorithm: %v", rej)
	}
	// Encoding: preferred if the peer has it, else my first the peer has,
	// else cl100k.
	mine := caps("3.0", all, []string{EncodingLlama3, EncodingO200k}, EncodingCl100k, nil)
	if a, _ := Negotiate(mine, caps("3.0", all, []string{EncodingO200k, EncodingLlama3}, "", nil)); a.Encoding != EncodingLlama3 {
		t.Errorf("first of mine: %s", a.Encoding)
	}
	if a, _ := Negotiate(mine, caps("3.0", all, []string{"Heuristic"}, "", nil)); a.Encoding != EncodingCl100k {
		t.Errorf("fallback: %s", a.Encoding)
	}
	// Frame security: a peer without the extension accepts only none.
	secure := map[string]string{ExtFrameSecurity: "aead,hmac"}
	if _, rej := Negotiate(caps("3.0", all, nil, "", secure), caps("3.0", all, nil, "", nil)); rej == nil || rej.Code != CodeSecurityPolicy {
		t.Errorf("secure against plain peer: %v", rej)
	}
	a, rej = Negotiate(caps("3.0", []string{"brotli", "m2m"}, nil, "", secure), caps("3.0", all, nil, "", map[string]string{ExtFrameSecurity: "hmac,none"}))
	if rej != nil || a.FrameSecurity != codec.SecurityHMAC || a.Algorithm != codec.M2M {
		t.Errorf("hmac: %+v, %v", a, rej)
	}
}

// pair negotiates a client and a server over a pipe.
func pair(t *testing.T, client, server Config, framing Framing) (cs, ss *Session, cc, sc *Conn) {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	cc, sc = NewConn(a, framing, 0), NewConn(b, framing, 0)
	type result struct {
		s   *Session
		err error
	}
	done := make(chan result)
	go func() {
		s, err := Serve(sc, server)
		done <- result{s, err}
	}()
	cs, cerr := Dial(cc, client)
	r := <-done
	if cerr != nil || r.err != nil {
		t.Fatalf("handshake: client %v, server %v", cerr, r.err)
	}
	return cs, r.s, cc, sc
}

// TestLoopback negotiates every algorithm and frame security mode and
// exchanges real traffic both ways.
func TestLoopback(t *testing.T) {
	h, _ := keys.NewHierarchy("test-org", bytes.Repeat([]byte{7}, 32))
	alice, _ := h.Agent("alice")
	bob, _ := h.Agent("bob")
	keyOf := func(a *keys.Agent, peer string) func(string) ([]byte, error) {
		return func(sid string) ([]byte, error) { return a.SessionKey(peer, strings.ReplaceAll(sid, "-", "_")) }
	}
	lines := bytes.Split(bytes.TrimSpace(sample.JSONL()), []byte("\n"))[:40]
	for _, alg := range []codec.Algorithm{codec.M2M, codec.Brotli, codec.TokenNative, codec.None} {
		for _, sec := range []codec.Security{codec.SecurityNone, codec.SecurityHMAC, codec.SecurityAEAD} {
			if sec != codec.SecurityNone && alg != codec.M2M {
				continue
			}
			for _, framing := range []Framing{LengthPrefixed, Lines} {
				name := AlgorithmName(alg) + "/" + sec.String()
				client := Config{Algorithms: []codec.Algorithm{alg}, Security: []codec.Security{sec}, Key: keyOf(alice, "bob"), Preferred: EncodingO200k}
				server := Config{Security: []codec.Security{sec}, Key: keyOf(bob, "alice")}
				cs, ss, cc, sc := pair(t, client, server, framing)
				if cs.ID() != ss.ID() || cs.Agreement().Algorithm != alg || cs.Agreement().FrameSecurity != sec {
					t.Fatalf("%s: agreement %+v / %+v", name, cs.Agreement(), ss.Agreement())
				}
				if m, _ := cs.Send(lines[0]); alg == codec.TokenNative && !strings.HasPrefix(m.Payload.(*DataPayload).Content, "#TK|O|") {
					t.Fatalf("%s: sent %.20q, want the agreed o200k_base", name, m.Payload.(*DataPayload).Content)
				}
				for _, line := range lines {
					exchange(t, name, cs, ss, cc, sc, line)
					exchange(t, name, ss, cs, sc, cc, line)
				}
				ping, _ := cs.Ping()
				go cc.Send(ping)
				m, _ := sc.Receive()
				if pong, err := ss.Handle(m); err != nil || pong.Type != Pong {
					t.Fatalf("%s: PING answered %v, %v", name, pong, err)
				}
				closing, _ := cs.Close()
				go cc.Send(closing)
				m, _ = sc.Receive()
				if _, err := ss.Handle(m); err != nil || ss.State() != Closed {
					t.Fatalf("%s: CLOSE left %v, %v", name, ss.State(), err)
				}
			}
		}
	}
}

func exchange(t *testing.T, name string, from, to *Session, fc, tc *Conn, text []byte) {
	t.Helper()
	m, err := from.Send(text)
	if err != nil {
		t.Fatalf("%s: Send: %v", name, err)
	}
	errc := make(chan error, 1)
	go func() { errc <- fc.Send(m) }()
	got, err := tc.Receive()
	if err != nil || <-errc != nil {
		t.Fatalf("%s: transport: %v", name, err)
	}
	back, err := to.Receive(got)
	if err != nil || !bytes.Equal(back, text) {
		t.Fatalf("%s: received %.60q, %v", name, back, err)
	}
}

func TestStateMachine(t *testing.T) {
	s := New(Config{})
	if _, err := s.Send([]byte(`{}`)); !errors.Is(err, ErrState) {
		t.Errorf("Send before negotiation: %v", err)
	}
	if err := s.HandleAccept(&Message{Type: Accept}); !errors.Is(err, ErrState) {
		t.Errorf("ACCEPT before HELLO: %v", err)
	}
	hello, _ := s.Hello()
	if _, err := s.Hello(); !errors.Is(err, ErrState) {
		t.Errorf("second HELLO: %v", err)
	}
	// A server that rejects closes; the client learns why.
	srv := New(Config{Algorithms: []codec.Algorithm{codec.None}})
	srv.local.Compression.Algorithms = []string{"brotli-only-in-dreams"}
	reply, err := srv.HandleHello(hello)
	if !errors.Is(err, ErrRejected) || reply.Type != Reject || srv.State() != Closed {
		t.Errorf("server rejection: %v, %v, %v", reply, err, srv.State())
	}
	if err := s.HandleAccept(reply); !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), CodeNoCommonAlgorithm) || s.State() != Closed {
		t.Errorf("client after REJECT: %v, %v", err, s.State())
	}
	// Expiry.
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	c2, srv2 := New(Config{Now: clock, Timeout: time.Minute}), New(Config{Now: clock})
	h2, _ := c2.Hello()
	acc, _ := srv2.HandleHello(h2)
	if err := c2.HandleAccept(acc); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute)
	if _, err := c2.Send([]byte(`{"a":1}`)); !errors.Is(err, ErrExpired) || c2.State() != Closed {
		t.Errorf("idle session: %v, %v", err, c2.State())
	}
	// Secured sessions refuse unsecured content.
	key := func(string) ([]byte, error) { return bytes.Repeat([]byte{1}, 32), nil }
	cs, ss, _, _ := pair(t, Config{Security: []codec.Security{codec.SecurityAEAD}, Key: key}, Config{Security: []codec.Security{codec.SecurityAEAD}, Key: key}, Lines)
	plain, _ := New(Config{}).enc, 0
	_ = plain
	if _, err := ss.Receive(&Message{Type: Data, Payload: &DataPayload{Algorithm: "none", Content: `{"a":1}`}}); !errors.Is(err, codec.ErrIntegrity) {
		t.Errorf("plain content in an AEAD session: %v", err)
	}
	_ = cs
}

func TestConnLimits(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	small := NewConn(b, LengthPrefixed, 64)
	go a.Write([]byte{0, 0, 1, 0}) // announces 256 bytes
	if _, err := small.Receive(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized length prefix: %v", err)
	}
	lines := NewConn(b, Lines, 64)
	go a.Write(append(bytes.Repeat([]byte("x"), 100), '\n'))
	if _, err := lines.Receive(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized line: %v", err)
	}
}

// FuzzMessage parses arbitrary envelopes: no panics, and what parses
// marshals to JSON that parses to the same message.
func FuzzMessage(f *testing.F) {
	f.Add([]byte(`{"type":"PING","payload":{},"timestamp":1}`))
	f.Add([]byte(`{"type":"DATA","session_id":"s","payload":{"algorithm":"m2m","content":"#M2M|1|AA==","original_size":3},"timestamp":9}`))
	f.Add([]byte(`{"type":"REJECT","payload":{"code":"UNKNOWN","message":"m"},"timestamp":1}`))
	f.Fuzz(func(t *testing.T, p []byte) {
		var m Message
		if json.Unmarshal(p, &m) != nil {
			return
		}
		out, err := json.Marshal(&m)
		if err != nil {
			t.Fatalf("parsed %s but cannot marshal it: %v", p, err)
		}
		var back Message
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("marshalled %s does not parse: %v", out, err)
		}
		again, _ := json.Marshal(&back)
		if !bytes.Equal(again, out) {
			t.Fatalf("round trip changed %s to %s", out, again)
		}
	})
}

// TestFallback: text the agreed algorithm cannot carry goes in the first
// common fallback, and comes back.
func TestFallback(t *testing.T) {
	long := "data:" + strings.Repeat("QUJD", 40_000) // one piece of 160 kB: TokenNative carries it
	for _, tc := range []struct {
		algs []codec.Algorithm
		text string
		want string
	}{
		{[]codec.Algorithm{codec.M2M, codec.Brotli}, "plain text, not JSON", "brotli"},
		{[]codec.Algorithm{codec.M2M, codec.None}, "plain text, not JSON", "none"},
		{[]codec.Algorithm{codec.TokenNative, codec.Brotli}, long, "tokennative"},
		{[]codec.Algorithm{codec.TokenNative, codec.Brotli}, `{"a":"b"}`, "tokennative"},
	} {
		cs, ss, cc, sc := pair(t, Config{Algorithms: tc.algs}, Config{}, Lines)
		m, err := cs.Send([]byte(tc.text))
		if err != nil || m.Payload.(*DataPayload).Algorithm != tc.want {
			t.Errorf("%v: %.20q sent as %v, %v; want %s", tc.algs, tc.text, m, err, tc.want)
			continue
		}
		exchange(t, tc.want, cs, ss, cc, sc, []byte(tc.text))
	}
	// With no fallback, Send fails.
	cs, _, _, _ := pair(t, Config{Algorithms: []codec.Algorithm{codec.M2M}}, Config{}, Lines)
	if _, err := cs.Send([]byte("plain")); !errors.Is(err, codec.ErrInvalidInput) {
		t.Errorf("no fallback: %v", err)
	}
}

// TestReceiveNotAgreed sends DATA in formats the session did not agree on:
// each is refused, naming its format, before it is decoded, even the
// TokenNative message of 16 MiB that would decode to 682 MiB.
func TestReceiveNotAgreed(t *testing.T) {
	enc, _ := codec.NewEncoder()
	wire := func(text string, alg codec.Algorithm) string {
		w, err := enc.AppendWire(nil, []byte(text), alg)
		if err != nil {
			t.Fatal(err)
		}
		return string(w)
	}
	hello := "Hello, world! Hello, world! Hello, world! Hello, world!"
	// 16 MiB of base64 of the varint of cl100k id 58040, a 128-byte token.
	bomb := "#TK|C|" + strings.Repeat("uMUD", (codec.DefaultLimits.MaxMessage-6)/4)
	for _, tc := range []struct {
		algs    []codec.Algorithm
		content string
		want    error // nil: accepted
	}{
		{[]codec.Algorithm{codec.None}, wire(hello, codec.TokenNative), ErrNotAgreed},
		{[]codec.Algorithm{codec.None}, bomb, ErrNotAgreed},
		{[]codec.Algorithm{codec.M2M, codec.None}, wire(hello, codec.Brotli), ErrNotAgreed},
		{[]codec.Algorithm{codec.M2M}, hello, ErrNotAgreed}, // passthrough only if none was agreed
		{[]codec.Algorithm{codec.M2M, codec.Brotli}, wire(hello, codec.Brotli), nil},
		{[]codec.Algorithm{codec.TokenNative, codec.None}, hello, nil},
		{[]codec.Algorithm{codec.Brotli, codec.TokenNative}, wire(hello, codec.TokenNative), nil},
		{[]codec.Algorithm{codec.None}, `#T1|{"c":"x"}`, ErrNotAgreed}, // legacy: never negotiated
		{[]codec.Algorithm{codec.None}, "#M2M[v2.0]|DATA:eJzzSM3JyddRKM8vyklRVPAglgcACQ0ShQ==", ErrNotAgreed},
		{[]codec.Algorithm{codec.None}, "#M2M|2|AAAA", codec.ErrInvalidCodec},
	} {
		_, ss, _, _ := pair(t, Config{Algorithms: tc.algs}, Config{}, Lines)
		var text []byte
		var err error
		grew := allocated(func() {
			text, err = ss.Receive(&Message{Type: Data, Payload: &DataPayload{Algorithm: "none", Content: tc.content}})
		})
		switch {
		case !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil):
			t.Errorf("%v session, %.24q: %q, %v; want %v", tc.algs, tc.content, text, err, tc.want)
		case tc.want == nil && string(text) != hello:
			t.Errorf("%v session, %.24q: %q", tc.algs, tc.content, text)
		case errors.Is(err, ErrNotAgreed) && !strings.Contains(err.Error(), "content in a session that agreed on"):
			t.Errorf("%v session, %.24q: %v does not name the formats", tc.algs, tc.content, err)
		case err != nil && grew > 64<<10 && !race.Enabled:
			t.Errorf("%v session, %.24q: refusing it allocated %d KiB", tc.algs, tc.content, grew>>10)
		}
	}
}

// allocated returns the bytes that f allocates, all told.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
