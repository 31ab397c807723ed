package crc

import (
	"hash/crc32"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/m2m-go/m2m/internal/cpu"
	"github.com/m2m-go/m2m/internal/cpu/cputest"
	"github.com/m2m-go/m2m/internal/testbuf"
)

func TestKnownAnswers(t *testing.T) {
	cputest.Run(t, "crc", func(t *testing.T) {
		for _, ka := range []struct {
			in   string
			want uint32
		}{
			{"", 0},
			{"a", 0xe8b7be43},
			{"123456789", 0xcbf43926}, // the CRC-32/ISO-HDLC check value
			{"The quick brown fox jumps over the lazy dog", 0x414fa339},
			// The JSON of the M2M v1 worked example (docs/protocol.md §3.13).
			{`{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}`, 0xa455606e},
		} {
			if got := Checksum([]byte(ka.in)); got != ka.want {
				t.Errorf("Checksum(%q) = %#08x, want %#08x", ka.in, got, ka.want)
			}
		}
	})
}

func TestKernelsRequired(t *testing.T) { cputest.CheckRequired(t, "crc") }

// lengths are every size up to 2,100 bytes, which passes every fold width
// and threshold of every kernel (16-byte blocks; 32- and 64-byte vectors;
// four of them at 128 and 256 bytes; loops from 512 and 1,024), and some
// larger ones.
func lengths() []int {
	var ls []int
	for n := range 2101 {
		ls = append(ls, n)
	}
	return append(ls, 4095, 4096, 4097, 65535, 65536, 65537)
}

func random(r *rand.Rand, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	return p
}

// TestKernelsAgainstStdlib holds every kernel to hash/crc32 at every
// length, from a random initial CRC, at every alignment of the input.
func TestKernelsAgainstStdlib(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	buf := random(r, 65537+64)
	cputest.Run(t, "crc", func(t *testing.T) {
		for _, n := range lengths() {
			align := n % 64
			p := buf[align : align+n]
			c := r.Uint32()
			if got, want := Update(c, p), crc32.Update(c, crc32.IEEETable, p); got != want {
				t.Fatalf("Update(%#x, %d bytes at offset %d) = %#08x, want %#08x", c, n, align, got, want)
			}
			if n <= 600 {
				for align := range 64 {
					p := buf[align : align+n]
					if got, want := Checksum(p), crc32.ChecksumIEEE(p); got != want {
						t.Fatalf("Checksum(%d bytes at offset %d) = %#08x, want %#08x", n, align, got, want)
					}
				}
			}
		}
	})
}

// TestKernelsSplit computes CRCs in random pieces: Update must chain.
func TestKernelsSplit(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	cputest.Run(t, "crc", func(t *testing.T) {
		for range 2000 {
			p := random(r, r.IntN(8192))
			want := crc32.ChecksumIEEE(p)
			var got uint32
			for rest := p; len(rest) > 0; {
				k := min(len(rest), r.IntN(1100)+1)
				got, rest = Update(got, rest[:k]), rest[k:]
			}
			if got != want {
				t.Fatalf("%d bytes in pieces: %#08x, want %#08x", len(p), got, want)
			}
		}
	})
}

// TestKernelsGuardPages puts the input right against inaccessible memory
// on either side: a kernel that reads one byte outside p faults.
func TestKernelsGuardPages(t *testing.T) {
	if _, free, ok := testbuf.Tail(1); !ok {
		t.Skip("no guard pages on this system")
	} else {
		free()
	}
	r := rand.New(rand.NewPCG(3, 3))
	cputest.Run(t, "crc", func(t *testing.T) {
		for n := range 1100 {
			data := random(r, n)
			for _, guard := range []func(int) ([]byte, func(), bool){testbuf.Tail, testbuf.Head} {
				p, free, _ := guard(n)
				copy(p, data)
				if got, want := Checksum(p), crc32.ChecksumIEEE(data); got != want {
					t.Fatalf("%d guarded bytes: %#08x, want %#08x", n, got, want)
				}
				free()
			}
		}
	})
}

func TestAppendChecksums(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	var recs [][]byte
	var want []uint32
	for range 300 {
		p := random(r, r.IntN(3000))
		recs = append(recs, p)
		want = append(want, crc32.ChecksumIEEE(p))
	}
	cputest.Run(t, "crc", func(t *testing.T) {
		got := AppendChecksums([]uint32{7}, recs)
		if got[0] != 7 || !slices.Equal(got[1:], want) {
			t.Fatalf("AppendChecksums = %x..., want %x...", got[:min(4, len(got))], want[:3])
		}
	})
}

func TestKernelsAllocs(t *testing.T) {
	p := random(rand.New(rand.NewPCG(5, 5)), 1500)
	recs := [][]byte{p, p[:100], p[:7]}
	dst := make([]uint32, 0, len(recs))
	cputest.Run(t, "crc", func(t *testing.T) {
		if a := testing.AllocsPerRun(100, func() {
			_ = Checksum(p)
			_ = AppendChecksums(dst, recs)
		}); a != 0 {
			t.Errorf("%v allocs", a)
		}
	})
}

// FuzzChecksum holds every kernel to hash/crc32 on arbitrary input, initial
// CRC and split point.
func FuzzChecksum(f *testing.F) {
	f.Add([]byte("123456789"), uint32(0), uint16(3))
	f.Add(make([]byte, 300), uint32(0xffffffff), uint16(100))
	f.Add(random(rand.New(rand.NewPCG(6, 6)), 1500), uint32(12345), uint16(777))
	f.Fuzz(func(t *testing.T, p []byte, c uint32, split uint16) {
		want := crc32.Update(c, crc32.IEEETable, p)
		at := int(split) % (len(p) + 1)
		t.Cleanup(func() { cpu.Reset("crc") })
		for _, name := range cputest.Kernels("crc") {
			if err := cpu.Select("crc", name); err != nil {
				t.Fatal(err)
			}
			if got := Update(c, p); got != want {
				t.Fatalf("%s: Update(%#x, %d bytes) = %#08x, want %#08x", name, c, len(p), got, want)
			}
			if got := Update(Update(c, p[:at]), p[at:]); got != want {
				t.Fatalf("%s: split at %d: %#08x, want %#08x", name, at, got, want)
			}
		}
	})
}
