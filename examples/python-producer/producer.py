#!/usr/bin/python3
"""Send decisions to the ARVIS effect path from Python and wait for each one's result.

Runs on Debian's own interpreter with Debian's packages only (no pip):
  apt-get install python3-confluent-kafka python3-jwt python3-jsonschema
  /usr/bin/python3 examples/python-producer/producer.py

It signs an EdDSA identity token with PyJWT, checks every decision against
schemas/action-decision.schema.json before producing it, produces with confluent-kafka keyed by
runId with the murmur2 partitioner (the Java and kafkajs clients' choice: librdkafka's default,
CRC32, would put a run's decisions on other partitions), and waits for each decision's final
journal entry. Every record it reads is checked against schemas/ (journal entries, checkpoints,
dead letters); one that fails ends the run with exit 4.

Where the results come from (RESULTS):
  topic  (default) the end offsets of RESULT_TOPIC (default: the journal topic; a tenant's own
         result topic where the deployment has one) are recorded before sending, and read from
         there, with the decisions' dead-letter topic (a token that does not verify ends there).
  api    the authorizer's results API, GET {API_URL}/decisions/{id}?waitS=, with the same token.

Settings (environment):
  KAFKA_BROKERS (127.0.0.1:9092), ARVIS_TOPIC_PREFIX (''), RESULT_TOPIC, RESULTS (topic|api),
  API_URL (http://127.0.0.1:3001), ISSUER and ISSUER_KEY_FILE (the issuer's Ed25519 private key,
  PEM; required), TENANT (acme), PRINCIPAL (alice), SERVICE_ID (python-agent), AUDIENCE and
  TOKEN_TYPE (for an issuer with rules), COUNT (3), TOOL (notes.append), RUN_ID, WAIT_S (30),
  SCHEMAS_DIR (the repository's schemas/), KAFKA_SASL_MECHANISM / KAFKA_SASL_USERNAME /
  KAFKA_SASL_PASSWORD and KAFKA_TLS_CA_FILE (a secured broker).

Output: one JSON line per result ({"decisionId", "kind", "success", "reasonCode", ...}), then a
summary line {"summary": {...}}. Exit 0: every decision has its final entry (a refusal too) or
its dead letter; 3: WAIT_S passed first; 4: a record read failed its schema; 1: a usage error.
"""
import hashlib
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import jwt
from confluent_kafka import Consumer, Producer, TopicPartition
from jsonschema import Draft202012Validator

FINAL_KINDS = {"tool_result", "authorization_refusal", "admission_refusal"}
HERE = os.path.dirname(os.path.abspath(__file__))


def env(name, default=None):
    value = os.environ.get(name, "")
    return value if value != "" else default


def validators(schemas_dir):
    def load(name):
        with open(os.path.join(schemas_dir, name), encoding="utf-8") as f:
            schema = json.load(f)
        Draft202012Validator.check_schema(schema)
        return Draft202012Validator(schema)

    return {n: load(f"{n}.schema.json") for n in ("action-decision", "journal-entry", "journal-checkpoint", "dlq-record")}


def identity_token(issuer, key_pem, now):
    claims = {
        "iss": issuer,
        "sub": env("PRINCIPAL", "alice"),
        "tenant": env("TENANT", "acme"),
        "azp": env("SERVICE_ID", "python-agent"),
        "acr": "mfa",
        "roles": [],
        "sid": f"py-{uuid.uuid4()}",
        "iat": now,
        "exp": now + 600,
    }
    if env("AUDIENCE"):
        claims["aud"] = env("AUDIENCE")
    return jwt.encode(claims, key_pem, algorithm="EdDSA", headers={"typ": env("TOKEN_TYPE", "JWT")})


def kafka_settings():
    settings = {"bootstrap.servers": env("KAFKA_BROKERS", "127.0.0.1:9092")}
    if env("KAFKA_SASL_MECHANISM"):
        tls = env("KAFKA_TLS_CA_FILE") is not None
        settings.update({
            "security.protocol": "SASL_SSL" if tls else "SASL_PLAINTEXT",
            "sasl.mechanism": env("KAFKA_SASL_MECHANISM").upper(),
            "sasl.username": env("KAFKA_SASL_USERNAME"),
            "sasl.password": env("KAFKA_SASL_PASSWORD"),
        })
        if tls:
            settings["ssl.ca.location"] = env("KAFKA_TLS_CA_FILE")
    return settings


