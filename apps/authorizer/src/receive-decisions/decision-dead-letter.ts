import type { ReasonCode } from '@arvis/contracts';
import type { InboundMessage } from '@arvis/kafka';
import { deadLetterRow, type OutboxRow } from '@arvis/outbox';

/**
 * The outbox row that carries a decision message to the decisions DLQ. It can name the decisionId
 * the message claimed (`identity_invalid`, a conflict, a decision that could not be processed nor
 * journaled), so the sender can match it.
 */
export function decisionDeadLetter(
  message: InboundMessage,
  dlqTopic: string,
  reason: { reasonCode: ReasonCode; detail: string; decisionId?: string },
  receivedAt: Date,
  maxRawBytes: number,
): OutboxRow {
  return deadLetterRow(message, dlqTopic, reason.reasonCode, reason.detail, receivedAt, maxRawBytes, reason.decisionId);
}
