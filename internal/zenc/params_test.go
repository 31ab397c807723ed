package zenc

import (
	"os"
	"testing"
	"time"
)

// TestParams codes the file M2M_ZENC_FILE with a range of parameters and
// logs sizes and speeds: how DefaultParams were chosen.
func TestParams(t *testing.T) {
	name := os.Getenv("M2M_ZENC_FILE")
	if name == "" {
		t.Skip("M2M_ZENC_FILE not set")
	}
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Params{{16, 8, 2, 8}, {16, 8, 1, 8}, {15, 8, 2, 8}, {15, 8, 1, 8}, {15, 4, 2, 8}, {15, 4, 1, 8}, {14, 4, 1, 8}, {16, 8, 2, 8}, {16, 8, 1, 8}, {15, 4, 1, 8}} {
		e := New(p)
		out := e.AppendEncode(nil, src, nil)
		t0 := time.Now()
		for range 3 {
			out = e.AppendEncode(out[:0], src, nil)
		}
		el := time.Since(t0) / 3
		t.Logf("%+v: %d bytes, %.1f MB/s", p, len(out), float64(len(src))/el.Seconds()/1e6)
	}
}
