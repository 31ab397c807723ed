package zenc

import "testing"

// TestOptimal: blocks parsed by price come back, and are smaller than
// lazily parsed ones.
func TestOptimal(t *testing.T) {
	src := corpus(t)
	lazy := roundTrip(t, New(DefaultParams), src, nil)
	p := DefaultParams
	p.Optimal = 64
	opt := roundTrip(t, New(p), src, nil)
	t.Logf("%d bytes: lazy2 %d, optimal %d", len(src), len(lazy), len(opt))
	if len(opt) >= len(lazy) {
		t.Errorf("optimal %d bytes, lazy2 %d", len(opt), len(lazy))
	}
}
