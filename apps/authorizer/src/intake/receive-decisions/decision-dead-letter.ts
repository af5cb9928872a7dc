import type { ReasonCode } from '@arvis/contracts';
import type { InboundMessage } from '@arvis/kafka';
import { deadLetterRow, type OutboxRow } from '@arvis/outbox';
import { redactIdentity } from './redact-identity';

/**
 * The outbox row that carries a decision message to the decisions DLQ. It can name the decisionId
 * the message claimed (`identity_invalid`, a conflict, a decision that could not be processed nor
 * journaled), so the sender can match it. The copy never holds a bearer token: the token is
 * replaced by its SHA-256, which the record carries as `identitySha256` (ADR 0035).
 */
export function decisionDeadLetter(
  message: InboundMessage,
  dlqTopic: string,
  reason: { reasonCode: ReasonCode; detail: string; decisionId?: string },
  receivedAt: Date,
  maxRawBytes: number,
): OutboxRow {
  const raw = redactIdentity(message.value);
  const detail = redactIdentity(Buffer.from(reason.detail, 'utf8'));
  const copy = { ...message, value: raw.bytes };
  const said = detail.replaced > 0 ? detail.bytes.toString('utf8') : reason.detail;
  return deadLetterRow(copy, dlqTopic, reason.reasonCode, said, receivedAt, maxRawBytes, reason.decisionId, raw.identitySha256);
}
