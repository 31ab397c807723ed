package shards

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/m2m-go/m2m/codec"
)

func TestValidate(t *testing.T) {
	ok := []Options{
		{Level: -1},
		{Level: 0},
		{Level: 11},
		{Archive: true, Level: -1},
		{Archive: true, Level: 4},
		{Level: -1, Security: "hmac", KeyFile: "k"},
		{Level: -1, Security: "aead", KeyFile: "gs://b/k"},
	}
	for _, o := range ok {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
	bad := []Options{
		{Level: 12},
		{Level: -2},
		{Archive: true, Level: 5},
		{Archive: true, Level: 0},
		{Level: -1, Security: "hmac"},
		{Level: -1, KeyFile: "k"},
		{Level: -1, Security: "rot13", KeyFile: "k"},
		{Archive: true, Level: -1, Security: "hmac", KeyFile: "k"},
		{Level: -1, Threads: -1},
		{Level: -1, PieceSize: -1},
	}
	for _, o := range bad {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v: valid", o)
		}
	}
}

func TestPipelineOptions(t *testing.T) {
	dir := t.TempDir()
	key := bytes.Repeat([]byte{7}, 32)
	raw := filepath.Join(dir, "raw")
	hexed := filepath.Join(dir, "hex")
	short := filepath.Join(dir, "short")
	os.WriteFile(raw, key, 0o600)
	os.WriteFile(hexed, []byte("  "+hex.EncodeToString(key)+"\n"), 0o600)
	os.WriteFile(short, key[:31], 0o600)
	ctx := context.Background()
	for _, f := range []string{raw, hexed} {
		po, err := Options{Level: 7, Security: "aead", KeyFile: f, Threads: 3}.pipelineOptions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(po.Key, key) || po.Security != codec.SecurityAEAD || po.Quality != 7 || po.Workers != 3 {
			t.Errorf("%s: %+v", f, po)
		}
	}
	for _, f := range []string{short, filepath.Join(dir, "missing")} {
		if _, err := (Options{Level: -1, Security: "hmac", KeyFile: f}).pipelineOptions(ctx); err == nil {
			t.Errorf("%s: read as a key", f)
		}
	}
	po, err := Options{Archive: true, Level: 4}.pipelineOptions(ctx)
	if err != nil || !po.Archive || po.ArchiveOptions.Level != 4 {
		t.Errorf("archive level 4: %+v, %v", po, err)
	}
	if po, err := (Options{Level: 0}).pipelineOptions(ctx); err != nil || len(po.Codec) != 1 {
		t.Errorf("quality 0: %+v, %v", po, err)
	}
}
