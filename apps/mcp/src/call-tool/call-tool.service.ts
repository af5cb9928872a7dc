import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { awaitResult, DecisionClient, ResultApiError, type DecisionInput, type KafkaSecurityOptions, type ResultAnswer } from '@arvis/decision-client';
import { errorFields } from '@arvis/runtime';
import type { ToolCatalog } from '@arvis/tool-catalog';
import { MCP_CONFIG, type McpConfig } from '../config/mcp.config';
import { META, READ_RESULT_TOOL } from '../list-tools/list-tools';
import { answerOf, type ToolAnswer } from './tool-answer';

export const TOOL_CATALOG = Symbol('TOOL_CATALOG');

/** The ids a caller may give under `_meta` (MCP's place for what is not the tool's arguments). */
function idFrom(meta: Record<string, unknown> | undefined, key: string): string | undefined {
  const v = meta?.[key];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/**
 * One tools/call is one decision (ADR 0074): the arguments checked against the tool's input schema
 * (nothing is sent for arguments the authorizer would refuse anyway), produced to the decisions
 * topic with the caller's own token as its identity, so the authorizer verifies the caller exactly
 * as for any producer, then its final entry read by the results API with that same token. The
 * front door holds no credential of its own that could speak for anyone.
 */
@Injectable()
export class CallToolService implements OnApplicationShutdown {
  private readonly log = new Logger('ToolCalls');
  private readonly client: DecisionClient;

  constructor(
    @Inject(MCP_CONFIG) private readonly config: McpConfig,
    @Inject(TOOL_CATALOG) private readonly catalog: ToolCatalog,
  ) {
    const security = config.kafka.security as KafkaSecurityOptions;
    this.client = new DecisionClient({ brokers: config.kafka.brokers, security }, config.topics, config.kafka.clientId);
  }

  async call(token: string, tool: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<ToolAnswer | undefined> {
    const spec = this.catalog.get(tool);
    if (!spec) return undefined;
    const parsed = spec.input.safeParse(args);
    if (!parsed.success) return { status: 'invalid', issues: parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`) };
    const decisionId = randomUUID();
    const risk = meta?.[META.riskScore];
    const decision: DecisionInput = {
      decisionId,
      runId: idFrom(meta, META.runId) ?? `mcp-${decisionId}`,
      causalId: idFrom(meta, META.causalId) ?? decisionId,
      tool,
      payload: args,
      riskScore: typeof risk === 'number' ? risk : this.config.defaultRiskScore,
      identity: token,
    };
    await this.client.send([decision]);
    // A tool that needs a human's yes will not end within a call: a short wait still catches a refusal.
    const waitS = spec.requiresConfirmation ? this.config.confirmationWaitS : this.config.resultWaitS;
    const read = await this.readAfterSend(token, decisionId, waitS);
    // Just sent with this token: not found means not read yet (or dead-lettered, see the DLQ).
    return answerOf(decisionId, read.status === 'not_found' ? { status: 'pending' } : read, READ_RESULT_TOOL);
  }

  /**
   * Once sent, the decision exists whatever the read answers: a results API that refuses the read
   * (429 past API_ADDRESS_RATE_LIMIT, say) still leaves the caller its id to read it by later.
   */
  private async readAfterSend(token: string, decisionId: string, waitS: number): Promise<ResultAnswer> {
    try {
      return await awaitResult(this.config.authorizerUrl, token, decisionId, waitS);
    } catch (e) {
      if (!(e instanceof ResultApiError)) throw e;
      this.log.warn({ msg: 'results API refused the read after a send; answered pending', decisionId, status: e.status, error: e.error ?? 'none' });
      return { status: 'pending' };
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close().catch((e: unknown) => this.log.warn({ msg: 'decision producer did not close cleanly', ...errorFields(e) }));
  }
}
