package codec

import (
	"bytes"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/internal/cputime"
	"github.com/m2m-go/m2m/internal/hydra"
	"github.com/m2m-go/m2m/internal/race"
	"github.com/m2m-go/m2m/internal/sample"
)

// oracleSizes returns the size of each format's message of text in string
// and binary form, -1 where a format cannot carry it.
func oracleSizes(t testing.TB, enc *Encoder, text []byte) (str, bin [4]int) {
	t.Helper()
	var out []byte
	var err error
	for _, alg := range []Algorithm{None, M2M, TokenNative, Brotli} {
		str[alg], bin[alg] = -1, -1
		if out, err = enc.AppendWire(out[:0], text, alg); err == nil {
			str[alg] = len(out)
		}
		switch alg {
		case None:
			out, err = append(out[:0], text...), nil
		case M2M:
			out, err = enc.AppendFrame(out[:0], text)
		case TokenNative:
			out, err = enc.AppendTokenNativeBinary(out[:0], text)
		case Brotli:
			out, err = enc.AppendBrotli(out[:0], text)
		}
		if err == nil {
			bin[alg] = len(out)
		}
	}
	return str, bin
}

// smallest is the oracle's total: the smallest size that is not -1.
func smallest(sizes [4]int) int {
	best := -1
	for _, n := range sizes {
		if n >= 0 && (best < 0 || n < best) {
			best = n
		}
	}
	return best
}

// TestHydraSample measures Hydra on the embedded sample against the
// oracle, which encodes every record in every format and keeps the
// smallest, in both forms: Hydra's total may exceed the oracle's by 2% at
// most (0.4% over, and as much in cross-validation, bench/README.md).
// Every message must decode back to its record.
func TestHydraSample(t *testing.T) {
	enc, _ := NewEncoder()
	dec, _ := NewDecoder()
	var oracle, got [2]int // string, binary
	var out, back []byte
	for _, text := range splitLines(sample.JSONL()) {
		str, bin := oracleSizes(t, enc, text)
		oracle[0] += smallest(str)
		oracle[1] += smallest(bin)

		var alg Algorithm
		var err error
		if out, alg, err = enc.AppendHydra(out[:0], text); err != nil {
			t.Fatal(err)
		}
		if a, _ := Detect(out); a != alg || str[alg] != len(out) {
			t.Fatalf("AppendHydra says %v, wrote %v of %d bytes (want %d)", alg, a, len(out), str[alg])
		}
		if back, _, err = dec.AppendDecode(back[:0], out); err != nil || !bytes.Equal(back, text) {
			t.Fatalf("%v message does not decode back: %v", alg, err)
		}
		got[0] += len(out)

		if out, alg, err = enc.AppendHydraBinary(out[:0], text); err != nil {
			t.Fatal(err)
		}
		switch alg {
		case None:
			back = append(back[:0], out...)
		case TokenNative:
			back, err = dec.AppendTokenNativeBinary(back[:0], out)
		case Brotli:
			back, err = dec.AppendBrotli(back[:0], out)
		default:
			t.Fatalf("AppendHydraBinary chose %v", alg)
		}
		if err != nil || !bytes.Equal(back, text) || bin[alg] != len(out) {
			t.Fatalf("%v binary message of %d bytes (want %d) does not decode back: %v", alg, len(out), bin[alg], err)
		}
		got[1] += len(out)
	}
	for i, form := range []string{"string", "binary"} {
		over := float64(got[i])/float64(oracle[i]) - 1
		t.Logf("%s forms: oracle %d bytes, Hydra %d (%+.2f%%)", form, oracle[i], got[i], 100*over)
		if over > 0.02 {
			t.Errorf("%s forms: Hydra's %d bytes exceed the oracle's %d by %.2f%%, more than 2%%", form, got[i], oracle[i], 100*over)
		}
	}
}

