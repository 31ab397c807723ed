#!/usr/bin/env bash
# coder.sh [FILE]: the archive's context-model coder (package ppm) alone,
# beside PPMd-class and LZ peers on the same bytes, one core each: bits per
# byte, compression and decompression MB/s, as a markdown table. FILE is
# one stream of an archive; with no FILE, the strings stream of
# M2M_CORPUS's archive (dumped by archive's TestDumpStreams).
#
#	M2M_CORPUS=$CORPORA/dev.jsonl bash bench/coder.sh > coder.md
#
# Knobs: RUNS (timed runs per command, best kept; default 2).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${RUNS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
in=${1:-}
if [ -z "$in" ]; then
	: "${M2M_CORPUS:?set M2M_CORPUS or name a FILE}"
	M2M_DUMP=$work go test -count=1 -run TestDumpStreams ./archive >/dev/null
	in=$work/strings
fi
size=$(stat -c %s "$in")
go test -c -o "$work/ppm.test" ./ppm

# best CMD: the fastest of RUNS runs of the shell command CMD, in seconds.
best() {
	local b=""
	for _ in $(seq "$runs"); do
		local s e t
		s=$(date +%s%N)
		bash -c "$1" >/dev/null
		e=$(date +%s%N)
		t=$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.3f", (b-a)/1e9}')
		if [ -z "$b" ] || awk -v a="$t" -v b="$b" 'BEGIN{exit !(a<b)}'; then b=$t; fi
	done
	echo "$b"
}

row() { # name, compress command (-> $work/packed), decompress command (-> stdout)
	local ct dt packed
	ct=$(best "$2")
	packed=$(stat -c %s "$work/packed")
	dt=$(best "$3")
	bash -c "$3" | cmp -s - "$in" || { echo "| $1 | round trip FAILED | | |"; return; }
	awk -v n="$1" -v s="$size" -v p="$packed" -v c="$ct" -v d="$dt" \
		'BEGIN{ printf "| %s | %d | %.3f | %.2f | %.2f |\n", n, p, 8*p/s, s/1e6/c, s/1e6/d }'
	rm -f "$work/packed"
}

echo "Input: \`${1:-strings stream of $M2M_CORPUS}\`, $size bytes. Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); $(go version | cut -d' ' -f3-4). One core each; best of $runs runs."
echo
echo "| coder | bytes | bits/byte | compress MB/s | decompress MB/s |"
echo "|---|---|---|---|---|"
# ppm: its benchmarks time the coder in process, on the same bytes.
out=$(GOMAXPROCS=1 PPM_FILE=$in "$work/ppm.test" -test.run '^$' -test.bench 'Encode|Decode' -test.benchtime "${runs}x")
for w in off on; do
	awk -v s="$size" -v w="$w" '
		$1 ~ "^BenchmarkEncode/words=" w { for (i = 1; i <= NF; i++) { if ($(i+1) == "MB/s") c = $i; if ($(i+1) == "bits/byte") b = $i } }
		$1 ~ "^BenchmarkDecode/words=" w { for (i = 1; i <= NF; i++) if ($(i+1) == "MB/s") d = $i }
		END { printf "| ppm (order 16, 256 MiB%s) | %d | %.3f | %.2f | %.2f |\n", (w == "on" ? ", words replaced" : ""), s*b/8, b, c, d }' <<<"$out"
done
have() { command -v "$1" >/dev/null; }
if have 7zz; then
	# The input through a pipe (-si): given a file, or a file as stdin,
	# 7-Zip cuts PPMd's memory to 16 bytes a byte of it, which order 16
	# fills on text of a few MiB.
	for o in 16 8; do
		row "7zz PPMd o$o 256 MiB" "cat $in | 7zz a -bd -mmt=1 -m0=PPMd:o=$o:mem=256m -si $work/packed.7z >/dev/null && mv $work/packed.7z $work/packed" \
			"7zz e -so $work/packed"
	done
fi
if have xz; then row "xz -9" "xz -9 -T1 -c $in > $work/packed" "xz -d -c $work/packed"; fi
if have zstd; then
	row "zstd -19" "zstd -q -f -19 -T1 $in -o $work/packed" "zstd -q -d -c $work/packed"
	row "zstd -19 --long=27" "zstd -q -f -19 --long=27 -T1 $in -o $work/packed" "zstd -q -d -c --long=27 $work/packed"
fi
if have brotli; then row "brotli -q 11 --large_window=24" "brotli -f -q 11 --large_window=24 $in -o $work/packed" "brotli -d -c $work/packed"; fi
