#!/usr/bin/env bash
# scaling.sh [FILE]: how much a second worker gives m2m-batch --archive,
# against what the machine itself gives: alternating, RUNS times, one
# process at -T1, one at -T2, and two -T1 processes at once (independent
# work that shares nothing, the most two cores can do for it), for
# compression of FILE and decompression of its archive. Prints the medians
# of wall time, -T2 over -T1, and the throughput of the two processes at
# once over one (2 * T1 / both), and the medians of the -T1 and -T2 runs'
# user and system CPU seconds (GNU time): what a second worker costs
# besides its share. FILE defaults to $M2M_CORPUS, else the embedded
# sample.
#
#	bash bench/scaling.sh $CORPORA/dev100.jsonl
#
# Knobs: RUNS (default 11), ARGS (m2m-batch flags besides -T; default
# --archive).
set -euo pipefail
cd "$(dirname "$0")/.."

in=${1:-${M2M_CORPUS:-internal/sample/sample.jsonl}}
runs=${RUNS:-11}
args=${ARGS:---archive}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/m2m-batch" ./cmd/m2m-batch
m2m="$work/m2m-batch"
# shellcheck disable=SC2086
"$m2m" $args -q -c "$in" > "$work/packed.m2m"

# ms CMD...: runs the commands (words split at spaces) at once and prints
# the wall time in milliseconds from the first start to the last end. With
# CPU set to a file, it appends each command's user and system seconds
# there (GNU time), one line a command.
ms() {
	local start end
	start=$(date +%s%N)
	for c in "$@"; do
		if [ -n "${CPU:-}" ]; then
			# shellcheck disable=SC2086
			/usr/bin/time -f "%U %S" -a -o "$CPU" $c > /dev/null &
		else
			# shellcheck disable=SC2086
			$c > /dev/null &
		fi
	done
	wait
	end=$(date +%s%N)
	echo $(((end - start) / 1000000))
}

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(go version | cut -d' ' -f3-); $runs runs each, alternating"
echo
echo "| operation | -T1 ms | -T2 ms | -T2 over -T1 | two -T1 at once ms | two at once over one | -T1 user / sys s | -T2 user / sys s |"
echo "|---|---|---|---|---|---|---|---|"
for op in compress decompress; do
	if [ "$op" = compress ]; then
		one="$m2m $args -q -T1 -c $in"
		two="$m2m $args -q -T2 -c $in"
	else
		one="$m2m -d -q -T1 -c $work/packed.m2m"
		two="$m2m -d -q -T2 -c $work/packed.m2m"
	fi
	: > "$work/t1"
	: > "$work/t2"
	: > "$work/both"
	: > "$work/cpu1"
	: > "$work/cpu2"
	for _ in $(seq "$runs"); do
		CPU="$work/cpu1" ms "$one" >> "$work/t1"
		CPU="$work/cpu2" ms "$two" >> "$work/t2"
		ms "$one" "$one" >> "$work/both"
	done
	t1=$(median < "$work/t1")
	t2=$(median < "$work/t2")
	both=$(median < "$work/both")
	# The medians of user and of system seconds, apart: the system time
	# of a -T1 run (page faults, the kernel zeroing fresh pages) moves
	# from run to run, and -T2 over -T1 with it.
	cpu1="$(cut -d' ' -f1 < "$work/cpu1" | median) / $(cut -d' ' -f2 < "$work/cpu1" | median)"
	cpu2="$(cut -d' ' -f1 < "$work/cpu2" | median) / $(cut -d' ' -f2 < "$work/cpu2" | median)"
	awk -v op="$op" -v t1="$t1" -v t2="$t2" -v both="$both" -v cpu1="$cpu1" -v cpu2="$cpu2" \
		'BEGIN {printf "| %s | %.0f | %.0f | %.2fx | %.0f | %.2fx | %s | %s |\n", op, t1, t2, t1 / t2, both, 2 * t1 / both, cpu1, cpu2}'
done
