package pipeline

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/internal/forge"
	"github.com/m2m-go/m2m/internal/sample"
)

// TestSealAttacks: what can be done to a sealed corpus without its key,
// every checksum made right again, fails Test, Decompress and Open with
// AppendRecord with the key, with container.ErrSeal and an error that
// names records.
func TestSealAttacks(t *testing.T) {
	ctx := context.Background()
	in := append(bytes.Clone(sample.JSONL()[:100000]), "not json, a sealed raw record\n"...)
	for _, mode := range []codec.Security{codec.SecurityHMAC, codec.SecurityAEAD} {
		o := Options{Security: mode, Key: bytes.Repeat([]byte{9}, 32), Batch: 8 << 10}
		compress := func(in []byte) []byte {
			var out bytes.Buffer
			if err := Compress(ctx, bytes.NewReader(in), &out, o, nil); err != nil {
				t.Fatal(err)
			}
			return out.Bytes()
		}
		file, other := compress(in), compress(in)
		parse := func(file []byte) *forge.File {
			f, err := forge.Parse(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Blocks) < 4 || !f.Sealed() {
				t.Fatalf("%d blocks, sealed %v", len(f.Blocks), f.Sealed())
			}
			return f
		}
		attacks := map[string]func(f *forge.File){
			"records reordered": func(f *forge.File) {
				var err error
				if f.Blocks[1].Body, err = forge.SwapRecords(f.Blocks[1].Body, 0, 1); err != nil {
					t.Fatal(err)
				}
			},
			"blocks swapped":    func(f *forge.File) { f.Blocks[1], f.Blocks[2] = f.Blocks[2], f.Blocks[1] },
			"block duplicated":  func(f *forge.File) { f.Blocks = append(f.Blocks[:2], f.Blocks[1:]...) },
			"block dropped":     func(f *forge.File) { f.Blocks = append(f.Blocks[:1], f.Blocks[2:]...) },
			"cut after block 0": func(f *forge.File) { f.Blocks = f.Blocks[:1] },
			"block of another file": func(f *forge.File) {
				f.Blocks[2] = parse(other).Blocks[2]
			},
		}
		forged := map[string][]byte{}
		for name, attack := range attacks {
			f := parse(file)
			attack(f)
			forged[name] = f.Bytes()
		}
		var empty bytes.Buffer
		if err := Compress(ctx, strings.NewReader(""), &empty, Options{}, nil); err != nil {
			t.Fatal(err)
		}
		forged["empty, not sealed"] = empty.Bytes()

		for name, f := range forged {
			check := func(what string, err error) {
				if !errors.Is(err, container.ErrSeal) || !strings.Contains(err.Error(), "record") && name != "empty, not sealed" {
					t.Errorf("%v: %s: %s: %v", mode, name, what, err)
				}
			}
			check("Test", Test(ctx, bytes.NewReader(f), o, nil))
			check("Decompress", Decompress(ctx, bytes.NewReader(f), new(bytes.Buffer), o, nil))
			check("Open", func() error {
				r, err := Open(bytes.NewReader(f), int64(len(f)), o)
				if err != nil {
					return err
				}
				defer r.Close()
				for n := range r.Records() {
					if _, err := r.AppendRecord(nil, n); err != nil {
						return err
					}
				}
				return nil
			}())
		}
	}
}

// TestSealedEmpty: an empty sealed corpus is a sealed file: it reads back
// with the key, and a sealed reader tells it from an empty corpus that is
// not sealed.
func TestSealedEmpty(t *testing.T) {
	ctx := context.Background()
	o := Options{Security: codec.SecurityHMAC, Key: bytes.Repeat([]byte{9}, 32)}
	var sealed bytes.Buffer
	if err := Compress(ctx, strings.NewReader(""), &sealed, o, nil); err != nil {
		t.Fatal(err)
	}
	if err := Test(ctx, bytes.NewReader(sealed.Bytes()), o, nil); err != nil {
		t.Errorf("Test: %v", err)
	}
	if r, err := Open(bytes.NewReader(sealed.Bytes()), int64(sealed.Len()), o); err != nil || r.Records() != 0 {
		t.Errorf("Open: %v", err)
	}
	// The seal is over the file, not over its records: without a key it
	// lists as any empty corpus.
	if l, err := List(ctx, bytes.NewReader(sealed.Bytes()), Options{}); err != nil || l.Records != 0 {
		t.Errorf("List: %v", err)
	}
}
