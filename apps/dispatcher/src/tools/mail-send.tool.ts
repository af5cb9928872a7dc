import { Injectable } from '@nestjs/common';
import { ToolDatabase } from './tool-database';
import { markBodyStart, type ToolBody, type ToolInvocation } from './tool-body';

/** Demo tool: "delivers" to the mail_sink table, as a relay would deliver to an inbox. */
@Injectable()
export class MailSendTool implements ToolBody {
  readonly name = 'mail.send';

  constructor(private readonly db: ToolDatabase) {}

  async execute({ payload, effectContext, idempotencyKey, capabilityId }: ToolInvocation): Promise<{ messageId: string }> {
    await markBodyStart(this.db, this.name, capabilityId);
    const { rows } = await this.db.query<{ id: string }>(
      `INSERT INTO mail_sink (capability_id, idempotency_key, tenant, recipient, subject, body)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id::text`,
      [capabilityId, idempotencyKey, effectContext.tenant, String(payload['to']), String(payload['subject']), String(payload['body'])],
    );
    return { messageId: `mail-${rows[0].id}` };
  }
}
