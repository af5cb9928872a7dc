#!/usr/bin/env bash
# A real single-node Apache Kafka broker (KRaft, broker+controller in one JVM) from Maven Central.
# Usage: scripts/kafka.sh fetch|start|stop|status|start-secure|stop-secure|status-secure|acl-secure
# Settings (env): KAFKA_PORT (9092), KAFKA_CONTROLLER_PORT (19093), KAFKA_DATA_DIR (.data/kafka),
#                 KAFKA_HEAP (-Xmx512m -Xms256m), KAFKA_START_TIMEOUT_S (60)
# The secured broker (*-secure; docs/kafka-security.md) is a second, throwaway one beside the
# plaintext broker: a SASL_SSL listener (SCRAM-SHA-512 over TLS), the KRaft StandardAuthorizer, no
# access without an ACL. start-secure formats it afresh every time, with the SCRAM users named,
# and a fresh self-signed certificate for 127.0.0.1, whose PEM clients trust: <data>/run/tls/ca.pem.
#   KAFKA_SECURE_PORT (9095), KAFKA_SECURE_CONTROLLER_PORT (19095), KAFKA_SECURE_DATA_DIR
#   (.data/kafka-secure), KAFKA_SECURE_ADMIN_PASSWORD (admin-secret: local use only),
#   KAFKA_SECURE_USERS ("name=password name2=password2": SCRAM-SHA-512 users besides admin),
#   KAFKA_SECURE_TLS (true; false: SASL_PLAINTEXT)
#   acl-secure ARGS: kafka.admin.AclCommand as admin against it, e.g.
#   acl-secure --add --allow-principal User:analyst --operation Read --topic arvis.journal
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
INFRA="$ROOT/infra/kafka"
JARS="$INFRA/jars"
PORT="${KAFKA_PORT:-9092}"
CPORT="${KAFKA_CONTROLLER_PORT:-19093}"
DATA="${KAFKA_DATA_DIR:-$ROOT/.data/kafka}"
HEAP="${KAFKA_HEAP:--Xmx512m -Xms256m}"
TIMEOUT="${KAFKA_START_TIMEOUT_S:-60}"
RUN="$DATA/run"
PIDFILE="$RUN/kafka.pid"
LOG="$RUN/kafka.log"
SECURE=false

# The secured broker's own ports, data and run directory (the functions below read these names).
use_secure() {
  SECURE=true
  PORT="${KAFKA_SECURE_PORT:-9095}"
  CPORT="${KAFKA_SECURE_CONTROLLER_PORT:-19095}"
  DATA="${KAFKA_SECURE_DATA_DIR:-$ROOT/.data/kafka-secure}"
  RUN="$DATA/run"
  PIDFILE="$RUN/kafka.pid"
  LOG="$RUN/kafka.log"
  ADMIN_PASSWORD="${KAFKA_SECURE_ADMIN_PASSWORD:-admin-secret}"
  if [[ "${KAFKA_SECURE_TLS:-true}" == true ]]; then PROTO=SASL_SSL; else PROTO=SASL_PLAINTEXT; fi
  TLS="$RUN/tls"
  STOREPASS=local-only-store
}

# A self-signed EC certificate for 127.0.0.1 (openssl: no JVM start): the broker's key store,
# and as PEM both the broker's trust store (it talks to itself over the listener) and the clients'.
make_tls() {
  command -v openssl >/dev/null || { say "openssl not found: install it, or KAFKA_SECURE_TLS=false"; exit 1; }
  mkdir -p "$TLS"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout "$TLS/broker-key.pem" -out "$TLS/ca.pem" 2>/dev/null
  openssl pkcs12 -export -name broker -in "$TLS/ca.pem" -inkey "$TLS/broker-key.pem" -out "$TLS/broker.p12" -passout "pass:$STOREPASS"
}

tls_config() {
  [[ "$PROTO" == SASL_SSL ]] || return 0
  cat <<PROPS
ssl.keystore.location=$TLS/broker.p12
ssl.keystore.type=PKCS12
ssl.keystore.password=$STOREPASS
ssl.key.password=$STOREPASS
ssl.truststore.location=$TLS/ca.pem
ssl.truststore.type=PEM
PROPS
}

say() { printf '[kafka] %s\n' "$*" >&2; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

running_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid; pid="$(cat "$PIDFILE")"
  kill -0 "$pid" 2>/dev/null && echo "$pid"
}

fetch() {
  if [[ -f "$JARS/.complete" && "$JARS/.complete" -nt "$INFRA/pom.xml" ]]; then return 0; fi
  command -v mvn >/dev/null || { say "mvn not found: install Maven (apt-get install maven) and a JDK 17+"; exit 1; }
  say "fetching broker jars from Maven Central (cached in ~/.m2 after the first time)"
  rm -rf "$JARS"
  mvn -q -B -f "$INFRA/pom.xml" dependency:copy-dependencies -DoutputDirectory="$JARS" -DincludeScope=runtime
  touch "$JARS/.complete"
}

