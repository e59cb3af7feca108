#!/usr/bin/env bash
# Issue 27's search_bytes line, side by side in one run on the same file:
# one search_bytes page (BenchmarkSearchBytes in engine/provider/builtin: a
# warm client, offset 0, limit 100, total counted over every mapped section)
# against `grep -c -a -P` for the same pattern on the file's bytes (LC_ALL=C,
# (?s) so a wildcard also matches a newline byte). Each round runs both,
# interleaved, and prints wall and CPU (user+sys) seconds and their ratios;
# on a shared machine wall time also counts waiting for a core, so the CPU
# ratio is the steadier one. grep counts matching lines, not matches; the
# match count printed beside it is `grep -o | wc -l` (non-overlapping, and
# blind to matches that span a newline byte), for information.
#
# Usage: bench/search_bytes.sh [FILE] [PATTERN]   (REA_BENCH_ROUNDS=N, default 3)
# Default: libLLVM-14.so.1 (apt-get install -y libllvm14) and a 12-byte
# pattern with 4 wildcards.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
file=${1:-/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1}
pattern=${2:-"48 8b ?? ?? 48 85 c0 74 ?? 48 8b ??"}
rounds=${REA_BENCH_ROUNDS:-3}
for tool in grep bc /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }
done
[ -r "$file" ] || { echo "missing $file" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/builtin.test" ./engine/provider/builtin/ # built once, never measured

regex='(?s)'
for tok in $pattern; do
  if [ "$tok" = "??" ]; then regex+='.'; else regex+="\\x$tok"; fi
done

# rea: "wall cpu hits" of one search (the benchmark's per-op figures).
rea() {
  (cd engine/provider/builtin && REA_BENCH_FILE="$file" REA_BENCH_PATTERN="$pattern" "$work/builtin.test" \
    -test.run '^$' -test.bench '^BenchmarkSearchBytes$' -test.benchtime 5x) |
    awk '/ns\/op/ {for (i = 1; i < NF; i++) {
      if ($(i+1) == "ns/op") w = $i / 1e9; if ($(i+1) == "cpu-s/op") c = $i; if ($(i+1) == "hits") h = $i }
      printf "%.4f %.4f %d", w, c, h }'
}

# grepc: "wall cpu lines" of one grep -c -P.
grepc() {
  local out
  out=$( { LC_ALL=C /usr/bin/time -f '%e %U %S' grep -c -a -P "$regex" "$file" > "$work/lines"; } 2>&1 )
  set -- $out
  printf '%s %s %s' "$1" "$(echo "$2 + $3" | bc -l)" "$(cat "$work/lines")"
}

ratio() { printf '%.3f' "$(echo "($1) / ($2)" | bc -l)"; }

cat "$file" >/dev/null # a warm page cache for both alike
echo "file $file ($(stat -c %s "$file") bytes), pattern \"$pattern\", grep -P '$regex'"
echo "grep -o matches (non-overlapping, within lines): $(LC_ALL=C grep -o -a -P "$regex" "$file" | wc -l)"
for r in $(seq "$rounds"); do
  read -r rw rc hits <<<"$(rea)"
  read -r gw gc lines <<<"$(grepc)"
  echo "round $r: search_bytes ${rw}s wall ${rc}s cpu ($hits hits) | grep -c -P ${gw}s wall ${gc}s cpu ($lines lines) | ratio wall $(ratio "$rw" "$gw") cpu $(ratio "$rc" "$gc")"
done
