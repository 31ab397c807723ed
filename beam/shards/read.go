package shards

import (
	"context"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/m2m-go/m2m/manifest"
)

// ReadManifest reads and checks the manifest at p, through Beam's
// filesystems (a local path, gs://, s3://, ...).
func ReadManifest(ctx context.Context, p string) ([]manifest.Entry, error) {
	var fs files
	defer fs.close()
	return fs.readManifest(ctx, p)
}

func (f *files) readManifest(ctx context.Context, p string) ([]manifest.Entry, error) {
	fsys, err := f.get(ctx, p)
	if err != nil {
		return nil, err
	}
	r, err := fsys.OpenRead(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	defer r.Close()
	entries, err := manifest.Read(r)
	if err == nil {
		err = manifest.Check(entries)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return entries, nil
}

// openShard opens the shard of entry e of the manifest at manifestPath,
// and returns it with its size. A local shard is an *os.File, which an
// archive is read from in place.
func (f *files) openShard(ctx context.Context, manifestPath string, e *manifest.Entry) (io.ReadCloser, int64, error) {
	p := manifest.Resolve(manifestPath, e.Output)
	fsys, err := f.get(ctx, p)
	if err != nil {
		return nil, 0, err
	}
	size, err := fsys.Size(ctx, p)
	if err != nil {
		return nil, 0, err
	}
	r, err := fsys.OpenRead(ctx, p)
	return r, size, err
}

// shardError names a shard and what it holds.
func shardError(e *manifest.Entry, err error) error {
	return fmt.Errorf("shard %s (%s, bytes %d-%d): %w", e.Output, e.Input, e.Start, e.End, err)
}

// restoredPaths gives every input of a manifest the path, relative to the
// output directory, its restored bytes go to: the input's path after the
// directory all inputs share (a scheme's "://" taken as "/", so that
// gs://b/x/a.jsonl and /x/a.jsonl both have a place), without the
// .gz, .zst or .zstd of a compressed input, whose JSONL is restored. Two
// inputs that would take one path, and a path that would leave the output
// directory, are errors.
func restoredPaths(entries []manifest.Entry) (map[string]string, error) {
	var inputs []string
	for i, e := range entries {
		if i == 0 || entries[i-1].Input != e.Input {
			inputs = append(inputs, e.Input)
		}
	}
	flat := func(s string) string {
		return strings.TrimLeft(strings.Replace(strings.ReplaceAll(s, "\\", "/"), "://", "/", 1), "/")
	}
	prefix := ""
	if len(inputs) > 0 {
		prefix = flat(inputs[0])
	}
	for _, in := range inputs {
		s := flat(in)
		for !strings.HasPrefix(s, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	prefix = prefix[:strings.LastIndexByte(prefix, '/')+1]
	compression := map[string]string{}
	for _, e := range entries {
		compression[e.Input] = e.Compression
	}
	paths := map[string]string{}
	taken := map[string]string{}
	for _, in := range inputs {
		rel := path.Clean(flat(in)[len(prefix):])
		if compression[in] != manifest.Plain {
			rel = trimCompressionSuffix(rel)
		}
		if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") || strings.HasSuffix(rel, "/") {
			return nil, fmt.Errorf("input %s: cannot be restored under the output directory (as %q)", in, rel)
		}
		if other, ok := taken[rel]; ok {
			return nil, fmt.Errorf("inputs %s and %s would both be restored to %s", other, in, rel)
		}
		taken[rel] = in
		paths[in] = rel
	}
	return paths, nil
}

// trimCompressionSuffix drops a .gz, .zst or .zstd suffix (any case) from
// a name longer than it.
func trimCompressionSuffix(name string) string {
	for _, s := range []string{".gz", ".zst", ".zstd"} {
		if len(name) > len(s) && strings.EqualFold(name[len(name)-len(s):], s) {
			return name[:len(name)-len(s)]
		}
	}
	return name
}
