import { HttpStatus } from '@nestjs/common';

export type OidcRefusalCode =
  | 'oidc_issuer_unknown'
  | 'oidc_provider_unavailable'
  | 'oidc_login_not_started'
  | 'oidc_state_mismatch'
  | 'oidc_provider_refused'
  | 'oidc_code_refused'
  | 'oidc_nonce_mismatch'
  | 'oidc_audience_mismatch'
  | 'oidc_id_token_invalid';

/** Why a sign-in through an OpenID provider did not start a session: a code, and words for the approver. */
export interface OidcRefusal {
  status: HttpStatus;
  error: OidcRefusalCode | 'unauthenticated' | 'forbidden';
  message: string;
}

const refusal = (status: HttpStatus, error: OidcRefusalCode, message: string): OidcRefusal => ({ status, error, message });

export const REFUSALS = {
  issuerUnknown: () => refusal(HttpStatus.NOT_FOUND, 'oidc_issuer_unknown', 'no trusted issuer of this console signs in with OpenID Connect under that name'),
  loginNotStarted: () =>
    refusal(HttpStatus.BAD_REQUEST, 'oidc_login_not_started', 'no sign-in is in progress in this browser (it finished already, went stale after 10 minutes, or was started elsewhere): sign in again from the console'),
  stateMismatch: () => refusal(HttpStatus.BAD_REQUEST, 'oidc_state_mismatch', 'the answer from the provider is not for the sign-in this browser started (its state differs): sign in again from the console'),
};

export const providerUnavailable = () => refusal(HttpStatus.BAD_GATEWAY, 'oidc_provider_unavailable', 'the OpenID provider could not be reached or did not answer as one; try again later');

interface LibraryError {
  code?: unknown;
  error?: unknown;
  cause?: unknown;
  message?: unknown;
}

const claimOf = (cause: unknown) => (cause !== null && typeof cause === 'object' ? (cause as { claim?: unknown }).claim : undefined);

/**
 * What openid-client's (oauth4webapi's) error means for the approver, told apart by its `code`
 * and, for a claim comparison, the claim; anything else is an ID token not accepted. The
 * library's own text is not passed on, only our words and the provider's error code.
 */
export function refusalOf(e: unknown): OidcRefusal {
  const err = (e ?? {}) as LibraryError;
  // openid-client wraps oauth4webapi's error, whose cause names the claim compared.
  const claim = claimOf(err.cause) ?? claimOf((err.cause as LibraryError | undefined)?.cause);
  switch (err.code) {
    case 'OAUTH_AUTHORIZATION_RESPONSE_ERROR':
      return refusal(HttpStatus.UNAUTHORIZED, 'oidc_provider_refused', `the provider did not sign you in (${String(err.error)})`);
    case 'OAUTH_RESPONSE_BODY_ERROR':
      return refusal(HttpStatus.UNAUTHORIZED, 'oidc_code_refused', `the provider refused the authorization code (${String(err.error)}): it was used already, expired, or was not issued to this console`);
    case 'OAUTH_JWT_CLAIM_COMPARISON_FAILED':
      if (claim === 'nonce') return refusal(HttpStatus.UNAUTHORIZED, 'oidc_nonce_mismatch', "the ID token's nonce is not this sign-in's: it was issued for another sign-in");
      if (claim === 'aud' || claim === 'azp') return refusal(HttpStatus.UNAUTHORIZED, 'oidc_audience_mismatch', 'the ID token was issued to another client, not to this console');
      return refusal(HttpStatus.UNAUTHORIZED, 'oidc_id_token_invalid', `the ID token's ${String(claim)} claim is not what this sign-in expects`);
    case 'OAUTH_HTTP_REQUEST_FORBIDDEN':
    case 'OAUTH_RESPONSE_IS_NOT_CONFORM':
    case 'OAUTH_RESPONSE_IS_NOT_JSON':
      return providerUnavailable();
    default:
      if (e instanceof TypeError && /fetch failed/.test(e.message)) return providerUnavailable();
      return refusal(HttpStatus.UNAUTHORIZED, 'oidc_id_token_invalid', 'the ID token was not accepted (signature, issuer, expiry or another check failed)');
  }
}
