package ppm

import (
	"os"
	"testing"
)

func TestMergeExp(t *testing.T) {
	path := os.Getenv("PRIME_FILE")
	if path == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(path)
	enc := func(name string, src []byte) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, err := AppendEncode(nil, src, Options{Memory: 384, Words: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d -> %d", name, len(src), len(out))
		})
	}
	enc("first16", b[:16<<20])
	enc("whole", b)
}
