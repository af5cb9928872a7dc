import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { JournalEntry } from '@arvis/contracts';
import type { VerifiedIdentity } from '@arvis/effect-context';
import { Database } from '@arvis/persistence';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { keyOf, ResultWaiters, type DecisionKey } from './result-waiters';

/** What the lookup found of one decision: who sent it (the verified claims) and its final entry. */
export interface DecisionFacts {
  issuer: string | null;
  principal: string | null;
  entry?: JournalEntry;
}

/** The answer to a requester: its decision's final entry, still pending, or nothing of its own. */
export type DecisionRead =
  | { status: 'final'; decisionId: string; entry: JournalEntry }
  | { status: 'pending'; decisionId: string }
  | { status: 'not_found'; decisionId: string };

interface FactRow {
  tenant: string;
  decision_id: string;
  issuer: string | null;
  principal: string | null;
  entry: string | null;
  hash: string | null;
  trace_id: string | null;
}

/**
 * `GET /decisions/{id}` (ADR 0072): a requester reads its own decision's final journal entry with
 * the token it sends decisions with. The decision is looked up in the requester's tenant only
 * (ids are per tenant, ADR 0061) and answered only if its inbox row's verified claims name the
 * same principal, (issuer, subject); anything else is not found, never "someone else's". A long
 * poll waits on the process's one shared poller (ResultWaiters): one statement per tick for every
 * waiting request, none with nobody waiting.
 */
@Injectable()
export class ReadDecisionService implements OnModuleDestroy {
  private readonly log = new Logger('ReadDecision');
  readonly waiters: ResultWaiters<DecisionFacts>;

  constructor(
    private readonly db: Database,
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
  ) {
    this.waiters = new ResultWaiters((keys) => this.lookup(keys), {
      pollMs: config.results.pollMs,
      maxWaiters: config.results.maxWaiters,
      onError: (e) => this.log.warn({ msg: 'result lookup failed, will retry', error: e.message }),
    });
  }

  /** `waitS` is already capped by the caller (RESULT_WAIT_MAX_S). */
  async read(requester: VerifiedIdentity, decisionId: string, waitS: number): Promise<DecisionRead> {
    const key = { tenant: requester.tenant, decisionId };
    // Settled: the final entry, or a decision of another principal (answered as not found at once).
    const settled = (f: DecisionFacts) => f.entry !== undefined || !this.isOwn(f, requester);
    let facts = (await this.lookup([key])).get(keyOf(key));
    // Not there yet (sent, not yet read by the authorizer) or pending: wait, unless the process
    // already holds RESULT_MAX_WAITERS long polls (then the answer is what there is now).
    if ((facts === undefined || !settled(facts)) && waitS > 0 && !this.waiters.full) {
      facts = (await this.waiters.wait(key, waitS * 1000, settled)) ?? facts;
    }
    if (!this.isOwn(facts, requester)) return { status: 'not_found', decisionId };
    return facts!.entry ? { status: 'final', decisionId, entry: facts!.entry } : { status: 'pending', decisionId };
  }

  private isOwn(facts: DecisionFacts | undefined, requester: VerifiedIdentity): boolean {
    return facts !== undefined && facts.issuer === requester.issuer && facts.principal === requester.principal;
  }

  /**
   * One statement for any number of keys: each decision's inbox row (who sent it) and its final
   * entry, through the primary key of decision_inbox and the unique (final_decision_id, tenant)
   * of the journal. The entry is returned as the journal topic carries it: the stored canonical
   * text with its hash and trace id.
   */
  private async lookup(keys: DecisionKey[]): Promise<Map<string, DecisionFacts>> {
    const rows = await this.db.$queryRawUnsafe<FactRow[]>(
      `SELECT di.tenant, di.decision_id, di.identity_claims->>'issuer' AS issuer, di.identity_claims->>'principal' AS principal,
              j.entry, j.hash, j.trace_id
       FROM unnest($1::text[], $2::text[]) AS k(tenant, decision_id)
       JOIN decision_inbox di ON di.tenant = k.tenant AND di.decision_id = k.decision_id
       LEFT JOIN journal j ON j.final_decision_id = k.decision_id AND j.tenant = k.tenant`,
      keys.map((k) => k.tenant),
      keys.map((k) => k.decisionId),
    );
    return new Map(
      rows.map((r) => [
        keyOf({ tenant: r.tenant, decisionId: r.decision_id }),
        {
          issuer: r.issuer,
          principal: r.principal,
          ...(r.entry !== null ? { entry: { ...(JSON.parse(r.entry) as object), hash: r.hash, ...(r.trace_id ? { traceId: r.trace_id } : {}) } as JournalEntry } : {}),
        },
      ]),
    );
  }

  onModuleDestroy(): void {
    this.waiters.stop();
  }
}
