#!/usr/bin/env bash
# Side-by-side timings of REA against the system tools that do the same job,
# in one run on the same files. Usage: bench/compare.sh [FILE...]
# Default files: /usr/bin/node and /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1
# (apt-get install -y nodejs libllvm14 gdb). Prints one line per measurement
# and the ratios reported in BENCHMARKS.md.
#
# REA_COMPARE_QUICK=1 leaves out the two slow measurements (gdb and the MCP
# listing, several seconds each per file).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(/usr/bin/node /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1)
quick=${REA_COMPARE_QUICK:-0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/rea" ./cmd/rea
# Test binaries are built once, so compile time is never measured.
go test -c -o "$work/target.test" ./engine/target/
go test -c -o "$work/builtin.test" ./engine/provider/builtin/
[ "$quick" = 1 ] || go test -c -o "$work/tools.test" ./tools/

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

# gobench BINARY PKGDIR NAME FILE N: seconds per op of one Go benchmark on FILE.
# A test binary runs in its package directory (it finds testdata and, for
# ./tools, builds cmd/rea relative to it).
gobench() {
  local bin=$1 dir=$2 name=$3 f=$4 n=$5
  (cd "$dir" && REA_BENCH_FILE="$f" "$bin" -test.run '^$' -test.bench "^Benchmark${name}\$" -test.benchtime "${n}x") |
    awk '/ns\/op/ {for (i = 1; i < NF; i++) if ($(i+1) == "ns/op") printf "%.4f", $i / 1e9}'
}

ratio() { echo "($1) / ($2)" | bc -l | cut -c1-5; }

for f in "${files[@]}"; do
  [ -r "$f" ] || { echo "skip $f (not installed)"; continue; }
  cat "$f" >/dev/null # warm the page cache for every contender alike
  nmflags=""; case "$f" in *.so*) nmflags="-D";; esac
  sha=$(best 5 sha256sum "$f")
  nmt=$(best 5 nm $nmflags "$f")
  str=$(best 3 strings -a "$f")
  hash=$(gobench "$work/target.test" engine/target HashFile "$f" 5)
  strix=$(gobench "$work/builtin.test" engine/provider/builtin IndexStrings "$f" 5)
  rea=$(best 3 "$work/rea" --ledger "$work/ledger-$RANDOM.db" analyze "$f")
  echo "file $f ($(stat -c %s "$f") bytes)"
  echo "  sha256sum            $sha s"
  echo "  nm $nmflags                $nmt s"
  echo "  strings -a           $str s"
  echo "  open_binary hashing  $hash s  (sha256sum/REA throughput ratio: $(ratio "$sha" "$hash"))"
  echo "  string index         $strix s  (ratio to strings -a: $(ratio "$strix" "$str"))"
  echo "  sum of three         $(echo "$sha + $nmt + $str" | bc -l) s"
  echo "  rea analyze          $rea s  (ratio to the sum: $(ratio "$rea" "$sha + $nmt + $str"))"
  [ "$quick" = 1 ] && continue
  # gdb reads its own symbol tables (and DWARF when present) and prints every
  # function; no init files, no debuginfod downloads.
  gdbt=$(best 2 env DEBUGINFOD_URLS= gdb -nx -batch -ex 'info functions' "$f")
  # open_binary + every list_procedures page over a real `rea mcp`, Evidence
  # recorded for each page (tools/bench_test.go).
  mcp=$(gobench "$work/tools.test" tools MCPProcedurePaging "$f" 2)
  echo "  gdb info functions   $gdbt s  (gdb/nm: $(ratio "$gdbt" "$nmt"))"
  echo "  rea analyze vs gdb   ratio $(ratio "$rea" "$gdbt")"
  echo "  MCP listing          $mcp s  (ratio to gdb: $(ratio "$mcp" "$gdbt"); to sha256sum + nm: $(ratio "$mcp" "$sha + $nmt"))"
done
# Issue 14 (BENCHMARKS.md, "Session 7 / issue 14"), once, on its own files:
# 16 targets on one connection against each opened alone, with the server's
# RSS per target; list_procedures on one target while another is opened.
[ "$quick" = 1 ] || (cd tools && "$work/tools.test" -test.run '^$' -test.bench '^Benchmark(OpenTargets|CallDuringOpen)$' -test.benchtime 4x | grep '^Benchmark')
