package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// A golden file holds the ids of tricky texts from independent
// implementations; testdata/golden/gen.mjs makes them.
type golden struct {
	Encoding  string
	Generator string
	Specials  map[string]string // Llama 3 only: id to name
	Cases     []struct {
		Name string
		Text string
		IDs  []uint32
	}
}

func readGolden(t testing.TB, enc Encoding) *golden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "golden", enc.String()+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if g.Encoding != enc.String() || len(g.Cases) < 30 {
		t.Fatalf("golden file of %v is for %q with %d cases", enc, g.Encoding, len(g.Cases))
	}
	return &g
}

// goldenTexts returns the tricky texts of the golden files.
func goldenTexts(t testing.TB) []string {
	t.Helper()
	var texts []string
	for _, c := range readGolden(t, Cl100kBase).Cases {
		texts = append(texts, c.Text)
	}
	return texts
}

func TestGolden(t *testing.T) {
	for _, enc := range []Encoding{Cl100kBase, O200kBase, Llama3} {
		t.Run("enc="+enc.String(), func(t *testing.T) {
			g := readGolden(t, enc)
			tok := get(t, enc)
			if enc == Llama3 {
				tok = llama3(t, true)
			}
			for _, c := range g.Cases {
				if ids := encode(t, tok, c.Text); !slices.Equal(ids, c.IDs) {
					t.Errorf("%s: %q\n got %v\nwant %v (%s)", c.Name, c.Text, ids, c.IDs, g.Generator)
				}
				if s := decode(t, tok, c.IDs); s != c.Text {
					t.Errorf("%s: decoded to %q, want %q", c.Name, s, c.Text)
				}
			}
		})
	}
}

// Our names of the Llama 3 special tokens are those of llama3-tokenizer-js
// (Llama 3.1). The golden file has them, so this needs no ranks.
func TestGoldenLlama3Specials(t *testing.T) {
	g := readGolden(t, Llama3)
	if len(g.Specials) != len(llama3Spec.specials) {
		t.Errorf("%d specials in the golden file, %d here", len(g.Specials), len(llama3Spec.specials))
	}
	for id, name := range llama3Spec.specials {
		if want := g.Specials[strconv.Itoa(int(id))]; name != want {
			t.Errorf("special %d is %q, want %q", id, name, want)
		}
	}
}
