#!/usr/bin/env bash
# The ceiling of issue 18's "4 writers >= 1.5x one SQLite writer", side by
# side in one run: pgbench (PostgreSQL's own C client, no Go, no REA) runs
# the statement shapes an append can take with 1 and 4 clients, every one
# durable before it is answered and serialized on an advisory lock as REA's
# chain head is, against a bare table; then REA's own append benchmark on
# both backends. A shape is one line of the pgbench script per round trip:
#
#   3rt  lock and read the head | insert | commit and flush (REA's shape:
#        the hash needs the head, and the projections need the seq)
#   2rt  lock and read the head | insert, commit and flush in one message
#        (the fewest an append can take while the client computes the hash
#        and runs the projections)
#   1rt  lock, insert, commit and flush in one message (possible only if
#        the server computed seq, prev_hash and hash itself and nothing ran
#        client-side in the transaction: no projections)
#
# Usage: bench/pg_append_shapes.sh   (needs REA_TEST_POSTGRES_URL, as
# `.ci/postgres.sh start DIR` prints it, and pgbench from postgresql-client)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
url=${REA_TEST_POSTGRES_URL:?set REA_TEST_POSTGRES_URL (.ci/postgres.sh start DIR prints it)}
secs=${REA_BENCH_SECONDS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
psql "$url" -q -c "DROP TABLE IF EXISTS bench_append_shapes; CREATE TABLE bench_append_shapes (seq bigserial PRIMARY KEY, payload text)"
lock="SELECT pg_advisory_xact_lock(42)"
begin="BEGIN\\; SET LOCAL synchronous_commit TO off\\; $lock"
insert="INSERT INTO bench_append_shapes (payload) VALUES (repeat('x', 300))"
flush="COMMIT\\; SELECT pg_logical_emit_message(true, 'rea_bench', '')"
head="SELECT coalesce(max(seq), 0) FROM bench_append_shapes"
printf '%s\\; %s;\n%s;\n%s;\n' "$begin" "$head" "$insert" "$flush" > "$work/3rt.sql"
printf '%s\\; %s;\n%s\\; %s;\n' "$begin" "$head" "$insert" "$flush" > "$work/2rt.sql"
printf '%s\\; %s\\; %s;\n' "$begin" "$insert" "$flush" > "$work/1rt.sql"
for shape in 3rt 2rt 1rt; do
  for c in 1 4; do
    tps=$(pgbench "$url" -n -c "$c" -j "$c" -T "$secs" -f "$work/$shape.sql" 2>/dev/null | awk '/^tps/ {print $3}')
    printf 'pgbench %s, %d client(s): %.0f appends/s\n' "$shape" "$c" "$tps"
  done
done
psql "$url" -q -c "DROP TABLE bench_append_shapes"
go test ./ledger -run '^$' -bench BenchmarkAppendWriters -benchtime 3s | grep -E '^Benchmark' |
  awk '{print "rea " $1 ": " $(NF-1) " events/s"}'
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
