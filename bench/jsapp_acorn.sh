#!/usr/bin/env bash
# analyze_javascript_application against the npm acorn parser run by node,
# side by side in one run (BENCHMARKS.md, "Issue 23"). Usage:
#
#   bench/jsapp_acorn.sh [ROUNDS]        (default 5)
#
# Installs typescript@5.9.3 (the benchmark tree; its main entry is
# lib/typescript.js) and acorn@8.19.0 from the npm registry into a cache
# directory, REA_BENCH_CACHE (default ~/.cache/rea-bench), once. Then
# BenchmarkAnalyzeVsAcorn (engine/jsapp/acorn_bench_test.go) takes the .js
# files the tool selects from its own inventory (it prints the list), and in
# each round times, per tree (as is; without "main" in package.json; without
# the main entry's file): one node process parsing all of them with acorn
# (bench/acorn_parse.js: the parse alone, cold then warm, and the whole
# process), the tool in process, and tokenizeAll. Ratios are taken within a
# round and printed as min and median. Needs go, node and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
rounds=${1:-5}
cache=${REA_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rea-bench}
ts_version=5.9.3
acorn_version=8.19.0 # keep in step with acornVersion in engine/jsapp/acorn_bench_test.go

install() { # install DIR SPEC
  [ -f "$1/node_modules/${2%@*}/package.json" ] && return
  mkdir -p "$1"
  npm install --no-audit --no-fund --loglevel=error --prefix "$1" "$2" >&2
}
install "$cache/typescript-$ts_version" "typescript@$ts_version"
install "$cache/acorn-$acorn_version" "acorn@$acorn_version"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The test binary is built first, so compiling is never measured.
go test -c -o "$work/jsapp.test" ./engine/jsapp/

echo "machine: $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "go: $(go env GOVERSION); node: $(node --version); rounds: $rounds"
(cd engine/jsapp &&
  REA_JSAPP_BENCH_TREE="$cache/typescript-$ts_version/node_modules/typescript" \
  REA_JSAPP_ACORN="$cache/acorn-$acorn_version/node_modules/acorn" \
    "$work/jsapp.test" -test.run '^$' -test.bench '^BenchmarkAnalyzeVsAcorn$' \
    -test.benchtime "${rounds}x" -test.timeout 60m -test.v)
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
