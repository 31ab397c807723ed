package archive

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/m2m-go/m2m/internal/sample"
	"github.com/m2m-go/m2m/ppm"
)

// spliceCases are frames made with a raw dictionary, as the writer makes
// them and with the header fields it does not use (a checksum, no content
// size, a window descriptor), with their dictionary and raw bytes.
func spliceCases(t testing.TB) (frames, dicts, raws [][]byte) {
	text := sample.JSONL()
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 300<<10)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	type variant struct {
		dict, raw []byte
		opts      []zstd.EOption
	}
	var vs []variant
	for _, sizes := range [][2]int{{1, 1}, {1000, 50}, {200 << 10, 300 << 10}, {400 << 10, 40 << 10}} {
		dict, raw := text[:sizes[0]], text[len(text)-sizes[1]:]
		vs = append(vs,
			variant{dict, raw, nil},
			variant{dict, raw, []zstd.EOption{zstd.WithEncoderCRC(true)}},
			variant{dict, raw, []zstd.EOption{zstd.WithSingleSegment(false), zstd.WithWindowSize(1 << 20)}},
			variant{dict, append(append([]byte(nil), dict[:sizes[0]/2]...), raw...), nil}, // raw repeats the dictionary
		)
	}
	vs = append(vs, variant{noise[:200<<10], noise[100<<10:], nil}) // raw blocks inside the frame
	for _, v := range vs {
		e, err := newZstd(zstd.SpeedBetterCompression, append([]zstd.EOption{zstd.WithEncoderDictRaw(dictID, v.dict)}, v.opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, e.EncodeAll(v.raw, nil))
		dicts, raws = append(dicts, v.dict), append(raws, v.raw)
	}
	return frames, dicts, raws
}

