import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { Observable, type Subscriber } from 'rxjs';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../config/authorizer.config';
import { ListConfirmationsService } from '../list-confirmations/list-confirmations.service';
import { MAX_PAGE } from '../list-confirmations/pending-confirmation';
import { ConsoleSessionsService } from './console-sessions.service';

export interface ConsoleEvent {
  type: 'confirmations' | 'signed-out';
  data: unknown;
}

/**
 * Server-sent events for an open console: the tenant's pending confirmations (first page), sent
 * when the stream opens and again whenever the list changes, so new requests appear and decided
 * ones go without a reload. A short poll of the database per open stream (no LISTEN connection
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
  ) {}

  stream(sessionId: string): Observable<ConsoleEvent> {
    return new Observable<ConsoleEvent>((sub) => {
      this.open.add(sub);
      let last = '';
      let running = false;
      const pass = async () => {
        if (running) return;
        running = true;
        try {
          const session = await this.sessions.find(sessionId);
          if (!session) return void (sub.next({ type: 'signed-out', data: {} }), sub.complete());
          const pending = await this.listing.pending(session.approver.tenant, MAX_PAGE, null);
          const text = JSON.stringify(pending);
          if (text !== last) sub.next({ type: 'confirmations', data: pending });
          last = text;
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

  /** Open streams would hold the HTTP server's close: end them before it stops. */
  beforeApplicationShutdown(): void {
    for (const sub of [...this.open]) sub.complete();
  }
}
