// Command m2m-batch compresses, decompresses, tests and lists corpora of
// logged LLM API traffic (JSONL, one request or response a line), in the
// manner of zstd:
//
//	m2m-batch [OPTIONS] [FILE...]     compress each FILE to FILE.m2m
//	m2m-batch -d [OPTIONS] [FILE...]  decompress FILE.m2m to FILE
//	m2m-batch -t [FILE...]            test integrity
//	m2m-batch -l [FILE...]            list records, formats and models
//	m2m-batch --archive [FILE...]     compress to an archive: smaller, blocks decoded whole
//	m2m-batch --record LIST FILE.m2m  write records LIST (e.g. 7 or 0-9,42) alone
//	m2m-batch bench [OPTIONS]         measure every format on a corpus
//
// With no FILE, or "-", it reads standard input and writes standard output.
// Input files are kept unless --rm is given; existing outputs are not
// overwritten without -f; compressed data is not written to a terminal, nor
// data read from one. A file output goes to a temporary file (.NAME.*.tmp,
// next to it) renamed into place when complete, so an error, Ctrl-C, SIGHUP
// or SIGTERM (exit status 130) leaves no partial file behind; a temporary
// file left by a run that was killed outright is removed by the next run
// that writes the same output. An existing device or FIFO (/dev/null) is
// written in place, never replaced or removed. Exit status 1 means some
// file failed; each failure is reported on stderr.
//
// -t, -l and --record also read a shard manifest, as m2m-beam writes it
// (package manifest): its shards are one corpus, records numbered across
// them in manifest order, and -t checks what each restores against the
// manifest's counts and CRC-32.
//
// Input that is not an m2m file is refused by -d, -t and -l (-d -f copies
// it as it is, as zstd -df does); gzip and zstd input is decompressed for
// compression, and the output named after what it holds (a.jsonl.gz gives
// a.jsonl.m2m).
//
// Every line of the input comes back byte for byte: lines that are not
// JSON, blank lines, CRLF endings, invalid UTF-8 and lines over the
// protocol's 16 MiB message limit are stored raw and counted.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"

	"github.com/m2m-go/m2m/internal/cpu"
)

// Exit statuses.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInterrupted = 130 // 128 + SIGINT, as shells report it; 128 + the signal's number in general
)

// signals are those that stop a run the way Ctrl-C does: the partial
// output is removed and the exit status is 128 + the signal's number.
var signals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

func main() {
	// The runtime samples allocations for a memory profile unless told
	// not to, at the cost of a stack walk and a bucket a sample: 2% of a
	// fresh process reading one record (perf). Only --memprofile wants
	// them; the rate is set first thing in main, as the runtime asks.
	if !slices.ContainsFunc(os.Args[1:], func(a string) bool { return strings.HasPrefix(a, "--memprofile") }) {
		runtime.MemProfileRate = 0
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program, with its streams given, so tests can run it in
// process as well as through the built binary.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, signals...)
	defer signal.Stop(sigs)
	exitSignal := exitInterrupted
	go func() {
		select {
		case s := <-sigs:
			if n, ok := s.(syscall.Signal); ok {
				exitSignal = 128 + int(n)
			}
			// A second signal kills at once.
			signal.Reset(signals...)
			cancel()
		case <-ctx.Done():
		}
	}()

	if len(args) > 0 && args[0] == "bench" {
		return runBench(ctx, args[1:], stdout, stderr)
	}
	cfg, err := parseArgs(args, stdout)
	if errors.Is(err, errHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "m2m-batch: %v\nTry 'm2m-batch --help'.\n", err)
		return exitUsage
	}
	if cfg.version {
		fmt.Fprintln(stdout, versionLine())
		return exitOK
	}
	if cfg.opts.Workers > 0 {
		// -T N is N cores, whatever the stages: a pipeline runs several
		// goroutines besides its workers (reading, ordering, writing).
		runtime.GOMAXPROCS(cfg.opts.Workers)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit(cfg.opts.Workers))
		switch {
		case os.Getenv("GOGC") != "":
		case len(cfg.records) > 0:
			// A read of records by number allocates the frames it
			// decodes (some 30 MB for one record of a GiB archive)
			// and keeps most of them in its caches (at most about 100
			// MiB): the collector, which starts at 4 MB of heap, would
			// run several times for nothing. It runs near the limit
			// instead. --record N on the 1.09 GB archive: -7%.
			debug.SetGCPercent(-1)
		default:
			// An archive's working set (the frames a Reader keeps, the
			// deduper's table, the batches in flight) grows to 100 MiB
			// and more, all of it live: collecting each time the heap
			// doubled from 4 MB found nothing to free, and stopped both
			// cores while a zstd loop in assembly, which cannot be
			// preempted, ran on (-d -T2 of dev100's archive: 6
			// collections, 100.5 → 92.3 ms with the heap let grow
			// ninefold, medians of 25 alternating). The other modes hold a few
			// MiB and allocate little (pipeline recycles its buffers):
			// their peak RSS is the same either way on dev100. The
			// limit bounds the heap whatever the percentage.
			debug.SetGCPercent(800)
		}
	}
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "m2m-batch: %v\n", err)
			return exitError
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "m2m-batch: %v\n", err)
			return exitError
		}
		defer pprof.StopCPUProfile()
	}
	t := &tool{cfg: cfg, stdin: stdin, stdout: stdout, stderr: stderr,
		log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.logLevel()}))}
	status := t.runAll(ctx)
	if cfg.memProfile != "" {
		if err := writeMemProfile(cfg.memProfile); err != nil {
			fmt.Fprintf(stderr, "m2m-batch: %v\n", err)
			status = max(status, exitError)
		}
	}
	if ctx.Err() != nil {
		return exitSignal
	}
	return status
}

// memoryLimit is the soft limit m2m-batch gives the garbage collector
// (GOMEMLIMIT overrides it): a run holds at most about 64 MiB in flight
// between its stages, plus, per worker, the record it works on (up to
// 16 MiB) and its coder, and the collector keeps the heap near that
// instead of letting it double. With 2 workers: 192 MiB, and a peak RSS
// near 200 MiB on any input (TestMemoryBound).
func memoryLimit(workers int) int64 {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return 128<<20 + int64(workers)*32<<20
}

func writeMemProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// versionLine names the build, the Go release and the kernels selected on
// this machine.
func versionLine() string {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	return fmt.Sprintf("m2m-batch %s (%s %s/%s; kernels %s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH, kernels())
}

// kernels lists the kernel each accelerated package selected, e.g.
// "varint=avx512vbmi2 crc=avx512 utf8x=avx2 jsonscan=avx2".
func kernels() string {
	var parts []string
	for _, pkg := range []string{"varint", "crc", "utf8x", "jsonscan"} {
		parts = append(parts, pkg+"="+cpu.Selected(pkg))
	}
	return strings.Join(parts, " ")
}
