import { HttpStatus, Inject, Injectable, Logger, Optional, type BeforeApplicationShutdown } from '@nestjs/common';
import { Observable, type Subscriber } from 'rxjs';
import { Gauge } from 'prom-client';
import { Database } from '@arvis/persistence';
import { ApiError, MetricsRegistry } from '@arvis/runtime';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
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

/** One open stream: its subscriber, its cookie's session, what it was last sent. */
interface Stream {
  sub: Subscriber<ConsoleEvent>;
  sessionId: string;
  last: { confirmations: string; outcomes: string };
}

/** The streams of one tenant, served by one poller. */
interface TenantPoller {
  streams: Set<Stream>;
  timer: NodeJS.Timeout;
  running: boolean;
}

/**
 * Server-sent events for an open console: the tenant's pending confirmations (first page), sent
 * when the stream opens and again whenever the list changes, so new requests appear and decided
 * ones go without a reload; and the final journal entries of what this approver decided in this
 * session, as they arrive. Bounded: one poller per tenant reads the pending list once per pass for
 * all of that tenant's streams, and a session holds at most CONSOLE_STREAMS_PER_SESSION streams
 * (one more is refused with 429, which an EventSource does not retry). Each pass re-reads every
 * stream's session, and a session that ended closes its streams.
 */
@Injectable()
export class ConsoleEventsService implements BeforeApplicationShutdown {
  private readonly log = new Logger('ConsoleEvents');
  private readonly pollers = new Map<string, TenantPoller>();
  private readonly perSession = new Map<string, number>();
  private readonly gauges: { streams: Gauge; pollers: Gauge };

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly sessions: ConsoleSessionsService,
    private readonly listing: ListConfirmationsService,
    private readonly db: Database,
    @Optional() metrics?: MetricsRegistry,
  ) {
    const registers = metrics ? [metrics] : [];
    this.gauges = {
      streams: new Gauge({ name: 'arvis_console_streams', help: 'Open approver-console event streams', registers }),
      pollers: new Gauge({ name: 'arvis_console_pollers', help: 'Tenants whose pending confirmations are polled for open console streams (one poller each)', registers }),
    };
  }

  /** A stream for this session (already checked by the guard); refused past the per-session cap. */
  stream(session: ActiveSession, sessionId: string): Observable<ConsoleEvent> {
    const held = this.perSession.get(session.sessionIdHash) ?? 0;
    if (held >= this.config.console.streamsPerSession) {
      throw new ApiError(HttpStatus.TOO_MANY_REQUESTS, 'too_many_streams', { message: `a console session holds at most ${this.config.console.streamsPerSession} event streams; close another tab` });
    }
    return new Observable<ConsoleEvent>((sub) => {
      const stream: Stream = { sub, sessionId, last: { confirmations: '', outcomes: '' } };
      const tenant = session.approver.tenant;
      this.perSession.set(session.sessionIdHash, (this.perSession.get(session.sessionIdHash) ?? 0) + 1);
      const poller = this.pollerOf(tenant);
      poller.streams.add(stream);
      this.measure();
      void this.pass(tenant, [stream]);
      return () => {
        poller.streams.delete(stream);
        const left = (this.perSession.get(session.sessionIdHash) ?? 1) - 1;
        if (left > 0) this.perSession.set(session.sessionIdHash, left);
        else this.perSession.delete(session.sessionIdHash);
        if (poller.streams.size === 0) {
          clearInterval(poller.timer);
          this.pollers.delete(tenant);
        }
        this.measure();
      };
    });
  }

  private pollerOf(tenant: string): TenantPoller {
    let poller = this.pollers.get(tenant);
    if (!poller) {
      const timer = setInterval(() => void this.pass(tenant), this.config.console.eventsPollMs);
      poller = { streams: new Set(), timer, running: false };
      this.pollers.set(tenant, poller);
    }
    return poller;
  }

  /** One pass for a tenant (or only some of its streams, when one opens): the list once, then each stream's session and outcomes. */
  private async pass(tenant: string, only?: Stream[]): Promise<void> {
    const poller = this.pollers.get(tenant);
    if (!poller || (only === undefined && poller.running)) return;
    if (only === undefined) poller.running = true;
    try {
      const streams = only ?? [...poller.streams];
      if (streams.length === 0) return;
      const pending = await this.listing.pending(tenant, MAX_PAGE, null);
      for (const stream of streams) await this.serve(stream, pending);
    } catch (e) {
      // A database blip: the next pass tries again; the pages keep what they show.
      this.log.warn({ msg: 'console events pass failed', error: (e as Error).message });
    } finally {
      if (only === undefined) poller.running = false;
    }
  }

  private async serve(stream: Stream, pending: unknown[]): Promise<void> {
    const session = await this.sessions.find(stream.sessionId);
    if (!session) return void (stream.sub.next({ type: 'signed-out', data: {} }), stream.sub.complete());
    const send = (type: 'confirmations' | 'outcomes', data: unknown[]) => {
      const text = JSON.stringify(data);
      if (text !== stream.last[type]) stream.sub.next({ type, data });
      stream.last[type] = text;
    };
    send('confirmations', pending);
    send('outcomes', await this.outcomes(session));
  }

  private measure(): void {
    this.gauges.pollers.set(this.pollers.size);
    this.gauges.streams.set([...this.pollers.values()].reduce((n, p) => n + p.streams.size, 0));
  }

  private outcomes(session: ActiveSession): Promise<DecidedOutcome[]> {
    const { tenant, principal, issuer } = session.approver;
    return this.db.$queryRaw<DecidedOutcome[]>`
      SELECT c.confirmation_id AS "confirmationId", c.decision_id AS "decisionId", c.tool,
             CASE WHEN c.status = 'denied' THEN 'denied' ELSE 'approved' END AS verdict,
             j.kind, j.effect_boundary AS "effectBoundary", j.reason_code AS "reasonCode"
      FROM confirmations c JOIN journal j ON j.final_decision_id = c.decision_id AND j.tenant = c.tenant
      WHERE c.tenant = ${tenant} AND c.decided_by = ${principal} AND c.decided_by_issuer = ${issuer} AND c.decided_at >= ${session.createdAt}
      ORDER BY c.decided_at DESC, c.confirmation_id
      LIMIT 50`;
  }

  /** Open streams would hold the HTTP server's close: end them before it stops. */
  beforeApplicationShutdown(): void {
    for (const poller of [...this.pollers.values()]) for (const s of [...poller.streams]) s.sub.complete();
  }
}
