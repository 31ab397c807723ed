#!/usr/bin/env bash
# Measures m2m-beam on Prism against its baselines, in one run:
#   scaling:  8 input files, 1 worker (one core: taskset -c 0, GOMAXPROCS=1)
#             against 2 workers (two cores)
#   overhead: one file, m2m-beam (Prism) against m2m-batch, both on every core
#   and, for the record, test and decompress of the 8 files' shards.
# Runs are interleaved round by round, and each is reported as median
# [min-max] of wall time, MB/s of JSONL, and CPU time (which other load on
# the machine disturbs less than wall time).
#
# Usage: bash beam/bench.sh [CORPUS]   (default $M2M_CORPUS, else the embedded sample)
# Knobs: ROUNDS (default 5), FILES (default 8), WORK (default a new temporary
# directory, removed at the end).
set -euo pipefail
cd "$(dirname "$0")"

corpus=$(realpath "${1:-${M2M_CORPUS:-../internal/sample/sample.jsonl}}")
rounds=${ROUNDS:-5}
nfiles=${FILES:-8}
work=${WORK:-}
if [ -z "$work" ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/bin" "$work/in" "$work/out"

go build -o "$work/bin/m2m-beam" ./cmd/m2m-beam
(cd .. && go build -o "$work/bin/m2m-batch" ./cmd/m2m-batch)
beam=$work/bin/m2m-beam
batch=$work/bin/m2m-batch

# FILES inputs like the corpus: each the corpus rotated by k/FILES of its
# lines, so that no two are alike byte for byte.
lines=$(wc -l <"$corpus")
for k in $(seq 0 $((nfiles - 1))); do
	skip=$((lines * k / nfiles))
	{ tail -n +$((skip + 1)) "$corpus"; head -n "$skip" "$corpus"; } >"$work/in/part-$k.jsonl"
done
single=$corpus
bytes_many=$(cat "$work"/in/*.jsonl | wc -c)
bytes_one=$(wc -c <"$single")

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(go version)"
echo "load before: $(uptime | sed 's/.*load average: //')"
echo "inputs: $nfiles files, $bytes_many bytes (each $corpus rotated); single file $bytes_one bytes; $rounds rounds"

# timed NAME CMD...: runs CMD, appends its wall and CPU (user + system)
# seconds to $work/NAME.
timed() {
	local name=$1
	shift
	rm -rf "$work/out/$name"
	/usr/bin/time -f '%e %U %S' -o "$work/time" "$@"
	awk '{ print $1, $2 + $3 }' "$work/time" >>"$work/$name"
}

for r in $(seq 1 "$rounds"); do
	timed beam-1w taskset -c 0 env GOMAXPROCS=1 "$beam" -q --input "$work/in/*.jsonl" --output "$work/out/beam-1w"
	timed beam-2w taskset -c 0,1 env GOMAXPROCS=2 "$beam" -q --input "$work/in/*.jsonl" --output "$work/out/beam-2w"
	timed batch-one "$batch" -q -f "$single" -o "$work/out/batch-one"
	timed beam-one "$beam" -q --input "$single" --output "$work/out/beam-one"
	timed beam-test "$beam" test -q --manifest "$work/out/beam-2w/manifest.jsonl"
	timed beam-restore "$beam" decompress -q --manifest "$work/out/beam-2w/manifest.jsonl" --output "$work/out/beam-restore"
	echo "round $r done; load $(uptime | sed 's/.*load average: //')"
done

# The outputs are right: every shard tests against its manifest, the
# manifest's totals are the inputs' bytes, and one file's shard is the
# very file m2m-batch writes.
"$beam" test -q --manifest "$work/out/beam-2w/manifest.jsonl"
"$batch" -q -t "$work/out/beam-1w/manifest.jsonl"
total=$(grep -o '"bytes_in":[0-9]*' "$work/out/beam-2w/manifest.jsonl" | cut -d: -f2 | paste -sd+ | bc)
[ "$total" = "$bytes_many" ] || { echo "manifest totals $total bytes, the inputs $bytes_many" >&2; exit 1; }
cmp "$work/out/batch-one" "$work/out/beam-one"/shards/*.m2m
cmp "$work/out/beam-1w/manifest.jsonl" "$work/out/beam-2w/manifest.jsonl"
for f in "$work"/in/*.jsonl; do cmp "$f" "$work/out/beam-restore/$(basename "$f")"; done

# col NAME K: column K (1 wall, 2 CPU) of $work/NAME, sorted.
col() { awk -v k="$2" '{ print $k }' "$work/$1" | sort -n; }
median() { col "$1" "$2" | awk '{ t[NR] = $1 } END { print (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }'; }
best() { col "$1" "$2" | head -1; }
worst() { col "$1" "$2" | tail -1; }
# row NAME BYTES LABEL: a table row.
row() {
	awk -v l="$3" -v b="$2" -v m="$(median "$1" 1)" -v lo="$(best "$1" 1)" -v hi="$(worst "$1" 1)" -v c="$(median "$1" 2)" \
		'BEGIN { printf "| %s | %.2f [%.2f-%.2f] | %.1f | %.1f | %.2f |\n", l, m, lo, hi, b / m / 1e6, b / lo / 1e6, c }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo
echo "| run | wall s, median [min-max] of $rounds | MB/s at the median | MB/s at the min | CPU s (user+sys), median |"
echo "|---|---|---|---|---|"
row beam-1w "$bytes_many" "m2m-beam, $nfiles files, 1 worker (1 core)"
row beam-2w "$bytes_many" "m2m-beam, $nfiles files, 2 workers (2 cores)"
row batch-one "$bytes_one" "m2m-batch, 1 file (2 cores)"
row beam-one "$bytes_one" "m2m-beam, 1 file (2 cores)"
row beam-test "$bytes_many" "m2m-beam test, $nfiles files (2 cores)"
row beam-restore "$bytes_many" "m2m-beam decompress, $nfiles files (2 cores)"
echo
echo "scaling, 2 workers over 1 (target >= 1.7x): $(ratio "$(median beam-1w 1)" "$(median beam-2w 1)")x at the medians, $(ratio "$(best beam-1w 1)" "$(best beam-2w 1)")x at the mins"
echo "m2m-beam over m2m-batch on 1 file (target <= 1.15): wall $(ratio "$(median beam-one 1)" "$(median batch-one 1)") at the medians, $(ratio "$(best beam-one 1)" "$(best batch-one 1)") at the mins; CPU $(ratio "$(median beam-one 2)" "$(median batch-one 2)")"
echo "load after: $(uptime | sed 's/.*load average: //')"
