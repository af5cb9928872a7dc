import { Inject, Injectable } from '@nestjs/common';
import { awaitResult } from '@arvis/decision-client';
import { MCP_CONFIG, type McpConfig } from '../config/mcp.config';
import { READ_RESULT_TOOL } from '../list-tools/list-tools';
import { answerOf, type ToolAnswer } from '../call-tool/tool-answer';

/**
 * `arvis.result`: a decision's result read by the results API (ADR 0072) with the caller's token,
 * so the authorizer answers only the caller's own decision: another tenant's or principal's id is
 * not found, exactly as one never sent.
 */
@Injectable()
export class ReadResultService {
  constructor(@Inject(MCP_CONFIG) private readonly config: McpConfig) {}

  async read(token: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    const { decisionId, waitS } = args;
    if (typeof decisionId !== 'string' || decisionId.length === 0 || decisionId.length > 200) return { status: 'invalid', issues: ['decisionId: a string of 1 to 200 characters'] };
    if (waitS !== undefined && (typeof waitS !== 'number' || !Number.isInteger(waitS) || waitS < 0 || waitS > 300)) {
      return { status: 'invalid', issues: ['waitS: an integer from 0 to 300'] };
    }
    return answerOf(decisionId, await awaitResult(this.config.authorizerUrl, token, decisionId, (waitS as number | undefined) ?? 0), READ_RESULT_TOOL);
  }
}
