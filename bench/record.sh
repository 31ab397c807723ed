#!/usr/bin/env bash
# record.sh REV ARCHIVE [NEW_ARCHIVE]: time `m2m-batch --record N`, a fresh
# process for each record (what a user's script that prints one record
# pays: start, reading the archive's index, decoding, exit), for m2m-batch
# built at git revision REV against m2m-batch built from the working tree,
# on the same records of ARCHIVE (an archive either build reads; or, across
# a change of layout, REV's reads ARCHIVE and the working tree's
# NEW_ARCHIVE, both written from the same input), alternating the two
# binaries record by record. Prints one line per read in the Go benchmark
# format (build=old is REV, build=new the working tree), then the mean and
# median of each and new/old. The records are RECORDS (default 20) drawn at
# random with a fixed seed, read ROUNDS times (default 2); each read's
# output is checked to be the same from both builds.
#
#	bash bench/record.sh 23b2394 big.m2m > record.txt
#	go run golang.org/x/perf/cmd/benchstat@latest -col /build record.txt
#
# The target (issue 17, bench/README.md): 15 ms on a GiB archive.
set -euo pipefail
cd "$(dirname "$0")/.."

rev=${1:?usage: record.sh REV ARCHIVE [NEW_ARCHIVE]}
archive=${2:?usage: record.sh REV ARCHIVE [NEW_ARCHIVE]}
declare -A file=([old]=$archive [new]=${3:-$archive})
records=${RECORDS:-20}
rounds=${ROUNDS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. bench/build.sh
build_pair "$rev" "$work"

total=$("$work/new" -l "${file[new]}" | sed -n 's/.*archive, \([0-9]*\) records.*/\1/p' | head -1)
if [ -z "$total" ] || [ "$total" -eq 0 ]; then
	echo "record.sh: ${file[new]}: no records listed" >&2
	exit 1
fi
RANDOM=7
picks=()
for _ in $(seq "$records"); do
	picks+=($(((RANDOM * 32768 + RANDOM) % total)))
done

echo "# $(git rev-parse --short "$rev") ($rev) against the working tree at $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo '+changes'), m2m-batch --record N of ${file[old]} (old), ${file[new]} (new) ($total records)"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; $(go version | cut -d' ' -f3-4); load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$rounds"); do
	for n in "${picks[@]}"; do
		for b in old new; do
			start=$(date +%s%N)
			"$work/$b" --record "$n" "${file[$b]}" > "$work/$b.out"
			end=$(date +%s%N)
			printf 'BenchmarkRecordN/build=%s\t1\t%d ns/op\n' "$b" $((end - start))
		done
		cmp -s "$work/old.out" "$work/new.out" || {
			echo "record.sh: record $n differs between the builds" >&2
			exit 1
		}
	done
done | tee "$work/lines"
echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"
awk '{ split($1, k, "="); t[k[2]] = t[k[2]] " " $3 }
	function median(s,   a, n, i, j, x) {
		n = split(s, a, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { x = a[j]; a[j] = a[j-1]; a[j-1] = x }
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	function mean(s,   a, n, i, sum) { n = split(s, a, " "); for (i = 1; i <= n; i++) sum += a[i]; return sum / n }
	END {
		printf "# --record N: mean old %.2f ms, new %.2f ms (new/old %.3f); median old %.2f ms, new %.2f ms (new/old %.3f)\n", \
			mean(t["old"])/1e6, mean(t["new"])/1e6, mean(t["new"])/mean(t["old"]), \
			median(t["old"])/1e6, median(t["new"])/1e6, median(t["new"])/median(t["old"])
	}' "$work/lines"
