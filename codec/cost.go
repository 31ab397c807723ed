package codec

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// price is the cost, in cents per 1,000 tokens, of a family of models.
type price struct {
	prefix  string
	in, out float32
}

// pricing is the reference's table (docs/protocol.md §3.8):
// the first prefix of the lower-cased model name that matches wins.
var pricing = []price{
	{"gpt-4o-mini", 0.015, 0.06},
	{"gpt-4o", 0.25, 1.00},
	{"gpt-4-turbo", 1.00, 3.00},
	{"gpt-4", 3.00, 6.00},
	{"gpt-3.5-turbo", 0.05, 0.15},
	{"o1-preview", 1.50, 6.00},
	{"o1-mini", 0.30, 1.20},
	{"o3-mini", 0.11, 0.44},
	{"o3", 2.00, 8.00},
	{"claude-3-opus", 1.50, 7.50},
	{"claude-3.5-sonnet", 0.30, 1.50},
	{"claude-3-5-sonnet", 0.30, 1.50},
	{"claude-3-sonnet", 0.30, 1.50},
	{"claude-3.5-haiku", 0.08, 0.40},
	{"claude-3-5-haiku", 0.08, 0.40},
	{"claude-3-haiku", 0.025, 0.125},
	{"gemini-1.5-pro", 0.125, 0.50},
	{"gemini-1.5-flash", 0.0075, 0.03},
	{"gemini-2.0-flash", 0.01, 0.04},
}

// defaultPrice applies to every other model, including the empty name.
var defaultPrice = price{in: 0.10, out: 0.30}

// priceOf finds the price of a model by prefix, after lower-casing it as
// Rust's str::to_lowercase does. It lower-cases the name once, only as far
// as the longest prefix reaches: every header this package writes prices
// its model, so this is a cost of every record.
func priceOf(model []byte) price {
	var buf [64]byte
	low := lowerPrefix(buf[:0], model, longestPrefix)
	for _, p := range pricing {
		if len(low) >= len(p.prefix) && string(low[:len(p.prefix)]) == p.prefix {
			return p
		}
	}
	return defaultPrice
}

// longestPrefix is the length of pricing's longest prefix.
var longestPrefix = func() int {
	n := 0
	for _, p := range pricing {
		n = max(n, len(p.prefix))
	}
	return n
}()

// lowerPrefix appends to dst the lower case of s, rune by rune, until it
// has appended at least n bytes or s ends. Rust and Go agree on
// single-rune lowercase mappings; the one unconditional multi-rune
// mapping, U+0130 to "i\u0307", is applied here as Rust does.
func lowerPrefix(dst, s []byte, n int) []byte {
	n += len(dst)
	for len(s) > 0 && len(dst) < n {
		if c := s[0]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			s = s[1:]
			continue
		}
		r, size := utf8.DecodeRune(s)
		s = s[size:]
		if r == '\u0130' {
			dst = append(dst, "i\u0307"...)
		} else {
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
	}
	return dst
}

// EstimateCost returns the reference's cost estimate in USD for a model
// and token counts, in binary32 with each operation rounded on its own
// (the explicit conversions stop the compiler fusing a multiply and add
// into an FMA, which would change the last bit on some platforms).
func EstimateCost(model []byte, prompt, completion uint32) float32 {
	return priceOf(model).cost(prompt, completion)
}

// cost is EstimateCost at price p.
func (p price) cost(prompt, completion uint32) float32 {
	a := float32(float32(float32(prompt)/1000) * p.in)
	b := float32(float32(float32(completion)/1000) * p.out)
	return float32(a+b) / 100
}

// requestCost is the cost a routing header carries: a quarter of the
// content bytes as prompt tokens, and max_tokens (else 500) completion
// tokens, at the price of the full model name.
func requestCost(h *Header, p price) float32 {
	completion := uint32(500)
	if h.Flags&FlagMaxTokens != 0 {
		completion = h.MaxTokens
	}
	return p.cost(h.ContentHint/4, completion)
}

// A priceMemo keeps the price of the model it priced last. An Encoder
// prices the model of every record it frames, and a log's records name a
// few models, most often the one before's: comparing the name costs less
// than lower-casing it and trying the table's prefixes, which was half a
// percent of framing the development corpus.
type priceMemo struct {
	model []byte
	p     price
	ok    bool
}

// of returns priceOf(model).
func (m *priceMemo) of(model []byte) price {
	if !m.ok || !bytes.Equal(model, m.model) {
		m.model, m.p, m.ok = append(m.model[:0], model...), priceOf(model), true
	}
	return m.p
}