// TestHydraSafety checks the choices Hydra must never make: passing
// through text that looks like a message, or trading a sealed frame for
// an unsealed message; and that AppendWire(…, Hydra) writes what
// AppendHydra does.
func TestHydraSafety(t *testing.T) {
	enc, _ := NewEncoder()
	dec, _ := NewDecoder()
	for _, text := range []string{"#TK|C|", "#M2M|2|abc", "#M2M[v3.0]|DATA:", "#M3|x", "#T1|" + strings.Repeat("{}", 10), "hi"} {
		out, alg, err := enc.AppendHydra(nil, []byte(text))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		back, _, err := dec.AppendDecode(nil, out)
		if err != nil || string(back) != text {
			t.Errorf("%q: %v message %q decodes to %q, %v", text, alg, out, back, err)
		}
		wire, err := enc.AppendWire(nil, []byte(text), Hydra)
		if err != nil || !bytes.Equal(wire, out) {
			t.Errorf("%q: AppendWire(Hydra) wrote %q, %v; AppendHydra %q", text, wire, err, out)
		}
	}
	if _, _, err := enc.AppendHydra(nil, []byte{0xff}); err == nil {
		t.Error("AppendHydra took invalid UTF-8")
	}

	sealed, err := NewEncoder(WithSecurity(SecurityHMAC, make([]byte, 32)))
	if err != nil {
		t.Fatal(err)
	}
	req := []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":"` + strings.Repeat("hello there ", 20) + `"}]}`)
	if _, alg, err := sealed.AppendHydra(nil, req); err != nil || alg != M2M {
		t.Errorf("sealing encoder: AppendHydra chose %v, %v; want a sealed M2M frame", alg, err)
	}
	if _, alg, err := sealed.AppendHydraBinary(nil, req); err != nil || alg != M2M {
		t.Errorf("sealing encoder: AppendHydraBinary chose %v, %v; want a sealed M2M frame", alg, err)
	}
	if out, alg, err := sealed.AppendHydraBinary(nil, []byte("not JSON")); err != nil || alg != None || string(out) != "not JSON" {
		t.Errorf("sealing encoder: AppendHydraBinary of text chose %v %q, %v; want the text, for the caller to seal", alg, out, err)
	}
}

// TestHydraAllocs checks that Hydra's features, decision and encoding
// allocate nothing once the Encoder is warm.
func TestHydraAllocs(t *testing.T) {
	enc, _ := NewEncoder()
	recs := splitLines(sample.JSONL())[:20]
	var out []byte
	var f hydra.Features
	for _, r := range recs {
		out, _, _ = enc.AppendHydra(out[:0], r)
		out, _, _ = enc.AppendHydraBinary(out[:0], r)
	}
	if n := testing.AllocsPerRun(10, func() {
		for _, r := range recs {
			enc.hydraFeatures(&f, r)
			_ = hydra.String.Choose(&f, true)
		}
	}); n != 0 {
		t.Errorf("features and decision: %v allocations", n)
	}
	if race.Enabled {
		return // the race detector makes sync.Pool drop what it is given: the tokenizer's caches
	}
	if n := testing.AllocsPerRun(10, func() {
		for _, r := range recs {
			out, _, _ = enc.AppendHydra(out[:0], r)
			out, _, _ = enc.AppendHydraBinary(out[:0], r)
		}
	}); n != 0 {
		t.Errorf("AppendHydra and AppendHydraBinary: %v allocations", n)
	}
}

// chosen keeps the benchmarked decisions alive.
var chosen hydra.Class

// BenchmarkSelect compares the ways of choosing a format, one record at a
// time, on the size classes of the corpus: auto (AppendAuto), hydra
// (AppendHydra) and the oracle, which encodes every format and keeps the
// smallest (None, M2M v1, TokenNative and Brotli, string forms), and
// hydra-features, the feature pass alone. It reports the compression
// ratio (record bytes / wire bytes) and CPU time per record.
func BenchmarkSelect(b *testing.B) {
	for _, c := range sizeClasses {
		for _, sel := range []string{"auto", "hydra", "oracle", "hydra-features"} {
			b.Run("sel="+sel+"/"+c.name, func(b *testing.B) {
				recs := benchRecords(b, c)
				enc, _ := NewEncoder()
				var out []byte
				var f hydra.Features
				var err error
				b.SetBytes(int64(totalLen(recs)))
				b.ReportAllocs()
				wire := 0
				cpu0 := cputime.Now()
				for b.Loop() {
					wire = 0
					for _, r := range recs {
						switch sel {
						case "auto":
							out, _, err = enc.AppendAuto(out[:0], r)
						case "hydra":
							out, _, err = enc.AppendHydra(out[:0], r)
						case "oracle":
							best := -1
							for _, alg := range []Algorithm{None, M2M, TokenNative, Brotli} {
								if out, err = enc.AppendWire(out[:0], r, alg); err == nil && (best < 0 || len(out) < best) {
									best = len(out)
								}
							}
							out, err = out[:best], nil
						case "hydra-features":
							enc.hydraFeatures(&f, r)
							chosen = hydra.String.Choose(&f, true)
							out = out[:0]
						}
						if err != nil {
							b.Fatal(err)
						}
						wire += len(out)
					}
				}
				if sel != "hydra-features" {
					b.ReportMetric(float64(totalLen(recs))/float64(wire), "ratio")
				}
				reportPerRecord(b, recs, cpu0)
			})
		}
	}
}
