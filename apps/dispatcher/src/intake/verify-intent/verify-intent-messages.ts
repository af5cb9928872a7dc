import { IntentMessageSchema, IntentSignatureSchema, parseInbound, type IntentMessage } from '@arvis/contracts';
import { verifyCanonicalSignature, verifyCanonicalSignatureOffThread, type SignatureVerification, type VerificationKeyring } from '@arvis/crypto';
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
 * From this many readable messages on, a slice's signatures are checked on libuv's threadpool
 * (ADR 0093): an Ed25519 check costs about 0.1 ms, so a slice of hundreds holds the dispatcher's
 * thread for tens of ms while the machine's other core idles; spread over the pool they take
 * about half the time. A quiet slice (one or a few intents) is checked here, where a hand-off to
 * another thread would cost more than it saves.
 */
export const OFF_THREAD_FROM = 32;

/**
 * First step of a slice, before any database work: each message is parsed and its Ed25519
 * signature checked. A message that fails is dead-lettered and never journaled: a forged message
 * must not end somebody else's decision. Verdicts and order are the same wherever the checks run.
 */
export async function verifyIntentMessages(
  messages: readonly InboundMessage[],
  opts: { keyring: VerificationKeyring; maxBytes: number; dlqTopic: string; receivedAt: Date; maxRawBytes: number; offThreadFrom?: number },
): Promise<VerifiedMessages> {
  const parsed = messages.map((message) => ({ message, parsed: parseInbound(InboundIntentSchema, message.value, { maxBytes: opts.maxBytes }) }));
  // With its text: the authorizer's canonical wire text is verified as it came (ADR 0091).
  const checkArgs = (p: (typeof parsed)[number], intent: IntentMessage) => [intent as unknown as Record<string, unknown>, opts.keyring, p.message.value!.toString('utf8')] as const;
  const readable = parsed.filter((p) => p.parsed.ok).length;
  const verdicts: (SignatureVerification | undefined)[] =
    readable >= (opts.offThreadFrom ?? OFF_THREAD_FROM)
      ? await Promise.all(parsed.map((p) => (p.parsed.ok ? verifyCanonicalSignatureOffThread(...checkArgs(p, p.parsed.value as IntentMessage)) : undefined)))
      : parsed.map((p) => (p.parsed.ok ? verifyCanonicalSignature(...checkArgs(p, p.parsed.value as IntentMessage)) : undefined));
  const out: VerifiedMessages = { verified: [], deadLetters: [] };
  parsed.forEach(({ message, parsed: result }, i) => {
    if (!result.ok) {
      out.deadLetters.push(deadLetterRow(message, opts.dlqTopic, result.reasonCode, result.detail, opts.receivedAt, opts.maxRawBytes));
      return;
    }
    const sig = verdicts[i]!;
    if (!sig.ok) {
      out.deadLetters.push(deadLetterRow(message, opts.dlqTopic, 'untrusted_tool_authorization_outcome', sig.detail, opts.receivedAt, opts.maxRawBytes));
      return;
    }
    out.verified.push({ message, intent: result.value as IntentMessage });
  });
  return out;
}
