import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { DecimalString } from '@arvis/contracts';
import { discardQuarantined, releaseQuarantined, type QuarantinedOutboxRow } from '@arvis/outbox';
import { Database } from '@arvis/persistence';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { refusal, type AdminOutcome, type Operator } from '../admin-guard/admin-http';
import { journalOperatorAct, type JournaledAct } from '../admin-guard/operator-journal';

export const QuarantineBody = z.strictObject({ note: z.string().max(2000).optional() });
export type QuarantineBody = z.infer<typeof QuarantineBody>;

/**
 * Releases (sends again) or discards an outbox row the relay quarantined (ADR 0004, 0036): one
 * conditional UPDATE and its operator_action entry, in one transaction.
 */
@Injectable()
export class ReleaseQuarantinedService {
  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly db: Database,
  ) {}

  async act(operator: Operator, seq: string, to: 'release' | 'discard', body: QuarantineBody): Promise<AdminOutcome<JournaledAct & { seq: string; topic: string }>> {
    if (!DecimalString.safeParse(seq).success) return { ok: false, ...refusal(HttpStatus.BAD_REQUEST, 'bad_request', 'seq is a decimal outbox sequence number') };
    const done = await this.db.tx(async (tx) => {
      const row: QuarantinedOutboxRow | null = to === 'release' ? await releaseQuarantined(tx, seq) : await discardQuarantined(tx, seq);
      if (!row) return null;
      const note = [body.note, `${row.topic} key ${row.key}; quarantined for: ${row.reason}`].filter(Boolean).join(' | ');
      const act = await journalOperatorAct(tx, this.config.topics.journal, operator, {
        name: to === 'release' ? 'release_quarantined' : 'discard_quarantined',
        target: `outbox/${row.seq}`,
        note, // clipped by the entry factory
      });
      return { ...act, seq: row.seq, topic: row.topic };
    });
    if (done) return { ok: true, body: done };
    return { ok: false, ...refusal(HttpStatus.CONFLICT, 'not_quarantined', `outbox row ${seq} is not quarantined (unknown, published, released or discarded)`) };
  }
}