class ResultReader:
    """Reads the result topic and the decisions' DLQ from the end offsets recorded at start."""

    def __init__(self, topics, check, sender):
        self.check, self.sender = check, sender
        self.read = self.invalid = 0
        self.consumer = Consumer({**kafka_settings(), "group.id": f"arvis-result-watcher-py-{uuid.uuid4()}",
                                  "enable.auto.commit": False, "auto.offset.reset": "latest"})
        assignment = []
        for topic in topics:
            metadata = self.consumer.list_topics(topic, timeout=10).topics[topic]
            if metadata.error is not None:
                raise RuntimeError(f"{topic}: {metadata.error}")
            for p in metadata.partitions:
                _low, high = self.consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
                assignment.append(TopicPartition(topic, p, high))
        self.consumer.assign(assignment)
        self.dlq_topic = topics[1]

    def poll(self, results):
        msg = self.consumer.poll(0.2)
        if msg is None:
            return
        if msg.error():
            raise RuntimeError(str(msg.error()))
        self.read += 1
        try:
            record = json.loads(msg.value())
        except (TypeError, ValueError):
            self.invalid += 1
            return
        if msg.topic() == self.dlq_topic:
            kind = "dlq-record"
        else:
            kind = "journal-checkpoint" if isinstance(record, dict) and record.get("recordType") == "checkpoint" else "journal-entry"
        errors = list(self.check[kind].iter_errors(record))
        if errors:
            self.invalid += 1
            print(json.dumps({"invalidRecord": kind, "topic": msg.topic(), "offset": msg.offset(), "error": errors[0].message}), file=sys.stderr)
            return
        decision_id = record.get("decisionId")
        if decision_id not in results or results[decision_id] is not None:
            return
        if kind == "dlq-record" and record.get("identitySha256") == self.sender["tokenSha256"]:
            results[decision_id] = {"deadLetter": record}
        elif kind == "journal-entry" and record["kind"] in FINAL_KINDS and record["tenant"] == self.sender["tenant"] \
                and record["principal"] in (self.sender["principal"], "__unauthenticated__"):
            results[decision_id] = record

    def close(self):
        self.consumer.close()


def result_by_api(token, decision_id, wait_s, check):
    url = f"{env('API_URL', 'http://127.0.0.1:3001').rstrip('/')}/decisions/{urllib.parse.quote(decision_id, safe='')}?waitS={max(0, int(wait_s))}"
    request = urllib.request.Request(url, headers={"authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=wait_s + 10) as res:
            if res.status != 200:
                return None, 0
            entry = json.loads(res.read())["entry"]
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return None, 0
        raise
    errors = list(check["journal-entry"].iter_errors(entry))
    return entry, (1 if errors else 0)


def main():
    issuer, key_file = env("ISSUER"), env("ISSUER_KEY_FILE")
    if not issuer or not key_file:
        print("ISSUER and ISSUER_KEY_FILE are required", file=sys.stderr)
        return 1
    check = validators(env("SCHEMAS_DIR", os.path.join(HERE, "..", "..", "schemas")))
    with open(key_file, encoding="utf-8") as f:
        token = identity_token(issuer, f.read(), int(time.time()))
    prefix, wait_s = env("ARVIS_TOPIC_PREFIX", ""), float(env("WAIT_S", "30"))
    run_id = env("RUN_ID", f"py-run-{uuid.uuid4()}")
    decisions = [{
        "specVersion": 1, "decisionId": f"{run_id}:d{i}", "runId": run_id, "causalId": f"c{i}", "tool": env("TOOL", "notes.append"),
        "payload": {"text": f"note {i} from Python", "ref": f"{run_id}:{i}"}, "riskScore": 0.1, "identity": token,
    } for i in range(int(env("COUNT", "3")))]
    for d in decisions:
        errors = list(check["action-decision"].iter_errors(d))
        if errors:
            print(f"decision {d['decisionId']} refused by the schema: {errors[0].message}", file=sys.stderr)
            return 1

    mode = env("RESULTS", "topic")
    sender = {"tenant": env("TENANT", "acme"), "principal": env("PRINCIPAL", "alice"),
              "tokenSha256": hashlib.sha256(token.encode()).hexdigest()}
    reader = None
    if mode == "topic":  # before sending: nothing produced after this point is missed
        reader = ResultReader([env("RESULT_TOPIC", f"{prefix}arvis.journal"), f"{prefix}arvis.decisions.dlq"], check, sender)

    delivered = []
    producer = Producer({**kafka_settings(), "partitioner": "murmur2_random", "acks": "all"})
    for d in decisions:
        producer.produce(f"{prefix}arvis.decisions", key=d["runId"], value=json.dumps(d),
                         on_delivery=lambda err, msg: delivered.append((err, msg.partition() if msg else None)))
    if producer.flush(30) != 0 or any(err is not None for err, _ in delivered):
        print(f"not delivered: {[str(e) for e, _ in delivered if e is not None]}", file=sys.stderr)
        return 1

    results = {d["decisionId"]: None for d in decisions}
    deadline, invalid = time.time() + wait_s, 0
    if reader:
        while None in results.values() and time.time() < deadline:
            reader.poll(results)
        invalid, read = reader.invalid, reader.read
        reader.close()
    else:
        read = 0
        for decision_id in results:
            entry, bad = result_by_api(token, decision_id, max(1, deadline - time.time()), check)
            results[decision_id], read, invalid = entry, read + (1 if entry else 0), invalid + bad

    for decision_id, r in results.items():
        print(json.dumps(r if r is not None else {"decisionId": decision_id, "missing": True}))
    print(json.dumps({"summary": {"sent": len(decisions), "partitions": sorted({p for _, p in delivered}), "results": sum(r is not None for r in results.values()),
                                  "recordsRead": read, "invalidRecords": invalid, "via": mode}}))
    if invalid:
        return 4
    return 0 if None not in results.values() else 3


if __name__ == "__main__":
    sys.exit(main())
