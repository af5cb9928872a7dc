import { Logger } from '@nestjs/common';
import { buildDlqRecord, type ReasonCode } from '@arvis/contracts';
import { deadLettersTotal, type InboundMessage } from '@arvis/kafka';
import { traceIdOf } from '@arvis/tracing';
import type { OutboxRow } from './enqueue-outbox';

const log = new Logger('DeadLetter');

/** The producer's trace id, when the message came with a valid traceparent. */
function traceFields(headers: Record<string, string> | undefined): { traceId?: string } {
  const traceId = headers?.traceparent ? traceIdOf({ traceparent: headers.traceparent }) : undefined;
  return traceId ? { traceId } : {};
}

/**
 * The outbox row that carries an unreadable or untrusted message to its dead-letter topic. Only
 * the first `maxRawBytes` of the message are kept (DLQ_MAX_RAW_BYTES; the detail says how many
 * were cut), so that the record always fits what the relay may send (see the config's check).
 */
export function deadLetterRow(
  message: InboundMessage,
  dlqTopic: string,
  reasonCode: ReasonCode,
  detail: string,
  receivedAt: Date,
  maxRawBytes: number,
  /** The decisionId the message claimed, where the sender must be able to match the record. */
  decisionId?: string,
  /** SHA-256 of an identity token the caller removed from `message.value` (ADR 0035). */
  identitySha256?: string,
): OutboxRow {
  const record = buildDlqRecord({
    sourceTopic: message.topic,
    partition: message.partition,
    offset: message.offset,
    reasonCode,
    detail,
    raw: message.value,
    receivedAt,
    maxRawBytes,
    ...(decisionId !== undefined ? { decisionId } : {}),
    ...(identitySha256 !== undefined ? { identitySha256 } : {}),
  });
  deadLettersTotal.inc({ dlq_topic: dlqTopic, reason_code: reasonCode });
  // Rare, and what an operator redrives by (ADR 0064): one line each, with the ids, never the raw bytes.
  log.warn({
    msg: 'message dead-lettered',
    reasonCode,
    dlqTopic,
    sourceTopic: message.topic,
    partition: message.partition,
    offset: String(message.offset),
    ...(decisionId !== undefined ? { decisionId } : {}),
    ...traceFields(message.headers),
  });
  return { topic: dlqTopic, key: message.key ?? `${message.partition}:${message.offset}`, payload: JSON.stringify(record) };
}
