import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { lostEntriesOf, restoreLostEntries } from '@arvis/journal';
import { JOURNAL_HEAD_READER_GROUP_PREFIX, readTopic } from '@arvis/kafka';
import { CapabilityStore, ConfirmationStore } from '@arvis/lifecycle';
import { Database } from '@arvis/persistence';
import { JournalRollbackGuard } from '@arvis/runtime';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { refusal, type AdminOutcome, type Operator } from '../admin-guard/admin-http';
import { journalOperatorAct, type JournaledAct } from '../admin-guard/operator-journal';
import { settledCapabilitiesOf } from './settled-capabilities';

export const ReconcileBody = z.strictObject({
  note: z.string().trim().min(1, 'say which restore this is and why it is safe to go on').max(2000),
});
export type ReconcileBody = z.infer<typeof ReconcileBody>;

export interface Reconciled extends JournaledAct {
  chain: string;
  /** The database's head before, and the topic's head it was brought to. */
  restoredFrom: string;
  restoredTo: string;
  restoredEntries: number;
  /** Capabilities the lost entries show used, now consumed or revoked here: they never run again. */
  consumedCapabilities: string[];
  revokedCapabilities: string[];
}

/** Who the journal names as the consumer of a capability settled from the topic's entries. */
const RESTORED_CONSUMER = 'journal-restore';

/**
 * The operator's act after a restore from an older dump (ADR 0055, docs/operations.md). The
 * journal topic holds the entries the database lost; they are chained back into the journal as
 * they were (same seqs, same hashes, checked to continue the database's chain), and every
 * capability they show used is settled as they say (consumed, or revoked with the refusal's
 * reason), with its reserved confirmation spent or released. What makes a second run impossible
 * is the capability's state: a consumption moves only `minted` rows. Then the act is journaled,
 * after the restored entries, all in one transaction; the services' rollback check then finds the
 * topic's head in the database and they start working.
 */
@Injectable()
export class ReconcileRollbackService {
  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly db: Database,
    private readonly rollback: JournalRollbackGuard,
    private readonly capabilities: CapabilityStore,
    private readonly confirmations: ConfirmationStore,
  ) {}

  async reconcile(operator: Operator, body: ReconcileBody): Promise<AdminOutcome<Reconciled>> {
    const verdict = await this.rollback.check();
    if (verdict.state === 'consistent') return { ok: false, ...refusal(HttpStatus.CONFLICT, 'no_rollback', 'the database\'s journal holds the journal topic\'s head: there is nothing to reconcile') };
    if (verdict.state === 'journal_topic_unread') return { ok: false, ...refusal(HttpStatus.SERVICE_UNAVAILABLE, 'journal_topic_unread', 'the journal topic cannot be read now; try again') };
    if (verdict.state === 'journal_diverged') {
      return { ok: false, ...refusal(HttpStatus.CONFLICT, 'journal_diverged', `the database holds another entry than the topic at ${verdict.chain}@${verdict.topicSeq}: restore a newer dump, or see docs/operations.md`) };
    }
    const from = { seq: BigInt(verdict.databaseSeq), hash: verdict.databaseHash };
    // The whole topic: the lost entries are its newest, but how far back they go is not known.
    const records = await readTopic(this.config.kafka, this.config.topics.journal, {
      groupPrefix: JOURNAL_HEAD_READER_GROUP_PREFIX,
      clientId: `${this.config.kafka.clientId}-reconcile`,
      timeoutMs: 120_000,
    });
    const lost = lostEntriesOf(records.map((r) => r.value), verdict.chain, from, BigInt(verdict.topicSeq));
    if (!lost.ok) {
      return { ok: false, ...refusal(HttpStatus.CONFLICT, `topic_${lost.reason}`, `the journal topic's entries after ${verdict.chain}@${verdict.databaseSeq} cannot be taken back: ${lost.reason} at ${lost.seq}`) };
    }
    const settled = settledCapabilitiesOf(lost.entries.map((e) => e.entry));
    const done = await this.db.tx(async (tx) => {
      if (!(await restoreLostEntries(tx, lost.entries, from))) return null;
      const consumed = await this.capabilities.consumeAsJournaled(tx, settled.filter((s) => s.state === 'consumed'), RESTORED_CONSUMER);
      const revoked = await this.capabilities.revokeAsJournaled(tx, settled.filter((s) => s.state === 'revoked'));
      // Spent where a body ran, released where none did, as the dispatcher would have.
      await this.confirmations.finalize(tx, [...consumed, ...revoked], [...consumed.map(() => 'effect_completed' as const), ...revoked.map(() => 'pre_effect_refusal' as const)]);
      const act = await journalOperatorAct(tx, this.config.topics.journal, operator, {
        name: 'reconcile_rollback',
        target: `${verdict.chain}@${verdict.databaseSeq}->${verdict.topicSeq}`,
        note: body.note,
      });
      return { act, consumed, revoked };
    });
    if (!done) return { ok: false, ...refusal(HttpStatus.CONFLICT, 'head_moved', 'the database\'s journal moved while reconciling; look again') };
    await this.rollback.check();
    return {
      ok: true,
      body: {
        ...done.act,
        chain: verdict.chain,
        restoredFrom: verdict.databaseSeq,
        restoredTo: verdict.topicSeq,
        restoredEntries: lost.entries.length,
        consumedCapabilities: done.consumed.sort(),
        revokedCapabilities: done.revoked.sort(),
      },
    };
  }
}
