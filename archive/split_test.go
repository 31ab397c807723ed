package archive

import (
	"bytes"
	"testing"

	"github.com/m2m-go/m2m/internal/sample"
)

// stringEndRef is stringEnd's specification: a byte at a time, a
// backslash taking the byte after it.
func stringEndRef(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '"':
			return j + 1
		case '\\':
			j++
		}
	}
	return -1
}

func TestStringEnd(t *testing.T) {
	for _, s := range []string{
		`""`, `"a"`, `"\""`, `"\\"`, `"\\\""`, `"\\\\"x`, `"\"\\"`, `"a\`, `"a\"`, `"\\\\\"\\"`,
		`"`, `"abc`, `"a"b"`, `"\u0022"`, `"` + string(bytes.Repeat([]byte(`\\`), 100)) + `"`,
		`"` + string(bytes.Repeat([]byte(`\"`), 100)) + `"`, `"` + string(bytes.Repeat([]byte("x"), 5000)) + `\" "`,
	} {
		src := []byte(s)
		if got, want := stringEnd(src, 0), stringEndRef(src, 0); got != want {
			t.Errorf("stringEnd(%q) = %d, want %d", s, got, want)
		}
		// Not at the start of the text: a run of backslashes before the
		// opening quote is not the string's.
		src = append([]byte(`\\\`), src...)
		if got, want := stringEnd(src, 3), stringEndRef(src, 3); got != want {
			t.Errorf("stringEnd(%q, 3) = %d, want %d", src, got, want)
		}
	}
}

func FuzzStringEnd(f *testing.F) {
	f.Add([]byte(`"a\"b\\"c`), uint8(0))
	f.Add([]byte(`x\\"\\\"\"\\\\"`), uint8(3))
	f.Fuzz(func(t *testing.T, p []byte, at uint8) {
		i := int(at)
		if i >= len(p) {
			return
		}
		p[i] = '"' // stringEnd is called at a quote
		if got, want := stringEnd(p, i), stringEndRef(p, i); got != want {
			t.Fatalf("stringEnd(%q, %d) = %d, want %d", p, i, got, want)
		}
	})
}

// BenchmarkAppendTree scans the lines of the test sample into their
// values' trees, as the writer's scanners do.
func BenchmarkAppendTree(b *testing.B) {
	lines := bytes.Split(sample.JSONL(), []byte("\n"))
	total := 0
	for _, l := range lines {
		total += len(l)
	}
	b.SetBytes(int64(total))
	var nodes []node
	for b.Loop() {
		for _, l := range lines {
			nodes, _ = appendTree(nodes[:0], l, 64)
		}
	}
}
