// A real OpenID provider (oidc-provider) for the console's OIDC sign-in spec, run as its own
// process because it is an ES module. argv[2]: {"clients": [{clientId, clientSecret, redirectUri}],
// "accounts": {"<login>": {claims}}}. It listens on a free port on every interface and is reached
// as http://localhost:<port> (another site than the console's 127.0.0.1); the first line it prints
// is {"issuer": "..."}. Its login page takes any password for a known login; consent is skipped.
// Test hook: POST /test/tamper-next-id-token?claim=value makes the next token response carry an
// ID token with those claims replaced, signed with the provider's own key (a provider that errs).
import { createServer } from 'node:http';
import { Provider } from 'oidc-provider';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';

const { clients, accounts } = JSON.parse(process.argv[2]);
const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), kid: 'test-rs256', alg: 'RS256', use: 'sig' };
const server = createServer();
await new Promise((resolve) => server.listen(0, resolve));
const issuer = `http://localhost:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: clients.map((c) => ({
    client_id: c.clientId,
    client_secret: c.clientSecret,
    redirect_uris: [c.redirectUri],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  })),
  jwks: { keys: [jwk] },
  cookies: { keys: ['arvis-test-provider-cookie-key'] },
  claims: { openid: ['sub'], arvis: ['tenant', 'roles'], email: ['email'] },
  // The mapped claims travel in the ID token itself, as the console reads only that.
  conformIdTokenClaims: false,
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  findAccount: (_ctx, id) => (accounts[id] ? { accountId: id, claims: () => ({ sub: id, ...accounts[id] }) } : undefined),
  // First-party client: the grant is made without a consent page.
  async loadExistingGrant(ctx) {
    const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) return ctx.oidc.provider.Grant.find(grantId);
    const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
    grant.addOIDCScope('openid arvis email');
    await grant.save();
    return grant;
  },
});

let tamper = null;
provider.use(async (ctx, next) => {
  if (ctx.method === 'POST' && ctx.path === '/test/tamper-next-id-token') {
    tamper = { ...ctx.query };
    ctx.status = 204;
    return;
  }
  await next();
  if (tamper && ctx.path === '/token' && ctx.status === 200 && ctx.body?.id_token) {
    const claims = { ...decodeJwt(ctx.body.id_token), ...tamper };
    ctx.body = { ...ctx.body, id_token: await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: jwk.kid }).sign(privateKey) };
    tamper = null;
  }
});

server.on('request', provider.callback());
process.on('SIGTERM', () => server.close(() => process.exit(0)));
console.log(JSON.stringify({ issuer }));
