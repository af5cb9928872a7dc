import { Inject, Injectable } from '@nestjs/common';
import type { VerifiedIdentity } from '@arvis/effect-context';
import { appendJournal, confirmationDecidedEntry } from '@arvis/journal';
import { ConfirmationStore, type DecidedConfirmation } from '@arvis/lifecycle';
import { Database } from '@arvis/persistence';
import { ToolCatalog } from '@arvis/tool-catalog';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';

export type DecideOutcome = 'ok' | 'not_found' | 'other_tenant' | 'own_request' | 'own_request_unprovable' | 'not_pending' | 'typed_confirmation_required';

/** What a verdict may carry besides its direction (ADR 0069). */
export interface VerdictOptions {
  /** Journaled with the verdict (approver.comment). */
  comment?: string | null;
  /**
   * The console's typed confirmation: when `required`, approving a tool declared irreversible
   * needs `typed` to be the tool's name. The API (a program, not a person clicking) does not ask.
   */
  typedConfirmation?: { required: boolean; typed: string | null };
}

/**
 * An approver's decision on a pending confirmation: one conditional UPDATE (pending -> approved
 * or denied, same tenant, not the requester by (issuer, subject) nor, through another issuer, by
 * person key (ADR 0035), not expired on database time) and, in the same
 * transaction, its journal entry naming the approver's issuer and subject (ADR 0032). The HTTP
 * handler only records it; the resume worker carries the parked decision on.
 */
@Injectable()
export class ApproveConfirmationService {
  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly db: Database,
    private readonly confirmations: ConfirmationStore,
    private readonly catalog: ToolCatalog,
  ) {}

  async decide(id: string, approver: VerifiedIdentity, to: 'approved' | 'denied', opts: VerdictOptions = {}): Promise<DecideOutcome> {
    if (to === 'approved' && opts.typedConfirmation?.required && !(await this.typedAsRequired(id, approver.tenant, opts.typedConfirmation.typed))) {
      return 'typed_confirmation_required';
    }
    const comment = opts.comment ?? null;
    const changed = await this.db.tx(async (tx) => {
      const decided =
        to === 'approved'
          ? await this.confirmations.approve(id, approver, this.config.confirmations.grantTtlMs, tx)
          : await this.confirmations.deny(id, approver, tx);
      if (decided) await appendJournal(tx, [this.entryOf(decided, to, approver, comment)], this.config.topics.journal);
      return decided !== null;
    });
    if (changed) return 'ok';
    // Say why, from the row as it is now.
    const row = await this.db.confirmation.findUnique({ where: { confirmationId: id } });
    if (!row) return 'not_found';
    if (row.tenant !== approver.tenant) return 'other_tenant';
    if (row.principal === approver.principal && (row.issuer === null || row.issuer === approver.issuer)) return 'own_request';
    if (row.requesterPerson !== null && row.requesterPerson === approver.person) return 'own_request';
    // Another issuer: accepted only when both map a person key and the keys differ (ADR 0035).
    if (row.issuer !== null && row.issuer !== approver.issuer) {
      if (row.requesterPerson === null || approver.person === null) return 'own_request_unprovable';
      if (row.requesterPerson === approver.person) return 'own_request';
    }
    return 'not_pending';
  }

  /** An irreversible tool's confirmation is approved only with its name typed; anything else needs nothing typed. */
  private async typedAsRequired(id: string, tenant: string, typed: string | null): Promise<boolean> {
    const [row] = await this.db.$queryRaw<{ tool: string }[]>`SELECT tool FROM confirmations WHERE confirmation_id = ${id} AND tenant = ${tenant}`;
    const spec = row ? this.catalog.get(row.tool) : undefined;
    return !spec || spec.reversible || typed === spec.name;
  }

  private entryOf(c: DecidedConfirmation, to: 'approved' | 'denied', approver: VerifiedIdentity, comment: string | null) {
    // Every confirmation is parked with its decision's inbox row; without it there is nothing to name.
    if (c.runId === null || c.causalId === null) throw new Error(`confirmation ${c.confirmationId}: decision ${c.decisionId} has no inbox row`);
    const facts = { decisionId: c.decisionId, runId: c.runId, causalId: c.causalId, tenant: c.tenant, principal: c.principal, tool: c.tool };
    return confirmationDecidedEntry(facts, to, { issuer: approver.issuer, subject: approver.principal, ...(comment !== null ? { comment } : {}) });
  }
}
