#!/usr/bin/env bash
# A private PostgreSQL cluster for the tests of the PostgreSQL ledger
# (CONTRACTS.md §17), made from Debian's `postgresql` binaries:
#
#   eval "$(.ci/postgres.sh start DIR)"   # initdb + pg_ctl start in DIR; prints exports
#   .ci/postgres.sh restart DIR           # pg_ctl restart -m fast (fault tests use it)
#   .ci/postgres.sh stop DIR              # pg_ctl stop -m fast
#
# DIR must not exist or be empty. The cluster listens on a Unix socket in
# DIR only (no TCP port, so parallel runs never collide), with scram-sha-256
# and a random password, so the tests exercise a real password that must
# never be printed. `start` prints two exports and nothing else:
# REA_TEST_POSTGRES_URL (database rea_test) and REA_TEST_POSTGRES_RESTART
# (the restart command). As root (CI) the server runs as the postgres user,
# as PostgreSQL refuses to run as root; otherwise as the current user.
set -euo pipefail

cmd=${1:?usage: postgres.sh start|restart|stop DIR}
dir=${2:?usage: postgres.sh start|restart|stop DIR}
here=$(cd "$(dirname "$0")" && pwd)

bindir=${REA_POSTGRES_BIN:-}
if [ -z "$bindir" ]; then
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
fi
[ -x "$bindir/pg_ctl" ] || { echo "postgres.sh: no PostgreSQL binaries (apt-get install postgresql, or set REA_POSTGRES_BIN)" >&2; exit 1; }

as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

data="$dir/data"
case "$cmd" in
start)
  mkdir -p "$dir"
  [ -z "$(ls -A "$dir")" ] || { echo "postgres.sh: $dir is not empty" >&2; exit 1; }
  chmod 700 "$dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  password=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
  printf '%s\n' "$password" >"$dir/pwfile"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir/pwfile"
  as_owner "$bindir/initdb" -D "$data" -U postgres --pwfile="$dir/pwfile" \
    --auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  rm -f "$dir/pwfile"
  # fsync stays on: the ledger's durability is part of what is measured.
  # commit_delay/commit_siblings stay at the defaults too: a team's server is
  # not ours to tune, so the figures in BENCHMARKS.md must hold without them.
  as_owner "$bindir/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c max_connections=200" start >/dev/null ||
    { cat "$dir/server.log" >&2; exit 1; }
  PGPASSWORD=$password "$bindir/psql" -X -q -h "$dir" -U postgres -d postgres -c 'CREATE DATABASE rea_test' >/dev/null
  printf 'export REA_TEST_POSTGRES_URL=%q\n' "postgres://postgres:$password@/rea_test?host=$dir"
  printf 'export REA_TEST_POSTGRES_RESTART=%q\n' "$here/postgres.sh restart $dir"
  ;;
restart)
  as_owner "$bindir/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 -m fast restart >/dev/null
  ;;
stop)
  [ -d "$data" ] || exit 0
  as_owner "$bindir/pg_ctl" -D "$data" -w -t 60 -m fast stop >/dev/null || true
  ;;
*)
  echo "usage: postgres.sh start|restart|stop DIR" >&2
  exit 2
  ;;
esac
