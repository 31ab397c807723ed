package numcol

import (
	"math"
	"os"
	"testing"

	"github.com/klauspost/compress/huff0"
	"github.com/klauspost/compress/zstd"
)

func TestTmpCols(t *testing.T) {
	src, err := os.ReadFile(os.Getenv("NUMFILE"))
	if err != nil {
		t.Skip()
	}
	_, cols, n, _ := Split(nil, nil, src)
	e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault))
	k := 1
	for n>>(7*k) > 0 {
		k++
	}
	kinds := cols[k : k+n]
	p := cols[k+n:]
	q := len(p) / 4
	ent := func(b []byte) float64 {
		var h [256]int
		for _, c := range b {
			h[c]++
		}
		var bits float64
		for _, c := range h {
			if c > 0 {
				bits -= float64(c) * math.Log2(float64(c)/float64(len(b)))
			}
		}
		return bits / 8
	}
	hf := func(b []byte) int {
		tot := 0
		for len(b) > 0 {
			m := min(len(b), huff0.BlockSizeMax)
			out, _, err := huff0.Compress4X(b[:m], nil)
			if err != nil {
				tot += m
			} else {
				tot += len(out)
			}
			b = b[m:]
		}
		return tot
	}
	t.Logf("n %d cols %d -> z3 %d", n, len(cols), len(e.EncodeAll(cols, nil)))
	for i, b := range [][]byte{kinds, p[:q], p[q : 2*q], p[2*q : 3*q], p[3*q:]} {
		t.Logf("col %d: z3 %d huff0 %d order0 %.0f", i, len(e.EncodeAll(b, nil)), hf(b), ent(b))
	}
}
