package zenc

import "math/bits"

// bitWriter writes bits from the least significant end, as zstd's
// backward bit streams are written (RFC 8878, 4.1): the last bit written
// is read first.
type bitWriter struct {
	out   []byte
	acc   uint64
	nbits uint
}

// add writes the low n bits of v (n <= 32).
func (w *bitWriter) add(v uint64, n uint) {
	if w.nbits+n > 64 {
		w.flush()
	}
	w.acc |= (v & (1<<n - 1)) << w.nbits
	w.nbits += n
}

// flush moves the whole bytes of the accumulator to out.
func (w *bitWriter) flush() {
	for w.nbits >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
}

// close writes the end mark (a 1 bit) and the last partial byte.
func (w *bitWriter) close() {
	w.add(1, 1)
	w.flush()
	if w.nbits > 0 {
		w.out = append(w.out, byte(w.acc))
	}
	w.acc, w.nbits = 0, 0
}

// fseTable is the encoding table of one FSE distribution (RFC 8878, 4.1.1,
// as zstd's reference encoder builds it).
type fseTable struct {
	single bool // one symbol, max, and no bits
	log    uint
	norm   [maxSymbols]int16
	max    int // the largest symbol
	state  []uint16
	tt     [maxSymbols]symbolTT
}

type symbolTT struct {
	deltaNbBits    uint32
	deltaFindState int32
}

// maxSymbols bounds the symbols of any of zstd's three sequence codes
// (match length codes are the most: 53).
const maxSymbols = 53

// normalize sets t's distribution from counts (of symbols 0..max, at least
// two of them used, total their sum) at a table log of at most maxLog.
// Every used symbol keeps a probability of at least 1/2^log.
func (t *fseTable) normalize(counts []uint32, total int, limit uint) {
	t.single = false
	t.max = len(counts) - 1
	for t.max > 0 && counts[t.max] == 0 {
		t.max--
	}
	used := 0
	for _, c := range counts[:t.max+1] {
		if c > 0 {
			used++
		}
	}
	// zstd's choice: fewer bits for fewer sequences, enough for the symbols.
	log := int(limit)
	if b := bits.Len(uint(total-1)) - 2; b < log {
		log = b
	}
	log = max(log, bits.Len(uint(used))+1, 5)
	t.log = uint(log)
	size := 1 << log
	sum, largest := 0, 0
	for s, c := range counts[:t.max+1] {
		n := 0
		if c > 0 {
			n = max(int((uint64(c)*uint64(size)+uint64(total)/2)/uint64(total)), 1)
		}
		t.norm[s] = int16(n)
		sum += n
		if n > int(t.norm[largest]) {
			largest = s
		}
	}
	for s := t.max + 1; s < maxSymbols; s++ {
		t.norm[s] = 0
	}
	diff := size - sum
	if int(t.norm[largest])+diff >= 1 && (diff >= 0 || -diff < int(t.norm[largest])/2) {
		t.norm[largest] += int16(diff)
		return
	}
	// Too much to take from one symbol: take one at a time from the
	// largest that can spare it, then give the rest to the largest.
	for diff < 0 {
		big := -1
		for s := 0; s <= t.max; s++ {
			if t.norm[s] > 1 && (big < 0 || t.norm[s] > t.norm[big]) {
				big = s
			}
		}
		t.norm[big]--
		diff++
	}
	t.norm[largest] += int16(diff)
}

// rle reports whether counts (of total) are all of one symbol, and if so
// makes t that symbol's, which codes it in no bits.
func (t *fseTable) rle(counts []uint32, total int) bool {
	for s, c := range counts {
		if int(c) == total {
			t.single, t.max, t.log = true, s, 0
			return true
		}
	}
	return false
}

