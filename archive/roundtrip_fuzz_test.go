package archive

import (
	"bytes"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/internal/sample"
)

// FuzzRoundTrip writes any input as an archive, at a level and in units
// the fuzzer picks, and checks that it comes back byte for byte, whole
// and record by record (roundTrip). The input is written twice over, so
// that its values recur and the dedupe, templates, words and dictionary
// frames have something to refer to; the units are small, so that a few
// KB make several records blocks, store frames and segments.
func FuzzRoundTrip(f *testing.F) {
	in := sample.JSONL()
	in = in[:bytes.IndexByte(in[3000:], '\n')+3001]
	f.Add(in, byte(0))
	f.Add(in, byte(4))
	for _, s := range nasty {
		f.Add([]byte(s), byte(1))
	}
	f.Add([]byte(`{"model":"gpt-4o","messages":[{"role":"user","content":"`+strings.Repeat("tell me the words of the words ", 4)+`"}]}`+"\n"), byte(2))
	f.Add([]byte(`[{"a":"`+strings.Repeat("x", 300)+`"}, {"b":["\"]{", "`+strings.Repeat("y", 300)+`"]}]`), byte(0x80))
	f.Fuzz(func(t *testing.T, data []byte, pick byte) {
		if len(data) > 32<<10 {
			return
		}
		o := Options{batch: 2 << 10, storeFrame: 4 << 10, segment: 3}
		switch pick % 6 {
		case 0:
			o = Options{}
		case 1:
			o.Level = 1
		case 2:
			o.MinSize = 8
		case 3:
			o.Level, o.ModelMemory = LevelMax, 1
		case 4:
			o.Level, o.ModelMemory, o.MinSize = LevelMax, 1, 16
		case 5:
			o.Level = 4 // text parsed by price
		}
		o.Workers = 1 + int(pick>>4)%3
		if pick&0x80 != 0 {
			o.longLine = 300 // long lines cut where their values end
		}
		roundTrip(t, append(data[:len(data):len(data)], data...), o)
	})
}
