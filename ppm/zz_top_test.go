package ppm

import (
	"os"
	"testing"
)

func TestTop(t *testing.T) {
	path := os.Getenv("PPM_FILE")
	if path == "" {
		t.Skip()
	}
	in, _ := os.ReadFile(path)
	in = in[:min(len(in), 4<<20)]
	m := newModel(256<<20/4, 16)
	m.match.init(nil, len(in))
	var e encoder
	e.init(nil)
	restarts := 0
	for _, b := range in {
		top := m.top
		m.encodeSymbol(&e, b)
		if m.top < top {
			restarts++
		}
	}
	t.Logf("%d bytes: arena %d MiB used, %d restarts", len(in), m.top*4>>20, restarts)
}
