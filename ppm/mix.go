package ppm

import "math"

// The escape decision (is the symbol one the context has?) is predicted
// three ways and the predictions mixed: the secondary estimation table by
// the context's statistics (seeIndex), two more tables by the same counts
// and the last byte, and by the last two bytes, and the counts themselves
// (the symbols' total against one escape a symbol, PPM's method C). A
// logistic mixer weighs them (their probabilities as log-odds, a weighted
// sum, back to a probability) with weights learned online, a set for each
// order, one symbol or more, and whether a longer context escaped. On
// dev100's strings in 16 MiB frames this codes 1.9% smaller than the first
// table alone, for ~10% more time (bench/README.md); coding which symbol
// as "the first or another" by a mixer too gained 0.14% more, not kept.

// stretchTab[p] is ln(p/(4096-p)) in units of 1/256, for a 12-bit
// probability p (a prob's 16 bits shifted right by 4); squashTab[d+2048]
// its inverse, in 16 bits.
var (
	stretchTab [4096]int32
	squashTab  [4096]int32
)

func init() {
	for p := 1; p < 4096; p++ {
		x := float64(p) / 4096
		stretchTab[p] = int32(math.Round(256 * math.Log(x/(1-x))))
	}
	stretchTab[0] = stretchTab[1]
	for d := -2048; d < 2048; d++ {
		squashTab[d+2048] = int32(min(math.Round(probOne/(1+math.Exp(-float64(d)/256))), probOne-1))
	}
}

// squash is the 16-bit probability of log-odds d (in units of 1/256).
func squash(d int32) int32 { return squashTab[min(max(d, -2048), 2047)+2048] }

const (
	mixInputs = 5
	mixSets   = 64
	byLastLen = 1 << 16 // entries of each table by the last bytes
	// mixRate is the mixer's learning rate: an error of one (probOne)
	// moves a weight by its input times 6/4 (of 1<<16 for one). 3 and 12
	// coded the first 4 MiB of dev100's strings the same, and 3, 10 and
	// 16 text and skeletons within 0.1% with 16-bit probabilities.
	mixRate = 6
)

// A mixer holds the escape decision's tables and weights, and what it
// predicted for the decision being coded, to learn from it.
type mixer struct {
	w     [mixSets][mixInputs]int32 // fixed point, 1<<16 is one
	last1 [byLastLen]prob
	last2 [byLastLen]prob
	st    [mixInputs]int32 // the inputs, as log-odds
	set   int
	p     int32
	probs [3]*prob
}

func (x *mixer) init() {
	for i := range x.w {
		x.w[i] = [mixInputs]int32{1 << 16} // at first, the first table alone
	}
	for i := range x.last1 {
		x.last1[i] = prob{p: probOne * 3 / 4}
		x.last2[i] = prob{p: probOne * 3 / 4}
	}
}

// escapeP returns the probability (of probOne) that the symbol is among the n
// of context c not excluded, whose counts total total.
func (m *model) escapeP(c, n, total uint32) uint32 {
	x := &m.mix
	var b1, b2 uint32
	if h := m.match.hist; len(h) > 1 {
		b1, b2 = uint32(h[len(h)-1]), uint32(h[len(h)-2])
	} else if len(h) == 1 {
		b1 = uint32(h[0])
	}
	o := uint32(min(m.order(c), 15))
	var nb uint32 // 0: one symbol, 2: two, 3: more
	if n > 1 {
		nb = 1 + min(bucket(n), 2)
	}
	x.probs = [3]*prob{
		&m.see[m.seeIndex(c, n, total)],
		&x.last1[(b1<<8|nb<<4|o)&(byLastLen-1)],
		&x.last2[((b2<<8|b1)*0x9E3779B1>>16^(nb<<4|o))&(byLastLen-1)],
	}
	counts := int32(4096 * total / (total + n*freqStep)) // total < 1<<20: no overflow
	x.st = [mixInputs]int32{
		stretchTab[x.probs[0].get()>>4], stretchTab[x.probs[1].get()>>4], stretchTab[x.probs[2].get()>>4],
		stretchTab[min(max(counts, 1), 4095)], 256,
	}
	x.set = int(o)
	if n == 1 {
		x.set += 16
	}
	if m.epochMasked {
		x.set += 32
	}
	var dot int64
	for i, w := range x.w[x.set] {
		dot += int64(w) * int64(x.st[i])
	}
	x.p = min(max(squash(int32(dot>>16)), 16), probOne-16)
	return uint32(x.p)
}

// escapeLearn learns the escape decision escapeP predicted: bit 0, the
// symbol was in the context.
func (m *model) escapeLearn(bit int) {
	x := &m.mix
	for _, q := range x.probs {
		adapt(q, bit)
	}
	y := int32(0)
	if bit == 0 {
		y = probOne
	}
	err := (y - x.p) * mixRate
	w := &x.w[x.set]
	for i, s := range x.st {
		w[i] += (s*err + 1<<17) >> 18
	}
}