// TestSplice: a frame with a dictionary decodes, spliced, to what
// klauspost's decoder makes of it with the dictionary; whole or in part;
// and a frame that is not one of ours is an error, never a panic.
func TestSplice(t *testing.T) {
	d, err := newFrameDecoder()
	if err != nil {
		t.Fatal(err)
	}
	frames, dicts, raws := spliceCases(t)
	for i, data := range frames {
		f := frame{coder: coderZstd, dict: 0, rawLen: len(raws[i]), data: data}
		got, err := d.decode([]byte("x"), f, dicts[i])
		if err != nil || !bytes.Equal(got, append([]byte("x"), raws[i]...)) {
			t.Fatalf("case %d: decode: %v", i, err)
		}
		for _, n := range []int{0, 1000, 200 << 10, len(raws[i]) - 1, len(raws[i])} {
			checkPrefix(t, d, f, dicts[i], raws[i], n)
		}
		// Cut short, a byte changed, or a byte more: an error, or the
		// same bytes as klauspost's dictionary decoder.
		ref, err := zstd.NewReader(nil, zstd.WithDecoderDictRaw(dictID, dicts[i]), zstd.WithDecoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		bad := append([]byte(nil), data...)
		for at := 0; at < len(data); at += 1 + len(data)/300 {
			f.data = data[:at]
			if _, err := d.decode(nil, f, dicts[i]); err == nil {
				t.Fatalf("case %d: cut at %d: no error", i, at)
			}
			bad[at] ^= 0x5a
			f.data = bad
			got, err := d.decode(nil, f, dicts[i])
			if err == nil {
				if want, rerr := ref.DecodeAll(bad, nil); rerr == nil && !bytes.Equal(got, want) {
					t.Fatalf("case %d: byte %d changed: spliced and dictionary decoders disagree", i, at)
				}
			}
			bad[at] = data[at]
		}
		f.data = append(data[:len(data):len(data)], 0)
		if _, err := d.decode(nil, f, dicts[i]); err == nil {
			t.Fatalf("case %d: a byte after the frame: no error", i)
		}
		ref.Close()
	}

	// A frame naming another dictionary, or none.
	for _, opt := range []zstd.EOption{zstd.WithEncoderDictRaw(dictID+1, raws[1]), zstd.WithEncoderLevel(zstd.SpeedFastest)} {
		e, err := newZstd(zstd.SpeedBetterCompression, opt)
		if err != nil {
			t.Fatal(err)
		}
		data := e.EncodeAll(raws[1], nil)
		if _, err := d.decode(nil, frame{coder: coderZstd, rawLen: len(raws[1]), data: data}, dicts[1]); err == nil {
			t.Fatal("a frame that names no dictionary, or another: no error")
		}
	}
}

// checkPrefix checks that the first n bytes of f decode, as part of the
// bytes of raw, all of them or not, as decodePrefix says.
func checkPrefix(t *testing.T, d *frameDecoder, f frame, dict, raw []byte, n int) {
	t.Helper()
	prefix, complete, err := d.decodePrefix([]byte("x"), f, dict, n)
	if err != nil || len(prefix) < 1+min(max(n, 0), len(raw)) || !bytes.HasPrefix(append([]byte("x"), raw...), prefix) || complete != (len(prefix) == 1+len(raw)) {
		t.Fatalf("%d of %d bytes: decodePrefix: %d bytes, complete %v, %v", n, len(raw), len(prefix)-1, complete, err)
	}
}

// TestPrefix: part of a frame without a dictionary decodes, at every
// level (level 1's blocks hold 64 KiB, the others' 128), with the
// frame's own header fields or not.
func TestPrefix(t *testing.T) {
	d, err := newFrameDecoder()
	if err != nil {
		t.Fatal(err)
	}
	text := sample.JSONL()
	raw := text[:min(len(text), 700<<10)]
	for level := zstd.SpeedFastest; level <= zstd.SpeedBestCompression; level++ {
		for _, opts := range [][]zstd.EOption{nil, {zstd.WithEncoderCRC(true), zstd.WithSingleSegment(false)}} {
			e, err := newZstd(level, opts...)
			if err != nil {
				t.Fatal(err)
			}
			f := frame{coder: coderZstd, dict: -1, rawLen: len(raw), data: e.EncodeAll(raw, nil)}
			for _, n := range []int{0, 1, 64 << 10, 64<<10 + 1, 300 << 10, len(raw) - 1, len(raw), len(raw) + 1} {
				checkPrefix(t, d, f, nil, raw, n)
			}
		}
	}
	// A stored frame, a ppm frame.
	checkPrefix(t, d, frame{coder: coderStored, rawLen: 100, data: raw[:100]}, nil, raw[:100], 10)
	data, err := ppm.AppendEncode(nil, raw[:20000], ppm.Options{Memory: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 5000, 20000} {
		checkPrefix(t, d, frame{coder: coderPPM, rawLen: 20000, data: data}, nil, raw[:20000], n)
	}
}

// FuzzSplice: any frame data with a dictionary decodes, spliced, to the
// bytes klauspost's decoder makes of it with the dictionary, or is an
// error; never a panic. Decoded whole (DecodeAll) and streamed (as a
// read of one record does), it gives the same bytes or an error both
// ways.
func FuzzSplice(f *testing.F) {
	frames, _, raws := spliceCases(f)
	for i, data := range frames {
		if len(raws[i]) < 2000 {
			f.Add(data, uint16(len(raws[i])), uint16(len(raws[i])/2))
		}
	}
	dict := sample.JSONL()[:1000]
	d, err := newFrameDecoder()
	if err != nil {
		f.Fatal(err)
	}
	ref, err := zstd.NewReader(nil, zstd.WithDecoderDictRaw(dictID, dict), zstd.WithDecoderConcurrency(1))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, rawLen, n uint16) {
		fr := frame{coder: coderZstd, rawLen: int(rawLen), data: data}
		got, err := d.decode(nil, fr, dict)
		part, complete, perr := d.decodePrefix(nil, fr, dict, int(n))
		switch {
		case perr != nil:
		case complete && (err != nil || !bytes.Equal(got, part)):
			t.Fatalf("whole: %d bytes, %v; part, complete: %d bytes", len(got), err, len(part))
		case !complete && len(part) < min(int(n), int(rawLen)):
			t.Fatalf("%d bytes of the first %d", len(part), n)
		case err == nil && !bytes.HasPrefix(got, part):
			t.Fatal("part and whole disagree")
		}
		if err != nil {
			return
		}
		if len(got) != int(rawLen) {
			t.Fatalf("%d bytes, the header says %d", len(got), rawLen)
		}
		if want, err := ref.DecodeAll(data, nil); err == nil && !bytes.Equal(got, want) {
			t.Fatal("spliced and dictionary decoders disagree")
		}
	})
}

