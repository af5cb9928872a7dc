# Shared by demo.sh and test.sh: install, build, infrastructure. Sourced, not run.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export DATABASE_URL="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/arvis}"
export KAFKA_BROKERS="${KAFKA_BROKERS:-127.0.0.1:${KAFKA_PORT:-9092}}"
STARTED_KAFKA=0

step() { printf '\n==> %s\n' "$*"; }

install_deps() {
  if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
    step "installing npm dependencies (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error
  fi
}

build() {
  step "building (prisma generate, tsc)"
  npm run --silent build
}

# Debian packages some specs drive (kcat for the shell producer, chromium for the browser specs):
# installed once, in one apt-get call, only when missing. Usage: ensure_debian_packages CMD:PKG...
ensure_debian_packages() {
  local missing=() pair
  for pair in "$@"; do command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}"); done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  step "installing Debian packages: ${missing[*]}"
  local sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

ensure_postgres() {
  if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
    if command -v pg_ctlcluster >/dev/null && [[ -d /etc/postgresql ]]; then
      step "starting the local PostgreSQL"
      pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start
    fi
  fi
  for _ in $(seq 1 50); do pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null && return 0; sleep 0.2; done
  echo "PostgreSQL is not answering on 127.0.0.1:5432 (set DATABASE_URL to yours)" >&2
  return 1
}

start_kafka() {
  step "starting Kafka"
  if ! bash scripts/kafka.sh status >/dev/null 2>&1; then STARTED_KAFKA=1; fi
  bash scripts/kafka.sh start
}

stop_kafka_if_started() {
  if [[ "$STARTED_KAFKA" == 1 ]]; then bash scripts/kafka.sh stop; fi
}

local_env() {
  eval "$(node dist/scripts/local-env.js)"
}

# Waits until the services started into the global PIDS array answer /health/ready on the given
# management ports (30 s each); stops early, with their logs, if one of them exits. Usage: wait_ready LOGDIR PORT...
wait_ready() {
  local logs=$1 port i pid
  shift
  for port in "$@"; do
    for i in $(seq 1 150); do
      curl -sf "http://127.0.0.1:$port/health/ready" >/dev/null && break
      for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null || { echo "a service exited during start-up:" >&2; tail -n 20 "$logs"/*.log >&2; exit 1; }; done
      ((i == 150)) && { echo "service on :$port not ready after 30s" >&2; exit 1; }
      sleep 0.2
    done
  done
}
