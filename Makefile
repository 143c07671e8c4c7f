# Portcullis — two commands for a newcomer:
#   make run    install, build the runtime and the policy bundle, then serve
#   make test   install, build, type-check and run every test (PostgreSQL included)
NPM ?= npm
# The Rego-to-Wasm toolchain is the workspace package packages/rego-wasm (its README): the runtime
# (AssemblyScript, built into the package's build/runtime.wasm) and the compiler (TypeScript, built into
# its dist/ by `tsc -b`, before the service, through tsconfig.build.json's project reference).
REGO_WASM := packages/rego-wasm
RUNTIME_WASM := $(REGO_WASM)/build/runtime.wasm
RUNTIME_SOURCES := $(shell find $(REGO_WASM)/runtime/assembly -name '*.ts' 2>/dev/null) $(REGO_WASM)/runtime/build.mjs
TS_SOURCES := $(shell find api config pdp cli db inventory matrix report bench $(REGO_WASM)/compiler -name '*.ts' 2>/dev/null) $(REGO_WASM)/index.ts $(REGO_WASM)/conformance.ts
TS_CONFIGS := tsconfig.base.json tsconfig.json tsconfig.build.json $(REGO_WASM)/tsconfig.json $(REGO_WASM)/tsconfig.build.json
REGO_SOURCES := $(shell find rego -name '*.rego' -o -name 'data.json' 2>/dev/null)
PORTCULLIS := node bin/portcullis.js
# The service (and the benchmarks that measure it) runs V8's garbage collector
# on the thread that allocates. By default V8 also wakes helper threads for
# each collection; on a 2-CPU machine those, woken by the decision-log
# worker's collections, preempted the request thread (bench/pdp.bench.ts:
# about 3x fewer involuntary context switches of the request thread, decide()
# p99 with the SQLite log from ~58 to ~47 us, median of 10 alternated runs).
# A V8 flag: it can only be given on node's command line.
SERVICE_NODE := node --single-threaded-gc

.PHONY: all install build run lint format test conformance bench bench-pdp bench-api bench-peers bench-rules bench-rss bench-eval clean postgres-start postgres-stop redis-start redis-stop cluster cluster-stop bench-cluster

all: build

install: node_modules/.install-stamp
node_modules/.install-stamp: package.json $(REGO_WASM)/package.json package-lock.json
	$(NPM) install --no-audit --no-fund
	@touch $@

$(RUNTIME_WASM): node_modules/.install-stamp $(RUNTIME_SOURCES)
	node $(REGO_WASM)/runtime/build.mjs

dist/.build-stamp: node_modules/.install-stamp $(TS_SOURCES) $(TS_CONFIGS)
	npx tsc -b tsconfig.build.json
	@touch $@

var/bundle.tar.gz: $(RUNTIME_WASM) dist/.build-stamp $(REGO_SOURCES)
	@mkdir -p var
	$(PORTCULLIS) rego build -e portcullis/decision -e system/log/mask -e system/log/drop -o $@ rego/

build: $(RUNTIME_WASM) dist/.build-stamp var/bundle.tar.gz

# Serves on 127.0.0.1:$(PORT); `portcullis serve` creates and seeds var/portcullis.db on first run
# and the dev signing key under var/ (mint tokens with `npx portcullis token u_alice`).
PORT ?= 8080
# Not echoed: stdout is the service's JSON log stream; the service greets people on stderr.
run: build
	@$(SERVICE_NODE) bin/portcullis.js serve --host 127.0.0.1 --port $(PORT)

# The authorization matrix's HTML report is checked in Debian's chromium
# (test/matrix); installed from the distribution's packages when missing.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@command -v chromium >/dev/null || { echo "installing Debian's chromium (matrix report test)"; \
	  $(SUDO) apt-get update && $(SUDO) apt-get install -y --no-install-recommends chromium; }

