package utf8x

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/m2m-go/m2m/internal/cpu/cputest"
)

// BenchmarkValid: MB/s of valid text checked, by kernel (impl=generic is
// unicode/utf8), kind of text and size.
//
//	go test ./utf8x -run '^$' -bench Valid -count 6 | benchstat -col /impl -
func BenchmarkValid(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	kinds := map[string]func(n int) []byte{
		"ascii": func(n int) []byte {
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(' ' + r.IntN(95))
			}
			return p
		},
		"cjk": func(n int) []byte {
			var p []byte
			for len(p) < n {
				p = utf8.AppendRune(p, rune(0x4E00+r.IntN(0x5000)))
			}
			return p[:n/3*3]
		},
		"mixed": func(n int) []byte {
			p := text(r, n, true)
			for !utf8.Valid(p) {
				p = p[:len(p)-1] // a character cut at the end
			}
			return p
		},
	}
	cputest.Bench(b, "utf8x", func(b *testing.B) {
		for _, kind := range []string{"ascii", "cjk", "mixed"} {
			for _, n := range []int{16, 32, 64, 256, 4 << 10, 64 << 10} {
				p := kinds[kind](n)
				if !utf8.Valid(p) {
					b.Fatal("invalid text")
				}
				b.Run(fmt.Sprintf("text=%s/size=%d", kind, n), func(b *testing.B) {
					b.SetBytes(int64(len(p)))
					for b.Loop() {
						if !Valid(p) {
							b.Fatal("invalid")
						}
					}
				})
			}
		}
	})
}
