#!/usr/bin/env bash
# compare_binaries next to `objdump -d` (CONTRACTS.md §16, issue 15): two
# versions of a Debian library, as the archive serves them, one run each,
# side by side. Usage: bench/compare_binaries.sh [PACKAGE [LIBRARY-GLOB]]
# Default: libgs10 (Ghostscript, libgs.so.10.00, 22 MB), whose bookworm and
# bookworm-security versions differ by a security update. Needs apt-get
# (the Debian mirrors only) and binutils. Prints the two objdump times, the
# fresh comparison, the run resumed from the checkpoint after
# match_call_graph (a cancel in the last phase), and the peak RSS of the
# comparison and of opening both targets and building every index the
# builtin provider keeps of them (procedures, strings, cross-references and
# call graph, symbolizer, line table: the builtin indexes).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
pkg=${1:-libgs10}
glob=${2:-'libgs.so.*'}
# REA_BENCH_KEEP=DIR keeps the downloads (and the test binary) in DIR.
if [ -n "${REA_BENCH_KEEP:-}" ]; then work=$REA_BENCH_KEEP; mkdir -p "$work"
else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
mapfile -t versions < <(apt-cache madison "$pkg" | awk -F'|' '{gsub(/ /, "", $2); print $2}' | sort -u -V | tail -2)
[ ${#versions[@]} -eq 2 ] || { echo "apt-cache madison $pkg: want two versions, have ${#versions[@]}" >&2; exit 1; }
libs=()
for v in "${versions[@]}"; do
  d="$work/$v"
  mkdir -p "$d"
  ls "$d"/*.deb >/dev/null 2>&1 || (cd "$d" && apt-get download -q "$pkg=$v" >/dev/null 2>&1)
  [ -d "$d/root" ] || dpkg-deb -x "$d"/*.deb "$d/root"
  libs+=("$(find "$d/root" -name "$glob" -type f | head -1)")
done
go test -c -o "$work/compare.test" ./engine/compare/
for f in "${libs[@]}"; do cat "$f" >/dev/null; done
echo "package $pkg: ${versions[0]} vs ${versions[1]}"
for f in "${libs[@]}"; do echo "  $(stat -c %s "$f") bytes  ${f#"$work"/}"; done
for f in "${libs[@]}"; do
  /usr/bin/time -f "objdump -d: wall %e s, cpu %U+%S s, peak RSS %M KiB" objdump -d "$f" 2>&1 >/dev/null | tail -1
done
run() {
  (cd engine/compare && REA_COMPARE_LEFT="${libs[0]}" REA_COMPARE_RIGHT="${libs[1]}" REA_COMPARE_MODE="$1" \
    /usr/bin/time -f 'wall %e s, cpu %U+%S s, peak RSS %M KiB' "$work/compare.test" -test.run '^TestCompareFilesBench$' -test.v 2>&1) |
    grep -E 'bench_test|peak RSS' | sed 's/^ *bench_test.go:[0-9]*: /  /'
}
echo "compare, fresh (one process):"
run fresh
echo "compare, fresh then resumed from the last phase (one process):"
run ""
echo "open both and build every builtin index (the RSS reference):"
run index
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
