package sample

import (
	"bytes"
	"testing"

	"github.com/m2m-go/m2m/internal/sample/gen"
)

// TestEmbeddedUpToDate keeps sample.jsonl from drifting from its generator.
func TestEmbeddedUpToDate(t *testing.T) {
	got := gen.Generate(gen.DefaultSeed, gen.DefaultLines)
	if !bytes.Equal(got, embedded) {
		i := 0
		for i < min(len(got), len(embedded)) && got[i] == embedded[i] {
			i++
		}
		t.Fatalf("sample.jsonl (%d bytes) differs from gen.Generate(gen.DefaultSeed, gen.DefaultLines) (%d bytes) from byte %d on; run go generate ./internal/sample",
			len(embedded), len(got), i)
	}
}

func TestJSONLIsACopy(t *testing.T) {
	a := JSONL()
	if !bytes.Equal(a, embedded) {
		t.Fatal("JSONL() differs from the embedded file")
	}
	a[0] = 'X'
	if b := JSONL(); b[0] != embedded[0] || b[0] == 'X' {
		t.Fatal("modifying JSONL()'s result changed the shared copy")
	}
}
