package ppm

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func TestChunks(t *testing.T) {
	path := os.Getenv("PPM_FILE")
	if path == "" {
		t.Skip()
	}
	in, _ := os.ReadFile(path)
	for _, s := range []string{os.Getenv("PPM_CHUNKS")} {
		mb, _ := strconv.ParseFloat(s, 64)
		size := int(mb * (1 << 20))
		mem, _ := strconv.Atoi(os.Getenv("PPM_MEM"))
		if size == 0 {
			size = len(in)
		}
		total := 0
		t0 := time.Now()
		for at, i := 0, 0; at < len(in); at, i = at+size, i+1 {
			var dict []byte
			switch os.Getenv("PPM_DICT") {
			case "first":
				if i%16 != 0 {
					s := at - (i%16)*size
					dict = in[s : s+size]
				}
			case "prev":
				if i > 0 {
					dict = in[at-size : at]
				}
			case "all":
				dict = in[max(0, at-64<<20):at]
			}
			p, _ := AppendEncode(nil, in[at:min(at+size, len(in))], Options{Memory: mem, Dict: dict})
			total += len(p)
		}
		t.Logf("chunk %s MiB: %d -> %d  %.1fs", s, len(in), total, time.Since(t0).Seconds())
	}
}
