package container

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/m2m-go/m2m/internal/forge"
)

var testKey = bytes.Repeat([]byte{7}, 32)

// TestSealedRoundTrip: a sealed file reads back with its key and without
// one; another key, or a file that is not sealed, is refused.
func TestSealedRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	other := bytes.Repeat([]byte{8}, 32)
	for _, n := range []int{0, 1, 5} {
		file, want := build(t, r, n, testKey)
		for _, key := range [][]byte{testKey, nil} {
			if got, err := readAll(file, key); err != nil || !equalRecords(got, want) {
				t.Fatalf("%d blocks, key %v: %d records, %v; want %d", n, key != nil, len(got), err, len(want))
			}
			if err := openAll(file, key); err != nil {
				t.Fatalf("%d blocks, key %v: index: %v", n, key != nil, err)
			}
		}
		if _, err := readAll(file, other); !errors.Is(err, ErrSeal) {
			t.Errorf("%d blocks, another key: %v", n, err)
		}
		if err := openAll(file, other); !errors.Is(err, ErrSeal) {
			t.Errorf("%d blocks, another key: index: %v", n, err)
		}
		plain, _ := build(t, r, n, nil)
		if _, err := readAll(plain, testKey); !errors.Is(err, ErrSeal) {
			t.Errorf("%d blocks, not sealed: %v", n, err)
		}
		if err := openAll(plain, testKey); !errors.Is(err, ErrSeal) {
			t.Errorf("%d blocks, not sealed: index: %v", n, err)
		}
	}
	a, b := equalBlocks(t, 1, testKey), equalBlocks(t, 1, testKey)
	if bytes.Equal(a[headerLen:headerLen+IDLen], b[headerLen:headerLen+IDLen]) {
		t.Error("two sealed files with one id")
	}
	if _, err := NewWriter(new(bytes.Buffer), testKey[:MinKeyLen-1]); err == nil {
		t.Error("a short MAC key was taken")
	}
}

// TestSealAttacks: what someone without the key can do to a sealed file,
// every checksum made right again, reads without the key (the checksums
// cannot tell) and is refused with it, by the stream reader and through
// the index, with ErrSeal.
func TestSealAttacks(t *testing.T) {
	file := equalBlocks(t, 4, testKey)
	other := equalBlocks(t, 4, testKey) // the same records, another file
	parse := func(file []byte) *forge.File {
		f, err := forge.Parse(file)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	attacks := map[string]func(f *forge.File){
		"records reordered": func(f *forge.File) {
			var err error
			if f.Blocks[1].Body, err = forge.SwapRecords(f.Blocks[1].Body, 0, 2); err != nil {
				t.Fatal(err)
			}
		},
		"blocks swapped":    func(f *forge.File) { f.Blocks[1], f.Blocks[2] = f.Blocks[2], f.Blocks[1] },
		"block duplicated":  func(f *forge.File) { f.Blocks = append(f.Blocks[:2], f.Blocks[1:]...) },
		"block dropped":     func(f *forge.File) { f.Blocks = append(f.Blocks[:1], f.Blocks[2:]...) },
		"last block lost":   func(f *forge.File) { f.Blocks = f.Blocks[:3] },
		"cut after block 0": func(f *forge.File) { f.Blocks = f.Blocks[:1] },
		"all blocks lost":   func(f *forge.File) { f.Blocks = nil },
		"block of another file": func(f *forge.File) {
			f.Blocks[2] = parse(other).Blocks[2]
		},
		"trailer of another file": func(f *forge.File) { f.TrailerMAC = parse(other).TrailerMAC },
	}
	for name, attack := range attacks {
		f := parse(file)
		attack(f)
		forged := f.Bytes()
		if _, err := readAll(forged, nil); err != nil {
			t.Fatalf("%s: the checksums do not hold: %v", name, err)
		}
		_, err := readAll(forged, testKey)
		var e *Error
		if !errors.Is(err, ErrSeal) || !errors.As(err, &e) {
			t.Errorf("%s: stream reader: %v", name, err)
		}
		if err := openAll(forged, testKey); !errors.Is(err, ErrSeal) {
			t.Errorf("%s: index: %v", name, err)
		}
	}

	// An empty file that is not sealed, in place of the sealed one.
	var empty bytes.Buffer
	w, _ := NewWriter(&empty, nil)
	w.Close()
	if _, err := readAll(empty.Bytes(), testKey); !errors.Is(err, ErrSeal) {
		t.Errorf("empty, not sealed: %v", err)
	}
	if err := openAll(empty.Bytes(), testKey); !errors.Is(err, ErrSeal) {
		t.Errorf("empty, not sealed: index: %v", err)
	}
}

// TestSealKeepsCRC: a change that keeps every CRC (block, index, file) is
// read without the key as if nothing happened, and refused with it: the
// block's MAC names its records, in the stream and through the index.
func TestSealKeepsCRC(t *testing.T) {
	file := equalBlocks(t, 4, testKey)
	forged := bytes.Clone(file)
	forge.KeepCRC(forged, bytes.Index(forged, bytes.Repeat([]byte{'e'}, 10))+2) // block 1, record 1
	got, err := readAll(forged, nil)
	if err != nil || len(got) != 12 || bytes.Equal(got[4].Data, bytes.Repeat([]byte{'e'}, 10)) {
		t.Fatalf("without the key: %v, %d records, record 4 %q", err, len(got), got[4].Data)
	}
	_, err = readAll(forged, testKey)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrSeal) || e.Record != 3 {
		t.Errorf("stream reader: %v, want ErrSeal naming record 3", err)
	}
	err = openAll(forged, testKey)
	if !errors.As(err, &e) || !errors.Is(err, ErrSeal) || e.Record != 3 {
		t.Errorf("index: %v, want ErrSeal naming record 3", err)
	}
}
