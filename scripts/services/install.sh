#!/usr/bin/env bash
# Installs the engines Portcullis scales out on, from Debian's packages, when
# any is missing: PostgreSQL, Redis and nginx (light). One `apt-get update`,
# one `apt-get install`, nothing when everything is present (a no-op costs
# three `command -v`). Root runs apt-get directly; anyone else through sudo.
#
#   scripts/services/install.sh
set -euo pipefail

missing=()
pg_bin_dir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
[ -n "$(pg_bin_dir)" ] && [ -x "$(pg_bin_dir)/initdb" ] || missing+=(postgresql)
command -v redis-server >/dev/null || missing+=(redis-server)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
echo "installing from Debian's packages: ${missing[*]}" >&2
# Several jobs on one machine may run apt at once: wait for the lock rather than fail.
apt_opts=(-o DPkg::Lock::Timeout=120 -o Acquire::Retries=3)
$sudo apt-get "${apt_opts[@]}" update -qq >&2
# postgresql also creates (without starting it) the distribution's cluster `15 main`;
# postgres.sh leaves it alone and runs a private cluster.
$sudo env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends "${missing[@]}" >&2
