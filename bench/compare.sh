#!/usr/bin/env bash
# compare.sh FILE: time m2m-batch and the system's compressors on FILE, the
# same bytes for each, and print a markdown table (ratio, wall time, MB/s of
# FILE, peak RSS, for compression and decompression) with the machine, the
# Go version and the exact commands. Tools that are not installed are listed
# as such. Needs Go and /usr/bin/time (GNU time, for peak RSS).
#
#	bash bench/compare.sh $CORPORA/dev.jsonl > table.md
#
# Knobs: RUNS (timed runs per command, best kept; default 3), M2M_ARGS
# (extra flags for every m2m-batch row), SLOW=0 (leave out the slowest
# peers: brotli -q 11, xz -9 and 7zz's PPMd), MAX=0 (leave out
# m2m-batch --max).
#
# After the table, the archive's targets are checked against the peers of
# the same run: ratio against zstd -19 --long=27, compression time against
# a twentieth of its, decompression time against twice its; for --max,
# ratio against 1.4 times zstd -19 --long=27's, compression time against
# its, decompression against 10 MB/s a core.
set -euo pipefail
cd "$(dirname "$0")/.."

in=${1:?usage: compare.sh FILE}
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/m2m-batch" ./cmd/m2m-batch
m2m="$work/m2m-batch"
size=$(stat -c %s "$in")
cores=$(nproc)

# measure CMD: runs the shell command CMD RUNS times; prints "seconds
# maxrss_kb" of the fastest run (wall time to the nanosecond from date, peak
# RSS from GNU time).
measure() {
	local best="" rss=""
	for _ in $(seq "$runs"); do
		local start end t m
		start=$(date +%s%N)
		/usr/bin/time -f '%M' -o "$work/time" bash -c "$1" >/dev/null 2>"$work/err" || {
			cat "$work/err" >&2
			return 1
		}
		end=$(date +%s%N)
		t=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.3f", (b-a)/1e9}')
		m=$(cat "$work/time")
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a<b)}'; then
			best=$t rss=$m
		fi
	done
	echo "$best $rss"
}

row() { # name, compress command (FILE -> packed), decompress command (packed -> stdout)
	local name=$1 c=$2 d=$3
	local ct cr dt dr packed
	read -r ct cr < <(measure "$c")
	packed=$(stat -c %s "$work/packed")
	read -r dt dr < <(measure "$d")
	# Check the round trip once.
	if ! bash -c "$d" | cmp -s - "$in"; then
		echo "| $name | round trip FAILED | | | | | | |"
		return
	fi
	awk -v n="$name" -v s="$size" -v p="$packed" -v ct="$ct" -v cr="$cr" -v dt="$dt" -v dr="$dr" 'BEGIN{
		cs = ct > 0 ? sprintf("%.1f", s/1e6/ct) : "-"; ds = dt > 0 ? sprintf("%.1f", s/1e6/dt) : "-"
		printf "| %s | %.2f | %.3f | %s | %.0f | %.3f | %s | %.0f |\n", n, s/p, ct, cs, cr/1024, dt, ds, dr/1024 }'
	echo "$name $packed $ct $dt" >>"$work/results"
	rm -f "$work/packed"
}

echo "Input: \`$in\`, $size bytes. Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $cores cores; $(go version | cut -d' ' -f3-4); $("$m2m" -V)."
echo "Best of $runs runs each; MB/s are of the input; RSS is the peak resident set."
echo
echo "| tool | ratio | compress s | MB/s | RSS MB | decompress s | MB/s | RSS MB |"
echo "|---|---|---|---|---|---|---|---|"
row "m2m-batch -T0${M2M_ARGS:+ $M2M_ARGS}" "$m2m -q -f -T0 ${M2M_ARGS:-} -o $work/packed $in" "$m2m -q -d -c -T0 $work/packed"
row "m2m-batch --algorithm hydra -T0${M2M_ARGS:+ $M2M_ARGS}" "$m2m -q -f --algorithm hydra -T0 ${M2M_ARGS:-} -o $work/packed $in" "$m2m -q -d -c -T0 $work/packed"
row "m2m-batch --archive -T0${M2M_ARGS:+ $M2M_ARGS}" "$m2m -q -f --archive -T0 ${M2M_ARGS:-} -o $work/packed $in" "$m2m -q -d -c -T0 $work/packed"
row "m2m-batch --archive -4 -T0${M2M_ARGS:+ $M2M_ARGS}" "$m2m -q -f --archive -4 -T0 ${M2M_ARGS:-} -o $work/packed $in" "$m2m -q -d -c -T0 $work/packed"
if [ "${MAX:-1}" != 0 ]; then
	row "m2m-batch --max -T0${M2M_ARGS:+ $M2M_ARGS}" "$m2m -q -f --max -T0 ${M2M_ARGS:-} -o $work/packed $in" "$m2m -q -d -c -T0 $work/packed"
