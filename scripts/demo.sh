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
# Keys, and the tool package the demo serves (ARVIS_TOOL_PACKAGES=dist/tools/demo), before the
# migrate step, which applies that package's migrations after the project's.
local_env
step "migrating $DATABASE_URL"
node dist/scripts/migrate.js
node dist/scripts/create-topics.js
# Small so the demo's short run shows signed checkpoints on the journal topic (defaults: 1000 / 60 s).
export JOURNAL_CHECKPOINT_EVERY_ENTRIES="${JOURNAL_CHECKPOINT_EVERY_ENTRIES:-4}"
export JOURNAL_CHECKPOINT_EVERY_MS="${JOURNAL_CHECKPOINT_EVERY_MS:-2000}"
export DEMO_CHECKPOINT_WAIT_MS="${DEMO_CHECKPOINT_WAIT_MS:-5000}"

mkdir -p "$LOGS"
step "starting authorizer and dispatcher (logs in $LOGS)"
node --max-semi-space-size=8 dist/apps/authorizer/src/main.js >"$LOGS/authorizer.log" 2>&1 & PIDS+=($!)
node --max-semi-space-size=8 dist/apps/dispatcher/src/main.js >"$LOGS/dispatcher.log" 2>&1 & PIDS+=($!)
# Management ports (health): the authorizer's is 3101 (its approver API and console are on 3001).
wait_ready "$LOGS" 3101 3002

step "running the demo producer"
node dist/scripts/demo-producer.js
