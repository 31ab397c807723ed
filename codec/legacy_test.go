package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// tokenV1Tree decodes the body of a Token v1 message as this package did
// before it rewrote the text in place: through encoding/json and a tree of
// maps, which is what the rewrite must match byte for byte. It reports an
// object whose keys collide after renaming, whose output depended on the
// order of a map.
func tokenV1Tree(body []byte) (text []byte, collision bool, err error) {
	var expanded []byte
	for _, c := range body {
		if int(c) < len(tokenV1Patterns) && tokenV1Patterns[c] != "" {
			expanded = append(expanded, tokenV1Patterns[c]...)
		} else {
			expanded = append(expanded, c)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(expanded))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false, err
	}
	var expand func(v any, key string) any
	expand = func(v any, key string) any {
		switch v := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(v))
			for k, val := range v {
				full := k
				if f, ok := tokenV1Keys[k]; ok {
					full = string(f)
				}
				if _, ok := out[full]; ok {
					collision = true
				}
				out[full] = expand(val, full)
			}
			return out
		case []any:
			for i := range v {
				v[i] = expand(v[i], key)
			}
			return v
		case string:
			if full, ok := tokenV1Values([]byte(key))[v]; ok {
				return full
			}
		}
		return v
	}
	var restore func(v any)
	restore = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			_, msgs := v["messages"]
			_, model := v["model"]
			if msgs || model {
				for _, d := range tokenV1Defaults {
					if _, ok := v[d.key]; !ok {
						v[d.key] = json.RawMessage(d.value)
					}
				}
				return
			}
			for _, val := range v {
				restore(val)
			}
		case []any:
			for _, val := range v {
				restore(val)
			}
		}
	}
	v = expand(v, "")
	restore(v)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, collision, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), collision, nil
}

var tokenV1Seeds = []string{
	`{"M":"g4o","messages":[{"c":"Hello","role":"user"}]}`,
	"\x0c\x03Be brief.\"},\x01Hi \\u00e9\\ud83d\\ude00 \\\"q\\\" \\/ \\b\\f\\n\\r\\t\\u0001\u2028\u2029<&>\"}\rg4om\"}",
	`{"C":[{"index":0,"D":{"c":"x","r":"A"},"fr":"stop"}],"model":"dc","usage":{"pt":1,"ct":2,"tt":3}}`,
	`[{"M":"x"},{"messages":[]},{"n":2,"model":null},[{"model":1}],{"a":{"model":"g4"}}]`,
	"[\x05\"c\":\"d\"}},\x06\"c\":\"m\"}},{\x07},{\x08},{\t},\n\"name\":\"f\"}},{\x0b\"x\":1}]}]",
	` { "k" : [ 1 , -2.5e+3 , true , false , null , { } , [ ] ] , "k" : "last" , "\u0063" : 0 } `,
	`{"r":"\u0053","messages":[{"role":"\u0041","c":"\u2028\ud834\udd1e"}],"M":"g\u0034o"}`,
	`"top-level string"`, `12`, `{"T":0.5,"p":1,"s":true,"x":9,"role":"S","r":["S","A","F","T","U"]}`,
}

// FuzzTokenV1MatchesTree decodes Token v1 bodies with the rewrite and with
// the tree decoder it replaced: they must agree, byte for byte, where the
// tree's output did not depend on map order.
func FuzzTokenV1MatchesTree(f *testing.F) {
	for _, s := range tokenV1Seeds {
		f.Add([]byte(s))
	}
	dec, _ := NewDecoder()
	f.Fuzz(func(t *testing.T, body []byte) {
		got, alg, err := dec.AppendDecode([]byte("^"), append([]byte(prefixTokenV1), body...))
		if alg != TokenV1 {
			return
		}
		if err != nil {
			if string(got) != "^" {
				t.Fatalf("%q: %q on error %v", body, got, err)
			}
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrLimit) {
				t.Fatalf("%q: %v", body, err)
			}
			return // the tree decoder may be laxer (jsonscan ran before it too)
		}
		want, collision, werr := tokenV1Tree(body)
		if collision {
			return
		}
		if werr != nil || string(got[1:]) != string(want) {
			t.Fatalf("%q:\n got %s\nwant %s, %v", body, got[1:], want, werr)
		}
	})
}

func TestTokenV1Seeds(t *testing.T) {
	dec, _ := NewDecoder()
	for _, s := range tokenV1Seeds {
		got, _, err := dec.AppendDecode(nil, []byte(prefixTokenV1+s))
		want, _, werr := tokenV1Tree([]byte(s))
		if err != nil || werr != nil || !bytes.Equal(got, want) {
			t.Errorf("%q:\n got %s, %v\nwant %s, %v", s, got, err, want, werr)
		}
	}
	// Keys that collide after renaming: the last in the message wins.
	for body, want := range map[string]string{
		`{"c":1,"content":2}`:  `{"content":2}`,
		`{"content":2,"c":1}`:  `{"content":1}`,
		`{"M":"g4","model":3}`: `{"frequency_penalty":0,"model":3,"n":1,"presence_penalty":0,"stream":false,"temperature":1.0,"top_p":1.0}`,
	} {
		if got, _, err := dec.AppendDecode(nil, []byte(prefixTokenV1+body)); err != nil || string(got) != want {
			t.Errorf("%s = %s, %v; want %s", body, got, err, want)
		}
	}
}

// TestTokenV1Bombs decodes Token v1 messages that expand: control
// characters that each stand for 31 bytes, objects that each gain the six
// request defaults, and numbers that cost encoding/json's tree fifty times
// their text. Each must fail on the limit, or succeed, with memory bounded
// by the limit.
func TestTokenV1Bombs(t *testing.T) {
	lim := DefaultLimits
	patterns := []byte(prefixTokenV1 + strings.Repeat("\x02", lim.MaxMessage-len(prefixTokenV1)))
	row := func(v string, n int) string { return "[" + strings.Repeat(v+",", n-1) + v + "]" }
	defaults := []byte(prefixTokenV1 + row(row(`{"M":0}`, 10_000), 20))
	numbers := []byte(prefixTokenV1 + row(row("0", 10_000), lim.MaxDecompressed/20_002))
	dec, _ := NewDecoder()
	for _, tc := range []struct {
		name string
		wire []byte
		want error
	}{
		{"patterns", patterns, ErrLimit}, // 16 MiB expand to 496 MiB
		{"defaults", defaults, ErrLimit}, // 1.5 MiB decode to 21 MiB
		{"numbers", numbers, nil},        // 16 MiB decode to themselves
		{"object too large", []byte(prefixTokenV1 + "{" + strings.Repeat(`"k":0,`, lim.MaxArray) + `"k":0}`), ErrLimit},
	} {
		var out []byte
		var err error
		grew := allocated(func() { out, _, err = dec.AppendDecode(nil, tc.wire) })
		if !errors.Is(err, tc.want) || (err != nil) != (out == nil) {
			t.Errorf("%s: %d bytes, %v; want %v", tc.name, len(out), err, tc.want)
		}
		// The output, and for the patterns their expansion (none here
		// past the limit), and a few MiB of members and keys.
		checkAllocated(t, tc.name, grew, uint64(len(out))+4<<20)
	}
}
