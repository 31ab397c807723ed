package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/container"
	"github.com/m2m-go/m2m/internal/sample"
	"github.com/m2m-go/m2m/tokenizer"
)

// nasty are inputs that must come back byte for byte.
var nasty = map[string]string{
	"empty":             "",
	"one newline":       "\n",
	"blank lines":       "\n\n{\"a\":1}\n\n\n",
	"crlf":              "{\"model\":\"m\",\"messages\":[]}\r\n{\"b\":2}\r\n\r\n",
	"no final newline":  "{\"a\":1}\n{\"model\":\"x\"}",
	"not json":          "hello\n{\"a\":\n[1,2\nnull\n\"string\"\n",
	"invalid utf-8":     "{\"a\":\"\xff\xfe\"}\n\xc3\x28\n",
	"prefix lookalikes": "#M2M|1|abc\n#TK|C|AAAA\n#M2M[v3.0]|DATA:\n#T1|{}\n",
	"nul bytes":         "\x00\x00\n{\"a\":\"\\u0000\"}\n",
	"deep json":         strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n",
	"only cr":           "\r",
	"long line":         "{\"pad\":\"" + strings.Repeat("x", 5000) + "\"}\n" + strings.Repeat("y", 12000) + "\n",
	"long last line":    strings.Repeat("z", 9000),
	"line of the limit": strings.Repeat("q", 4096) + "\n" + strings.Repeat("r", 4097) + "\n",
}

// roundTrip compresses and decompresses in with o, returning the output.
func roundTrip(t *testing.T, in []byte, o Options) []byte {
	t.Helper()
	var packed, back bytes.Buffer
	if err := Compress(context.Background(), bytes.NewReader(in), &packed, o, nil); err != nil {
		t.Fatalf("Compress: %v", err)
	}
	if err := Test(context.Background(), bytes.NewReader(packed.Bytes()), o, nil); err != nil {
		t.Fatalf("Test: %v", err)
	}
	if err := Decompress(context.Background(), bytes.NewReader(packed.Bytes()), &back, o, nil); err != nil {
		t.Fatalf("Decompress: %v", err)
	}
	if !bytes.Equal(back.Bytes(), in) {
		t.Fatalf("round trip of %d bytes gave %d different bytes", len(in), back.Len())
	}
	return packed.Bytes()
}

func TestRoundTripNasty(t *testing.T) {
	for name, in := range nasty {
		for _, alg := range []Algorithm{Auto, M2M, Brotli, TokenNative} {
			t.Run(fmt.Sprintf("%s/%v", name, alg), func(t *testing.T) {
				roundTrip(t, []byte(in), Options{Algorithm: alg, Verify: true, lineLimit: 4096, Batch: 64})
			})
		}
	}
}

// TestRoundTripLines: the line format carries everything that is UTF-8
// and not over the limit.
func TestRoundTripLines(t *testing.T) {
	for name, in := range nasty {
		if name == "invalid utf-8" || strings.HasPrefix(name, "long") || name == "line of the limit" {
			continue
		}
		for _, alg := range []Algorithm{Auto, M2M, Brotli, TokenNative} {
			t.Run(fmt.Sprintf("%s/%v", name, alg), func(t *testing.T) {
				roundTrip(t, []byte(in), Options{Algorithm: alg, Format: FormatLines, Verify: true})
			})
		}
	}
	// What it cannot carry, it refuses, naming the line.
	for _, in := range []string{"ok\n\xff\n", "ok\n" + strings.Repeat("x", 5000) + "\n"} {
		err := Compress(context.Background(), strings.NewReader(in), new(bytes.Buffer), Options{Format: FormatLines, lineLimit: 4096}, nil)
		if err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("line format of %.20q: %v, want an error about line 2", in, err)
		}
	}
}

