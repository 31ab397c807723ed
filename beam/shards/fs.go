package shards

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"cloud.google.com/go/storage"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	// The filesystems inputs, outputs and keys may be on.
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// scheme is a path's filesystem scheme: "gs" for gs://b/o, "" for a local
// path.
func scheme(p string) string {
	if i := strings.Index(p, "://"); i > 0 {
		return p[:i]
	}
	return ""
}

// join joins a directory and a slash-separated relative path, with
// slashes for URLs and the system's separator for local paths.
func join(dir, rel string) string {
	if scheme(dir) != "" {
		return strings.TrimRight(dir, "/") + "/" + rel
	}
	return filepath.Join(dir, filepath.FromSlash(rel))
}

// files gives a DoFn its filesystems, one per scheme, made on first use
// and closed at teardown, and the object-store clients it reads ranges
// with.
type files struct {
	mu  sync.Mutex
	fss map[string]filesystem.Interface
	gcs *storage.Client
	s3  *s3.Client
}

func (f *files) get(ctx context.Context, p string) (filesystem.Interface, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := scheme(p)
	if fs, ok := f.fss[s]; ok {
		return fs, nil
	}
	fs, err := filesystem.New(ctx, p)
	if err != nil {
		return nil, err
	}
	if f.fss == nil {
		f.fss = map[string]filesystem.Interface{}
	}
	f.fss[s] = fs
	return fs, nil
}

func (f *files) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fs := range f.fss {
		fs.Close()
	}
	f.fss = nil
	if f.gcs != nil {
		f.gcs.Close()
		f.gcs = nil
	}
}

// openAt opens p for reading from offset off. A local file seeks; gs://
// and s3:// objects are read from off with a ranged request; on any other
// filesystem the bytes before off are read and dropped.
func (f *files) openAt(ctx context.Context, p string, off int64) (io.ReadCloser, error) {
	if off > 0 {
		switch scheme(p) {
		case "gs":
			return f.openGCS(ctx, p, off)
		case "s3":
			return f.openS3(ctx, p, off)
		}
	}
	fs, err := f.get(ctx, p)
	if err != nil {
		return nil, err
	}
	r, err := fs.OpenRead(ctx, p)
	if err != nil || off == 0 {
		return r, err
	}
	if s, ok := r.(io.Seeker); ok {
		if _, err := s.Seek(off, io.SeekStart); err != nil {
			r.Close()
			return nil, err
		}
		return r, nil
	}
	if _, err := io.CopyN(io.Discard, r, off); err != nil {
		r.Close()
		return nil, fmt.Errorf("%s: skipping to offset %d: %w", p, off, err)
	}
	return r, nil
}

// bucketObject splits scheme://bucket/object.
func bucketObject(p string) (string, string, error) {
	rest := p[strings.Index(p, "://")+3:]
	bucket, object, ok := strings.Cut(rest, "/")
	if !ok || bucket == "" || object == "" {
		return "", "", fmt.Errorf("%s: want %s://bucket/object", p, scheme(p))
	}
	return bucket, object, nil
}

func (f *files) openGCS(ctx context.Context, p string, off int64) (io.ReadCloser, error) {
	bucket, object, err := bucketObject(p)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	if f.gcs == nil {
		// Default credentials, as Beam's gs:// filesystem uses.
		f.gcs, err = storage.NewClient(ctx)
	}
	c := f.gcs
	f.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("gcs client: %w", err)
	}
	return c.Bucket(bucket).Object(object).NewRangeReader(ctx, off, -1)
}

func (f *files) openS3(ctx context.Context, p string, off int64) (io.ReadCloser, error) {
	bucket, key, err := bucketObject(p)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	if f.s3 == nil {
		// The AWS default configuration, as Beam's s3:// filesystem uses.
		var cfg aws.Config
		if cfg, err = config.LoadDefaultConfig(ctx); err == nil {
			f.s3 = s3.NewFromConfig(cfg)
		}
	}
	c := f.s3
	f.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("aws config: %w", err)
	}
	out, err := c.GetObject(ctx, &s3.GetObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key), Range: aws.String(fmt.Sprintf("bytes=%d-", off)),
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return out.Body, nil
}

// An outFile is an output that appears under its name only when complete:
// a local file is written under a temporary name next to it
// (.NAME.RANDOM.tmp) and renamed; an object store (gs://, s3://) creates
// an object only when its upload completes, so it is written in place,
// and an aborted upload leaves nothing.
type outFile struct {
	io.Writer
	w      io.WriteCloser
	fs     filesystem.Interface
	cancel context.CancelFunc
	tmp    string // local: the temporary name
	name   string
}

func (f *files) create(ctx context.Context, name string) (*outFile, error) {
	fs, err := f.get(ctx, name)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	o := &outFile{fs: fs, cancel: cancel, name: name}
	target := name
	if scheme(name) == "" {
		var rnd [6]byte
		rand.Read(rnd[:])
		dir, base := filepath.Split(name)
		o.tmp = filepath.Join(dir, "."+base+"."+hex.EncodeToString(rnd[:])+".tmp")
		target = o.tmp
	}
	if o.w, err = fs.OpenWrite(ctx, target); err != nil {
		cancel()
		return nil, err
	}
	o.Writer = o.w
	return o, nil
}

// commit closes the output and gives it its name.
func (o *outFile) commit(ctx context.Context) error {
	defer o.cancel()
	err := o.w.Close()
	if err == nil && o.tmp != "" {
		err = filesystem.Rename(ctx, o.fs, o.tmp, o.name)
	}
	if err != nil {
		o.removeTmp()
		return fmt.Errorf("%s: %w", o.name, err)
	}
	return nil
}

// abort gives the output up: nothing appears under its name.
func (o *outFile) abort() {
	o.cancel() // an upload in flight fails, and creates nothing
	o.w.Close()
	o.removeTmp()
}

func (o *outFile) removeTmp() {
	if o.tmp != "" {
		os.Remove(o.tmp)
	}
}
