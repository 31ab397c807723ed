#!/usr/bin/env bash
# shapes.sh CORPUS: the archive on every shape of LLM traffic the bench
# tools make of CORPUS (bench/reshape's kinds: other APIs, wrappers, log
# prefixes, event streams, images inline, CSV exports, pretty-printed JSON)
# and on bench/numbers' logs (embeddings as numbers and as base64,
# logprobs), against zstd -19 --long=27 on the same bytes: a markdown table
# of sizes, ratios and the archive's share of zstd's ratio, every archive
# read back and compared byte for byte. A shape that falls far behind the
# others is a regression or a shape the archive does not take apart
# (embeddings in base64 were 0.99x from layout 5 to 10, and nothing said
# so).
#
#	bash bench/shapes.sh $CORPORA/dev.jsonl > shapes.md
#
# Knobs: MAX=1 (add m2m-batch --max), L4=1 (add --archive -4), KINDS
# (the reshape kinds; default all of them).
set -euo pipefail
cd "$(dirname "$0")/.."

in=${1:?usage: shapes.sh CORPUS}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/m2m-batch" ./cmd/m2m-batch
go build -o "$work/reshape" ./bench/reshape
go build -o "$work/numbers" ./bench/numbers
kinds=${KINDS:-anthropic batch gateway bodies logline sse images csv pretty array}
max=${MAX:-0}
l4=${L4:-0}

echo "# m2m-batch --archive on the shapes of $(basename "$in")"
echo
echo "$(uname -m), $(nproc) cores, $(go version | cut -d' ' -f3), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo
head="| shape | bytes | \`--archive\` | share |"
rule="|---|---|---|---|"
if [ "$l4" = 1 ]; then
	head="$head \`--archive -4\` | share |"
	rule="$rule---|---|"
fi
if [ "$max" = 1 ]; then
	head="$head \`--max\` | share |"
	rule="$rule---|---|"
fi
echo "$head \`zstd -19 --long=27\` |"
echo "$rule---|"

# ratio SIZE PACKED: SIZE/PACKED to two places.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# archived FILE LEVEL: the bytes of FILE's archive at LEVEL (a flag),
# after checking that it decodes to FILE.
archived() {
	"$work/m2m-batch" -q $2 -c "$1" > "$work/a"
	"$work/m2m-batch" -q -d -c "$work/a" | cmp -s - "$1" || { echo "shapes.sh: $1 $2 does not decode to itself" >&2; exit 1; }
	stat -c %s "$work/a"
}

# row NAME FILE: one shape's row.
row() {
	local size a z line
	size=$(stat -c %s "$2")
	a=$(archived "$2" --archive)
	z=$(zstd -q -19 --long=27 -T0 -c "$2" | wc -c)
	line="| $1 | $size | $a ($(ratio "$size" "$a")x) | $(ratio "$z" "$a")x"
	if [ "$l4" = 1 ]; then
		local b
		b=$(archived "$2" "--archive -4")
		line="$line | $b ($(ratio "$size" "$b")x) | $(ratio "$z" "$b")x"
	fi
	if [ "$max" = 1 ]; then
		local m
		m=$(archived "$2" --max)
		line="$line | $m ($(ratio "$size" "$m")x) | $(ratio "$z" "$m")x"
	fi
	echo "$line | $z ($(ratio "$size" "$z")x) |"
}

row "$(basename "$in")" "$in"
for k in $kinds; do
	"$work/reshape" -kind "$k" < "$in" > "$work/s"
	row "reshape -kind $k" "$work/s"
done
"$work/numbers" -kind embeddings > "$work/s"
row "numbers -kind embeddings" "$work/s"
"$work/numbers" -kind embeddings -base64 > "$work/s"
row "numbers -kind embeddings -base64" "$work/s"
"$work/numbers" -kind logprobs > "$work/s"
row "numbers -kind logprobs" "$work/s"
