package tokenizer

import (
	"errors"
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/pkoukk/tiktoken-go"
)

// failingTransport fails the test on any HTTP request.
type failingTransport struct{ t *testing.T }

func (f failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.t.Errorf("network access: %s %s", r.Method, r.URL)
	return nil, errors.New("network access in a test")
}

// Loading and using every encoding, by our API and by tiktoken-go's own,
// touches no network and writes no cache: tiktoken-go's default loader,
// which downloads over HTTP into $TIKTOKEN_CACHE_DIR, is never used.
func TestNoNetwork(t *testing.T) {
	saved := http.DefaultTransport
	http.DefaultTransport = failingTransport{t}
	t.Cleanup(func() { http.DefaultTransport = saved })
	for _, v := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		t.Setenv(v, "http://127.0.0.1:9") // the discard port: nothing listens
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	cache := t.TempDir()
	t.Setenv("TIKTOKEN_CACHE_DIR", cache)
	t.Setenv("DATA_GYM_CACHE_DIR", cache)

	// Fresh loads, not the tokenizers other tests may have cached.
	toks := []Tokenizer{freshEmbedded(t, cl100kSpec), freshEmbedded(t, o200kSpec)}
	if path := os.Getenv(Llama3Env); path != "" {
		tok, err := LoadLlama3(path)
		if err != nil {
			t.Fatal(err)
		}
		toks = append(toks, tok)
	}
	if llama3Model != nil {
		tok, err := newLlama3(llama3Model)
		if err != nil {
			t.Fatal(err)
		}
		toks = append(toks, tok)
	}
	for _, tok := range toks {
		const text = "No network, please: <|endoftext|>"
		if s := decode(t, tok, encode(t, tok, text)); s != text {
			t.Errorf("%v: %q", tok.Encoding(), s)
		}
	}
	dec := decodeOnly(t)
	if s := decode(t, dec, []uint32{9906, 128009}); s != "Hello<|eot_id|>" {
		t.Errorf("decode-only Llama 3: %q", s)
	}

	for name, want := range map[string][]int{"cl100k_base": {9906, 11, 1917, 0}, "o200k_base": {13225, 11, 2375, 0}} {
		tk, err := tiktoken.GetEncoding(name)
		if err != nil {
			t.Fatalf("tiktoken.GetEncoding(%q): %v", name, err)
		}
		if ids := tk.EncodeOrdinary("Hello, world!"); !slices.Equal(ids, want) {
			t.Errorf("tiktoken.GetEncoding(%q): %v, want %v", name, ids, want)
		}
	}
	for _, name := range []string{"p50k_base", "p50k_edit", "r50k_base"} {
		if _, err := tiktoken.GetEncoding(name); err == nil {
			t.Errorf("tiktoken.GetEncoding(%q) did not fail", name)
		}
	}
	if _, err := tiktoken.EncodingForModel("text-davinci-003"); err == nil {
		t.Error("tiktoken.EncodingForModel(text-davinci-003) did not fail")
	}
	if entries, err := os.ReadDir(cache); err != nil || len(entries) > 0 {
		t.Errorf("tiktoken cache: %v, %v", entries, err)
	}
}
