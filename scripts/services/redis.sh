#!/usr/bin/env bash
# A private Redis for development and tests (the shared rate-limit budgets),
# from the project's own files: installs redis-server from Debian's packages
# when missing, then
#
#   scripts/services/redis.sh start    # start (a new password each time); prints where, never the password
#   scripts/services/redis.sh stop     # shut down; nothing is kept (persistence is off)
#   scripts/services/redis.sh status   # exit 0 when running
#   scripts/services/redis.sh env      # print the env file of the running server
#   scripts/services/redis.sh destroy  # stop and delete the server's directory
#
# The server lives in a private directory (${TMPDIR:-/tmp}/portcullis-redis-<hash
# of this checkout>: one per checkout, so worktrees and CI jobs never share
# one), listens on 127.0.0.1 only, on a free port picked at each start, and
# requires a random password (requirepass) set anew at each start. Its
# configuration (which holds the password) is a mode-600 file in that
# directory, never a command-line argument (`ps` would show it). The URL is
# written to var/redis.env (mode 600), never printed by `start` (CI logs are
# not a place for credentials; `env` prints it on demand):
#   PORTCULLIS_REDIS_URL   redis://default:<password>@127.0.0.1:<port>
#
# Persistence is off (no RDB snapshot, no AOF): rate-limit windows last
# seconds to minutes, and this server is disposable.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ENV_FILE="$ROOT/var/redis.env"
DIR="${PORTCULLIS_REDIS_DIR:-${TMPDIR:-/tmp}/portcullis-redis-$(printf %s "$ROOT" | sha256sum | cut -c1-12)}"
LOCK="$ROOT/var/.redis.lock"

die() { echo "redis.sh: $*" >&2; exit 1; }

# The pid of OUR server, when it runs: the pid file's process must still be a
# redis-server (a stale pid file may name a recycled pid).
server_pid() {
  local pid
  # (The server deletes its pid file as it exits: a missing file is "not running".)
  pid=$(cat "$DIR/redis.pid" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q redis-server || return 1
  printf '%s\n' "$pid"
}

running() { server_pid >/dev/null; }

# A TCP port nobody listens on right now (the kernel's pick; node is a project prerequisite).
free_port() {
  node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

random_password() { node -e 'console.log(require("crypto").randomBytes(24).toString("hex"))'; }

start_server() {
  local port password
  port=$(free_port)
  password=$(random_password)
  umask 077
  mkdir -p "$DIR"
  chmod 700 "$DIR"
  rm -f "$DIR/redis.pid"
  cat >"$DIR/redis.conf" <<CONF
bind 127.0.0.1
port $port
protected-mode yes
requirepass $password
daemonize yes
pidfile $DIR/redis.pid
logfile $DIR/server.log
dir $DIR
save ""
appendonly no
CONF
  # The server must not inherit the lock's descriptor, or it would hold the lock for life.
  redis-server "$DIR/redis.conf" 9>&- || { tail -n 20 "$DIR/server.log" >&2 2>/dev/null; die "the server did not start"; }
  for _ in $(seq 1 100); do
    if running && REDISCLI_AUTH="$password" redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; then
      mkdir -p "$(dirname "$ENV_FILE")"
      cat >"$ENV_FILE.new" <<ENV
PORTCULLIS_REDIS_URL=redis://default:$password@127.0.0.1:$port
PORTCULLIS_REDIS_DIR=$DIR
ENV
      mv "$ENV_FILE.new" "$ENV_FILE"
      printf '%s\n' "$port" >"$DIR/port"
      return 0
    fi
    sleep 0.1
  done
  tail -n 20 "$DIR/server.log" >&2 2>/dev/null || true
  die "the server did not answer within 10 s"
}

stop_server() {
  local pid
  pid=$(server_pid) || return 0
  # SIGTERM: redis-server shuts down cleanly (and, persistence being off, saves nothing).
  kill -TERM "$pid"
  for _ in $(seq 1 100); do
    running || return 0
    sleep 0.1
  done
  die "the server (pid $pid) did not stop within 10 s"
}

cmd=${1:-}
case "$cmd" in
  start|stop|status|env|destroy) ;;
  *) echo "usage: $0 start|stop|status|env|destroy" >&2; exit 2 ;;
esac

if [ "$cmd" = start ]; then "$ROOT/scripts/services/install.sh"; fi
command -v redis-server >/dev/null || die "redis-server is not installed (run: $0 start, or scripts/services/install.sh)"

mkdir -p "$ROOT/var"
# One start or stop at a time per checkout: parallel test workers may all ask to start.
exec 9>"$LOCK"
flock 9

case "$cmd" in
  start)
    if ! running || [ ! -f "$ENV_FILE" ]; then
      stop_server
      start_server
    fi
    echo "Redis $(redis-server --version | sed -n 's/.* v=\([^ ]*\).*/\1/p') on 127.0.0.1:$(cat "$DIR/port"), directory $DIR; URL in $ENV_FILE"
    ;;
  stop)
    stop_server
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
    stop_server
    rm -rf "$DIR" "$ENV_FILE"
    ;;
esac
