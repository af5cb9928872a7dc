#!/usr/bin/env bash
# Sends one decision to the ARVIS effect path from a shell, with no Node.js: bash (4.4+), openssl
# (3.0+), kcat and coreutils' timeout only. It signs its own identity token (EdDSA, Ed25519), produces the decision keyed by its
# runId with the murmur2 partitioner (as the services and the Java client do), then waits, bounded,
# for the decision's final journal entry and prints it. Exit codes: 0 the final entry arrived (whatever
# its outcome), 1 usage or a tool failed, 2 the decision was dead-lettered, 3 timed out.
#
# Environment (defaults in brackets):
#   KAFKA_BROKERS [127.0.0.1:9092]   ARVIS_TOPIC_PREFIX ['']   WAIT_S [30]
#   ISSUER         the token's iss; must be in the authorizer's TRUSTED_ISSUERS with alg EdDSA
#   ISSUER_KEY_FILE that issuer's Ed25519 private key (PEM, PKCS#8)
#   PRINCIPAL [alice]  TENANT [acme]  SERVICE_ID [shell-producer]  SESSION_ID ['']  TOKEN_TTL_S [300]
#   AUDIENCE ['']   the aud claim: set it to the issuer's audience.decisions when the entry has one
#   TOKEN_TYPE [JWT] the typ header: one of the issuer's tokenTypes when the entry lists them
#   The token carries iat (now), so an issuer's maxTokenAgeS is met; the principal the system
#   records is (ISSUER, PRINCIPAL). The authorizer keeps the token's SHA-256, never the token.
#   TOOL [notes.append]  PAYLOAD_JSON [{"text":"hello from bash"}]  RISK_SCORE [0.1]
#   RUN_ID [run-<32 random hex>]  DECISION_ID [<RUN_ID>:d1]  CAUSAL_ID [c-<16 random hex>]
#   Ids are unique only within a tenant (ADR 0061); random defaults, so two runs never collide.
#   The final entry waited for is this decision's of TENANT and PRINCIPAL, never the id alone.
# Output: `delivered partition=<p> offset=<o>` for the decision, then the journal entry (one JSON line).
set -euo pipefail

die() { echo "send-decision: $*" >&2; exit 1; }
for tool in openssl kcat timeout; do command -v "$tool" >/dev/null || die "$tool is required"; done

BROKERS=${KAFKA_BROKERS:-127.0.0.1:9092}
PREFIX=${ARVIS_TOPIC_PREFIX:-}
WAIT_S=${WAIT_S:-30}
: "${ISSUER:?set ISSUER (a trusted issuer of the authorizer)}"
: "${ISSUER_KEY_FILE:?set ISSUER_KEY_FILE (its Ed25519 private key, PEM)}"
[[ -r $ISSUER_KEY_FILE ]] || die "cannot read $ISSUER_KEY_FILE"
RUN_ID=${RUN_ID:-run-$(openssl rand -hex 16)}
DECISION_ID=${DECISION_ID:-$RUN_ID:d1}
PAYLOAD_JSON=${PAYLOAD_JSON:-'{"text":"hello from bash"}'}
[[ $PAYLOAD_JSON == \{*\} ]] || die "PAYLOAD_JSON must be a JSON object"

PRINCIPAL=${PRINCIPAL:-alice} TENANT=${TENANT:-acme} SERVICE_ID=${SERVICE_ID:-shell-producer}
SESSION_ID=${SESSION_ID:-} CAUSAL_ID=${CAUSAL_ID:-c-$(openssl rand -hex 8)} TOOL=${TOOL:-notes.append}
# Identifiers may not hold control characters at all (the contract refuses them), so they are
# refused here, in this shell, rather than escaped.
AUDIENCE=${AUDIENCE:-} TOKEN_TYPE=${TOKEN_TYPE:-JWT}
for name in ISSUER PRINCIPAL TENANT SERVICE_ID SESSION_ID RUN_ID DECISION_ID CAUSAL_ID TOOL AUDIENCE TOKEN_TYPE; do
  [[ ${!name} != *[$'\x01'-$'\x1f']* ]] || die "$name holds a control character"
done

