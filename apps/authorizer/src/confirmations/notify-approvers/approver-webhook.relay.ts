import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Database } from '@arvis/persistence';
import { PeriodicTask } from '@arvis/runtime';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { backoffAfter, consoleLink, signatureOf, type NotificationBody } from './webhook-delivery';

/** A claimed row: whoever claimed it holds its lease and is the one replica sending it. */
interface Claimed {
  deliveryId: string;
  tenant: string;
  event: string;
  body: string;
  attempts: number;
}

/**
 * Approver notifications (ADR 0070), off unless NOTIFY_WEBHOOK_URL is set. Each pass, on every
 * replica: enqueue a row per (confirmation, event) still owed (the unique key lets one insert win
 * across replicas), set aside rows of confirmations that no longer wait, claim due rows under a
 * lease (FOR UPDATE SKIP LOCKED: one replica each), send each signed, and record the answer: the
 * delivery, or the next attempt after a doubling backoff, or giving up after NOTIFY_MAX_ATTEMPTS.
 */
@Injectable()
export class ApproverWebhookRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('ApproverNotifications');
  private readonly task: PeriodicTask | null;

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly db: Database,
  ) {
    this.task = config.notify ? new PeriodicTask('approver-notifications', config.notify.pollMs, () => this.pass(), this.log) : null;
  }

  onApplicationBootstrap(): void {
    this.task?.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.task?.stop();
  }

  async pass(): Promise<void> {
    const notify = this.config.notify!;
    await this.enqueue(notify.consoleUrl, notify.beforeExpiryMs);
    await this.db.$executeRaw`
      UPDATE approver_notifications n SET abandoned_at = now(), last_error = 'the confirmation no longer waits', lease_until = NULL
      FROM confirmations c
      WHERE c.confirmation_id = n.confirmation_id AND c.tenant = n.tenant AND n.delivered_at IS NULL AND n.abandoned_at IS NULL
        AND (n.lease_until IS NULL OR n.lease_until < now()) AND NOT (c.status = 'pending' AND c.expires_at > now())`;
    const claimed = await this.db.$queryRaw<Claimed[]>`
      UPDATE approver_notifications n SET lease_until = now() + ${notify.leaseMs} * interval '1 millisecond', attempts = n.attempts + 1
      WHERE (n.delivery_id, n.tenant) IN (
        SELECT d.delivery_id, d.tenant FROM approver_notifications d
        WHERE d.delivered_at IS NULL AND d.abandoned_at IS NULL AND d.next_attempt_at <= now() AND (d.lease_until IS NULL OR d.lease_until < now())
        ORDER BY d.next_attempt_at LIMIT 20 FOR UPDATE SKIP LOCKED)
      RETURNING n.delivery_id AS "deliveryId", n.tenant, n.event, n.body, n.attempts`;
    await Promise.all(claimed.map((c) => this.send(c)));
  }

  private async enqueue(consoleUrl: string, beforeExpiryMs: number): Promise<void> {
    const owed = await this.db.$queryRaw<{ confirmationId: string; decisionId: string; runId: string; tenant: string; tool: string; expiresAt: Date; event: NotificationBody['event'] }[]>`
      SELECT c.confirmation_id AS "confirmationId", c.decision_id AS "decisionId", di.run_id AS "runId", c.tenant, c.tool, c.expires_at AS "expiresAt", e.event
      FROM confirmations c JOIN decision_inbox di ON di.decision_id = c.decision_id AND di.tenant = c.tenant
      CROSS JOIN (VALUES ('confirmation.parked'), ('confirmation.expiring')) AS e(event)
      WHERE c.status = 'pending' AND c.expires_at > now()
        AND (e.event = 'confirmation.parked' OR c.expires_at <= now() + ${beforeExpiryMs} * interval '1 millisecond')
        AND NOT EXISTS (SELECT 1 FROM approver_notifications n WHERE n.confirmation_id = c.confirmation_id AND n.event = e.event AND n.tenant = c.tenant)
      LIMIT 500`;
    for (const o of owed) {
      const body: NotificationBody = {
        deliveryId: randomUUID(),
        event: o.event,
        tenant: o.tenant,
        confirmationId: o.confirmationId,
        decisionId: o.decisionId,
        runId: o.runId,
        tool: o.tool,
        expiresAt: o.expiresAt.toISOString(),
        link: consoleLink(consoleUrl, o.confirmationId),
      };
      // Another replica may have enqueued it first: then this inserts nothing, and that one is sent.
      await this.db.$executeRaw`
        INSERT INTO approver_notifications (delivery_id, tenant, confirmation_id, event, body)
        VALUES (${body.deliveryId}, ${o.tenant}, ${o.confirmationId}, ${o.event}, ${JSON.stringify(body)})
        ON CONFLICT (confirmation_id, event, tenant) DO NOTHING`;
    }
  }

  private async send(c: Claimed): Promise<void> {
    const notify = this.config.notify!;
    let status: number | null = null;
    let error: string | null = null;
    try {
      const res = await fetch(notify.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(notify.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'arvis-delivery': c.deliveryId,
          'arvis-event': c.event,
          'arvis-signature': signatureOf(notify.secret, c.body, Math.floor(Date.now() / 1000)),
        },
        body: c.body,
      });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
      if (!res.ok) error = `HTTP ${res.status}`;
    } catch (e) {
      error = (e as Error).message.slice(0, 200);
    }
    if (error === null) {
      const n = await this.db.$executeRaw`
        UPDATE approver_notifications SET delivered_at = now(), last_status = ${status}, last_error = NULL, lease_until = NULL
        WHERE delivery_id = ${c.deliveryId} AND tenant = ${c.tenant} AND delivered_at IS NULL`;
      if (n === 1) this.log.log({ msg: 'approver notification delivered', deliveryId: c.deliveryId, event: c.event, attempts: c.attempts });
      return;
    }
    const giveUp = c.attempts >= notify.maxAttempts;
    await this.db.$executeRaw`
      UPDATE approver_notifications SET last_status = ${status}, last_error = ${error}, lease_until = NULL,
        next_attempt_at = now() + ${backoffAfter(c.attempts, notify.backoffMs)} * interval '1 millisecond',
        abandoned_at = CASE WHEN ${giveUp} THEN now() END
      WHERE delivery_id = ${c.deliveryId} AND tenant = ${c.tenant} AND delivered_at IS NULL`;
    this.log.warn({ msg: giveUp ? 'approver notification given up' : 'approver notification attempt failed', deliveryId: c.deliveryId, event: c.event, attempts: c.attempts, status, error });
  }
}
