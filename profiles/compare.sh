#!/usr/bin/env bash
# compare.sh [CORPUS]: time m2m-batch built with -pgo=off against the default
# build (-pgo=auto, which applies cmd/m2m-batch/default.pgo) on the runs the
# profile was recorded from, alternating the two binaries, and print the
# samples in Go benchmark format for benchstat:
#
#	bash profiles/compare.sh $CORPORA/dev.jsonl > /tmp/pgo.txt
#	go run golang.org/x/perf/cmd/benchstat@latest -col /pgo /tmp/pgo.txt
#
# RUNS sets the samples per binary and run (default 8).
set -euo pipefail
cd "$(dirname "$0")/.."

in=${1:-${M2M_CORPUS:-internal/sample/sample.jsonl}}
runs=${RUNS:-8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -pgo=off -o "$work/off" ./cmd/m2m-batch
go build -pgo=auto -o "$work/auto" ./cmd/m2m-batch
"$work/off" -q -T1 -c "$in" >"$work/in.m2m"
"$work/off" -q -T1 --archive -c "$in" >"$work/in.archive.m2m"
"$work/off" -q -T1 --max -c "$in" >"$work/in.max.m2m"
size=$(stat -c %s "$in")

# sample NAME PGO CMD...: one timed run, one benchmark line.
sample() {
	local name=$1 pgo=$2 start end
	shift 2
	start=$(date +%s%N)
	"$@" >/dev/null
	end=$(date +%s%N)
	awk -v n="$name" -v p="$pgo" -v t=$((end - start)) -v s="$size" \
		'BEGIN{printf "BenchmarkBinary/run=%s/pgo=%s 1 %.0f ns/op %.2f MB/s\n", n, p, t, s/(t/1e3)}'
}

echo "goos: $(go env GOOS)"
echo "goarch: $(go env GOARCH)"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
for _ in $(seq "$runs"); do
	for pgo in off auto; do
		sample compress "$pgo" "$work/$pgo" -q -T1 -c "$in"
		sample tokennative "$pgo" "$work/$pgo" -q -T1 -c --algorithm tokennative "$in"
		sample decompress "$pgo" "$work/$pgo" -q -T1 -d -c "$work/in.m2m"
		sample archive "$pgo" "$work/$pgo" -q -T1 --archive -c "$in"
		sample archive-d "$pgo" "$work/$pgo" -q -T1 -d -c "$work/in.archive.m2m"
		sample max "$pgo" "$work/$pgo" -q -T1 --max -c "$in"
		sample max-d "$pgo" "$work/$pgo" -q -T1 -d -c "$work/in.max.m2m"
	done
done