func TestRoundTripSample(t *testing.T) {
	in := sample.JSONL()
	var st Stats
	var packed bytes.Buffer
	if err := Compress(context.Background(), bytes.NewReader(in), &packed, Options{}, &st); err != nil {
		t.Fatal(err)
	}
	if st.Lines.Load() != 450 || st.Encodings[container.M2M].Load() != 450 || st.BytesIn.Load() != int64(len(in)) {
		t.Errorf("stats: %d lines, %d frames, %d bytes in", st.Lines.Load(), st.Encodings[container.M2M].Load(), st.BytesIn.Load())
	}
	// Every worker count gives the same bytes.
	for _, w := range []int{1, 2, 3, 8} {
		got := roundTrip(t, in, Options{Workers: w, Batch: 100 << 10})
		if w > 1 {
			var ref bytes.Buffer
			Compress(context.Background(), bytes.NewReader(in), &ref, Options{Workers: 1, Batch: 100 << 10}, nil)
			if !bytes.Equal(got, ref.Bytes()) {
				t.Errorf("%d workers wrote different bytes from 1", w)
			}
		}
	}
	roundTrip(t, in, Options{Format: FormatLines})
}

func TestCompressedInput(t *testing.T) {
	in := sample.JSONL()[:50000]
	gz := func(p []byte) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(p)
		zw.Close()
		return b.Bytes()
	}
	zs := func(p []byte) []byte {
		ze, _ := zstd.NewWriter(nil)
		return ze.EncodeAll(p, nil)
	}
	// xz's stream header: magic, flags (CRC-64), CRC-32 of the flags.
	xz := []byte{0xfd, '7', 'z', 'X', 'Z', 0, 0, 4, 0xe6, 0xd6, 0xb4, 0x46, 2, 0}
	for _, c := range []struct {
		name     string
		data     []byte
		want     []byte // what the Input reads
		compress Compression
	}{
		{"gzip", gz(in), in, Gzip},
		{"zstd", zs(in), in, Zstd},
		{"empty gzip", gz(nil), nil, Gzip},
		{"empty zstd", zs(nil), nil, Zstd},
		{"plain", in, in, Plain},
		// Text that starts like a compressed stream is text.
		{"gzip lookalike", []byte("\x1f\x8b looks like gzip\n{}\n"), []byte("\x1f\x8b looks like gzip\n{}\n"), Plain},
		{"zstd lookalike", []byte("(\xb5/\xfd and then text\n"), []byte("(\xb5/\xfd and then text\n"), Plain},
		{"xz lookalike", []byte("\xfd7zXZ\x00 but no header\n"), []byte("\xfd7zXZ\x00 but no header\n"), Plain},
		{"magic alone", []byte{0x1f, 0x8b}, []byte{0x1f, 0x8b}, Plain},
	} {
		r, err := OpenInput(bytes.NewReader(c.data))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, c.want) || r.Compression != c.compress {
			t.Errorf("%s: read %d bytes (want %d), %v, compression %v (want %v)", c.name, len(got), len(c.want), err, r.Compression, c.compress)
		}
	}
	// A stream that starts well and breaks later is an error, not text.
	broken := gz(in)
	broken = broken[:len(broken)/2]
	r, err := OpenInput(bytes.NewReader(broken))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(r); err == nil || r.Compression != Gzip {
		t.Errorf("half a gzip stream: %v, %v", err, r.Compression)
	}
	if _, err := OpenInput(bytes.NewReader(xz)); !errors.Is(err, ErrXZ) {
		t.Errorf("xz input: %v", err)
	}
	// Round trip through Compress.
	r, _ = OpenInput(bytes.NewReader(zs(in)))
	var packed, back bytes.Buffer
	if err := Compress(context.Background(), r, &packed, Options{}, nil); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if err := Decompress(context.Background(), &packed, &back, Options{}, nil); err != nil || !bytes.Equal(back.Bytes(), in) {
		t.Errorf("zstd input did not round-trip: %v", err)
	}
}

