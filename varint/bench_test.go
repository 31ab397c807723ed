package varint

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/m2m-go/m2m/internal/cpu/cputest"
)

// Benchmark inputs. Every size is a number of encoded bytes, and MB/s always
// counts varint bytes, for encode too, so the two read alike. Each leaf
// benchmark cycles through a pool of distinct inputs totalling poolBytes:
// on one small input repeated, the branch predictor learns the sequence and
// flatters scalar code.
var (
	benchSizes = []struct {
		name string
		n    int
	}{{"16B", 16}, {"256B", 256}, {"4KiB", 4 << 10}, {"64KiB", 64 << 10}, {"1MiB", 1 << 20}}

	// Length mixes: tokens is the varint-length mix of o200k ids over the
	// dev corpus (1 B 17.0 %, 2 B 60.9 %, 3 B 22.2 %),
	// drawn independently; small is all one-byte ids, max all five-byte.
	benchDists = []struct {
		name   string
		weight [MaxLen + 1]int // per mille, by encoded length
	}{
		{"tokens", [...]int{0, 170, 609, 221, 0, 0}},
		{"small", [...]int{0, 1000, 0, 0, 0, 0}},
		{"max", [...]int{0, 0, 0, 0, 0, 1000}},
	}
)

// poolBytes and poolInputs bound a pool: enough distinct data to defeat the
// branch predictor, few enough inputs that tiny ones stay in cache.
const (
	poolBytes  = 4 << 20
	poolInputs = 16384
)

type benchPool struct {
	enc  [][]byte
	vals [][]uint32
	ids  int // total values in the pool
	size int // total encoded bytes in the pool
}

var pools = map[string]*benchPool{}

// pool returns inputs of at most size encoded bytes each, filled with
// whole varints: poolInputs of them, or fewer totalling poolBytes.
func pool(dist, size int) *benchPool {
	key := fmt.Sprint(dist, size)
	if p, ok := pools[key]; ok {
		return p
	}
	r := rand.New(rand.NewPCG(uint64(dist), uint64(size)))
	w := benchDists[dist].weight
	var lens []int
	for l, permille := range w {
		for range permille {
			lens = append(lens, l)
		}
	}
	p := &benchPool{}
	for p.size < max(poolBytes, size) && len(p.enc) < poolInputs {
		var v []uint32
		n := 0
		for {
			x := values(r, 1, lens[r.IntN(len(lens))])[0]
			if n+Len(x) > size {
				break
			}
			v, n = append(v, x), n+Len(x)
		}
		p.vals = append(p.vals, v)
		p.enc = append(p.enc, AppendUvarints(nil, v))
		p.ids += len(v)
		p.size += n
	}
	pools[key] = p
	return p
}

// benchKernels runs body for the stdlib baseline and for every kernel here,
// over every distribution and size.
func benchKernels(b *testing.B, body func(b *testing.B, stdlib bool, p *benchPool)) {
	leaves := func(b *testing.B, stdlib bool) {
		for di, d := range benchDists {
			for _, s := range benchSizes {
				b.Run("dist="+d.name+"/size="+s.name, func(b *testing.B) {
					p := pool(di, s.n)
					b.SetBytes(int64(p.size / len(p.enc)))
					b.ReportAllocs()
					body(b, stdlib, p)
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(float64(p.ids)/float64(len(p.enc))), "ns/id")
				})
			}
		}
	}
	b.Run("impl=stdlib", func(b *testing.B) { leaves(b, true) })
	cputest.Bench(b, "varint", func(b *testing.B) { leaves(b, false) })
}

// BenchmarkDecode compares DecodeUvarints, per kernel, with a loop of
// binary.Uvarint (impl=stdlib) over the same inputs.
func BenchmarkDecode(b *testing.B) {
	benchKernels(b, func(b *testing.B, stdlib bool, p *benchPool) {
		dst := make([]uint32, 0, 1<<20)
		i := 0
		for b.Loop() {
			src := p.enc[i]
			if i++; i == len(p.enc) {
				i = 0
			}
			if stdlib {
				dst = dst[:cap(dst)]
				j := 0
				for len(src) > 0 {
					x, n := binary.Uvarint(src)
					if n <= 0 {
						b.Fatal("bad input")
					}
					dst[j], j, src = uint32(x), j+1, src[n:]
				}
				continue
			}
			var err error
			if dst, err = DecodeUvarints(dst[:0], src); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkEncode compares AppendUvarints, per kernel, with a loop of
// binary.AppendUvarint (impl=stdlib) over the same values.
func BenchmarkEncode(b *testing.B) {
	benchKernels(b, func(b *testing.B, stdlib bool, p *benchPool) {
		dst := make([]byte, 0, MaxLen<<20)
		i := 0
		for b.Loop() {
			v := p.vals[i]
			if i++; i == len(p.vals) {
				i = 0
			}
			if stdlib {
				dst = dst[:0]
				for _, x := range v {
					dst = binary.AppendUvarint(dst, uint64(x))
				}
				continue
			}
			dst = AppendUvarints(dst[:0], v)
		}
	})
}
