import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import { DEFAULT_TOPICS } from '@arvis/contracts';
import { DecisionClient, decisionProblems, InvalidDecisionError } from './decision-client';
import { mintIdentityToken } from './identity-token';

const published = new Ajv2020({ strict: true }).compile(
  JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'schemas', 'action-decision.schema.json'), 'utf8')),
);
const TOKEN = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';
const good = { specVersion: 1, decisionId: 'run-1:d1', runId: 'run-1', causalId: 'c1', tool: 'notes.append', payload: { text: 'hi' }, riskScore: 0.1, identity: TOKEN };

// DecisionClient.send checks each decision before producing anything: what it refuses is what
// schemas/action-decision.schema.json (the published schema, generated from the same contract) refuses.
describe('the decision client validates before it sends', () => {
  it.each([
    ['a good decision', good, true],
    ['with processId and confirmationId', { ...good, processId: 'p', confirmationId: 'conf-1' }, true],
    ['no identity', { ...good, identity: undefined }, false],
    ['an unsigned token', { ...good, identity: 'eyJhbGciOiJub25lIn0.e30.' }, false],
    ['risk above 1', { ...good, riskScore: 1.5 }, false],
    ['a payload that is a list', { ...good, payload: [1, 2] }, false],
    ['a retry field (system only)', { ...good, retry: { attempt: 1, chainId: 'x', parentCausalId: 'y' } }, false],
    ['an unknown field', { ...good, priority: 'high' }, false],
    ['an empty run id', { ...good, runId: '' }, false],
    ['another spec version', { ...good, specVersion: 2 }, false],
  ])('%s: the client and the published schema agree', (_name, message, valid) => {
    const json = JSON.parse(JSON.stringify(message)) as unknown;
    expect(published(json)).toBe(valid);
    expect(decisionProblems(json).length === 0).toBe(valid);
  });

  it('send with one invalid decision refuses the whole batch before connecting to any broker', async () => {
    const client = new DecisionClient(['127.0.0.1:1'], DEFAULT_TOPICS);
    const { specVersion: _v, ...input } = good;
    const sent = client.send([input, { ...input, decisionId: 'run-1:d2', riskScore: 7 }]);
    await expect(sent).rejects.toBeInstanceOf(InvalidDecisionError);
    await expect(sent).rejects.toThrow(/run-1:d2: riskScore/);
    await client.close();
  });

  it('mintIdentityToken sets the audience and the token type it is given', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const issuer = { issuer: 'https://idp.example', privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
    const token = await mintIdentityToken(issuer, { principal: 'alice', tenant: 'acme', serviceId: 'agent-1', audience: 'arvis-decisions', type: 'at+jwt' });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'EdDSA', typ: 'at+jwt' });
    expect(decodeJwt(token)).toMatchObject({ aud: 'arvis-decisions', sub: 'alice', tenant: 'acme', iss: 'https://idp.example' });
    expect(decodeProtectedHeader(await mintIdentityToken(issuer, { principal: 'alice', tenant: 'acme', serviceId: 'agent-1' })).typ).toBe('JWT');
  });
});
