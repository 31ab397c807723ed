package ppm

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestSizes(t *testing.T) {
	files := os.Getenv("FILES")
	if files == "" {
		t.Skip()
	}
	chunk, _ := strconv.Atoi(os.Getenv("CHUNK"))
	for _, f := range strings.Fields(files) {
		d, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for len(d) > 0 {
			n := len(d)
			if chunk > 0 && n > chunk {
				n = chunk
				for n < len(d) && d[n-1] != '\n' {
					n++
				}
			}
			out, _ := AppendEncode(nil, d[:n], Options{Words: true, Memory: 384})
			total += len(out)
			d = d[n:]
		}
		fmt.Println(f, total)
	}
}
