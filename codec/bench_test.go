package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/m2m-go/m2m/crc"
	"github.com/m2m-go/m2m/internal/cputime"
	"github.com/m2m-go/m2m/tokenizer"
)

// A benchClass is a set of records of the benchmark corpus: a size class
// (records of 90-260 B, 1.5-2.6 KB, 6-10.5 KB, and every
// 8th record, the natural mix), or every record of one schema.
type benchClass struct {
	name     string // "size=2KB", "schema=response"
	min, max int    // size bounds; 0, 0: every 8th record (or every one of the schema)
	schema   Schema // 0: any
}

var (
	sizeClasses = []benchClass{
		{"size=150B", 90, 260, 0}, {"size=2KB", 1500, 2600, 0}, {"size=8KB", 6000, 10500, 0}, {"size=mix", 0, 0, 0},
	}
	benchClasses = append(sizeClasses[:len(sizeClasses):len(sizeClasses)],
		benchClass{"schema=request", 0, 0, SchemaRequest}, benchClass{"schema=response", 0, 0, SchemaResponse},
		benchClass{"schema=stream", 0, 0, SchemaStream}, benchClass{"schema=embedding-request", 0, 0, SchemaEmbeddingRequest},
		benchClass{"schema=embedding-response", 0, 0, SchemaEmbeddingResponse}, benchClass{"schema=error", 0, 0, SchemaError},
	)
)

// benchRecords returns the records of a class from the benchmark corpus,
// at most 1,024 of them.
func benchRecords(b *testing.B, c benchClass) [][]byte {
	lines := benchLines(b)
	enc, _ := NewEncoder()
	var h Header
	var frame []byte
	var recs [][]byte
	for i, l := range lines {
		switch {
		case c.schema != 0:
			var err error
			if frame, err = enc.AppendFrame(frame[:0], l); err != nil || ParseHeader(&h, frame) != nil || h.Schema != c.schema {
				continue
			}
		case c.min == 0 && i%8 != 0, c.min > 0 && (len(l) < c.min || len(l) > c.max):
			continue
		}
		recs = append(recs, l)
		if len(recs) == 1024 {
			break
		}
	}
	if len(recs) == 0 {
		b.Skip("no records of this class in the corpus")
	}
	return recs
}

func totalLen(recs [][]byte) (n int) {
	for _, r := range recs {
		n += len(r)
	}
	return n
}

// BenchmarkEncode compares M2M v1 frames (binary and string form) with
// raw Brotli at the same quality on the same records, one record at a
// time with a pooled writer: the framing, scanning and CRC overhead is the
// difference. It reports the compression ratio (JSON bytes / wire bytes).
func BenchmarkEncode(b *testing.B) {
	for _, c := range benchClasses {
		for _, format := range []string{"brotli-raw", "m2m", "m2m-string"} {
			b.Run("format="+format+"/"+c.name, func(b *testing.B) {
				recs := benchRecords(b, c)
				enc, _ := NewEncoder()
				var out []byte
				var err error
				b.SetBytes(int64(totalLen(recs)))
				b.ReportAllocs()
				wire := 0
				for b.Loop() {
					wire = 0
					for _, r := range recs {
						switch format {
						case "brotli-raw":
							out = enc.brotli().appendCompressed(out[:0], r)
						case "m2m":
							out, err = enc.AppendFrame(out[:0], r)
						case "m2m-string":
							out, err = enc.AppendFrameString(out[:0], r)
						}
						if err != nil {
							b.Fatal(err)
						}
						wire += len(out)
					}
				}
				b.ReportMetric(float64(totalLen(recs))/float64(wire), "ratio")
			})
		}
	}
}

