-- W3C trace context (traceparent, tracestate) of the step that wrote an outbox row: the relay
-- sends it as Kafka headers, so one decision is one trace across processes (ADR 0028).
ALTER TABLE "outbox" ADD COLUMN "trace_context" JSONB;

-- The trace id of the decision a journal entry is about. Outside the hashed entry: tracing is
-- observability, and must never change what the chain proves.
ALTER TABLE "journal" ADD COLUMN "trace_id" TEXT;
