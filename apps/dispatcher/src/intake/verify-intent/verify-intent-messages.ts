import { IntentMessageSchema, IntentSignatureSchema, parseInbound, type IntentMessage } from '@arvis/contracts';
import { verifyCanonicalSignature, type VerificationKeyring } from '@arvis/crypto';
import type { InboundMessage } from '@arvis/kafka';
import { deadLetterRow, type OutboxRow } from '@arvis/outbox';
import type { TraceCarrier } from '@arvis/tracing';

export interface VerifiedIntent {
  message: InboundMessage;
  intent: IntentMessage;
  /** The intent's trace context in this dispatcher (set by IntentTraces). */
  trace?: TraceCarrier;
}

export interface VerifiedMessages {
  verified: VerifiedIntent[];
  /** DLQ rows for messages that are unreadable or not signed by a trusted key. */
  deadLetters: OutboxRow[];
}

// Signature optional at parse time so that an unsigned message is refused as untrusted (what it
// is), not as malformed; verifyCanonicalSignature then refuses it.
const InboundIntentSchema = IntentMessageSchema.extend({ signature: IntentSignatureSchema.optional() });

/**
 * First step of a slice, before any database work: each message is parsed and its Ed25519
 * signature checked. A message that fails is dead-lettered and never journaled: a forged message
 * must not end somebody else's decision.
 */
export function verifyIntentMessages(
  messages: readonly InboundMessage[],
  opts: { keyring: VerificationKeyring; maxBytes: number; dlqTopic: string; receivedAt: Date; maxRawBytes: number },
): VerifiedMessages {
  const out: VerifiedMessages = { verified: [], deadLetters: [] };
  for (const message of messages) {
    const parsed = parseInbound(InboundIntentSchema, message.value, { maxBytes: opts.maxBytes });
    if (!parsed.ok) {
      out.deadLetters.push(deadLetterRow(message, opts.dlqTopic, parsed.reasonCode, parsed.detail, opts.receivedAt, opts.maxRawBytes));
      continue;
    }
    const intent = parsed.value as IntentMessage;
    // With its text: the authorizer's canonical wire text is verified as it came (ADR 0091).
    const sig = verifyCanonicalSignature(intent as unknown as Record<string, unknown>, opts.keyring, message.value!.toString('utf8'));
    if (!sig.ok) {
      out.deadLetters.push(deadLetterRow(message, opts.dlqTopic, 'untrusted_tool_authorization_outcome', sig.detail, opts.receivedAt, opts.maxRawBytes));
      continue;
    }
    out.verified.push({ message, intent });
  }
  return out;
}