fi
# The compress command leaves the output in $work/packed for the decompress one.
have() { command -v "$1" >/dev/null; }
if have zstd; then
	row "zstd -3 -T0" "zstd -q -f -3 -T0 $in -o $work/packed" "zstd -q -d -c $work/packed"
	row "zstd -19 --long=27 -T0" "zstd -q -f -19 --long=27 -T0 $in -o $work/packed" "zstd -q -d -c --long=27 $work/packed"
else
	echo "| zstd | not installed | | | | | | |"
fi
if have brotli; then
	row "brotli -q 5" "brotli -f -q 5 $in -o $work/packed" "brotli -d -c $work/packed"
	if [ "${SLOW:-1}" != 0 ]; then
		row "brotli -q 11 --large_window=24" "brotli -f -q 11 --large_window=24 $in -o $work/packed" "brotli -d -c $work/packed"
	fi
else
	echo "| brotli | not installed | | | | | | |"
fi
if have xz && [ "${SLOW:-1}" != 0 ]; then
	row "xz -9 -T0" "xz -9 -T0 -c $in > $work/packed" "xz -d -c $work/packed"
fi
if have 7zz && [ "${SLOW:-1}" != 0 ]; then
	# The input through a pipe (-si): given a file, or a file as stdin,
	# 7-Zip cuts PPMd's memory to 16 bytes a byte of it (512 MiB for
	# dev.jsonl), which order 16 fills.
	row "7zz PPMd o16 1 GiB" "cat $in | 7zz a -bd -m0=PPMd:o=16:mem=1g -si $work/packed.7z >/dev/null && mv $work/packed.7z $work/packed" "7zz e -so $work/packed"
fi
if have gzip; then
	row "gzip -6" "gzip -6 -c $in > $work/packed" "gzip -d -c $work/packed"
fi
echo
# The archive's targets, against the peers of this run.
awk -v s="$size" -v cores="$cores" '
	{ n = $1; for (i = 2; i <= NF - 3; i++) n = n " " $i; p[n] = $(NF-2); c[n] = $(NF-1); d[n] = $NF }
	END {
		z = "zstd -19 --long=27 -T0"
		if (!(z in p)) exit
		for (n in p) if (n ~ /^m2m-batch --archive/) {
			printf "- %s: ratio %.3f, %.3fx of %s'"'"'s (%d bytes against %d; target >= 1); compression %.3f s, %.1fx faster (target >= 20); decompression %.3f s, %.2fx its (target <= 2)\n", \
				n, s/p[n], p[z]/p[n], z, p[n], p[z], c[n], c[z]/c[n], d[n], d[n]/d[z]
		}
		for (n in p) if (n ~ /^m2m-batch --max/) {
			printf "- %s: ratio %.3f, %.3fx of %s'"'"'s (%d bytes against %d; target >= 1.4 on dev100, 1.2 on dev); compression %.3f s, %.2fx its (target <= 1); decompression %.1f MB/s on %d cores (target >= 10 a core)\n", \
				n, s/p[n], p[z]/p[n], z, p[n], p[z], c[n], c[n]/c[z], s/1e6/d[n], cores
		}
	}' "$work/results"
echo
echo "Commands (FILE is the input):"
echo
echo '```'
echo "m2m-batch -T0 ${M2M_ARGS:-} -o OUT FILE; m2m-batch -d -c -T0 OUT"
echo "m2m-batch --algorithm hydra -T0 ${M2M_ARGS:-} -o OUT FILE; m2m-batch -d -c -T0 OUT"
echo "m2m-batch --archive -T0 ${M2M_ARGS:-} -o OUT FILE; m2m-batch -d -c -T0 OUT"
echo "m2m-batch --archive -4 -T0 ${M2M_ARGS:-} -o OUT FILE; m2m-batch -d -c -T0 OUT"
echo "m2m-batch --max -T0 ${M2M_ARGS:-} -o OUT FILE; m2m-batch -d -c -T0 OUT"
echo "zstd -3 -T0 FILE -o OUT; zstd -d -c OUT"
echo "zstd -19 --long=27 -T0 FILE -o OUT; zstd -d -c --long=27 OUT"
echo "brotli -q 5 FILE -o OUT; brotli -d -c OUT"
echo "brotli -q 11 --large_window=24 FILE -o OUT; brotli -d -c OUT"
echo "xz -9 -T0 -c FILE > OUT; xz -d -c OUT"
echo "cat FILE | 7zz a -m0=PPMd:o=16:mem=1g -si OUT; 7zz e -so OUT"
echo "gzip -6 -c FILE > OUT; gzip -d -c OUT"
echo '```'
