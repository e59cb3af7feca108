#!/usr/bin/env bash
# Side-by-side timings of REA against the system tools that do the same job,
# in one run on the same files. Usage: bench/compare.sh [FILE...]
# Default files: /usr/bin/node and /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1
# (apt-get install -y nodejs libllvm14). Prints one line per measurement and
# the ratios reported in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(/usr/bin/node /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/rea" ./cmd/rea

# best of N wall-clock seconds of a command (stdout discarded)
best() {
  local n=$1; shift
  local best=""
  for _ in $(seq "$n"); do
    local s e t
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    if [ -z "$best" ] || (( $(echo "$t < $best" | bc -l) )); then best=$t; fi
  done
  printf '%.4f' "$best"
}

for f in "${files[@]}"; do
  [ -r "$f" ] || { echo "skip $f (not installed)"; continue; }
  cat "$f" >/dev/null # warm the page cache for every contender alike
  nmflags=""; case "$f" in *.so*) nmflags="-D";; esac
  sha=$(best 5 sha256sum "$f")
  nmt=$(best 5 nm $nmflags "$f")
  str=$(best 3 strings -a "$f")
  hashns=$(REA_BENCH_FILE="$f" go test -run '^$' -bench HashFile -benchtime 5x ./engine/target/ | awk '/ns\/op/ {print $3}')
  hash=$(echo "$hashns / 1000000000" | bc -l)
  rea=$(best 3 "$work/rea" --ledger "$work/ledger-$RANDOM.db" analyze "$f")
  echo "file $f ($(stat -c %s "$f") bytes)"
  echo "  sha256sum            $sha s"
  echo "  nm $nmflags                $nmt s"
  echo "  strings -a           $str s"
  echo "  open_binary hashing  $(printf '%.4f' "$hash") s  (sha256sum/REA throughput ratio: $(echo "$sha / $hash" | bc -l | cut -c1-5))"
  echo "  sum of three         $(echo "$sha + $nmt + $str" | bc -l) s"
  echo "  rea analyze          $rea s  (ratio to the sum: $(echo "$rea / ($sha + $nmt + $str)" | bc -l | cut -c1-5))"
done
