#!/usr/bin/env bash
# versus.sh REV [FILE]: time m2m-batch built at git revision REV against
# m2m-batch built from the working tree, on the same file in the same run,
# alternating the two binaries, and print one line per run in the Go
# benchmark format (build=old is REV, build=new the working tree), wall and
# CPU time (user and system: what the run costs, whatever else shares the
# cores), then the medians and new/old. FILE defaults to
# $M2M_CORPUS, else the embedded sample. Needs GNU time.
#
#	bash bench/versus.sh main > versus.txt
#	go run golang.org/x/perf/cmd/benchstat@latest -col /build versus.txt
#
# Knobs: RUNS (timed runs per binary and operation; default 10), ARGS (the
# m2m-batch flags of both binaries; default -T0, the default mode on every
# core; ARGS="--archive -T2" times archive mode). Compression writes the
# format ARGS asks for; decompression reads it back, with ARGS but the
# flags that only compression takes (--archive, --max, a level -N), and
# the round trip is checked once per binary. Both are built with go
# build's defaults (each with its own default.pgo).
set -euo pipefail
cd "$(dirname "$0")/.."

rev=${1:?usage: versus.sh REV [FILE]}
in=${2:-${M2M_CORPUS:-internal/sample/sample.jsonl}}
runs=${RUNS:-10}
args=${ARGS:--T0}
dargs=
for a in $args; do
	case $a in
	--archive | --max | -[0-9]) ;;
	*) dargs="$dargs $a" ;;
	esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. bench/build.sh
build_pair "$rev" "$work"
size=$(stat -c %s "$in")

for b in old new; do
	"$work/$b" -q -f $args -o "$work/$b.m2m" "$in"
	"$work/$b" -q -d -c $dargs "$work/$b.m2m" | cmp -s - "$in" || {
		echo "versus.sh: $b does not give $in back" >&2
		exit 1
	}
done

# run NAME OP CMD: times CMD once, wall and CPU (user and system, from GNU
# time), and prints a benchmark line for it.
run() {
	local start end
	start=$(date +%s%N)
	/usr/bin/time -f '%U %S' -o "$work/time" bash -c "$3" >/dev/null
	end=$(date +%s%N)
	awk -v b="$1" -v op="$2" -v ns=$((end - start)) -v s="$size" -v p="$(stat -c %s "$work/$1.m2m")" -v t="$(cat "$work/time")" 'BEGIN{
		split(t, c, " "); cpu = (c[1] + c[2]) * 1e9
		printf "BenchmarkBatch/op=%s/build=%s\t1\t%.0f ns/op\t%.2f MB/s\t%.0f cpu-ns/op\t%.2f cpu-MB/s\t%.4f ratio\n", op, b, ns, s/ns*1e3, cpu, s/cpu*1e3, s/p }'
}

echo "# $(git rev-parse --short "$rev") ($rev) against the working tree at $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo '+changes'), m2m-batch -q $args on $in ($size bytes)"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; $(go version | cut -d' ' -f3-4); load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$runs"); do
	for b in old new; do
		run $b compress "$work/$b -q -f $args -o $work/$b.m2m $in"
		run $b decompress "$work/$b -q -d -c $dargs $work/$b.m2m"
	done
done | tee "$work/lines"
echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"
awk '{ split($1, k, "/"); w[k[2] " " k[3]] = w[k[2] " " k[3]] " " $3; c[k[2] " " k[3]] = c[k[2] " " k[3]] " " $7 }
	function median(s,   a, n, i, j, x) {
		n = split(s, a, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { x = a[j]; a[j] = a[j-1]; a[j-1] = x }
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	END {
		split("op=compress op=decompress", ops, " ")
		for (i = 1; i <= 2; i++) {
			ow = median(w[ops[i] " build=old"]); nw = median(w[ops[i] " build=new"])
			oc = median(c[ops[i] " build=old"]); nc = median(c[ops[i] " build=new"])
			printf "# %s, medians: wall old %.3f s, new %.3f s, new/old %.3f; CPU old %.3f s, new %.3f s, new/old %.3f\n", \
				substr(ops[i], 4), ow/1e9, nw/1e9, nw/ow, oc/1e9, nc/1e9, nc/oc
		}
	}' "$work/lines"
