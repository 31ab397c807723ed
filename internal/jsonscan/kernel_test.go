package jsonscan

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/internal/cpu"
	"github.com/m2m-go/m2m/internal/cpu/cputest"
)

func TestKernelsRequired(t *testing.T) { cputest.CheckRequired(t, "jsonscan") }

// result is everything Scan says about one input: the error, with its
// offset and kind, and the fields.
type result struct {
	err  string
	view view
}

func scanResult(src []byte, lim Limits) result {
	var f Fields
	if err := Scan(src, lim, &f); err != nil {
		return result{err: err.Error()}
	}
	return result{view: viewOf(&f)}
}

// genericResults scans every input with the generic code.
func genericResults(tb testing.TB, inputs [][]byte, lim Limits) []result {
	tb.Helper()
	if err := cpu.Select("jsonscan", cpu.Generic); err != nil {
		tb.Fatal(err)
	}
	defer cpu.Reset("jsonscan")
	want := make([]result, len(inputs))
	for k, in := range inputs {
		want[k] = scanResult(in, lim)
	}
	return want
}

// checkKernels holds every kernel to the generic code on src: the same
// error at the same offset, or the same fields.
func checkKernels(t *testing.T, src []byte, lim Limits) {
	t.Helper()
	want := genericResults(t, [][]byte{src}, lim)[0]
	cputest.Run(t, "jsonscan", func(t *testing.T) {
		if got := scanResult(src, lim); got != want {
			t.Fatalf("%q: %+v, the generic code says %+v", src, got, want)
		}
	})
}

// stringPieces are what the inputs of TestKernels build string bodies
// from: escapes of every kind (runs of backslashes among them, which a
// kernel must pair up right across blocks, and runs of \u escapes), raw
// UTF-8 good and bad, control bytes, and quotes that end the string early.
var stringPieces = []string{
	`\n`, `\"`, `\\`, `\/`, `\b`, `\f`, `\r`, `\t`, `\\\\`, `\\\"`, `\\\\\\\n`, `\\n`, `\\u`, `\\\u0041`,
	`\u0041`, `\u00e9`, `\ud83d\ude00`, `\uD800`, `\uDC00`, `\uD800\u0041`, `\u12`, `\x`, `\'`, `\` + "\x00", `\` + "\xc3\xa9",
	`\u4e16\u754c\ud83d\ude00`, `\u00e9\n\u00e9`, `\u00e9\q`, `\u00e9\u12`, `\u00e9\`,
	"é", "世界", "😀", "\xc3", "\xe2\x82", "\x80", "\xff", "\xed\xa0\x80", "\x7f",
	"\x00", "\x1f", `"`, `\`, // the last four end the string or make it invalid
}

// positionInputs returns JSON texts whose strings put each of
// stringPieces at every offset around the 64-byte blocks and 1,024-byte
// windows a kernel works in, with the string closed, unclosed, or cut off
// after the piece.
func positionInputs() [][]byte {
	var inputs [][]byte
	for _, pad := range []int{0, 1, 2, 61, 62, 63, 64, 65, 126, 127, 1020, 1021, 1022, 1023, 1024} {
		for _, sp := range stringPieces {
			for n := range 70 {
				// The opening quote at pad+1, the piece at pad+2+n.
				head := "[" + strings.Repeat(" ", pad) + `"` + strings.Repeat("a", n)
				inputs = append(inputs,
					[]byte(head+sp+`b"]`),
					[]byte(head+sp+strings.Repeat("c", 80)+`"]`),
					[]byte(head+sp))
			}
		}
	}
	return inputs
}

// randomInputs returns n JSON texts with random strings of stringPieces
// and ASCII, up to a few windows long, as values the header reads (so that
// what the escapes save shows in the fields), as other values and as
// keys; a quarter of them are followed by a random prefix of themselves.
func randomInputs(r *rand.Rand, n int) [][]byte {
	body := func() string {
		var b strings.Builder
		for n := r.IntN(1 << r.IntN(12)); b.Len() < n; {
			switch r.IntN(4) {
			case 0:
				b.WriteString(stringPieces[r.IntN(len(stringPieces)-4)])
			case 1:
				b.WriteString(stringPieces[r.IntN(len(stringPieces))])
			default:
				b.WriteString(strings.Repeat("x", r.IntN(100)))
			}
		}
		return b.String()
	}
	var inputs [][]byte
	for range n {
		var rec string
		switch r.IntN(3) {
		case 0:
			rec = fmt.Sprintf(`{"model":"%s","id":"%s","messages":[{"role":"user","content":"%s"}]}`, body(), body(), body())
		case 1:
			rec = fmt.Sprintf(`{"%s":1,"object":"%s","%s":["%s"]}`, body(), body(), body(), body())
		default:
			rec = strings.Repeat(" ", r.IntN(130)) + `"` + body() + `"`
		}
		inputs = append(inputs, []byte(rec))
		if r.IntN(4) == 0 {
			inputs = append(inputs, []byte(rec[:r.IntN(len(rec)+1)]))
		}
	}
	return inputs
}

// TestKernels holds every kernel to the generic code on positionInputs,
// randomInputs and the records of the test generator, as they are and
// damaged: the same error at the same offset, or the same fields.
func TestKernels(t *testing.T) {
	random, records := 20000, 20000
	if testing.Short() {
		random, records = 4000, 4000
	}
	r := rand.New(rand.NewPCG(7, 8))
	inputs := append(positionInputs(), randomInputs(r, random)...)
	g := gen{r: r}
	for range records {
		rec := g.record()
		if r.IntN(3) == 0 {
			rec = mutate(r, rec)
		}
		inputs = append(inputs, rec)
	}
	want := genericResults(t, inputs, Limits{})
	cputest.Run(t, "jsonscan", func(t *testing.T) {
		for k, in := range inputs {
			if got := scanResult(in, Limits{}); got != want[k] {
				t.Fatalf("%q:\n\t%+v\nthe generic code says\n\t%+v", in, got, want[k])
			}
		}
	})
}

// FuzzKernels holds every kernel to the generic code on the input.
func FuzzKernels(f *testing.F) {
	addSeeds(f)
	for _, in := range randomInputs(rand.New(rand.NewPCG(9, 10)), 50) {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, src []byte) { checkKernels(t, src, Limits{}) })
}
