#!/usr/bin/env bash
# A private nginx serving policy bundles as static files, the bundle server
# instances poll with OPA's bundle protocol (GET with If-None-Match: the
# bundle's ETag; 304 while it is unchanged). Installs nginx from Debian's
# packages when missing, then
#
#   scripts/services/nginx.sh start                  # configure (first time) + start; prints where
#   scripts/services/nginx.sh publish FILE [NAME]    # serve FILE as /NAME (default bundle.tar.gz); prints its URL
#   scripts/services/nginx.sh stop                   # graceful stop; published bundles stay for the next start
#   scripts/services/nginx.sh status                 # exit 0 when running
#   scripts/services/nginx.sh env                    # print the env file of the running server
#
# The server lives in a private directory (${TMPDIR:-/tmp}/portcullis-nginx-<hash
# of this checkout>: one per checkout; outside the checkout, because when
# started as root nginx's workers run as `nobody`, who may not be able to
# traverse the checkout's parents), listens on 127.0.0.1 on a free port
# picked at each start, serves GET and HEAD of the files in its bundles/
# directory and nothing else (no listing, no other method). var/nginx.env:
#   NGINX_BUNDLE_BASE_URL   http://127.0.0.1:<port>/  (a bundle NAME is at NGINX_BUNDLE_BASE_URL + NAME)
#   NGINX_BUNDLE_DIR        the directory it serves
#
# ETags: nginx derives a static file's ETag from its modification time (in
# seconds) and its size. Two bundles published within one second with the
# same size would share an ETag, and an instance holding the first would be
# told 304 forever; `publish` therefore gives each new file a modification
# time at least one second past the one it replaces, and swaps it in by
# rename, so a poll never reads half a file.
#
# Plain http on loopback only: instances accept an http bundle URL to a
# loopback host, never to another one (config/: bundle.url).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ENV_FILE="$ROOT/var/nginx.env"
DIR="${PORTCULLIS_NGINX_DIR:-${TMPDIR:-/tmp}/portcullis-nginx-$(printf %s "$ROOT" | sha256sum | cut -c1-12)}"
BUNDLES="$DIR/bundles"
LOCK="$ROOT/var/.nginx.lock"

die() { echo "nginx.sh: $*" >&2; exit 1; }

nginx_bin() { command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true; }

# Our master is running: the pid file's process must still be an nginx (a stale pid file may name a recycled pid).
running() {
  local pid
  pid=$(cat "$DIR/nginx.pid" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "nginx: master"
}

# A TCP port nobody listens on right now (the kernel's pick; node is a project prerequisite).
free_port() {
  node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

# The configuration, anew at each start (the port changes). Temporary paths
# point into the private directory: nginx creates its defaults under
# /var/lib/nginx otherwise, which only root may. A module's temp path
# directive exists only when the module was built in (nginx -V lists it).
write_config() {
  local port=$1 built temp=""
  built=$("$NGINX" -V 2>&1)
  for module in fastcgi uwsgi scgi; do
    case "$built" in *"--http-$module-temp-path"*) temp+="  ${module}_temp_path $DIR/temp/$module;"$'\n' ;; esac
  done
  local user=""
  # Root's workers drop to nobody (nginx's default group "nobody" is not Debian's).
  [ "$(id -u)" = 0 ] && user="user nobody $(id -gn nobody);"
  cat >"$DIR/nginx.conf" <<CONF
$user
daemon on;
worker_processes 1;
pid $DIR/nginx.pid;
error_log $DIR/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  server_tokens off;
  client_body_temp_path $DIR/temp/body;
  proxy_temp_path $DIR/temp/proxy;
$temp
  types { application/gzip gz; }
  default_type application/octet-stream;
  # Every request sees the file as it is now: no cached descriptors or metadata.
  open_file_cache off;
  etag on;
  server {
    listen 127.0.0.1:$port;
    root $BUNDLES;
    autoindex off;
    location / {
      limit_except GET { deny all; }
    }
  }
}
CONF
}

