import type { Logger } from '@nestjs/common';
import type { ToolLogger } from '@arvis/tool-sdk';

/** A body's logger: its lines carry the decision's ids as fields (ADR 0064), after the body's own. */
export class InvocationLogger implements ToolLogger {
  constructor(
    private readonly log: Logger,
    private readonly ids: Readonly<Record<string, string>>,
  ) {}

  debug(msg: string, fields?: Readonly<Record<string, unknown>>): void {
    this.log.debug({ ...fields, msg, ...this.ids });
  }

  info(msg: string, fields?: Readonly<Record<string, unknown>>): void {
    this.log.log({ ...fields, msg, ...this.ids });
  }

  warn(msg: string, fields?: Readonly<Record<string, unknown>>): void {
    this.log.warn({ ...fields, msg, ...this.ids });
  }

  error(msg: string, fields?: Readonly<Record<string, unknown>>): void {
    this.log.error({ ...fields, msg, ...this.ids });
  }
}
