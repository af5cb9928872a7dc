import { refusalOf } from './oidc-refusal';

const claimFailed = (claim: string) => Object.assign(new Error('x'), { code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', cause: { claim } });

describe("openid-client's errors, as refusals an approver reads", () => {
  it.each([
    [claimFailed('nonce'), 401, 'oidc_nonce_mismatch'],
    [claimFailed('aud'), 401, 'oidc_audience_mismatch'],
    [claimFailed('azp'), 401, 'oidc_audience_mismatch'],
    [claimFailed('iss'), 401, 'oidc_id_token_invalid'],
    // As openid-client throws it: its ClientError around oauth4webapi's.
    [Object.assign(new Error('unexpected JWT claim value encountered'), { code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', cause: claimFailed('nonce') }), 401, 'oidc_nonce_mismatch'],
    [Object.assign(new Error('x'), { code: 'OAUTH_RESPONSE_BODY_ERROR', error: 'invalid_grant' }), 401, 'oidc_code_refused'],
    [Object.assign(new Error('x'), { code: 'OAUTH_AUTHORIZATION_RESPONSE_ERROR', error: 'access_denied' }), 401, 'oidc_provider_refused'],
    [new TypeError('fetch failed'), 502, 'oidc_provider_unavailable'],
    [new Error('JWS signature verification failed'), 401, 'oidc_id_token_invalid'],
  ])('%p is %p %p', (e, status, error) => {
    expect(refusalOf(e)).toMatchObject({ status, error });
  });

  it("names the provider's error code, never the library's text", () => {
    const r = refusalOf(Object.assign(new Error('secret library detail'), { code: 'OAUTH_RESPONSE_BODY_ERROR', error: 'invalid_grant' }));
    expect(r.message).toContain('invalid_grant');
    expect(r.message).not.toContain('secret library detail');
  });
});