start_server() {
  local port
  port=$(free_port)
  mkdir -p "$DIR/temp" "$BUNDLES"
  chmod 755 "$DIR" "$BUNDLES"
  write_config "$port"
  rm -f "$DIR/nginx.pid"
  # -e: the log for what goes wrong before the configuration is read (else /var/log/nginx).
  "$NGINX" -p "$DIR" -e "$DIR/error.log" -c "$DIR/nginx.conf" 9>&- || { tail -n 20 "$DIR/error.log" >&2 2>/dev/null; die "nginx did not start"; }
  for _ in $(seq 1 50); do running && break; sleep 0.1; done
  running || { tail -n 20 "$DIR/error.log" >&2 2>/dev/null; die "nginx did not start"; }
  umask 077
  mkdir -p "$(dirname "$ENV_FILE")"
  cat >"$ENV_FILE.new" <<ENV
NGINX_BUNDLE_BASE_URL=http://127.0.0.1:$port/
NGINX_BUNDLE_DIR=$BUNDLES
ENV
  mv "$ENV_FILE.new" "$ENV_FILE"
}

stop_server() {
  running || return 0
  local pid
  pid=$(cat "$DIR/nginx.pid")
  kill -QUIT "$pid" 2>/dev/null || true # graceful: requests in flight finish
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -TERM "$pid" 2>/dev/null || true
}

# FILE -> bundles/NAME by rename, with a modification time past the replaced file's (see ETags above).
publish() {
  local file=$1 name=$2 now previous stamp
  [ -f "$file" ] || die "publish: $file is not a file"
  case "$name" in ""|.*|*/*) die "publish: NAME must be a plain file name (got '$name')" ;; esac
  now=$(date +%s)
  previous=$(stat -c %Y "$BUNDLES/$name" 2>/dev/null || echo 0)
  stamp=$(( now > previous ? now : previous + 1 ))
  cp "$file" "$BUNDLES/.$name.new"
  chmod 644 "$BUNDLES/.$name.new"
  touch -d "@$stamp" "$BUNDLES/.$name.new"
  mv -f "$BUNDLES/.$name.new" "$BUNDLES/$name"
  echo "$(sed -n 's/^NGINX_BUNDLE_BASE_URL=//p' "$ENV_FILE")$name"
}

cmd=${1:-}
case "$cmd" in
  start|stop|status|env) [ $# -eq 1 ] || { echo "usage: $0 start|stop|status|env|publish FILE [NAME]" >&2; exit 2; } ;;
  publish) [ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: $0 publish FILE [NAME]" >&2; exit 2; } ;;
  *) echo "usage: $0 start|stop|status|env|publish FILE [NAME]" >&2; exit 2 ;;
esac

if [ "$cmd" = start ]; then "$ROOT/scripts/services/install.sh"; fi
NGINX=$(nginx_bin)
[ -n "$NGINX" ] || die "nginx is not installed (run: $0 start, or scripts/services/install.sh)"

mkdir -p "$ROOT/var"
# One start, stop or publish at a time per checkout (nginx must not inherit the lock: see start_server).
exec 9>"$LOCK"
flock 9

case "$cmd" in
  start)
    if ! running || [ ! -f "$ENV_FILE" ]; then
      stop_server
      start_server
    fi
    echo "nginx $("$NGINX" -v 2>&1 | sed 's|.*/||') serving $BUNDLES at $(sed -n 's/^NGINX_BUNDLE_BASE_URL=//p' "$ENV_FILE")"
    ;;
  publish)
    running && [ -f "$ENV_FILE" ] || die "not running (start it: $0 start)"
    publish "$2" "${3:-bundle.tar.gz}"
    ;;
  stop)
    stop_server
    rm -f "$ENV_FILE"
    ;;
  status)
    running
    ;;
  env)
    running && [ -f "$ENV_FILE" ] || die "not running (start it: $0 start)"
    cat "$ENV_FILE"
    ;;
esac
