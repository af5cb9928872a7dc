import { Controller, Get, Header, Inject } from '@nestjs/common';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { MCP_CONFIG, type McpConfig } from '../config/mcp.config';

/** RFC 9728's well-known prefix; the resource's path follows it (`…/mcp`), and the bare prefix answers too. */
export const METADATA_PREFIX = '/.well-known/oauth-protected-resource';

/** Who may issue tokens for this server: the configured issuers, which must put MCP_RESOURCE_URI in `aud`. */
export function protectedResourceMetadata(config: McpConfig): OAuthProtectedResourceMetadata {
  return {
    resource: config.resourceUri,
    authorization_servers: config.issuers.map((i) => i.issuer),
    bearer_methods_supported: ['header'],
    resource_name: 'ARVIS governed tools (MCP)',
  };
}

/** The protected-resource metadata (RFC 9728) an MCP client reads after a 401 names it. */
@Controller(METADATA_PREFIX.slice(1))
export class ProtectedResourceController {
  private readonly metadata: OAuthProtectedResourceMetadata;

  constructor(@Inject(MCP_CONFIG) config: McpConfig) {
    this.metadata = protectedResourceMetadata(config);
  }

  @Get(['', 'mcp'])
  @Header('cache-control', 'max-age=300')
  describe(): OAuthProtectedResourceMetadata {
    return this.metadata;
  }
}
