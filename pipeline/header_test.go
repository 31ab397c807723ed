package pipeline

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/internal/forge"
	"github.com/m2m-go/m2m/internal/sample"
)

// forgeModel returns a copy of the container file with the model in the
// first header that names from changed to to (of the same length), and
// every checksum made right again.
func forgeModel(t *testing.T, file []byte, from, to string) []byte {
	t.Helper()
	f, err := forge.Parse(file)
	if err != nil {
		t.Fatal(err)
	}
	// A header string: its length, then its bytes.
	if !f.Replace(append([]byte{byte(len(from))}, from...), append([]byte{byte(len(to))}, to...)) {
		t.Fatalf("no header names %q", from)
	}
	return f.Bytes()
}

// TestHeaderChecked: a frame whose header says another model than its
// payload lists as the header says (List trusts headers), and fails Test,
// with an error naming the record and both models; Decompress, which
// needs only the payload, restores the input.
func TestHeaderChecked(t *testing.T) {
	ctx := context.Background()
	in := sample.JSONL()
	var packed bytes.Buffer
	if err := Compress(ctx, bytes.NewReader(in), &packed, Options{}, nil); err != nil {
		t.Fatal(err)
	}
	forged := forgeModel(t, packed.Bytes(), "gpt-4o", "Xpt-4o")
	l, err := List(ctx, bytes.NewReader(forged), Options{})
	if err != nil || l.Models["Xpt-4o"] != 1 {
		t.Fatalf("List: %v, %v", err, l.Models)
	}
	err = Test(ctx, bytes.NewReader(forged), Options{}, nil)
	if !errors.Is(err, ErrHeader) || !strings.Contains(err.Error(), "record ") ||
		!strings.Contains(err.Error(), `"Xpt-4o"`) || !strings.Contains(err.Error(), `"gpt-4o"`) {
		t.Errorf("Test: %v", err)
	}
	var out bytes.Buffer
	if err := Decompress(ctx, bytes.NewReader(forged), &out, Options{}, nil); err != nil || !bytes.Equal(out.Bytes(), in) {
		t.Errorf("Decompress: %v", err)
	}
	// Sealed frames are checked too (past their security byte).
	o := Options{Security: codec.SecurityAEAD, Key: bytes.Repeat([]byte{9}, 32)}
	packed.Reset()
	if err := Compress(ctx, bytes.NewReader(in), &packed, o, nil); err != nil {
		t.Fatal(err)
	}
	if err := Test(ctx, bytes.NewReader(packed.Bytes()), o, nil); err != nil {
		t.Errorf("Test of a sealed corpus: %v", err)
	}
}
