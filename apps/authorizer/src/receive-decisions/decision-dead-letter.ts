import { buildDlqRecord, type ReasonCode } from '@arvis/contracts';
import type { InboundMessage } from '@arvis/kafka';
import type { OutboxRow } from '@arvis/outbox';

/**
 * The outbox row that carries a decision message to the decisions DLQ. Unlike the generic
 * dead letter it can name the decisionId the message claimed (`identity_invalid`, and a decision
 * that could not be processed nor journaled), so the sender can match it.
 */
export function decisionDeadLetter(
  message: InboundMessage,
  dlqTopic: string,
  reason: { reasonCode: ReasonCode; detail: string; decisionId?: string },
  receivedAt: Date,
  maxRawBytes: number,
): OutboxRow {
  const record = buildDlqRecord({
    sourceTopic: message.topic,
    partition: message.partition,
    offset: message.offset,
    ...reason,
    raw: message.value,
    receivedAt,
    maxRawBytes,
  });
  return { topic: dlqTopic, key: message.key ?? `${message.partition}:${message.offset}`, payload: JSON.stringify(record) };
}
