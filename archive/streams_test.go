package archive

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/m2m-go/m2m/container"
)

// TestDumpStreams writes the raw bytes of each stream of an archive of
// M2M_CORPUS to the directory M2M_DUMP (one file a stream, named as in
// StreamNames), for measuring coders on them (bench/coder.sh). It runs only
// when both are set.
func TestDumpStreams(t *testing.T) {
	corpus, dir := os.Getenv("M2M_CORPUS"), os.Getenv("M2M_DUMP")
	if corpus == "" || dir == "" {
		t.Skip("M2M_CORPUS and M2M_DUMP not both set")
	}
	in, err := os.ReadFile(corpus)
	if err != nil {
		t.Fatal(err)
	}
	packed, _ := write(t, in, Options{Level: 1}, 1<<20)
	r, err := NewReader(bytes.NewReader(packed), int64(len(packed)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d, err := newFrameDecoder()
	if err != nil {
		t.Fatal(err)
	}
	var raw [numStreams][]byte
	add := func(s int, f frame, dict []byte) {
		var err error
		if raw[s], err = d.decode(raw[s], f, dict); err != nil {
			t.Fatal(err)
		}
	}
	// A strings frame's dictionary: the raw bytes of its block's frame, or
	// for words frames, that frame's table and coded text.
	dicts := map[int][]byte{}
	tables := map[int]wordsText{}
	for b := range r.ix.Blocks() - 1 {
		blk, err := r.ix.Block(b)
		if err != nil || blk.Type != container.TypeArchive {
			t.Fatalf("block %d: %v", b, err)
		}
		body := blk.Body
		switch body[0] {
		case kindRecords:
			h, err := parseRecords(body, blk.Records, b)
			if err != nil {
				t.Fatal(err)
			}
			add(StreamIndex, h.index, nil)
			add(StreamCRCs, h.crcs, nil)
			add(StreamSkeletons, h.skel, nil)
		case kindStrings, kindTemplates:
			f, _ := storeFrameOf(t, body)
			s := StreamStrings
			if body[0] == kindTemplates {
				s = StreamTemplates
			}
			if f.coder&coderWords != 0 {
				dict := tables[f.dict]
				out, own, _, err := d.decodeWords(raw[s], f, dict.text, dict.table, f.rawLen, true, wordsText{})
				if err != nil {
					t.Fatal(err)
				}
				raw[s] = out
				if own.table != nil {
					tables[b] = own
				}
				continue
			}
			start := len(raw[s])
			add(s, f, dicts[f.dict])
			if s == StreamStrings {
				dicts[b] = raw[s][start:]
			}
		}
	}
	for s, name := range StreamNames {
		if err := os.WriteFile(filepath.Join(dir, name), raw[s], 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", name, len(raw[s]))
	}
}
