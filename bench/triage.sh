#!/usr/bin/env bash
# Issue 17's performance lines, side by side in one run on the same files:
#   1. triage alone (binary_triage on a fresh builtin client, symbol index
#      included, as BenchmarkTriage in engine/provider/builtin runs it)
#      against the sum of hardening-check, readelf -n and, for a Go binary,
#      go version -m;
#   2. `rea analyze FILE` (fresh ledger each time) against the sum of
#      sha256sum, nm (-D for a shared library) and strings -a.
# Every contender runs once per round, interleaved, so a load spike on the
# shared machine hits them alike; the script prints each round's seconds
# and ratios and then each ratio's range over the rounds.
#
# Usage: bench/triage.sh [FILE...]   (REA_BENCH_ROUNDS=N, default 3)
# Default files: libLLVM-14.so.1, node and the Go toolchain's compile
# (apt-get install -y libllvm14 nodejs devscripts binutils).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
rounds=${REA_BENCH_ROUNDS:-3}
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1 /usr/bin/node "$(go env GOTOOLDIR)/compile")
for tool in hardening-check readelf nm strings sha256sum bc; do
  command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Built once, so compile time is never measured.
go build -o "$work/rea" ./cmd/rea
go test -c -o "$work/builtin.test" ./engine/provider/builtin/

# secs CMD...: wall-clock seconds of one run (output discarded).
secs() {
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || true # hardening-check exits 1 on any "no"
  e=$(date +%s.%N)
  echo "$e - $s" | bc -l
}

# triage FILE: seconds of one binary_triage on a fresh client.
triage() {
  (cd engine/provider/builtin && REA_TRIAGE_BENCH="$1" "$work/builtin.test" -test.run '^$' \
    -test.bench '^BenchmarkTriage$' -test.benchtime 1x) |
    awk '/ns\/op/ {for (i = 1; i < NF; i++) if ($(i+1) == "ns/op") printf "%.4f", $i / 1e9}'
}

ratio() { printf '%.3f' "$(echo "($1) / ($2)" | bc -l)"; }

for f in "${files[@]}"; do
  [ -r "$f" ] || { echo "skip $f (not installed)"; continue; }
  cat "$f" >/dev/null # a warm page cache for every contender alike
  isgo=0
  go version "$f" 2>/dev/null | grep -q ": go[0-9]" && isgo=1
  nmflags=""
  case "$f" in *.so*) nmflags="-D" ;; esac
  echo "file $f ($(stat -c %s "$f") bytes)"
  t_ratios=() a_ratios=() an_all=() base_all=()
  for r in $(seq "$rounds"); do
    tr=$(triage "$f")
    hc=$(secs hardening-check "$f")
    rn=$(secs readelf -n "$f")
    gv=0
    [ "$isgo" = 1 ] && gv=$(secs go version -m "$f")
    an=$(secs "$work/rea" --ledger "$work/ledger-$r-$RANDOM.db" analyze "$f")
    sh=$(secs sha256sum "$f")
    nm=$(secs nm $nmflags "$f")
    st=$(secs strings -a "$f")
    oracles=$(echo "$hc + $rn + $gv" | bc -l)
    base=$(echo "$sh + $nm + $st" | bc -l)
    t_ratios+=("$(ratio "$tr" "$oracles")")
    a_ratios+=("$(ratio "$an" "$base")")
    an_all+=("$an") base_all+=("$base")
    printf '  round %d: triage %.3f s | hardening-check %.3f + readelf -n %.3f + go version -m %.3f = %.3f s | ratio %s\n' \
      "$r" "$tr" "$hc" "$rn" "$gv" "$oracles" "${t_ratios[-1]}"
    printf '           rea analyze %.3f s | sha256sum %.3f + nm %s %.3f + strings -a %.3f = %.3f s | ratio %s\n' \
      "$an" "$sh" "$nmflags" "$nm" "$st" "$base" "${a_ratios[-1]}"
  done
  lo=$(printf '%s\n' "${t_ratios[@]}" | sort -g | head -1) hi=$(printf '%s\n' "${t_ratios[@]}" | sort -g | tail -1)
  echo "  triage / oracles: $lo–$hi (target ≤ 1)"
  lo=$(printf '%s\n' "${a_ratios[@]}" | sort -g | head -1) hi=$(printf '%s\n' "${a_ratios[@]}" | sort -g | tail -1)
  echo "  rea analyze / (sha256sum + nm + strings -a): $lo–$hi (target ≤ 0.5)"
  # Best of the rounds for each side: the least disturbed run of each.
  ba=$(printf '%s\n' "${an_all[@]}" | sort -g | head -1) bb=$(printf '%s\n' "${base_all[@]}" | sort -g | head -1)
  echo "  best rea analyze $(printf '%.3f' "$ba") s / best sum $(printf '%.3f' "$bb") s = $(ratio "$ba" "$bb")"
done
