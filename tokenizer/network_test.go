package tokenizer

import (
	"errors"
	"net/http"
	"os"
	"testing"
)

// failingTransport fails the test on any HTTP request.
type failingTransport struct{ t *testing.T }

func (f failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.t.Errorf("network access: %s %s", r.Method, r.URL)
	return nil, errors.New("network access in a test")
}

// Loading and using every encoding touches no network and writes no cache
// (tiktoken-go, the tests' oracle, would download its ranks over HTTP into
// $TIKTOKEN_CACHE_DIR if asked for an encoding by name).
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

	if entries, err := os.ReadDir(cache); err != nil || len(entries) > 0 {
		t.Errorf("tiktoken cache: %v, %v", entries, err)
	}
}
