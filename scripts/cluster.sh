#!/usr/bin/env bash
# Portcullis scaled out on one machine: PostgreSQL, Redis, an nginx bundle
# server and three `portcullis serve` instances on 127.0.0.1 (`make cluster`,
# `make cluster-stop`; `make cluster` builds first).
#
#   scripts/cluster.sh start    # installs what is missing, starts everything, writes var/cluster.env
#   scripts/cluster.sh stop     # stops the instances, then every service this script started
#   scripts/cluster.sh status   # each instance's /health (exit 0 when all three answer)
#
# start:
#   1. the engines, through scripts/services/ (installed from Debian's
#      packages when missing): PostgreSQL, migrated and seeded as the tables'
#      owner (`portcullis db migrate --seed`), Redis, nginx serving
#      var/bundle.tar.gz as /bundle.tar.gz (publish a new one with
#      `scripts/services/nginx.sh publish var/bundle.tar.gz`: every instance
#      runs it within PORTCULLIS_BUNDLE_POLL_INTERVAL_MS, 2 s by default);
#   2. one dev signing key (var/dev-jwt-key.json) for all instances, so a
#      token minted by `portcullis token` works on every one;
#   3. three instances, each `portcullis serve --port 0` (the kernel picks a
#      free port, read back from its listening line) in its own directory
#      var/cluster/<n>/ (whatever is still a local file stays apart), with
#      PORTCULLIS_DATABASE_URL (the service role), PORTCULLIS_REDIS_URL and
#      PORTCULLIS_BUNDLE_URL; logs var/cluster/<n>.log (JSON lines) and
#      <n>.err, pid <n>.pid; it waits for each /health;
#   4. var/cluster.env (mode 600: it holds passwords): PORTCULLIS_DATABASE_URL,
#      PORTCULLIS_REDIS_URL, CLUSTER_URLS (the instances' base URLs, space
#      separated), for `set -a; . var/cluster.env; set +a`.
# A start that fails stops what it started. The services it found running
# (e.g. after `make postgres-start`) it uses and leaves running at stop; the
# ones it started are listed in var/cluster/started.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
DIR="$ROOT/var/cluster"
ENV_FILE="$ROOT/var/cluster.env"
SERVICES="$ROOT/scripts/services"
INSTANCES=(1 2 3)
NODE=(node --single-threaded-gc)

die() { echo "cluster.sh: $*" >&2; exit 1; }

# KEY from an env file the service scripts write (values hold no newline).
env_value() { sed -n "s/^$2=//p" "$1"; }