// TestUnknownFormat: Test, List and Decompress refuse what is not an m2m
// file; Decompress copies it with CopyUnknown.
func TestUnknownFormat(t *testing.T) {
	ctx := context.Background()
	for name, in := range map[string]string{
		"jsonl":  string(sample.JSONL()[:100000]),
		"text":   "hello\nworld",
		"binary": "\x00\x01\x02",
	} {
		if err := Test(ctx, strings.NewReader(in), Options{}, nil); !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("%s: Test: %v", name, err)
		}
		if _, err := List(ctx, strings.NewReader(in), Options{}); !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("%s: List: %v", name, err)
		}
		var out bytes.Buffer
		if err := Decompress(ctx, strings.NewReader(in), &out, Options{}, nil); !errors.Is(err, ErrUnknownFormat) || out.Len() > 0 {
			t.Errorf("%s: Decompress: %v, %d bytes written", name, err, out.Len())
		}
		if err := Decompress(ctx, strings.NewReader(in), &out, Options{CopyUnknown: true}, nil); err != nil || out.String() != in {
			t.Errorf("%s: Decompress with CopyUnknown: %v, %d bytes of %d", name, err, out.Len(), len(in))
		}
	}
	// A lines file is recognised by a message anywhere in its first MiB,
	// after lines passed through; an empty input is an empty lines file.
	var lines bytes.Buffer
	lines.WriteString(strings.Repeat("passed through\n", 1000))
	if err := Compress(ctx, bytes.NewReader(sample.JSONL()[:20000]), &lines, Options{Format: FormatLines}, nil); err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string][]byte{"lines": lines.Bytes(), "empty": nil} {
		if err := Test(ctx, bytes.NewReader(in), Options{}, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestDamage: truncated and corrupted containers fail Test and Decompress
// with errors that say where, and List lists what is left of them.
func TestDamage(t *testing.T) {
	in := sample.JSONL()[:200000]
	var packed bytes.Buffer
	Compress(context.Background(), bytes.NewReader(in), &packed, Options{Batch: 16 << 10}, nil)
	file := packed.Bytes()
	for _, cut := range []int{len(file) - 1, len(file) - 40, len(file) / 2, 13} {
		err := Test(context.Background(), bytes.NewReader(file[:cut]), Options{}, nil)
		if !errors.Is(err, container.ErrTruncated) && !errors.Is(err, container.ErrCorrupt) {
			t.Errorf("cut at %d: %v", cut, err)
		}
	}
	// List counts the records of the whole blocks before a cut, the lines
	// Decompress gives back from them, and says where the rest is lost.
	for _, cut := range []int{len(file) / 3, len(file) / 2, len(file) - 40} {
		l, err := List(context.Background(), bytes.NewReader(file[:cut]), Options{})
		var out bytes.Buffer
		Decompress(context.Background(), bytes.NewReader(file[:cut]), &out, Options{}, nil)
		if l == nil || !errors.Is(err, container.ErrTruncated) || !strings.Contains(err.Error(), "listed what is left") {
			t.Fatalf("List cut at %d: %v, %v", cut, l, err)
		}
		lines := int64(len(splitLines(out.Bytes())))
		if l.Records == 0 || l.Lines != lines || l.Records != lines || l.Encodings[container.M2M] == 0 {
			t.Errorf("List cut at %d: %d records, %d lines; Decompress gave %d lines", cut, l.Records, l.Lines, lines)
		}
	}
	bad := bytes.Clone(file)
	bad[len(bad)/2] ^= 0x40
	err := Test(context.Background(), bytes.NewReader(bad), Options{}, nil)
	if !errors.Is(err, container.ErrCorrupt) || !strings.Contains(err.Error(), "record") {
		t.Errorf("flipped bit: %v", err)
	}
	var out bytes.Buffer
	if err := Decompress(context.Background(), bytes.NewReader(bad), &out, Options{}, nil); err == nil {
		t.Error("Decompress of a corrupt file succeeded")
	}
}

// TestLinesFromReference decodes a lines file in the reference's string
// forms (docs/protocol.md §3.13 and §6.1) and a passthrough line (§2.2),
// and names the line of a bad one.
func TestLinesFromReference(t *testing.T) {
	lines := "#M2M|1|IgABAAAAAAAAAAAAAAAAAAAAAAAGZ3B0LTRvAQECCtejOz4AAABuYFWkeyJtb2RlbCI6ImdwdC00byIsIm1lc3NhZ2VzIjpbeyJyb2xlIjoidXNlciIsImNvbnRlbnQiOiJIaSJ9XX0=\n" +
		"#M2M[v3.0]|DATA:G0gA4IzUYs0Z7kSQt5Rd17Rmoim2N9N+ikUHHHLgcMCwBRIIBrUHJJJVAlfrvNoC86Y93dhTpQBYJ1jxLf74\n" +
		"plain text passes through\n"
	var out bytes.Buffer
	if err := Decompress(context.Background(), strings.NewReader(lines), &out, Options{}, nil); err != nil {
		t.Fatal(err)
	}
	want := `{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}` + "\n" +
		`{"model":"gpt-4o","messages":[{"role":"user","content":"Hello, world!"}]}` + "\n" + "plain text passes through\n"
	if out.String() != want {
		t.Errorf("decoded\n%s\nwant\n%s", out.String(), want)
	}
	err := Decompress(context.Background(), strings.NewReader(lines+"#M2M|1|!!!!\n"), new(bytes.Buffer), Options{}, nil)
	if err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("bad line: %v, want an error naming line 4", err)
	}
}

func TestList(t *testing.T) {
	in := sample.JSONL()
	var packed bytes.Buffer
	Compress(context.Background(), bytes.NewReader(in), &packed, Options{}, nil)
	l, err := List(context.Background(), bytes.NewReader(packed.Bytes()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Records != 450 || l.Lines != 450 || l.Bytes != int64(len(in)) || l.Compressed != int64(packed.Len()) ||
		l.Encodings[container.M2M] != 450 || l.Schemas["request"] == 0 || l.Schemas["stream"] == 0 || len(l.Models) < 5 {
		t.Errorf("listing: %+v", l)
	}
	var lines bytes.Buffer
	// (M2M: auto-selection sends small lines as TokenNative, which has no header.)
	Compress(context.Background(), bytes.NewReader(in), &lines, Options{Algorithm: M2M, Format: FormatLines}, nil)
	ll, err := List(context.Background(), bytes.NewReader(lines.Bytes()), Options{})
	if err != nil || ll.Records != 450 || ll.Schemas["request"] != l.Schemas["request"] || ll.Models["gpt-4o"] != l.Models["gpt-4o"] {
		t.Errorf("lines listing: %+v, %v", ll, err)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Compress(ctx, bytes.NewReader(sample.JSONL()), new(bytes.Buffer), Options{}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("canceled Compress: %v", err)
	}
	// A writer that fails stops the run with its error.
	werr := errors.New("disk full")
	err = Compress(context.Background(), bytes.NewReader(sample.JSONL()), failingWriter{werr}, Options{Batch: 4096}, nil)
	if !errors.Is(err, werr) {
		t.Errorf("failing writer: %v", err)
	}
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// sealedWith returns a container sealed under o's key that holds recs.
func sealedWith(t *testing.T, o Options, recs ...container.Record) []byte {
	key, err := o.containerKey()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, err := container.NewWriter(&out, key)
	if err != nil {
		t.Fatal(err)
	}
	var b container.BlockBuilder
	for _, r := range recs {
		b.Add(r)
	}
	if err := w.Write(b.Block(), container.Counts{Records: len(recs), Lines: len(recs)}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestSecurity(t *testing.T) {
	key := bytes.Repeat([]byte{9}, 32)
	for _, mode := range []codec.Security{codec.SecurityHMAC, codec.SecurityAEAD} {
		o := Options{Security: mode, Key: key, lineLimit: 4096, Verify: true}
		for name, in := range nasty {
			t.Run(mode.String()+"/"+name, func(t *testing.T) {
				packed := roundTrip(t, []byte(in), o)
				if strings.Contains(in, "hello") && mode == codec.SecurityAEAD && bytes.Contains(packed, []byte("hello")) {
					t.Error("AEAD corpus shows a raw line in clear")
				}
				// The wrong key fails; so does reading it as plain.
				bad := o
				bad.Key = bytes.Repeat([]byte{8}, 32)
				if err := Test(context.Background(), bytes.NewReader(packed), bad, nil); err == nil && len(in) > 0 {
					t.Error("wrong key accepted")
				}
				if err := Test(context.Background(), bytes.NewReader(packed), Options{}, nil); err == nil && len(in) > 0 {
					t.Error("secured corpus read as plain")
				}
			})
		}
		// A corpus that is not sealed is refused.
		var plain bytes.Buffer
		Compress(context.Background(), strings.NewReader("not json\n"), &plain, Options{}, nil)
		if err := Test(context.Background(), bytes.NewReader(plain.Bytes()), o, nil); !errors.Is(err, container.ErrSeal) {
			t.Errorf("%v: a corpus that is not sealed: %v", mode, err)
		}
		// So is a record that is not, in a sealed container (which only
		// the key's holder can write).
		for _, enc := range []container.Encoding{container.Raw, container.Brotli, container.TokenNative} {
			if err := Test(context.Background(), bytes.NewReader(sealedWith(t, o, container.Record{Encoding: enc, Data: []byte("x")})), o, nil); !errors.Is(err, codec.ErrIntegrity) {
				t.Errorf("%v: %v record in a secured corpus: %v", mode, enc, err)
			}
		}
		// Brotli and TokenNative records cannot be sealed: refused when
		// writing.
		for _, alg := range []Algorithm{Brotli, TokenNative} {
			if err := Compress(context.Background(), strings.NewReader("{}\n"), new(bytes.Buffer), Options{Algorithm: alg, Security: mode, Key: key}, nil); err == nil {
				t.Errorf("%v: %v corpus under security written", mode, alg)
			}
		}
		// The line format carries only frames when secured.
		lo := o
		lo.Format = FormatLines
		roundTrip(t, []byte("{\"a\":1}\n{\"model\":\"m\",\"messages\":[]}\n"), lo)
		if err := Compress(context.Background(), strings.NewReader("{}\nplain\n"), new(bytes.Buffer), lo, nil); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%v: non-JSON line in a secured line file: %v", mode, err)
		}
	}
}

// TestTokenNative: every line of UTF-8 becomes token ids, long runs
// included.
func TestTokenNative(t *testing.T) {
	long := strings.Repeat("A", 100_000)
	in := "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"日本語 and emoji 👨‍👩‍👧\"}]}\nplain text\n" + long + "\n\n"
	for _, enc := range []tokenizer.Encoding{tokenizer.Cl100kBase, tokenizer.O200kBase} {
		o := Options{Algorithm: TokenNative, Verify: true, Codec: []codec.Option{codec.WithTokenizer(enc)}}
		var st Stats
		var packed bytes.Buffer
		if err := Compress(context.Background(), strings.NewReader(in), &packed, o, &st); err != nil {
			t.Fatal(err)
		}
		if st.Encodings[container.TokenNative].Load() != 3 || st.NotTokenizable.Load() != 0 || st.Blank.Load() != 1 {
			t.Errorf("%v: %d TokenNative records, %d not tokenizable, %d blank; want 3, 0, 1", enc,
				st.Encodings[container.TokenNative].Load(), st.NotTokenizable.Load(), st.Blank.Load())
		}
		roundTrip(t, []byte(in), o)
		l, err := List(context.Background(), bytes.NewReader(packed.Bytes()), Options{})
		if err != nil || l.Encodings[container.TokenNative] != 3 {
			t.Errorf("%v: list: %+v, %v", enc, l, err)
		}
		o.Format = FormatLines
		st = Stats{}
		packed.Reset()
		if err := Compress(context.Background(), strings.NewReader(in), &packed, o, &st); err != nil {
			t.Fatal(err)
		}
		if st.Encodings[container.TokenNative].Load() != 4 || !bytes.HasPrefix(packed.Bytes(), []byte("#TK|"+string(enc.Char())+"|")) {
			t.Errorf("%v: lines: %d TokenNative lines, output %.20q", enc, st.Encodings[container.TokenNative].Load(), packed.Bytes())
		}
		roundTrip(t, []byte(in), o)
	}
}

func TestArchive(t *testing.T) {
	for name, in := range nasty {
		t.Run(name, func(t *testing.T) {
			roundTrip(t, []byte(in), Options{Archive: true, lineLimit: 4096, Batch: 64})
		})
	}
	in := sample.JSONL()
	packed := roundTrip(t, in, Options{Archive: true, Batch: 128 << 10})
	plain := roundTrip(t, in, Options{})
	if len(packed)*2 > len(plain) {
		t.Errorf("archive of %d bytes, per-record container of %d", len(packed), len(plain))
	}
	l, err := List(context.Background(), bytes.NewReader(packed), Options{})
	if err != nil || l.Archived != l.Records || l.Records != int64(bytes.Count(in, []byte{'\n'})) || len(l.Models) == 0 {
		t.Errorf("List: %+v, %v", l, err)
	}
	for _, cut := range []int{len(packed) - 1, len(packed) - 60, len(packed) / 2, 13} {
		err := Test(context.Background(), bytes.NewReader(packed[:cut]), Options{}, nil)
		if !errors.Is(err, container.ErrTruncated) && !errors.Is(err, container.ErrCorrupt) {
			t.Errorf("cut at %d: %v", cut, err)
		}
	}
	// What is left of a cut archive: a prefix of the input, and an error
	// that says how much.
	var out bytes.Buffer
	err = Decompress(context.Background(), bytes.NewReader(packed[:len(packed)-60]), &out, Options{}, nil)
	if !errors.Is(err, container.ErrTruncated) || !strings.Contains(err.Error(), "records recovered") || !bytes.HasPrefix(in, out.Bytes()) {
		t.Errorf("Decompress of a cut archive: %v, and %d bytes, not a prefix of the input", err, out.Len())
	}
	// Listed and read by number as far as it goes, with the same error.
	if l, err := List(context.Background(), bytes.NewReader(packed[:len(packed)-60]), Options{}); l == nil || l.Records == 0 || !errors.Is(err, container.ErrTruncated) {
		t.Errorf("List of a cut archive: %+v, %v", l, err)
	}
	cut := packed[:len(packed)-60]
	if r, err := Open(bytes.NewReader(cut), int64(len(cut)), Options{}); err != nil || !errors.Is(r.Cut(), container.ErrTruncated) {
		t.Errorf("Open of a cut archive: %v", err)
	} else {
		if rec, err := r.AppendRecord(nil, 0); err != nil || !bytes.HasPrefix(in, rec) {
			t.Errorf("record 0 of a cut archive: %v", err)
		}
		r.Close()
	}
	bad := bytes.Clone(packed)
	bad[len(bad)/3] ^= 0x40
	if err := Test(context.Background(), bytes.NewReader(bad), Options{}, nil); err == nil || !strings.Contains(err.Error(), "record") {
		t.Errorf("flipped bit: %v", err)
	}
	if err := Compress(context.Background(), bytes.NewReader(in), io.Discard, Options{Archive: true, Security: codec.SecurityHMAC, Key: make([]byte, 32)}, nil); err == nil {
		t.Error("a sealed archive was written")
	}
}
