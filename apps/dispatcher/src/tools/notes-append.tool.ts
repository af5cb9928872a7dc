import { Injectable } from '@nestjs/common';
import { ToolDatabase } from './tool-database';
import { markBodyStart, type ToolBody, type ToolInvocation } from './tool-body';

/** Demo tool: its effect is one row in `notes`, written on the tool's own connection. */
@Injectable()
export class NotesAppendTool implements ToolBody {
  readonly name = 'notes.append';

  constructor(private readonly db: ToolDatabase) {}

  async execute({ payload, effectContext, idempotencyKey, capabilityId }: ToolInvocation): Promise<{ noteId: string }> {
    await markBodyStart(this.db, this.name, capabilityId);
    const { rows } = await this.db.query<{ id: string }>(
      `INSERT INTO notes (capability_id, idempotency_key, tenant, principal, text)
       VALUES ($1, $2, $3, $4, $5) RETURNING id::text`,
      [capabilityId, idempotencyKey, effectContext.tenant, effectContext.principal, String(payload['text'])],
    );
    return { noteId: rows[0].id };
  }
}