# The pid of instance N when it is our `portcullis serve` (a stale pid file may name a recycled pid).
instance_pid() {
  local pid
  pid=$(cat "$DIR/$1.pid" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "portcullis.js serve" || return 1
  printf '%s\n' "$pid"
}

# Starts a service unless it runs already; remembers the ones it started.
start_service() {
  local name=$1
  if ! "$SERVICES/$name.sh" status >/dev/null 2>&1; then
    "$SERVICES/$name.sh" start >&2
    echo "$name" >>"$DIR/started"
  fi
}

start_instance() {
  local n=$1 work="$DIR/$1"
  mkdir -p "$work"
  rm -f "$DIR/$n.log" "$DIR/$n.err"
  # The service never holds the owner's login (nor the service scripts' own variables, e.g. from a sourced postgres.env).
  (cd "$work" && exec env -u PORTCULLIS_DATABASE_OWNER_URL -u PORTCULLIS_PG_DIR -u PORTCULLIS_REDIS_DIR PORTCULLIS_DATABASE_URL="$DATABASE_URL" PORTCULLIS_REDIS_URL="$REDIS_URL" \
    PORTCULLIS_BUNDLE_URL="$BUNDLE_URL" PORTCULLIS_DEV_KEY_FILE="$ROOT/var/dev-jwt-key.json" \
    "${NODE[@]}" "$ROOT/bin/portcullis.js" serve --host 127.0.0.1 --port 0 \
    >"$DIR/$n.log" 2>"$DIR/$n.err" </dev/null) &
  echo $! >"$DIR/$n.pid"
}

# Waits for instance N's listening line, then for its /health; prints its base URL.
await_instance() {
  local n=$1 address="" url
  for _ in $(seq 1 600); do
    address=$(listening_address "$n")
    [ -n "$address" ] && break
    instance_pid "$n" >/dev/null || { tail -n 20 "$DIR/$n.err" >&2; die "instance $n exited before listening (var/cluster/$n.err)"; }
    sleep 0.1
  done
  [ -n "$address" ] || die "instance $n did not listen within 60 s (var/cluster/$n.err)"
  url="http://$address"
  health "$url" >/dev/null || die "instance $n at $url does not answer /health"
  printf '%s\n' "$url"
}

# host:port from instance N's `http.listening` log line (empty until it listens).
listening_address() {
  node -e 'const fs = require("fs"); const f = process.argv[1];
    const lines = fs.existsSync(f) ? fs.readFileSync(f, "utf8").split("\n") : [];
    for (const l of lines) { try { const e = JSON.parse(l); if (e.event === "http.listening") { console.log(e.address); break; } } catch {} }' "$DIR/$1.log"
}

# GET url/health: its JSON on stdout; fails unless the status is 200.
health() {
  node -e 'fetch(process.argv[1] + "/health").then(async (r) => { console.log(await r.text()); process.exit(r.status === 200 ? 0 : 1); }, () => process.exit(1))' "$1"
}

start() {
  [ -f var/bundle.tar.gz ] && [ -f dist/.build-stamp ] || die "build first: make build (make cluster does)"
  if [ -f "$ENV_FILE" ]; then die "a cluster is running (var/cluster.env exists): make cluster-stop first"; fi
  mkdir -p "$DIR"
  : >"$DIR/started"
  UP=0
  trap '[ "$UP" = 1 ] || { echo "cluster.sh: start failed; stopping what it started" >&2; stop || true; }' EXIT

  "$SERVICES/install.sh"
  start_service postgres
  DATABASE_URL=$(env_value var/postgres.env PORTCULLIS_DATABASE_URL)
  PORTCULLIS_DATABASE_OWNER_URL=$(env_value var/postgres.env PORTCULLIS_DATABASE_OWNER_URL) \
    node bin/portcullis.js db migrate --seed >&2
  start_service redis
  REDIS_URL=$(env_value var/redis.env PORTCULLIS_REDIS_URL)
  start_service nginx
  BUNDLE_URL=$("$SERVICES/nginx.sh" publish var/bundle.tar.gz bundle.tar.gz)

  # The shared dev key exists before any instance could create its own.
  node -e 'require("./dist/api/identity/keys").loadOrCreateDevKeys("var/dev-jwt-key.json")'
  for n in "${INSTANCES[@]}"; do start_instance "$n"; done
  local urls=() url
  for n in "${INSTANCES[@]}"; do
    url=$(await_instance "$n")
    urls+=("$url")
  done

  umask 077
  cat >"$ENV_FILE.new" <<ENV
PORTCULLIS_DATABASE_URL=$DATABASE_URL
PORTCULLIS_REDIS_URL=$REDIS_URL
CLUSTER_URLS="${urls[*]}"
ENV
  mv "$ENV_FILE.new" "$ENV_FILE"
  UP=1
  echo "cluster up: ${urls[*]} (bundle $BUNDLE_URL); environment in var/cluster.env (set -a; . var/cluster.env; set +a)" >&2
}

# Everything it started, whatever state a failed start left: instances first
# (they flush their decision logs to PostgreSQL), then the services, in reverse.
stop() {
  local n pid failed=0
  for n in "${INSTANCES[@]}"; do
    pid=$(instance_pid "$n") && kill -TERM "$pid" 2>/dev/null || true
  done
  for n in "${INSTANCES[@]}"; do
    for _ in $(seq 1 200); do instance_pid "$n" >/dev/null || break; sleep 0.1; done
    if pid=$(instance_pid "$n"); then
      echo "cluster.sh: instance $n (pid $pid) did not stop within 20 s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
      failed=1
    fi
    rm -f "$DIR/$n.pid"
  done
  if [ -f "$DIR/started" ]; then
    for service in $(tac "$DIR/started"); do "$SERVICES/$service.sh" stop || failed=1; done
    rm -f "$DIR/started"
  fi
  rm -f "$ENV_FILE"
  return $failed
}

status() {
  local n pid ok=0
  for n in "${INSTANCES[@]}"; do
    if pid=$(instance_pid "$n"); then
      local url
      url="http://$(listening_address "$n")"
      echo "instance $n (pid $pid) $url: $(health "$url" || echo 'no answer')"
    else
      echo "instance $n: not running"
      ok=1
    fi
  done
  return $ok
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
