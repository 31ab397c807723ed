#!/usr/bin/env bash
# gen.sh [CORPUS]: record the CPU profiles in profiles/ from representative
# m2m-batch runs and merge them into cmd/m2m-batch/default.pgo, the profile
# `go build` applies by default (-pgo=auto). The binary that records them is
# built with -pgo=off so the profile describes unoptimised code paths.
#
#	bash profiles/gen.sh $CORPORA/dev.jsonl
#
# Runs (CORPUS defaults to $M2M_CORPUS, else the embedded sample):
#   compress.pprof    three copies of CORPUS from standard input, one worker
#                     (the per-record Brotli path, long enough for ~3 s of samples)
#   tokennative.pprof CORPUS with --algorithm tokennative, one worker
#   decompress.pprof  the compress output back, one worker
set -euo pipefail
cd "$(dirname "$0")/.."

in=${1:-${M2M_CORPUS:-internal/sample/sample.jsonl}}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -pgo=off -o "$work/m2m-batch" ./cmd/m2m-batch
bin="$work/m2m-batch"

cat "$in" "$in" "$in" | "$bin" -q -T1 -c --cpuprofile profiles/compress.pprof >"$work/x3.m2m"
"$bin" -q -T1 -c --algorithm tokennative --cpuprofile profiles/tokennative.pprof "$in" >/dev/null
"$bin" -q -T1 -d -c --cpuprofile profiles/decompress.pprof "$work/x3.m2m" >/dev/null

go tool pprof -proto profiles/compress.pprof profiles/tokennative.pprof profiles/decompress.pprof \
	>cmd/m2m-batch/default.pgo 2>/dev/null
echo "profiles from commit $(git rev-parse --short HEAD), $(go version | cut -d' ' -f3-4), input $in ($(stat -c %s "$in") bytes)"