// TestSmallHistory: the encoders that keep the smaller history (a worker's
// for frames up to the window, and those of frames with a dictionary)
// write the bytes encoders of the default kind do, for frames that fill
// the window, and a frame larger than the window takes one of the default
// kind.
func TestSmallHistory(t *testing.T) {
	text := sample.JSONL()
	rng := rand.New(rand.NewPCG(3, 4))
	var big []byte
	for len(big) < encoderWindow+encoderWindow/2 {
		// The sample's lines in a random order, some cut: matches at
		// every distance in the window.
		i, j := rng.IntN(len(text)), rng.IntN(len(text))
		big = append(big, text[min(i, j):max(i, j)]...)
	}
	for _, level := range []int{1, 3, 4} {
		e := newFrameEncoder(level, 0, &dictEncoders{level: zstdLevel(level)})
		def, err := newZstd(zstdLevel(level))
		if err != nil {
			t.Fatal(err)
		}
		raw := big[:encoderWindow]
		if got, want := e.plain(len(raw)).EncodeAll(raw, nil), def.EncodeAll(raw, nil); !bytes.Equal(got, want) {
			t.Errorf("level %d: a frame of the window: %d bytes, the default encoder's %d", level, len(got), len(want))
		}
		if e.plain(len(big)) == e.small {
			t.Errorf("level %d: a frame past the window takes the encoder of the smaller history", level)
		}
		dict, raw := big[:maxStoreFrame], big[maxStoreFrame:encoderWindow]
		de, err := e.dicts.get(dict, 7)
		if err != nil {
			t.Fatal(err)
		}
		defDict, err := newZstd(zstdLevel(level), zstd.WithEncoderDictRaw(dictID, dict))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := de.z.EncodeAll(raw, nil), defDict.EncodeAll(raw, nil); !bytes.Equal(got, want) {
			t.Errorf("level %d: a frame with a dictionary: %d bytes, the default encoder's %d", level, len(got), len(want))
		}
		e.dicts.put(de)
	}
}

// TestEncodePlain: at a textLevel, frames with no dictionary up to the
// window are coded by zenc, and no klauspost encoder is made for them
// (its tables are what a small run faulted in); at level 1 by klauspost's.
// Either way the frame is zstd's, the bytes back.
func TestEncodePlain(t *testing.T) {
	raw := sample.JSONL()
	d, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, c := range []struct {
		level int
		zenc  bool
	}{{1, false}, {3, true}, {4, true}} {
		e := newFrameEncoder(c.level, 0, &dictEncoders{level: zstdLevel(c.level)})
		packed := e.encodePlain([]byte("x"), raw)
		if got := e.fast != nil && e.small == nil; got != c.zenc {
			t.Errorf("level %d: by zenc %v, want %v", c.level, got, c.zenc)
		}
		back, err := d.DecodeAll(packed[1:], nil)
		if err != nil || !bytes.Equal(back, raw) || packed[0] != 'x' {
			t.Fatalf("level %d: %d bytes back of %d, %v", c.level, len(back), len(raw), err)
		}
		e.release()
	}
}