// BenchmarkDecode compares decoding M2M v1 frames with decoding the raw
// Brotli streams of the same records.
func BenchmarkDecode(b *testing.B) {
	for _, c := range benchClasses {
		for _, format := range []string{"brotli-raw", "m2m"} {
			b.Run("format="+format+"/"+c.name, func(b *testing.B) {
				recs := benchRecords(b, c)
				enc, _ := NewEncoder()
				dec, _ := NewDecoder()
				var wires [][]byte
				for _, r := range recs {
					var w []byte
					var err error
					if format == "m2m" {
						w, err = enc.AppendFrame(nil, r)
					} else {
						w = enc.brotli().appendCompressed(nil, r)
					}
					if err != nil {
						b.Fatal(err)
					}
					wires = append(wires, w)
				}
				b.SetBytes(int64(totalLen(recs)))
				b.ReportAllocs()
				var out []byte
				var err error
				for b.Loop() {
					for _, w := range wires {
						if format == "m2m" {
							out, err = dec.AppendFrame(out[:0], nil, w)
						} else {
							out, err = dec.d.appendDecompressed(out[:0], w, DefaultLimits.MaxDecompressed)
						}
						if err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}

// BenchmarkOverhead measures what M2M v1 framing costs over the raw
// Brotli stream it carries, for the targets "encode >= 95 % and decode >=
// 90 % of raw pooled Brotli": each record is encoded (and decoded) both
// ways in turn, alternating which goes first, and the two are timed
// separately, so that drift in a noisy machine's speed falls on both
// alike. It reports m2m-% (the frame's speed as a percentage of raw
// Brotli's) for encode and decode; ns/op is the whole loop.
func BenchmarkOverhead(b *testing.B) {
	for _, c := range benchClasses {
		b.Run(c.name, func(b *testing.B) {
			recs := benchRecords(b, c)
			enc, _ := NewEncoder()
			dec, _ := NewDecoder()
			frames := make([][]byte, len(recs))
			raws := make([][]byte, len(recs))
			for i, r := range recs {
				var err error
				if frames[i], err = enc.AppendFrame(nil, r); err != nil {
					b.Fatal(err)
				}
				raws[i] = enc.brotli().appendCompressed(nil, r)
			}
			var out []byte
			var err error
			var rawEnc, m2mEnc, rawDec, m2mDec time.Duration
			timed := func(d *time.Duration, f func()) {
				t := time.Now()
				f()
				*d += time.Since(t)
			}
			flip := false
			for b.Loop() {
				for i, r := range recs {
					encRaw := func() { out = enc.brotli().appendCompressed(out[:0], r) }
					encM2M := func() { out, err = enc.AppendFrame(out[:0], r) }
					decRaw := func() { out, err = dec.d.appendDecompressed(out[:0], raws[i], DefaultLimits.MaxDecompressed) }
					decM2M := func() { out, err = dec.AppendFrame(out[:0], nil, frames[i]) }
					if flip = !flip; flip {
						timed(&rawEnc, encRaw)
						timed(&m2mEnc, encM2M)
						timed(&rawDec, decRaw)
						timed(&m2mDec, decM2M)
					} else {
						timed(&m2mEnc, encM2M)
						timed(&rawEnc, encRaw)
						timed(&m2mDec, decM2M)
						timed(&rawDec, decRaw)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(100*rawEnc.Seconds()/m2mEnc.Seconds(), "encode-m2m-%")
			b.ReportMetric(100*rawDec.Seconds()/m2mDec.Seconds(), "decode-m2m-%")
		})
	}
}

// BenchmarkHeaderView reads the headers of frames without their payloads;
// MB/s counts the JSON the frames carry, the throughput a gateway that
// routes on headers sees.
func BenchmarkHeaderView(b *testing.B) {
	recs := benchRecords(b, sizeClasses[3])
	enc, _ := NewEncoder()
	var frames [][]byte
	for _, r := range recs {
		f, err := enc.AppendFrame(nil, r)
		if err != nil {
			b.Fatal(err)
		}
		frames = append(frames, f)
	}
	b.SetBytes(int64(totalLen(recs)))
	b.ReportAllocs()
	var h Header
	for b.Loop() {
		for _, f := range frames {
			if err := ParseHeader(&h, f); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkSecure measures what HMAC and AEAD add to encoding and decoding
// a frame, against a plain frame of the same JSON, at 150 B, 2 KiB and
// 64 KiB.
func BenchmarkSecure(b *testing.B) {
	lines := benchLines(b)
	for _, size := range []struct {
		name string
		n    int
	}{{"150B", 150}, {"2KiB", 2 << 10}, {"64KiB", 64 << 10}} {
		// A request of the size, padded with text from the corpus.
		pad := max(size.n-len(`{"model":"gpt-4o","messages":[],"pad":""}`), 0)
		json := []byte(`{"model":"gpt-4o","messages":[],"pad":"` + textOf(lines, pad) + `"}`)
		for _, mode := range []Security{SecurityNone, SecurityHMAC, SecurityAEAD} {
			var opts []Option
			if mode != SecurityNone {
				opts = append(opts, WithSecurity(mode, bytes.Repeat([]byte{7}, 32)))
			}
			enc, _ := NewEncoder(opts...)
			dec, _ := NewDecoder(opts...)
			frame, err := enc.AppendFrame(nil, json)
			if err != nil {
				b.Fatal(err)
			}
			b.Run("op=encode/security="+mode.String()+"/size="+size.name, func(b *testing.B) {
				b.SetBytes(int64(len(json)))
				b.ReportAllocs()
				var out []byte
				for b.Loop() {
					out, _ = enc.AppendFrame(out[:0], json)
				}
			})
			b.Run("op=decode/security="+mode.String()+"/size="+size.name, func(b *testing.B) {
				b.SetBytes(int64(len(json)))
				b.ReportAllocs()
				var out []byte
				for b.Loop() {
					if out, err = dec.AppendFrame(out[:0], nil, frame); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// textOf returns n bytes of JSON-safe text taken from the corpus' content,
// so that Brotli sees text as compressible as real traffic.
func textOf(lines [][]byte, n int) string {
	var b bytes.Buffer
	for b.Len() < n {
		for _, l := range lines {
			for _, c := range l {
				if c >= 'a' && c <= 'z' || c == ' ' {
					b.WriteByte(c)
				}
			}
			if b.Len() >= n {
				break
			}
		}
	}
	return b.String()[:n]
}

// BenchmarkTokenNative compares TokenNative with M2M v1 and Brotli wire
// messages (text form, as sent) on the corpus records of each size class,
// the reference's comparison (docs/protocol.md §11). It
// reports what the spec's claims are about, per record: wire-B (bytes of
// the wire message), saved-% (1 - wire bytes / JSON bytes, byte-weighted),
// tokens (cl100k BPE tokens of the JSON) and wire-tokens (cl100k tokens of
// the wire message, what it costs in an LLM's context). tokennative-raw
// is the binary form (tokenizer byte and varints).
func BenchmarkTokenNative(b *testing.B) {
	count, _ := tokenizer.Get(tokenizer.Cl100kBase)
	tokens := func(text []byte) int {
		ids, err := count.AppendEncode(nil, text)
		if err != nil {
			b.Fatal(err)
		}
		return len(ids)
	}
	for _, c := range sizeClasses[:3] {
		for _, format := range []string{"m2m", "brotli", "tokennative-C", "tokennative-O", "tokennative-raw"} {
			enc, _ := NewEncoder()
			if format == "tokennative-O" {
				enc, _ = NewEncoder(WithTokenizer(tokenizer.O200kBase))
			}
			dec, _ := NewDecoder()
			encode := func(dst, text []byte) ([]byte, error) {
				switch format {
				case "m2m":
					return enc.AppendWire(dst, text, M2M)
				case "brotli":
					return enc.AppendWire(dst, text, Brotli)
				case "tokennative-raw":
					return enc.AppendTokenNativeBinary(dst, text)
				}
				return enc.AppendWire(dst, text, TokenNative)
			}
			decode := func(dst, wire []byte) ([]byte, error) {
				if format == "tokennative-raw" {
					return dec.AppendTokenNativeBinary(dst, wire)
				}
				dst, _, err := dec.AppendDecode(dst, wire)
				return dst, err
			}
			for _, op := range []string{"encode", "decode"} {
				b.Run("op="+op+"/format="+format+"/"+c.name, func(b *testing.B) {
					recs := benchRecords(b, c)
					var wires [][]byte
					for _, r := range recs {
						w, err := encode(nil, r)
						if err != nil {
							b.Fatal(err)
						}
						wires = append(wires, w)
					}
					b.SetBytes(int64(totalLen(recs)))
					b.ReportAllocs()
					var out []byte
					var err error
					for b.Loop() {
						for i := range recs {
							if op == "encode" {
								out, err = encode(out[:0], recs[i])
							} else {
								out, err = decode(out[:0], wires[i])
							}
							if err != nil {
								b.Fatal(err)
							}
						}
					}
					if op == "decode" {
						return
					}
					wire, jsonTokens, wireTokens := 0, 0, 0
					for i, w := range wires {
						wire += len(w)
						jsonTokens += tokens(recs[i])
						if format != "tokennative-raw" {
							wireTokens += tokens(w)
						}
					}
					n := float64(len(recs))
					b.ReportMetric(float64(wire)/n, "wire-B")
					b.ReportMetric(100*(1-float64(wire)/float64(totalLen(recs))), "saved-%")
					b.ReportMetric(float64(jsonTokens)/n, "tokens")
					if wireTokens > 0 {
						b.ReportMetric(float64(wireTokens)/n, "wire-tokens")
					}
				})
			}
		}
	}
}

// brotliSizes are the size classes of BenchmarkBrotli: every record of
// the corpus, and those of up to 256 B, 1 KiB, 4 KiB and 32 KiB (each
// class starting where the one before it ends).
var brotliSizes = []struct {
	name     string
	min, max int
}{{"all", 0, math.MaxInt}, {"256B", 0, 256}, {"1KiB", 257, 1 << 10}, {"4KiB", 1<<10 + 1, 4 << 10}, {"32KiB", 4<<10 + 1, 32 << 10}}

func brotliRecords(b *testing.B, min, max int) [][]byte {
	var recs [][]byte
	for _, l := range benchLines(b) {
		if len(l) >= min && len(l) <= max {
			recs = append(recs, l)
		}
	}
	if len(recs) == 0 {
		b.Skip("no records of this size in the corpus")
	}
	return recs
}

// BenchmarkBrotli times each Brotli encoder and decoder of
// brotliimpl_test.go (impl=m2m is the codec's own) one record at a time,
// pooled, on the same records: encoders at qualities 4 to 6 (window 22),
// decoders on go-brrr's streams at quality 5 (the reference's), with the
// codec's output cap. It reports the ratio (JSON bytes / Brotli bytes),
// the time per record, and time and speed by CPU time (see
// reportPerRecord). bench/brotli.sh runs it beside C libbrotli.
func BenchmarkBrotli(b *testing.B) {
	for _, e := range brotliEncoders {
		for q := 4; q <= 6; q++ {
			if e.fixed && q != defaultQuality {
				continue // one setting, timed as q=5
			}
			enc := e.new(q, defaultWindow)
			for _, s := range brotliSizes {
				b.Run(fmt.Sprintf("op=encode/impl=%s/q=%d/size=%s", e.name, q, s.name), func(b *testing.B) {
					recs := brotliRecords(b, s.min, s.max)
					b.SetBytes(int64(totalLen(recs)))
					b.ReportAllocs()
					// A first pass grows every buffer, so that allocations
					// are those of the steady state.
					var out []byte
					for _, r := range recs {
						out = enc(out[:0], r)
					}
					wire := 0
					cpu0 := cputime.Now()
					for b.Loop() {
						wire = 0
						for _, r := range recs {
							out = enc(out[:0], r)
							wire += len(out)
						}
					}
					reportPerRecord(b, recs, cpu0)
					b.ReportMetric(float64(totalLen(recs))/float64(wire), "ratio")
				})
			}
		}
	}
	for _, d := range brotliDecoders {
		dec := d.new()
		for _, s := range brotliSizes {
			b.Run(fmt.Sprintf("op=decode/impl=%s/q=5/size=%s", d.name, s.name), func(b *testing.B) {
				recs := brotliRecords(b, s.min, s.max)
				c := newCompressor(defaultQuality, defaultWindow)
				streams := make([][]byte, len(recs))
				for i, r := range recs {
					streams[i] = c.appendCompressed(nil, r)
				}
				b.SetBytes(int64(totalLen(recs)))
				b.ReportAllocs()
				var out []byte
				var err error
				for _, s := range streams {
					if out, err = dec(out[:0], s, DefaultLimits.MaxDecompressed); err != nil {
						b.Fatal(err)
					}
				}
				cpu0 := cputime.Now()
				for b.Loop() {
					for _, s := range streams {
						if out, err = dec(out[:0], s, DefaultLimits.MaxDecompressed); err != nil {
							b.Fatal(err)
						}
					}
				}
				reportPerRecord(b, recs, cpu0)
			})
		}
	}
}

// reportPerRecord reports us/rec, the time per record of recs, and from
// the CPU time the process has used since cpu0 (see package cputime)
// cpu-us/rec and cpu-MB/s: time and speed on a core of its own, where
// us/rec and MB/s are on a core shared with whatever else runs.
func reportPerRecord(b *testing.B, recs [][]byte, cpu0 time.Duration) {
	n := float64(b.N) * float64(len(recs))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e3/n, "us/rec")
	if cpu := cputime.Since(cpu0); cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/1e3/n, "cpu-us/rec")
		b.ReportMetric(float64(totalLen(recs))*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
}

// record200 is a 207-byte request from the corpus: the small record whose
// fixed costs BenchmarkRecord200B breaks down.
const record200 = `{"model":"gpt-4o","messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"Write a Metal compute kernel to Gaussian blur an image."}],"temperature":0,"max_tokens":512}`

// BenchmarkRecord200B times encoding and decoding one small record and
// each stage of it: op=frame (AppendFrame, all of it), op=brotli (the
// codec's Brotli stream alone), op=scan (JSON scan and header fields),
// op=header (writing the header), op=crc, and their decoding
// counterparts.
func BenchmarkRecord200B(b *testing.B) {
	text := []byte(record200)
	enc, _ := NewEncoder()
	dec, _ := NewDecoder()
	frame, _ := enc.AppendFrame(nil, text)
	stream := enc.brotli().appendCompressed(nil, text)
	var out []byte
	var err error
	for _, op := range []struct {
		name string
		f    func()
	}{
		{"op=encode/stage=frame", func() { out, err = enc.AppendFrame(out[:0], text) }},
		{"op=encode/stage=brotli", func() { out = enc.brotli().appendCompressed(out[:0], text) }},
		{"op=encode/stage=scan", func() { err = enc.scan(text) }},
		{"op=encode/stage=header", func() { out, err = appendHeader(out[:0], &enc.h) }},
		{"op=encode/stage=crc", func() { out = binary.LittleEndian.AppendUint32(out[:0], crc.Checksum(text)) }},
		{"op=decode/stage=frame", func() { out, err = dec.AppendFrame(out[:0], nil, frame) }},
		{"op=decode/stage=brotli", func() { out, err = dec.d.appendDecompressed(out[:0], stream, DefaultLimits.MaxDecompressed) }},
	} {
		if op.name == "op=encode/stage=header" {
			_ = enc.scan(text)
		}
		b.Run(op.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				op.f()
			}
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}
