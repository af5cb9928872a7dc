import { buildDlqRecord, type ReasonCode } from '@arvis/contracts';
import type { InboundMessage } from '@arvis/kafka';
import type { OutboxRow } from './enqueue-outbox';

/** The outbox row that carries an unreadable or untrusted message to its dead-letter topic. */
export function deadLetterRow(message: InboundMessage, dlqTopic: string, reasonCode: ReasonCode, detail: string, receivedAt: Date): OutboxRow {
  const record = buildDlqRecord({
    sourceTopic: message.topic,
    partition: message.partition,
    offset: message.offset,
    reasonCode,
    detail,
    raw: message.value,
    receivedAt,
  });
  return { topic: dlqTopic, key: message.key ?? `${message.partition}:${message.offset}`, payload: JSON.stringify(record) };
}
