// Command m2m-beam compresses many JSONL files (plain, gzip or zstd; local,
// gs://, s3://) into m2m shards and a manifest on Apache Beam, and tests
// or restores them: on Prism, Beam's local runner, in this process with
// no setup, or on Dataflow, Flink or Spark with Beam's --runner flags.
// m2m-beam --help lists the flags; the beam module's README shows the
// command lines for each runner.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/m2m-go/m2m/beam/shards"
	"github.com/m2m-go/m2m/manifest"
)

const usage = `Usage: m2m-beam [compress] --input PATTERN --output DIR [OPTIONS] [BEAM FLAGS]
       m2m-beam test --manifest FILE [OPTIONS] [BEAM FLAGS]
       m2m-beam decompress --manifest FILE --output DIR [OPTIONS] [BEAM FLAGS]

Compress every file PATTERN matches (a local glob, gs://bucket/logs/*.jsonl.gz,
s3://...; gzip and zstd files are read decompressed) into shards under
DIR/shards, one per file and per --piece-size bytes of a large plain file,
and write DIR/manifest.jsonl last; test the shards of a manifest against it,
or restore its inputs under DIR, byte for byte. m2m-batch -l, -t and
--record read a manifest too. Runs on Prism, in this process, unless
--runner says otherwise.

Options:
  --input PATTERN    compress: the files to compress
  --output DIR       compress: where the shards and manifest go;
                     decompress: where the inputs are restored
  --manifest FILE    test, decompress: the manifest of a compress run
  --archive          archives (m2m-batch --archive) instead of per-record
                     containers
  --level N          Brotli quality 0-11 (default 5), or with --archive the
                     archive level 1-4 (default 3)
  --security S       none (default), hmac or aead: seal every record and
                     shard; test and decompress then require them sealed
  --key-file FILE    the 32-byte key, raw or 64 hex digits (any filesystem:
                     every worker reads it)
  --threads N        goroutines per shard (default 0: one a core)
  --piece-size N     bytes of plain input per shard (default 268435456)
  -q                 no summary
  -v                 Prism's log (other runners log as they do)

Beam flags (defaults for Prism): --runner (prism, dataflow, flink, spark,
universal), --endpoint, --job_name, --environment_type, --environment_config,
--project, --region, --temp_location, --staging_location, ...; the beam
module's README gives the command line for each runner.

Examples:
  m2m-beam --input 'logs/*.jsonl.gz' --output out
  m2m-beam test --manifest out/manifest.jsonl
  m2m-beam decompress --manifest out/manifest.jsonl --output restored
  m2m-batch --record 42 out/manifest.jsonl
`

// modes are the first arguments that name a mode.
var modes = []string{"compress", "test", "decompress"}

func main() { os.Exit(launch()) }

// launch runs the command, and returns its exit status.
func launch() int {
	mode := "compress"
	if len(os.Args) > 1 && slices.Contains(modes, os.Args[1]) {
		mode = os.Args[1]
		os.Args = append(os.Args[:1], os.Args[2:]...)
	}
	var c config
	c.define(flag.CommandLine)
	flag.Usage = func() { fmt.Fprint(os.Stdout, usage) }
	flag.Parse()
	// A worker that a runner started with this binary runs its bundles
	// here, and never returns.
	beam.Init()
	if r := flag.Lookup("runner").Value.String(); !c.verbose && (r == "" || r == "prism") {
		// Prism's progress log, and the error of a failed run several
		// times over: the summary or the error is enough.
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tmp, err := privateTempDir()
	if err == nil {
		defer os.RemoveAll(tmp)
		err = c.run(ctx, mode, flag.Args(), os.Stderr)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "m2m-beam: %v\n", err)
		return 1
	}
	return 0
}

// privateTempDir points TMPDIR at a directory of this run's own, and
// returns it for removal at the end: the Beam SDK leaves a file in the
// temporary directory at every loopback run (apache/beam#27569), and
// Prism runs loopback.
func privateTempDir() (string, error) {
	dir, err := os.MkdirTemp("", "m2m-beam-")
	if err != nil {
		return "", err
	}
	return dir, os.Setenv("TMPDIR", dir)
}

// config holds the flags.
type config struct {
	input, output, manifest string
	quiet, verbose          bool
	opts                    shards.Options
}

