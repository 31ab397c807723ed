// Package bench measures m2m against the tools its users would otherwise
// pick, on the same bytes in the same run: every codec format one record
// at a time, the whole pipeline at each worker count, and, as peers, zstd
// per record with and without a dictionary, zstd and gzip over the whole
// stream, and Brotli per record both with a pooled writer (what an M2M v1
// frame carries, without the frame) and with a fresh writer per record
// (the naive baseline). The corpus is M2M_CORPUS, else the embedded sample.
//
//	M2M_CORPUS=$CORPORA/dev.jsonl go test ./bench -run '^$' -bench . -count 6 > new.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /codec new.txt
//
// compare.sh times the system's zstd, brotli and gzip commands against
// m2m-batch on a file; scaling.sh, m2m-batch at one and two workers
// against two one-worker processes at once. README.md in this directory
// holds the latest results and the targets.
package bench
