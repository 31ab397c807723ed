package pipeline

import (
	"context"
	"io"
)

// TestTo is Test, writing the lines it decodes to w as Decompress does, so
// that a caller can check them against what it knows of the input from
// elsewhere: the CRC-32 and size a shard manifest (package manifest) keeps
// of every shard's input bytes.
func TestTo(ctx context.Context, r io.Reader, w io.Writer, o Options, st *Stats) error {
	o.test = true
	return Decompress(ctx, r, w, o, st)
}