# PostgreSQL for the repository contract suite (test/db/contract, test/db/pg) and
# Redis for the shared rate-limit budgets (test/api/rate-limit-redis): a private
# cluster and a private server per checkout, installed from Debian's packages when
# missing, started before jest and stopped after it, whatever jest's result
# (jest's exit status is the target's).
PG_SERVICE := scripts/services/postgres.sh
REDIS_SERVICE := scripts/services/redis.sh
# nginx serves policy bundles to the cluster suites (test/cluster).
NGINX_SERVICE := scripts/services/nginx.sh

# typescript-eslint's recommended rules (eslint.config.mjs), then prettier's layout (.prettierrc.json):
# a lint finding or an unformatted file fails make test. `make format` rewrites the files.
FORMATTED := "**/*.{ts,js,mjs,cjs}"
lint: install
	npx eslint --max-warnings 0 .
	npx prettier --check --log-level warn $(FORMATTED)

format: install
	npx prettier --write --log-level warn $(FORMATTED)

test: build browser lint
	npx tsc --noEmit -p tsconfig.json
	$(PG_SERVICE) start && $(REDIS_SERVICE) start && $(NGINX_SERVICE) start && npx jest; status=$$?; \
	  $(NGINX_SERVICE) stop; $(REDIS_SERVICE) stop; $(PG_SERVICE) stop; exit $$status
	$(PORTCULLIS) rego test --coverage --threshold 95 rego/
	$(PORTCULLIS) inventory --check

conformance: build
	$(PORTCULLIS) rego conformance ../shared/rego-conformance/cases --json var/conformance.json
	$(PORTCULLIS) rego conformance --v0-compatible ../shared/rego-conformance-v0/cases --json var/conformance-v0.json

bench: build
	node dist/bench/compiler.bench.js

# decide() latency with and without the decision log, against a hand-written baseline.
bench-pdp: build
	$(SERVICE_NODE) dist/bench/pdp.bench.js

bench-api: build
	$(SERVICE_NODE) dist/bench/api.bench.js

# The same rule in hand-written JS, casbin, Cedar-wasm and Portcullis (Engine and opa-wasm's evaluate()), one process.
bench-peers: build
	$(SERVICE_NODE) dist/bench/peers.bench.js

# Decision time for a route table written as 10, 100 and 1,000 rules (does rule count matter?).
bench-rules: build
	$(SERVICE_NODE) dist/bench/rule-index.bench.js

# RSS of the full service sampled under a 10-minute mixed load (after a 1-minute warm-up).
bench-rss: build
	$(SERVICE_NODE) dist/bench/rss.bench.js

# The full chain on PostgreSQL vs SQLite, and two instances vs one (PostgreSQL and Redis started around it).
bench-cluster: build
	$(PG_SERVICE) start && $(REDIS_SERVICE) start && $(SERVICE_NODE) dist/bench/cluster.bench.js; status=$$?; \
	  $(REDIS_SERVICE) stop; $(PG_SERVICE) stop; exit $$status

# Where one evaluation's time goes, for the real policy (see the file's header for --baseline and --cpu-loop).
bench-eval: build
	node dist/bench/eval-profile.bench.js

# The private PostgreSQL cluster by hand (URLs in var/postgres.env: `set -a; . var/postgres.env`).
postgres-start:
	$(PG_SERVICE) start
postgres-stop:
	$(PG_SERVICE) stop

# The private Redis by hand (URL in var/redis.env: `set -a; . var/redis.env`).
redis-start:
	$(REDIS_SERVICE) start
redis-stop:
	$(REDIS_SERVICE) stop

# Three instances on PostgreSQL, Redis and an nginx bundle server (README "Scale out"):
# then `set -a; . var/cluster.env; set +a` and the CLI works against the cluster.
cluster: build
	scripts/cluster.sh start
cluster-stop:
	scripts/cluster.sh stop

clean:
	rm -rf build dist var/bundle.tar.gz $(REGO_WASM)/build $(REGO_WASM)/dist
