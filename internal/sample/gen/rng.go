package gen

import (
	"math/bits"
	"math/rand/v2"
)

// rng draws every random choice of the generator from one PCG stream.
//
// Only PCG.Uint64 is used: its algorithm (PCG-DXSM) is fixed by its
// documentation, whereas the derived methods of rand.Rand (IntN, Float64,
// Shuffle...) carry no promise that their outputs stay the same across Go
// releases. Bounded draws use the multiply-high method, whose bias (below
// n/2^64) is irrelevant here, so every draw consumes exactly one value and
// the output is a pure function of the seed. No floating point is involved.
type rng struct{ src *rand.PCG }

// pcgStream is the second PCG seed word; the first is the caller's seed.
const pcgStream = 0x6d326d2d73616d70 // "m2m-samp"

func newRNG(seed uint64) *rng { return &rng{rand.NewPCG(seed, pcgStream)} }

// intn returns a uniform int in [0, n); n must be positive.
func (r *rng) intn(n int) int {
	hi, _ := bits.Mul64(r.src.Uint64(), uint64(n))
	return int(hi)
}

// between returns a uniform int in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// percent reports true with probability p/100.
func (r *rng) percent(p int) bool { return r.intn(100) < p }

// permille reports true with probability p/1000.
func (r *rng) permille(p int) bool { return r.intn(1000) < p }

// weighted returns i with probability w[i]/sum(w).
func (r *rng) weighted(w ...int) int {
	total := 0
	for _, x := range w {
		total += x
	}
	x := r.intn(total)
	for i, wi := range w {
		if x < wi {
			return i
		}
		x -= wi
	}
	panic("unreachable")
}

// geometric returns how many of up to max trials in a row succeed, each
// with probability p/100: a length with a long, thin tail.
func (r *rng) geometric(p, max int) int {
	n := 0
	for n < max && r.percent(p) {
		n++
	}
	return n
}

// pick returns a uniformly chosen element of s.
func pick[T any](r *rng, s []T) T { return s[r.intn(len(s))] }

const (
	base62Digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	hexDigits    = "0123456789abcdef"
)

// chars returns n characters drawn uniformly from alphabet.
func (r *rng) chars(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.intn(len(alphabet))]
	}
	return string(b)
}

// uuid returns a random version-4 UUID.
func (r *rng) uuid() string {
	h := r.chars(hexDigits, 32)
	variant := "89ab"[r.intn(4):][:1]
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + variant + h[17:20] + "-" + h[20:]
}
