package ppm

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/m2m-go/m2m/internal/sample"
)

func packStream(t testing.TB, in []byte, chunk, piece int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, chunk, Options{Memory: 8})
	if err != nil {
		t.Fatal(err)
	}
	for p := in; len(p) > 0; {
		n := min(piece, len(p))
		if _, err := w.Write(p[:n]); err != nil {
			t.Fatal(err)
		}
		p = p[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestStream(t *testing.T) {
	noise := make([]byte, 5000)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	text := sample.JSONL()[:100000]
	for _, tc := range []struct {
		name         string
		in           []byte
		chunk, piece int
	}{
		{"empty", nil, 0, 1},
		{"text", text, 0, 4096},
		{"small chunks", text, 30000, 777},
		{"one byte at a time", text[:3000], 1000, 1},
		{"noise, stored", noise, 2048, 5000},
	} {
		packed := packStream(t, tc.in, tc.chunk, tc.piece)
		back, err := io.ReadAll(NewReader(bytes.NewReader(packed), 0, Options{}))
		if err != nil || !bytes.Equal(back, tc.in) {
			t.Fatalf("%s: %v, %d bytes back of %d", tc.name, err, len(back), len(tc.in))
		}
		if tc.name == "noise, stored" && len(packed) > len(noise)+20 {
			t.Errorf("noise: %d bytes for %d", len(packed), len(noise))
		}
		// Cut anywhere, the stream is reported cut or corrupt, never
		// taken for whole.
		for cut := range len(packed) {
			if cut > 50 && cut%97 != 0 {
				continue
			}
			_, err := io.ReadAll(NewReader(bytes.NewReader(packed[:cut]), 0, Options{}))
			if err == nil {
				t.Fatalf("%s cut at %d of %d: no error", tc.name, cut, len(packed))
			}
		}
	}
	// A chunk over the reader's limit is refused before it is read.
	packed := packStream(t, text, 50000, 50000)
	if _, err := io.ReadAll(NewReader(bytes.NewReader(packed), 10000, Options{})); !errors.Is(err, ErrChunk) {
		t.Errorf("chunk over the limit: %v", err)
	}
	if _, err := NewWriter(io.Discard, MaxChunk+1, Options{}); err == nil {
		t.Error("a chunk over MaxChunk accepted")
	}
}

// FuzzReader reads anything: no panic, and never more than the limit a
// chunk.
func FuzzReader(f *testing.F) {
	f.Add(packStream(f, sample.JSONL()[:3000], 1000, 1000))
	f.Add([]byte{0})
	f.Add([]byte{3, 0, 'a', 'b'})
	f.Fuzz(func(t *testing.T, p []byte) {
		r := NewReader(bytes.NewReader(p), 4096, Options{MaxMemory: 4})
		buf := make([]byte, 5000)
		for range 100 {
			if _, err := r.Read(buf); err != nil {
				break
			}
			if len(r.out) > 4096 {
				t.Fatalf("a chunk of %d bytes", len(r.out))
			}
		}
	})
}
