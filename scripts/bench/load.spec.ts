import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt } from 'jose';
import { decisionMaker, expectedFinals, RUN_LENGTH, shareOf } from './load';

const issuer = { issuer: 'bench-idp', privateKeyPem: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('bench load', () => {
  it('mixes 75% notes, 20% mails and 5% refused by index, the same for every build', () => {
    const shares = range(1000).map(shareOf);
    const count = (s: string) => shares.filter((x) => x === s).length;
    expect({ note: count('note'), mail: count('mail'), refused: count('refused') }).toEqual({ note: 750, mail: 200, refused: 50 });
    expect(range(20).map(shareOf).join(',')).toBe(range(20).map(shareOf).join(','));
  });

  it('sends runs of 10 decisions that share one fresh token, a run per token', async () => {
    const make = await decisionMaker(issuer, 'realistic');
    const decisions = [];
    for (const i of range(30)) decisions.push(await make('t', i));
    const runs = new Set(decisions.map((d) => d.runId));
    const tokens = new Set(decisions.map((d) => d.identity));
    expect([runs.size, tokens.size]).toEqual([3, 3]);
    for (const i of range(30)) expect(decisions[i].identity).toBe(decisions[Math.floor(i / RUN_LENGTH) * RUN_LENGTH].identity);
    expect(decodeJwt(decisions[0].identity)).toMatchObject({ sub: 'bench', tenant: 'bench', sid: 't-run-0' });
  });

  it('gives mail.send a valid payload and the refused share a risk above the tool maximum (0.5)', async () => {
    const make = await decisionMaker(issuer, 'realistic');
    const mail = await make('t', 15);
    expect(mail).toMatchObject({ tool: 'mail.send', payload: { to: 'bench+15@example.com' }, riskScore: 0.1 });
    const refused = await make('t', 19);
    expect(refused.tool).toBe('notes.append');
    expect(refused.riskScore).toBeGreaterThan(0.5);
  });

  it('keeps the old uniform load: notes.append only, one token for the step', async () => {
    const make = await decisionMaker(issuer, 'uniform');
    const ds = await Promise.all(range(40).map((i) => make('u', i)));
    expect(new Set(ds.map((d) => d.identity)).size).toBe(1);
    expect(new Set(ds.map((d) => d.tool))).toEqual(new Set(['notes.append']));
  });

  it('expects one final entry per decision: results, and policy refusals for the refused share', () => {
    expect(expectedFinals('realistic', 1000)).toEqual({ tool_result: 950, authorization_refusal: 50 });
    expect(expectedFinals('realistic', 10)).toEqual({ tool_result: 10 });
    expect(expectedFinals('uniform', 1000)).toEqual({ tool_result: 1000 });
  });
});