listener_config() {
  if [[ "$SECURE" != true ]]; then
    cat <<PROPS
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CPORT
advertised.listeners=PLAINTEXT://127.0.0.1:$PORT
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
PROPS
    return
  fi
  # Clients authenticate with SCRAM (over TLS unless KAFKA_SECURE_TLS=false). The controller
  # listener stays PLAINTEXT on loopback; its principal (ANONYMOUS) is a super user, as admin is.
  # Everyone else needs an ACL.
  local name; name="$(tr '[:upper:]' '[:lower:]' <<<"$PROTO")"
  cat <<PROPS
listeners=$PROTO://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CPORT
advertised.listeners=$PROTO://127.0.0.1:$PORT
inter.broker.listener.name=$PROTO
listener.security.protocol.map=CONTROLLER:PLAINTEXT,$PROTO:$PROTO
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.$name.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="$ADMIN_PASSWORD";
$(tls_config)
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:admin;User:ANONYMOUS
allow.everyone.if.no.acl.found=false
PROPS
}

write_config() {
  mkdir -p "$RUN" "$DATA/log"
  if [[ "$SECURE" == true && "$PROTO" == SASL_SSL ]]; then make_tls; fi
  cat > "$RUN/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CPORT
controller.listener.names=CONTROLLER
$(listener_config)
log.dirs=$DATA/log
num.partitions=6
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
group.min.session.timeout.ms=1000
delete.topic.enable=true
PROPS
  if [[ "$SECURE" == true ]]; then
    cat > "$RUN/admin.properties" <<PROPS
security.protocol=$PROTO
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="$ADMIN_PASSWORD";
PROPS
    if [[ "$PROTO" == SASL_SSL ]]; then
      printf 'ssl.truststore.location=%s\nssl.truststore.type=PEM\n' "$TLS/ca.pem" >> "$RUN/admin.properties"
    fi
  fi
  cat > "$RUN/simplelogger.properties" <<PROPS
org.slf4j.simpleLogger.defaultLogLevel=warn
org.slf4j.simpleLogger.showDateTime=true
PROPS
}

start() {
  fetch
  # The secured broker is throwaway: each start formats it afresh, with exactly the users named.
  if [[ "$SECURE" == true ]]; then stop; rm -rf "$DATA"; fi
  if pid="$(running_pid)"; then say "already running (pid $pid) on 127.0.0.1:$PORT"; return 0; fi
  if port_open "$PORT"; then say "port $PORT is taken by another process; set KAFKA_PORT"; exit 1; fi
  write_config
  local cp="$JARS/*"
  if [[ ! -f "$DATA/log/meta.properties" ]]; then
    local id; id="$(java -cp "$cp" kafka.tools.StorageTool random-uuid 2>/dev/null)"
    local scram=()
    if [[ "$SECURE" == true ]]; then
      scram+=(--add-scram "SCRAM-SHA-512=[name=admin,password=$ADMIN_PASSWORD]")
      local user
      for user in ${KAFKA_SECURE_USERS:-}; do
        [[ "$user" == *=* ]] || { say "KAFKA_SECURE_USERS: '$user' is not name=password"; exit 2; }
        scram+=(--add-scram "SCRAM-SHA-512=[name=${user%%=*},password=${user#*=}]")
      done
    fi
    if ! java -cp "$cp" kafka.tools.StorageTool format -t "$id" -c "$RUN/server.properties" "${scram[@]}" >"$RUN/format.log" 2>&1; then
      say "format failed:"; cat "$RUN/format.log" >&2; exit 1
    fi
    say "formatted $DATA/log (cluster $id)"
  fi
  local t0=$SECONDS
  # shellcheck disable=SC2086
  nohup java $HEAP -XX:+UseG1GC -Djava.awt.headless=true \
    -Dslf4j.internal.verbosity=WARN -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    -cp "$cp" kafka.Kafka "$RUN/server.properties" >"$LOG" 2>&1 &
  echo $! > "$PIDFILE"
  while ! port_open "$PORT"; do
    if ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then say "broker exited during start-up; last log lines:"; tail -n 30 "$LOG" >&2; exit 1; fi
    if (( SECONDS - t0 > TIMEOUT )); then say "broker not listening after ${TIMEOUT}s"; tail -n 30 "$LOG" >&2; stop; exit 1; fi
    sleep 0.2
  done
  say "listening on 127.0.0.1:$PORT after $((SECONDS - t0))s (pid $(cat "$PIDFILE"), log $LOG)"
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then rm -f "$PIDFILE"; say "not running"; return 0; fi
  kill -TERM "$pid"
  for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || { rm -f "$PIDFILE"; say "stopped"; return 0; }; sleep 0.2; done
  say "broker did not stop in 30s; killing"; kill -KILL "$pid" 2>/dev/null || true; rm -f "$PIDFILE"
}

status() { if pid="$(running_pid)"; then echo "running pid $pid port $PORT"; else echo "stopped"; return 1; fi; }

acl() {
  running_pid >/dev/null || { say "the secured broker is not running (start-secure)"; exit 1; }
  java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JARS/*" kafka.admin.AclCommand --bootstrap-server "127.0.0.1:$PORT" --command-config "$RUN/admin.properties" "$@"
}

case "${1:-}" in
  fetch) fetch ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  start-secure) use_secure; start ;;
  stop-secure) use_secure; stop ;;
  status-secure) use_secure; status ;;
  acl-secure) use_secure; shift; acl "$@" ;;
  *) echo "usage: $0 fetch|start|stop|status|start-secure|stop-secure|status-secure|acl-secure ARGS" >&2; exit 2 ;;
esac
