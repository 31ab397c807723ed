package tokenizer

import (
	"math/rand/v2"
	"testing"
)

func TestOracleQuick(t *testing.T) {
	for _, tok := range complete(t) {
		for _, text := range goldenTexts(t) {
			checkOracle(t, tok, text)
		}
		r := rand.New(rand.NewPCG(3, 4))
		for range 2000 {
			checkOracle(t, tok, randomSplitText(r, 1+r.IntN(40)))
		}
	}
}
