#!/usr/bin/env bash
# A private PostgreSQL cluster for development and tests, from the project's
# own files: installs PostgreSQL from Debian's packages when missing, then
#
#   scripts/services/postgres.sh start    # init (first time) + start; prints the env file
#   scripts/services/postgres.sh stop     # fast shutdown; the data stays for the next start
#   scripts/services/postgres.sh status   # exit 0 when running
#   scripts/services/postgres.sh env      # print the env file of the running cluster
#   scripts/services/postgres.sh destroy  # stop and delete the cluster's data
#
# The cluster lives in a private directory (${TMPDIR:-/tmp}/portcullis-pg-<hash
# of this checkout>: one per checkout, so worktrees and CI jobs never share
# one; outside the checkout, because the server runs as the `postgres` user,
# which may not be able to traverse the checkout's parents), listens on
# 127.0.0.1 on a free port picked at each start, and on a Unix socket in its
# own directory for the superuser (peer authentication, no password).
#
# Roles (fixed names: the migrations grant to them):
#   portcullis_owner   LOGIN, owns the database, the schema and the tables; runs
#                      the migrations (and CREATEDB here, so tests can clone a
#                      migrated template database)
#   portcullis_app     LOGIN, what the service connects as: NOT the tables' owner,
#                      so row-level security applies to it
#   portcullis_lookup  NOLOGIN, owns the few SECURITY DEFINER lookups that must
#                      cross tenants (authentication's findIdentity, tenantOf);
#                      the owner is a member so its migrations can hand the
#                      functions over
# Passwords are random and set anew at each start. The URLs are written to
# var/postgres.env (mode 600), never printed by `start` (CI logs are not a
# place for credentials; `env` prints them on demand):
#   PORTCULLIS_DATABASE_URL        the service role (portcullis_app)
#   PORTCULLIS_DATABASE_OWNER_URL  the owner role (migrations: `portcullis db migrate`)
#
# Durability is traded for speed (fsync off): this cluster is disposable.
# Never point it at data you want to keep.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DB_NAME=portcullis
ENV_FILE="$ROOT/var/postgres.env"
DATA="${PORTCULLIS_PG_DIR:-${TMPDIR:-/tmp}/portcullis-pg-$(printf %s "$ROOT" | sha256sum | cut -c1-12)}"
LOCK="$ROOT/var/.postgres.lock"

die() { echo "postgres.sh: $*" >&2; exit 1; }

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

# Runs a PostgreSQL program as the cluster's OS user: `postgres` when we are
# root (initdb refuses root), ourselves otherwise.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

