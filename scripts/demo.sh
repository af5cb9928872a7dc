#!/usr/bin/env bash
# The README's first command: installs, starts Kafka, PostgreSQL's schema, both services and the
# demo producer, prints the journal entries it gets back, then stops everything it started.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
LOGS="$ROOT/.data/logs"
PIDS=()

cleanup() {
  local rc=$?
  if ((${#PIDS[@]})); then
    step "stopping the services"
    kill -TERM "${PIDS[@]}" 2>/dev/null || true
    wait "${PIDS[@]}" 2>/dev/null || true
  fi
  stop_kafka_if_started
  if ((rc != 0)); then echo "demo failed (exit $rc); service logs in $LOGS" >&2; fi
  exit $rc
}
trap cleanup EXIT

install_deps
build
ensure_postgres
start_kafka
step "migrating $DATABASE_URL"
node dist/scripts/migrate.js
node dist/scripts/create-topics.js
local_env

mkdir -p "$LOGS"
step "starting authorizer and dispatcher (logs in $LOGS)"
node dist/apps/authorizer/src/main.js >"$LOGS/authorizer.log" 2>&1 & PIDS+=($!)
node dist/apps/dispatcher/src/main.js >"$LOGS/dispatcher.log" 2>&1 & PIDS+=($!)
for port in 3001 3002; do
  for i in $(seq 1 150); do
    curl -sf "http://127.0.0.1:$port/health/ready" >/dev/null && break
    for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null || { echo "a service exited during start-up:" >&2; tail -n 20 "$LOGS"/*.log >&2; exit 1; }; done
    ((i == 150)) && { echo "service on :$port not ready after 30s" >&2; exit 1; }
    sleep 0.2
  done
done

step "running the demo producer"
node dist/scripts/demo-producer.js