// build makes the encoding tables of t's distribution.
func (t *fseTable) build() {
	size := 1 << t.log
	mask := size - 1
	step := size>>1 + size>>3 + 3
	var symbols [1 << maxLog]byte
	pos := 0
	for s := 0; s <= t.max; s++ {
		for range int(t.norm[s]) {
			symbols[pos] = byte(s)
			pos = (pos + step) & mask
		}
	}
	var cumul [maxSymbols + 1]int
	for s := 0; s <= t.max; s++ {
		cumul[s+1] = cumul[s] + int(t.norm[s])
	}
	if cap(t.state) < size {
		t.state = make([]uint16, size)
	}
	t.state = t.state[:size]
	for u := range size {
		s := symbols[u]
		t.state[cumul[s]] = uint16(size + u)
		cumul[s]++
	}
	total := 0
	for s := 0; s <= t.max; s++ {
		n := int(t.norm[s])
		switch n {
		case 0:
			t.tt[s] = symbolTT{deltaNbBits: uint32((t.log+1)<<16 - 1<<t.log)}
		case 1:
			t.tt[s] = symbolTT{deltaNbBits: uint32(t.log<<16 - 1<<t.log), deltaFindState: int32(total - 1)}
			total++
		default:
			maxBitsOut := t.log + 1 - uint(bits.Len(uint(n-1)))
			minStatePlus := uint32(n) << maxBitsOut
			t.tt[s] = symbolTT{deltaNbBits: uint32(maxBitsOut<<16) - minStatePlus, deltaFindState: int32(total - n)}
			total += n
		}
	}
}

// maxLog is the largest table log of zstd's sequence codes.
const maxLog = 9

// appendHeader appends t's distribution as zstd describes it (RFC 8878,
// 4.1.1).
func (t *fseTable) appendHeader(dst []byte) []byte {
	size := 1 << t.log
	var w bitWriter
	w.out = dst
	w.add(uint64(t.log-5), 4)
	remaining := size + 1
	threshold := size
	nbBits := t.log + 1
	previous0 := false
	for s := 0; remaining > 1; {
		if previous0 {
			start := s
			for t.norm[s] == 0 {
				s++
			}
			for s >= start+24 {
				start += 24
				w.add(0xFFFF, 16)
			}
			for s >= start+3 {
				start += 3
				w.add(3, 2)
			}
			w.add(uint64(s-start), 2)
		}
		count := int(t.norm[s])
		s++
		maxV := 2*threshold - 1 - remaining
		remaining -= count
		count++
		if count >= threshold {
			count += maxV
		}
		n := nbBits
		if count < maxV {
			n--
		}
		w.add(uint64(count), n)
		previous0 = count == 1
		for remaining < threshold {
			nbBits--
			threshold >>= 1
		}
	}
	w.flush()
	if w.nbits > 0 {
		w.out = append(w.out, byte(w.acc))
	}
	return w.out
}

// fseState is an encoder's state in one table.
type fseState struct {
	value uint32
	t     *fseTable
}

// init starts the state with symbol s, the last one the decoder reads.
func (st *fseState) init(t *fseTable, s byte) {
	st.t = t
	if t.single {
		return
	}
	tt := t.tt[s]
	nbBitsOut := (tt.deltaNbBits + 1<<15) >> 16
	v := nbBitsOut<<16 - tt.deltaNbBits
	st.value = uint32(t.state[int32(v>>nbBitsOut)+tt.deltaFindState])
}

// encode writes the bits that take the state to symbol s.
func (st *fseState) encode(w *bitWriter, s byte) {
	if st.t.single {
		return
	}
	tt := st.t.tt[s]
	nbBitsOut := (st.value + tt.deltaNbBits) >> 16
	w.add(uint64(st.value), uint(nbBitsOut))
	st.value = uint32(st.t.state[int32(st.value>>nbBitsOut)+tt.deltaFindState])
}

// flush writes the state itself, which the decoder reads first.
func (st *fseState) flush(w *bitWriter) {
	if st.t.single {
		return
	}
	w.add(uint64(st.value), st.t.log)
}
