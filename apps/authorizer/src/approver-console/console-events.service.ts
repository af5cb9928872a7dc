import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { Observable, type Subscriber } from 'rxjs';
import { PrismaService } from '@arvis/persistence';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../config/authorizer.config';
import { ListConfirmationsService } from '../list-confirmations/list-confirmations.service';
import { MAX_PAGE } from '../list-confirmations/pending-confirmation';
import { ConsoleSessionsService, type ActiveSession } from './console-sessions.service';

export interface ConsoleEvent {
  type: 'confirmations' | 'outcomes' | 'signed-out';
  data: unknown;
}

/** How a decision this approver decided in this session ended, once its final entry is journaled. */
export interface DecidedOutcome {
  confirmationId: string;
  decisionId: string;
  tool: string;
  verdict: string;
  kind: string;
  effectBoundary: string;
  reasonCode: string | null;
}

/**
 * Server-sent events for an open console: the tenant's pending confirmations (first page), sent
 * when the stream opens and again whenever the list changes, so new requests appear and decided
 * ones go without a reload; and the final journal entries of what this approver decided in this
 * session, as they arrive. A short poll of the database per open stream (no LISTEN connection
 * to keep alive); each pass also re-reads the session, and a session that ended closes the stream.
 */
@Injectable()
export class ConsoleEventsService implements BeforeApplicationShutdown {
  private readonly log = new Logger('ConsoleEvents');
  private readonly open = new Set<Subscriber<ConsoleEvent>>();

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly sessions: ConsoleSessionsService,
    private readonly listing: ListConfirmationsService,
    private readonly prisma: PrismaService,
  ) {}

  stream(sessionId: string): Observable<ConsoleEvent> {
    return new Observable<ConsoleEvent>((sub) => {
      this.open.add(sub);
      const last = { confirmations: '', outcomes: '' };
      const send = (type: 'confirmations' | 'outcomes', data: unknown[]) => {
        const text = JSON.stringify(data);
        if (text !== last[type]) sub.next({ type, data });
        last[type] = text;
      };
      let running = false;
      const pass = async () => {
        if (running) return;
        running = true;
        try {
          const session = await this.sessions.find(sessionId);
          if (!session) return void (sub.next({ type: 'signed-out', data: {} }), sub.complete());
          send('confirmations', await this.listing.pending(session.approver.tenant, MAX_PAGE, null));
          send('outcomes', await this.outcomes(session));
        } catch (e) {
          // A database blip: the next pass tries again; the page keeps what it shows.
          this.log.warn(`console events pass failed: ${(e as Error).message}`);
        } finally {
          running = false;
        }
      };
      void pass();
      const timer = setInterval(() => void pass(), this.config.console.eventsPollMs);
      return () => {
        clearInterval(timer);
        this.open.delete(sub);
      };
    });
  }

  private outcomes(session: ActiveSession): Promise<DecidedOutcome[]> {
    const { tenant, principal, issuer } = session.approver;
    return this.prisma.$queryRaw<DecidedOutcome[]>`
      SELECT c.confirmation_id AS "confirmationId", c.decision_id AS "decisionId", c.tool,
             CASE WHEN c.status = 'denied' THEN 'denied' ELSE 'approved' END AS verdict,
             j.kind, j.effect_boundary AS "effectBoundary", j.reason_code AS "reasonCode"
      FROM confirmations c JOIN journal j ON j.final_decision_id = c.decision_id
      WHERE c.tenant = ${tenant} AND c.decided_by = ${principal} AND c.decided_by_issuer = ${issuer} AND c.decided_at >= ${session.createdAt}
      ORDER BY c.decided_at DESC, c.confirmation_id
      LIMIT 50`;
  }

  /** Open streams would hold the HTTP server's close: end them before it stops. */
  beforeApplicationShutdown(): void {
    for (const sub of [...this.open]) sub.complete();
  }
}
