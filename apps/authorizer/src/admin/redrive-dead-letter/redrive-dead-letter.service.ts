import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { DecimalString, intentsTopicOf } from '@arvis/contracts';
import { enqueueOutbox } from '@arvis/outbox';
import { Database } from '@arvis/persistence';
import { ToolCatalog } from '@arvis/tool-catalog';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { refusal, type AdminOutcome, type Operator } from '../admin-guard/admin-http';
import { journalOperatorAct, type JournaledAct } from '../admin-guard/operator-journal';
import { readRecord, type TopicRecord } from './read-dead-letter';
import { checkRedrivable } from './redrivable';

/** A dead letter, by where it is: the DLQ of the decisions or of the intents, partition, offset. */
export const DeadLetterBody = z.strictObject({
  dlq: z.enum(['decisions', 'intents']),
  partition: z.number().int().min(0),
  offset: DecimalString,
  note: z.string().max(2000).optional(),
});
export type DeadLetterBody = z.infer<typeof DeadLetterBody>;

export interface DeadLetterAct extends JournaledAct {
  disposition: 'redriven' | 'discarded';
  sourceTopic: string;
}

/**
 * Re-drives a dead letter of an intent (its original message sent again, byte for byte, to the
 * topic it came from, through the outbox: one of the pools' intents topics, ADR 0080) or discards a dead letter of either kind (ADR 0036). A DLQ record cannot be changed, so what
 * happened to it is a row of `dead_letter_dispositions`, keyed by where it is: inserted once, in
 * the transaction that enqueues the message and journals the act. A second re-drive or discard
 * of the same record is refused.
 */
@Injectable()
export class RedriveDeadLetterService {
  /** Every pool's intents topic, the shared pool's (the intents topic) first. */
  private readonly intentTopics: string[];

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly db: Database,
    catalog: ToolCatalog,
  ) {
    this.intentTopics = [...new Set([config.topics.intents, ...catalog.pools().map((p) => intentsTopicOf(config.topics, p))])];
  }

  async act(operator: Operator, body: DeadLetterBody, to: 'redriven' | 'discarded'): Promise<AdminOutcome<DeadLetterAct>> {
    const { topics } = this.config;
    const [dlqTopic, sources] = body.dlq === 'decisions' ? [topics.decisionsDlq, [topics.decisions]] : [topics.intentsDlq, this.intentTopics];
    const found: TopicRecord | null = await readRecord(this.config.kafka, dlqTopic, body.partition, body.offset);
    if (!found) return { ok: false, ...refusal(HttpStatus.NOT_FOUND, 'not_found', `no record at ${dlqTopic}[${body.partition}]@${body.offset}`) };
    // A decision sent again would never authenticate: its token is not kept at rest (ADR 0035),
    // only its SHA-256, or it had none the parser could find. And no outbox publisher may write
    // the decisions topic (the ACL table): on a secured broker the re-driven row was refused for
    // ever. So a dead-lettered decision is not re-driven; its producer sends it again.
    if (body.dlq === 'decisions' && to === 'redriven') {
      return {
        ok: false,
        ...refusal(HttpStatus.CONFLICT, 'decision_not_redrivable', 'a dead-lettered decision is never sent again (it would not authenticate): its producer sends it again with a valid token; discard the record'),
      };
    }
    const checked = checkRedrivable(found.value, sources);
    const sourceTopic = checked.ok ? checked.record.sourceTopic : sources[0];
    // A record that cannot be sent again can still be discarded, if it is a dead letter at all.
    if (!checked.ok && (to === 'redriven' || checked.why === 'not_a_dead_letter')) {
      return { ok: false, ...refusal(HttpStatus.CONFLICT, checked.why, checked.message) };
    }
    const reasonCode = checked.ok ? checked.record.reasonCode : 'malformed_message';
    const target = `${dlqTopic}/${body.partition}/${body.offset}`;
    const done = await this.db.tx(async (tx) => {
      const inserted = await tx.$executeRaw`
        INSERT INTO dead_letter_dispositions (dlq_topic, partition, "offset", disposition, source_topic, reason_code, decided_by_issuer, decided_by, note)
        VALUES (${dlqTopic}, ${body.partition}, ${body.offset}::bigint, ${to}, ${sourceTopic}, ${reasonCode}, ${operator.issuer}, ${operator.subject}, ${body.note ?? null})
        ON CONFLICT DO NOTHING`;
      if (inserted === 0) return null;
      if (checked.ok && to === 'redriven') {
        await enqueueOutbox(tx, [{ topic: sourceTopic, key: found.key ?? `${body.partition}:${body.offset}`, payload: checked.text }]);
      }
      const note = [body.note, `dead-lettered as ${reasonCode}`].filter(Boolean).join(' | '); // clipped by the entry factory
      return journalOperatorAct(tx, this.config.topics.journal, operator, { name: to === 'redriven' ? 'redrive_dead_letter' : 'discard_dead_letter', target, note });
    });
    if (!done) return { ok: false, ...refusal(HttpStatus.CONFLICT, 'already_handled', `${target} was already re-driven or discarded`) };
    return { ok: true, body: { ...done, disposition: to, sourceTopic } };
  }
}
