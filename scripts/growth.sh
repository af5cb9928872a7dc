#!/usr/bin/env bash
# npm run growth -- [--decisions N] [--out DIR]: table and index growth per million decisions, and
# what retention leaves (scripts/growth/main.ts, docs/retention.md). Builds, starts Kafka if it is
# not running, uses a database of its own (arvis_<namespace>growth); stops what it started.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
trap stop_kafka_if_started EXIT
build
ensure_postgres
start_kafka
node dist/scripts/growth/main.js "$@"
