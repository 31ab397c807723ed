package shards

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/pipeline"
)

// Options are a run's settings. They travel in the pipeline to every
// worker (as the fields of its DoFns), so they hold no secret: a key is
// read by each worker from KeyFile, through Beam's filesystems.
type Options struct {
	// Archive writes archives (m2m-batch --archive) instead of per-record
	// containers.
	Archive bool
	// Level is the Brotli quality (0-11, per-record containers) or the
	// archive level (1-4); -1 is the default (5, or 3 for archives).
	Level int
	// Security seals every record and shard: "none" (or ""), "hmac" or
	// "aead", under the 32-byte key in KeyFile (raw, or 64 hex digits);
	// tests and restores of a sealed corpus need them too.
	Security string
	KeyFile  string
	// Threads is how many goroutines compress or decompress one shard;
	// 0 is the worker's GOMAXPROCS.
	Threads int
	// PieceSize is the bytes of plain input a shard holds, cut at line
	// boundaries; 0 is DefaultPieceSize. Gzip and zstd inputs are one
	// shard each, whatever their size.
	PieceSize int64
	// Version is the m2m version written to the manifest.
	Version string
}

func (o Options) pieceSize() int64 {
	if o.PieceSize > 0 {
		return o.PieceSize
	}
	return DefaultPieceSize
}

func (o Options) security() (codec.Security, error) {
	for _, m := range []codec.Security{codec.SecurityNone, codec.SecurityHMAC, codec.SecurityAEAD} {
		if m.String() == o.Security {
			return m, nil
		}
	}
	if o.Security == "" {
		return codec.SecurityNone, nil
	}
	return 0, fmt.Errorf("unknown security mode %q (none, hmac, aead)", o.Security)
}

// Validate checks the options against each other, without reading the key.
func (o Options) Validate() error {
	sec, err := o.security()
	switch {
	case err != nil:
		return err
	case sec != codec.SecurityNone && o.KeyFile == "":
		return fmt.Errorf("--security %s needs --key-file", o.Security)
	case sec == codec.SecurityNone && o.KeyFile != "":
		return errors.New("--key-file needs --security hmac or aead")
	case o.Archive && sec != codec.SecurityNone:
		return errors.New("--archive and --security exclude each other: an archive's blocks are not sealed")
	case o.Archive && o.Level != -1 && (o.Level < 1 || o.Level > 4):
		return fmt.Errorf("level %d: archive levels go from 1 to 4", o.Level)
	case !o.Archive && (o.Level < -1 || o.Level > 11):
		return fmt.Errorf("level %d: Brotli qualities go from 0 to 11", o.Level)
	case o.Threads < 0:
		return fmt.Errorf("threads %d: cannot be negative", o.Threads)
	case o.PieceSize < 0:
		return fmt.Errorf("piece size %d: cannot be negative", o.PieceSize)
	}
	return nil
}

// pipelineOptions returns the options of package pipeline these stand
// for, reading the key file if there is one.
func (o Options) pipelineOptions(ctx context.Context) (pipeline.Options, error) {
	if err := o.Validate(); err != nil {
		return pipeline.Options{}, err
	}
	po := pipeline.Options{Workers: o.Threads, Archive: o.Archive}
	switch {
	case o.Archive && o.Level > 0:
		po.ArchiveOptions.Level = o.Level
	case o.Archive:
	case o.Level == 0:
		po.Codec = append(po.Codec, codec.WithQuality(0))
	case o.Level > 0:
		po.Quality = o.Level
	}
	po.Security, _ = o.security()
	if o.KeyFile != "" {
		key, err := readKey(ctx, o.KeyFile)
		if err != nil {
			return po, err
		}
		po.Key = key
	}
	return po, nil
}

// keySize is the key length both security modes take.
const keySize = 32

// readKey reads a 32-byte key through Beam's filesystems (a local path, or
// gs://, s3://, ...): the file holds the 32 bytes themselves or 64 hex
// digits, with white space around them; anything else is an error, as in
// m2m-batch.
func readKey(ctx context.Context, path string) ([]byte, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, 4096))
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	if len(b) == keySize {
		return b, nil
	}
	if t := bytes.TrimSpace(b); len(t) == 2*keySize {
		if k, err := hex.DecodeString(string(t)); err == nil {
			return k, nil
		}
	}
	return nil, fmt.Errorf("key file %s: want %d raw bytes or %d hex digits, found %d bytes", path, keySize, 2*keySize, len(b))
}
