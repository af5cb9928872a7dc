import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { Sha256Hex } from '@arvis/contracts';
import { Database, readAcceptedStores, StoreFingerprint } from '@arvis/persistence';
import { describeVerdict, JournalRollbackGuard } from '@arvis/runtime';
import type { RollbackVerdict } from '@arvis/journal';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { refusal, type AdminOutcome, type Operator } from '../admin-guard/admin-http';
import { journalOperatorAct, type JournaledAct } from '../admin-guard/operator-journal';

export const RebindBody = z.strictObject({
  fromFingerprint: Sha256Hex,
  note: z.string().trim().min(1, 'say which restore this is').max(2000),
});
export type RebindBody = z.infer<typeof RebindBody>;

/** This store, the stores it accepts receipts of, and the other stores its intents name. */
export interface StoreView {
  fingerprint: string;
  accepted: string[];
  /** Fingerprints in stored receipts that this store does not accept, with their intents still in flight. */
  foreign: { fingerprint: string; intents: number; inFlight: number }[];
  /** Only while the database's journal is behind (or forked from) the journal topic (ADR 0055). */
  rollback?: Exclude<RollbackVerdict, { state: 'consistent' }>;
}

/**
 * Re-binds the store after a restore into another cluster or database (ADR 0036,
 * docs/operations.md): the restored database has another fingerprint (the cluster's system
 * identifier and the database name are in it), so the receipts of intents committed before the
 * dump name a store that is no longer this one, and dispatchers refuse them. The operator
 * declares this store the continuation of the old one: one row of `store_rebinds`, inserted only
 * if some stored intent was committed under the old fingerprint and it is not already accepted,
 * journaled in the same transaction. New intents keep getting this store's own fingerprint.
 */
@Injectable()
export class RebindStoreService {
  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly db: Database,
    private readonly store: StoreFingerprint,
    private readonly rollback: JournalRollbackGuard,
  ) {}

  async view(): Promise<StoreView> {
    const accepted = await readAcceptedStores(this.db, this.store.value);
    const foreign = await this.db.$queryRaw<{ fingerprint: string; intents: number; in_flight: number }[]>`
      SELECT i.store_fingerprint AS fingerprint, count(*)::int AS intents,
             count(*) FILTER (WHERE c.state IN ('minted', 'activated'))::int AS in_flight
      FROM intents i LEFT JOIN capabilities c ON c.capability_id = i.capability_id
      WHERE NOT (i.store_fingerprint = ANY(${[...accepted]}::text[]))
      GROUP BY i.store_fingerprint ORDER BY i.store_fingerprint`;
    const verdict = this.rollback.verdict;
    return {
      fingerprint: this.store.value,
      accepted: [...accepted].sort(),
      foreign: foreign.map((f) => ({ fingerprint: f.fingerprint, intents: f.intents, inFlight: f.in_flight })),
      ...(verdict.state === 'consistent' ? {} : { rollback: verdict }),
    };
  }

  async rebind(operator: Operator, body: RebindBody): Promise<AdminOutcome<JournaledAct & { fingerprint: string; reboundFrom: string }>> {
    const own = this.store.value;
    // A database restored from an older dump holds capabilities the topic shows used: accepting
    // its receipts would run them again. Reconciled first (ADR 0055); the topic is read again here.
    const verdict = await this.rollback.check();
    if (verdict.state !== 'consistent') return { ok: false, ...refusal(HttpStatus.SERVICE_UNAVAILABLE, verdict.state, describeVerdict(verdict)) };
    if (body.fromFingerprint === own) return { ok: false, ...refusal(HttpStatus.CONFLICT, 'same_store', 'that is this store\'s own fingerprint: it was not restored elsewhere') };
    const done = await this.db.tx(async (tx) => {
      const inserted = await tx.$executeRaw`
        INSERT INTO store_rebinds (from_fingerprint, to_fingerprint, rebound_by_issuer, rebound_by, note)
        SELECT ${body.fromFingerprint}, ${own}, ${operator.issuer}, ${operator.subject}, ${body.note}
        WHERE EXISTS (SELECT 1 FROM intents WHERE store_fingerprint = ${body.fromFingerprint})
        ON CONFLICT DO NOTHING`;
      if (inserted !== 1) return null;
      return journalOperatorAct(tx, this.config.topics.journal, operator, { name: 'rebind_store', target: `${body.fromFingerprint}->${own}`, note: body.note });
    });
    if (done) return { ok: true, body: { ...done, fingerprint: own, reboundFrom: body.fromFingerprint } };
    const known = await this.db.$queryRaw<{ rebound: boolean }[]>`SELECT EXISTS (SELECT 1 FROM store_rebinds WHERE from_fingerprint = ${body.fromFingerprint}) AS rebound`;
    if (known[0].rebound) return { ok: false, ...refusal(HttpStatus.CONFLICT, 'already_rebound', 'that store was already rebound') };
    return { ok: false, ...refusal(HttpStatus.CONFLICT, 'unknown_store', 'no intent of this database was committed under that fingerprint') };
  }
}