running() { [ -f "$DATA/postmaster.pid" ] && as_pg "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

# A TCP port nobody listens on right now (the kernel's pick; node is a project prerequisite).
free_port() {
  node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

random_password() { node -e 'console.log(require("crypto").randomBytes(24).toString("hex"))'; }

psql_super() {
  as_pg "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$DATA" -p "$(cat "$DATA/portcullis.port")" -U postgres "$@"
}

init_cluster() {
  mkdir -p "$DATA"
  [ "$(id -u)" = 0 ] && chown postgres: "$DATA"
  chmod 700 "$DATA"
  # C locale: text sorts by bytes, like SQLite, whatever the machine's locale.
  as_pg "$BIN/initdb" -D "$DATA" -U postgres --auth-local=peer --auth-host=scram-sha-256 \
    -E UTF8 --locale=C --no-sync >"$DATA.initdb.log" 2>&1 || { cat "$DATA.initdb.log" >&2; die "initdb failed"; }
  rm -f "$DATA.initdb.log"
  # Password logins over TCP from this machine only; the superuser only via the socket.
  cat >"$DATA/pg_hba.conf.new" <<HBA
local all postgres peer
host  all postgres 0.0.0.0/0 reject
host  all postgres ::/0      reject
host  all all 127.0.0.1/32 scram-sha-256
HBA
  [ "$(id -u)" = 0 ] && chown postgres: "$DATA/pg_hba.conf.new"
  mv "$DATA/pg_hba.conf.new" "$DATA/pg_hba.conf"
}

start_server() {
  local port
  port=$(free_port)
  printf '%s\n' "$port" >"$DATA/portcullis.port"
  as_pg "$BIN/pg_ctl" -D "$DATA" -w -t 30 -l "$DATA/server.log" \
    -o "-c port=$port -c listen_addresses=127.0.0.1 -c unix_socket_directories='$DATA' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null 9>&- || { tail -n 20 "$DATA/server.log" >&2; die "the server did not start"; }
}

# Roles and database: created when missing, passwords rotated at every start.
provision() {
  local owner_pw app_pw port
  owner_pw=$(random_password)
  app_pw=$(random_password)
  port=$(cat "$DATA/portcullis.port")
  psql_super -d postgres -v owner_pw="$owner_pw" -v app_pw="$app_pw" <<'SQL'
SET client_min_messages = warning;
SELECT 'CREATE ROLE portcullis_owner LOGIN' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'portcullis_owner') \gexec
SELECT 'CREATE ROLE portcullis_app LOGIN' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'portcullis_app') \gexec
SELECT 'CREATE ROLE portcullis_lookup NOLOGIN' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'portcullis_lookup') \gexec
-- Neither login may bypass row-level security or administer the cluster.
ALTER ROLE portcullis_owner NOSUPERUSER NOBYPASSRLS NOCREATEROLE CREATEDB INHERIT PASSWORD :'owner_pw';
ALTER ROLE portcullis_app NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB PASSWORD :'app_pw';
GRANT portcullis_lookup TO portcullis_owner;
-- The owner may end the service's backends (pg_terminate_backend): how the tests cut its connections.
GRANT pg_signal_backend TO portcullis_owner;
SELECT 'CREATE DATABASE portcullis OWNER portcullis_owner' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'portcullis') \gexec
REVOKE ALL ON DATABASE portcullis FROM PUBLIC;
GRANT CONNECT ON DATABASE portcullis TO portcullis_app;
SQL
  umask 077
  mkdir -p "$(dirname "$ENV_FILE")"
  cat >"$ENV_FILE.new" <<ENV
PORTCULLIS_DATABASE_URL=postgres://portcullis_app:$app_pw@127.0.0.1:$port/$DB_NAME
PORTCULLIS_DATABASE_OWNER_URL=postgres://portcullis_owner:$owner_pw@127.0.0.1:$port/$DB_NAME
PORTCULLIS_PG_DIR=$DATA
ENV
  mv "$ENV_FILE.new" "$ENV_FILE"
}

cmd=${1:-}
case "$cmd" in
  start|stop|status|env|destroy) ;;
  *) echo "usage: $0 start|stop|status|env|destroy" >&2; exit 2 ;;
esac

if [ "$cmd" = start ]; then "$ROOT/scripts/services/install.sh"; fi
BIN=$(pg_bin)
[ -n "$BIN" ] && [ -x "$BIN/pg_ctl" ] || die "PostgreSQL is not installed (run: $0 start, or scripts/services/install.sh)"

mkdir -p "$ROOT/var"
# One start or stop at a time per checkout: parallel test workers may all ask to start.
# (The server must not inherit this descriptor, or it would hold the lock for life: see start_server.)
exec 9>"$LOCK"
flock 9

case "$cmd" in
  start)
    if ! running || [ ! -f "$ENV_FILE" ]; then
      [ -f "$DATA/PG_VERSION" ] || init_cluster
      running || start_server
      provision
    fi
    echo "PostgreSQL $("$BIN/postgres" -V | awk '{print $3}') on 127.0.0.1:$(cat "$DATA/portcullis.port"), data in $DATA; URLs in $ENV_FILE"
    ;;
  stop)
    if running; then as_pg "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null; fi
    rm -f "$ENV_FILE"
    ;;
  status)
    running
    ;;
  env)
    running || die "not running (start it: $0 start)"
    cat "$ENV_FILE"
    ;;
  destroy)
    if running; then as_pg "$BIN/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null; fi
    rm -rf "$DATA" "$ENV_FILE"
    ;;
esac
