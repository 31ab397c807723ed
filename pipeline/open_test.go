package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/m2m-go/m2m/archive"
	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/internal/sample"
)

// TestOpen reads every record of per-record containers (plain and sealed)
// and archives in random order: together, in order, they are the input.
func TestOpen(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	layouts := map[string]Options{
		"auto":    {},
		"brotli":  {Algorithm: Brotli},
		"aead":    {Security: codec.SecurityAEAD, Key: key},
		"archive": {Archive: true},
	}
	inputs := map[string][]byte{"sample": sample.JSONL()}
	for name, in := range nasty {
		inputs[name] = []byte(in)
	}
	for lname, o := range layouts {
		for iname, in := range inputs {
			t.Run(lname+"/"+iname, func(t *testing.T) {
				o.Batch, o.lineLimit = 2<<10, 4096
				var packed bytes.Buffer
				if err := Compress(context.Background(), bytes.NewReader(in), &packed, o, nil); err != nil {
					t.Fatal(err)
				}
				r, err := Open(bytes.NewReader(packed.Bytes()), int64(packed.Len()), o)
				if err != nil {
					t.Fatal(err)
				}
				recs := make([][]byte, r.Records())
				order := rand.New(rand.NewPCG(3, 4)).Perm(len(recs))
				for _, n := range order {
					if recs[n], err = r.AppendRecord(nil, int64(n)); err != nil {
						t.Fatalf("record %d: %v", n, err)
					}
				}
				if got := bytes.Join(recs, nil); !bytes.Equal(got, in) {
					t.Fatalf("records joined: %d bytes, differ from the %d of the input", len(got), len(in))
				}
				if _, err := r.AppendRecord(nil, r.Records()); err == nil {
					t.Error("a record past the end")
				}
			})
		}
	}
}

// TestOpenDamage: a flipped byte in a block is an error naming the record
// read, or the block, never a wrong record.
func TestOpenDamage(t *testing.T) {
	in := sample.JSONL()
	for _, o := range []Options{{}, {Archive: true, Batch: 64 << 10}} {
		var packed bytes.Buffer
		if err := Compress(context.Background(), bytes.NewReader(in), &packed, o, nil); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 6))
		for range 50 {
			bad := bytes.Clone(packed.Bytes())
			bad[12+rng.IntN(len(bad)-12-40)] ^= 1 << rng.IntN(8)
			r, err := Open(bytes.NewReader(bad), int64(len(bad)), o)
			if err != nil {
				continue
			}
			var got []byte
			for n := range r.Records() {
				var err error
				if got, err = r.AppendRecord(got, n); err != nil {
					if !errors.Is(err, container.ErrCorrupt) && !errors.Is(err, archive.ErrCorrupt) {
						t.Fatalf("archive %v: record %d: %v", o.Archive, n, err)
					}
					break
				}
			}
			if len(got) == len(in) && !bytes.Equal(got, in) {
				t.Fatalf("archive %v: a flipped bit read back as different records", o.Archive)
			}
		}
	}
}

func ExampleReader() {
	var packed bytes.Buffer
	in := "{\"model\":\"gpt-4o\",\"messages\":[]}\nsecond line\n"
	if err := Compress(context.Background(), bytes.NewReader([]byte(in)), &packed, Options{Archive: true}, nil); err != nil {
		panic(err)
	}
	r, err := Open(bytes.NewReader(packed.Bytes()), int64(packed.Len()), Options{})
	if err != nil {
		panic(err)
	}
	line, err := r.AppendRecord(nil, 1)
	fmt.Printf("%d records; record 1: %q %v\n", r.Records(), line, err)
	// Output: 2 records; record 1: "second line\n" <nil>
}