# A JSON string literal: backslash and double quote escaped (control characters refused above).
json_str() {
  local s=${1//\\/\\\\}
  printf '"%s"' "${s//\"/\\\"}"
}
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; if [[ -n ${reader:-} ]]; then kill "$reader" 2>/dev/null || true; fi' EXIT

# The identity token: header.claims signed with Ed25519 over the ASCII of "header.claims" (RFC 8037).
now=$(date +%s)
header=$(printf '{"alg":"EdDSA","typ":%s}' "$(json_str "$TOKEN_TYPE")" | b64url)
claims=$(printf '{"iss":%s,"sub":%s,"tenant":%s,"azp":%s,"acr":"mfa","roles":[],"iat":%d,"exp":%d%s%s}' \
  "$(json_str "$ISSUER")" "$(json_str "$PRINCIPAL")" "$(json_str "$TENANT")" \
  "$(json_str "$SERVICE_ID")" "$now" "$((now + ${TOKEN_TTL_S:-300}))" \
  "${SESSION_ID:+,\"sid\":$(json_str "$SESSION_ID")}" "${AUDIENCE:+,\"aud\":$(json_str "$AUDIENCE")}" | b64url)
printf '%s.%s' "$header" "$claims" > "$tmp/signing-input"
openssl pkeyutl -sign -inkey "$ISSUER_KEY_FILE" -rawin -in "$tmp/signing-input" -out "$tmp/signature" \
  || die "openssl could not sign with $ISSUER_KEY_FILE (an Ed25519 key and OpenSSL 3 are needed)"
token="$header.$claims.$(b64url < "$tmp/signature")"

decision=$(printf '{"specVersion":1,"decisionId":%s,"runId":%s,"causalId":%s,"tool":%s,"payload":%s,"riskScore":%s,"identity":"%s"}' \
  "$(json_str "$DECISION_ID")" "$(json_str "$RUN_ID")" "$(json_str "$CAUSAL_ID")" "$(json_str "$TOOL")" \
  "$PAYLOAD_JSON" "${RISK_SCORE:-0.1}" "$token")

# Keyed by runId; murmur2 so that this run's decisions land where the services' own producers put
# them (librdkafka's default is CRC32). acks=all: kcat exits once the broker has stored it.
start_ms=$(( $(date +%s) * 1000 - 2000 ))
printf '%s' "$decision" | kcat -P -b "$BROKERS" -t "${PREFIX}arvis.decisions" -k "$RUN_ID" \
  -X partitioner=murmur2_random -X acks=all -D $'\x1e' -c 1 || die "kcat could not produce to ${PREFIX}arvis.decisions"

# Where it landed, read back (kcat's producer prints no delivery report).
delivered=$(timeout 15 kcat -C -b "$BROKERS" -t "${PREFIX}arvis.decisions" -o "s@$start_ms" -e -q \
  -f '%p %o %k %s\n' | grep -F "\"decisionId\":$(json_str "$DECISION_ID")" | grep -F -m1 "\"identity\":\"$token\"" || true)
[[ -n $delivered ]] || die "the decision was not found on ${PREFIX}arvis.decisions after producing it"
read -r partition offset _ <<< "$delivered"
echo "delivered partition=$partition offset=$offset"

# Wait for the final entry (tool_result or a refusal) of this decision on the journal topic: this
# tenant's and this principal's (or, refused without a current identity, `__unauthenticated__`),
# so another tenant's decision with the same id is not taken for this one. Entries are canonical
# JSON, so each member is matched as written.
final='"kind":"(tool_result|authorization_refusal|admission_refusal)"'
mine_id="\"decisionId\":$(json_str "$DECISION_ID")"
mine_tenant="\"tenant\":$(json_str "$TENANT")"
mine_principal="\"principal\":$(json_str "$PRINCIPAL")"
token_sha256=$(printf '%s' "$token" | openssl dgst -sha256 -r | cut -d' ' -f1)
exec {journal}< <(exec timeout "$WAIT_S" kcat -C -b "$BROKERS" -t "${PREFIX}arvis.journal" -o "s@$start_ms" -u -q -f '%s\n')
reader=$!
while IFS= read -r -u "$journal" line; do
  if [[ $line == *"$mine_id"* && $line == *"$mine_tenant"* && ( $line == *"$mine_principal"* || $line == *'"principal":"__unauthenticated__"'* ) && $line =~ $final ]]; then
    echo "$line"
    exit 0
  fi
done

# Not journaled: a decision whose token does not verify is dead-lettered (identity_invalid), not
# journaled. The record carries the SHA-256 of the token it came with: this one's.
dead=$(timeout 10 kcat -C -b "$BROKERS" -t "${PREFIX}arvis.decisions.dlq" -o "s@$start_ms" -e -q -f '%s\n' \
  | grep -F "$mine_id" | grep -F -m1 "\"identitySha256\":\"$token_sha256\"" || true)
if [[ -n $dead ]]; then
  echo "$dead"
  echo "send-decision: dead-lettered (see reasonCode above)" >&2
  exit 2
fi
echo "send-decision: no journal entry for $DECISION_ID within ${WAIT_S}s" >&2
exit 3
