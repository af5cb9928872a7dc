import { Module } from '@nestjs/common';
import { BearerTokenService } from './authenticate-bearer/bearer-token.service';
import { AuthorizeDecisionService } from './authorize-decision/authorize-decision.service';
import { VerifyIdentityService } from './verify-identity/verify-identity.service';

/**
 * Policy, the last stage: who is speaking (a decision's token, an API request's Bearer token)
 * and what the policy says of a decision, on the slice's reads. Imports no stage. Exports the
 * policy (the pipeline calls it), the identity verification (every stage that reads a token:
 * intake, the pipeline's admission, resumed confirmations, retries) and the Bearer
 * authentication (the requester's, the approvers' and the admin API).
 */
@Module({
  providers: [VerifyIdentityService, AuthorizeDecisionService, BearerTokenService],
  exports: [VerifyIdentityService, AuthorizeDecisionService, BearerTokenService],
})
export class PolicyModule {
  /** Its lines on the folder map of docs/architecture.md, which `npm run folder-map` writes. */
  static readonly folderMap = {
    summary: "the last stage: who is speaking (a decision's token, an API request's Bearer token) and what policy says, in its fixed order",
    folders: {
      'verify-identity': 'JWT verification against the trusted issuers; claims → identity',
      'authenticate-bearer': 'the Bearer token of an API request, or a typed 401',
      'authorize-decision': "policy in its fixed order, on the slice's reads; snapshots; the Authorized/Refused/Parked types",
    },
  };
}
