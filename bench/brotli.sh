#!/usr/bin/env bash
# brotli.sh [FILE]: the Brotli encoders and decoders, one record at a time
# on one core, on the records of FILE (default $M2M_CORPUS, else the embedded sample):
# codec's BenchmarkBrotli (go-brrr, which the codec uses; andybalholm/brotli's
# Writer and NewWriterV2; their decoders) and, in the same run, C libbrotli's
# one-shot BrotliEncoderCompress and BrotliDecoderDecompress (cbrotli/oneshot.c,
# built here with gcc if libbrotli-dev is installed, else left out). Rounds
# alternate the Go and C runs; the output is Go benchmark lines.
#
#	bash bench/brotli.sh > brotli.txt
#	go run golang.org/x/perf/cmd/benchstat@latest -row /size -col /impl -filter '/op:encode /q:5' brotli.txt
#
# Knobs: COUNT (rounds; default 6), BENCH (a -bench pattern under
# BenchmarkBrotli; default all of it).
set -euo pipefail
cd "$(dirname "$0")/.."

in=$(realpath "${1:-${M2M_CORPUS:-internal/sample/sample.jsonl}}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go test -c -o "$work/codec.test" ./codec
c=""
if gcc -O2 -o "$work/oneshot" bench/cbrotli/oneshot.c -lbrotlienc -lbrotlidec 2>/dev/null; then
	c="$work/oneshot"
else
	echo "# no C libbrotli (gcc and libbrotli-dev): impl=c-oneshot left out" >&2
fi
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; $(go version | cut -d' ' -f3-4); $in"
for _ in $(seq "${COUNT:-6}"); do
	(cd codec && M2M_CORPUS="$in" "$work/codec.test" -test.run '^$' -test.bench "Brotli/${BENCH:-}" -test.cpu 1 | grep '^Benchmark')
	if [ -n "$c" ]; then
		for q in 4 5 6; do "$c" "$in" $q 22 1; done
	fi
	echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"
done
