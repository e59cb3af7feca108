#!/usr/bin/env bash
# Issue 24's performance line: the redesign moves code, so nothing may get
# slower beyond noise. This runs the same measurements on two commits in one
# run, alternating them so that a drift of the machine's speed hits both:
#
#   bench/redesign.sh BASE [ROUNDS]
#
# BASE is the commit before the redesign (a tag, hash or branch); the other
# side is the working tree. Each round measures, on each side:
#   - the binary_session round trip over a real `rea mcp` (µs/op),
#   - list_procedures paging over `rea mcp`, node, limit 500 (ms/op),
#   - `rea analyze` of node and of libLLVM-14 (CPU seconds, /usr/bin/time),
#   - ledger replay and verify of projections' seeded 50,001-event ledger
#     (events/s).
# Needs: nodejs, libllvm14 (apt), GNU time. Prints one line per figure.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
base=${1:?usage: bench/redesign.sh BASE [ROUNDS]}
rounds=${2:-3}
node=${REA_BENCH_NODE:-/usr/bin/node}
llvm=${REA_BENCH_LLVM:-/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1}

work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add --detach -q "$work/base" "$base"

# Everything is compiled once per side before any timing. The paging
# benchmark lives in whichever tools package holds bench_test.go on that side.
build() { # side dir
  local side=$1 dir=$2 pkg
  (cd "$dir" && go build -o "$work/$side.rea" ./cmd/rea)
  pkg=$(cd "$dir" && dirname "$(git ls-files '*bench_test.go' | xargs grep -l 'func BenchmarkSubprocessRoundTrip' | head -1)")
  (cd "$dir" && go test -c -o "$work/$side.tools.test" "./$pkg")
  (cd "$dir" && go test -c -o "$work/$side.projections.test" ./projections)
  echo "$pkg" >"$work/$side.pkg"
}
build base "$work/base"
build head "$PWD"

gobench() { # side test-binary regexp benchtime dir
  (cd "$5" && "$work/$1.$2.test" -test.run '^$' -test.bench "$3" -test.benchtime "$4" 2>&1) |
    awk -v side="$1" '/^Benchmark/ { printf "%s %s", side, $1; for (i = 3; i <= NF; i++) printf " %s", $i; printf "\n" }'
}
analyze() { # side file
  /usr/bin/time -f "$1 rea-analyze $(basename "$2") cpu_s=%U+%S rss_kb=%M" \
    "$work/$1.rea" --ledger "$work/$1-analyze.db" analyze "$2" >/dev/null 2>>"$work/time.log"
  tail -1 "$work/time.log"
  rm -f "$work/$1-analyze.db"*
}

for round in $(seq "$rounds"); do
  echo "# round $round"
  for side in base head; do
    dir=$PWD
    [ "$side" = base ] && dir="$work/base"
    tpkg="$dir/$(cat "$work/$side.pkg")"
    gobench "$side" tools 'SubprocessRoundTrip' 2000x "$tpkg"
    REA_BENCH_FILE=$node REA_BENCH_PAGE_LIMIT=500 gobench "$side" tools 'MCPProcedurePaging$' 2x "$tpkg"
    analyze "$side" "$node"
    analyze "$side" "$llvm"
    GOGC=400 gobench "$side" projections 'Rebuild|Verify' 3x "$dir/projections"
  done
done
