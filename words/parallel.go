package words

import (
	"sync"

	"github.com/m2m-go/m2m/internal/huge"
)

// AppendEncode on several goroutines at once: a writer whose workers wait
// for one frame's coded text (package archive) has the cores for it. A
// text is cut into pieces after a byte that ends no word (cuts), so each
// piece scans from its start as the whole text scans there, and the
// pieces' codings one after the other are the whole text's, for any
// number of pieces. Choose counts on one: counted in pieces, whose word
// indexes and their merge are as much fresh memory again, a fresh
// process's table took longer on two cores (dev --archive -T2 +10%
// wall, though 24 -> 16 ms warm in a loop).

// minPiece is the least text a goroutine is given; a variable only so
// that tests can make it short.
var minPiece = 256 << 10

// cuts returns up to n-1 places, in increasing order, that cut src into
// pieces of about equal length, no more of them than minPiece bytes a
// piece allow: each after the first byte at or past its share that is
// neither a byte of base64 nor a backslash (so a piece may fall short of
// its share where a long run of them ends near the next), so that no
// word, escape or run of base64's bytes (wordScan) crosses it and the
// byte before a piece reads as no such byte would.
func cuts(src []byte, n int) []int {
	n = min(n, len(src)/minPiece)
	var c []int
	for k := 1; k < n; k++ {
		at := k * len(src) / n
		if len(c) > 0 {
			at = max(at, c[len(c)-1]+1)
		}
		for at < len(src) && (isRunByte(src[at-1]) || src[at-1] == '\\') {
			at++
		}
		if at >= len(src) {
			break
		}
		c = append(c, at)
	}
	return c
}

// pieces returns src's pieces cut at c.
func pieces(src []byte, c []int) [][]byte {
	p := make([][]byte, 0, len(c)+1)
	from := 0
	for _, at := range append(c, len(src)) {
		p = append(p, src[from:at])
		from = at
	}
	return p
}

// AppendEncodeParallel is AppendEncode coding src's pieces on up to n
// goroutines: the same bytes.
func (t *Table) AppendEncodeParallel(dst, src []byte, n int) []byte {
	c := cuts(src, n)
	if t == nil || len(c) == 0 {
		return t.AppendEncode(dst, src)
	}
	p := pieces(src, c)
	out := make([][]byte, len(p))
	var wg sync.WaitGroup
	for k := 1; k < len(p); k++ {
		wg.Go(func() { out[k] = t.AppendEncode(huge.Bytes(len(p[k])+len(p[k])/16), p[k]) })
	}
	dst = t.AppendEncode(dst, p[0])
	wg.Wait()
	for _, o := range out[1:] {
		dst = append(dst, o...)
	}
	return dst
}