func (c *config) define(fs *flag.FlagSet) {
	fs.StringVar(&c.input, "input", "", "files to compress")
	fs.StringVar(&c.output, "output", "", "output directory")
	fs.StringVar(&c.manifest, "manifest", "", "manifest to test or restore")
	fs.BoolVar(&c.opts.Archive, "archive", false, "write archives")
	fs.IntVar(&c.opts.Level, "level", -1, "Brotli quality or archive level")
	fs.StringVar(&c.opts.Security, "security", "none", "security mode")
	fs.StringVar(&c.opts.KeyFile, "key-file", "", "key file")
	fs.IntVar(&c.opts.Threads, "threads", 0, "goroutines per shard")
	fs.Int64Var(&c.opts.PieceSize, "piece-size", 0, "bytes of plain input per shard")
	fs.BoolVar(&c.quiet, "q", false, "no summary")
	fs.BoolVar(&c.verbose, "v", false, "Prism's log")
}

// run builds the mode's pipeline, runs it, and writes a summary to
// stderr.
func (c *config) run(ctx context.Context, mode string, rest []string, stderr io.Writer) error {
	if len(rest) > 0 {
		if slices.Contains(modes, rest[0]) {
			return fmt.Errorf("%s: the mode comes first (m2m-beam %s --manifest ...)", rest[0], rest[0])
		}
		return fmt.Errorf("unexpected argument %q (m2m-beam --help)", rest[0])
	}
	if err := c.check(mode); err != nil {
		return err
	}
	c.opts.Version = version()
	p, s := beam.NewPipelineWithRoot()
	manifestPath := c.manifest
	switch mode {
	case "compress":
		shards.Compress(s, c.input, c.output, c.opts)
		manifestPath = shards.ManifestPath(c.output)
	case "test":
		shards.Test(s, c.manifest, c.opts)
	case "decompress":
		shards.Decompress(s, c.manifest, c.output, c.opts)
	}
	start := time.Now()
	res, err := beamx.RunWithMetrics(ctx, p)
	if err != nil {
		return err
	}
	if c.quiet {
		return nil
	}
	elapsed := time.Since(start)
	entries, err := shards.ReadManifest(ctx, manifestPath)
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, summary(mode, manifestPath, manifest.Sum(entries), elapsed))
	if res != nil {
		if m := counters(res.Metrics()); m != "" {
			fmt.Fprintf(stderr, "metrics: %s\n", m)
		}
	}
	return nil
}

// check checks that the flags a mode needs are there, and no other.
func (c *config) check(mode string) error {
	need := map[string][]string{
		"compress":   {"input", "output"},
		"test":       {"manifest"},
		"decompress": {"manifest", "output"},
	}
	given := map[string]bool{"input": c.input != "", "output": c.output != "", "manifest": c.manifest != ""}
	for _, f := range []string{"input", "output", "manifest"} {
		wanted := slices.Contains(need[mode], f)
		if wanted && !given[f] {
			return fmt.Errorf("%s needs --%s (m2m-beam --help)", mode, f)
		}
		if !wanted && given[f] {
			return fmt.Errorf("--%s does not apply to %s", f, mode)
		}
	}
	if mode != "compress" && (c.opts.Archive || c.opts.Level != -1 || c.opts.PieceSize != 0) {
		return fmt.Errorf("--archive, --level and --piece-size apply to compress only: %s reads what the shards say", mode)
	}
	if c.opts.Security == "none" {
		c.opts.Security = ""
	}
	return c.opts.Validate()
}

// summary is the line a run ends with: the manifest's totals, and the
// rate of the run over the JSONL bytes.
func summary(mode, manifestPath string, t manifest.Totals, elapsed time.Duration) string {
	verb := map[string]string{"compress": "compressed", "test": "tested", "decompress": "restored"}[mode]
	ratio := 0.0
	if t.BytesOut > 0 {
		ratio = float64(t.BytesIn) / float64(t.BytesOut)
	}
	return fmt.Sprintf("%s: %s %d inputs in %d shards: %d records, %d lines (%d raw), %d bytes of JSONL, %d of shards (ratio %.2f), in %.2fs, %.1f MB/s",
		manifestPath, verb, t.Inputs, t.Shards, t.Records, t.Lines, t.Raw, t.BytesIn, t.BytesOut, ratio,
		elapsed.Seconds(), float64(t.BytesIn)/1e6/elapsed.Seconds())
}

// counters writes the run's m2m counters, as the runner reported them,
// summed over the steps.
func counters(r metrics.Results) string {
	sums := map[string]int64{}
	for _, c := range r.AllMetrics().Counters() {
		if c.Key.Namespace == shards.Namespace {
			sums[c.Key.Name] += c.Result()
		}
	}
	var parts []string
	for name, v := range sums {
		parts = append(parts, fmt.Sprintf("%s=%d", name, v))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// version is the version of the core module this binary was built with:
// its module version, or "devel" when built from a working tree.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	for _, d := range bi.Deps {
		if d.Path == "github.com/m2m-go/m2m" {
			if d.Replace != nil || d.Version == "" {
				return "devel"
			}
			return d.Version
		}
	}
	return "devel"
}
