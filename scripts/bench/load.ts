// Load generation: decisions sent all at once (throughput) or paced at an offered rate (sweep),
// through the same producer client any caller would use. The realistic load (the default) is runs
// of RUN_LENGTH decisions sharing one fresh identity token, 75% notes.append, 20% mail.send
// (consent and egress gates on, granted by stepGates) and 5% refused by policy (risk above the
// tool's maximum), chosen by index so every build gets the same sequence. The uniform load is the
// old one: notes.append only, one token for the whole step.
import { DecisionClient, mintIdentityToken, type DecisionInput } from '@arvis/decision-client';
import type { LatencyProbe } from './latency';

export type LoadKind = 'realistic' | 'uniform';
export type Make = (tag: string, i: number) => Promise<DecisionInput>;

/** Decisions per run, and per identity token, of the realistic load. */
export const RUN_LENGTH = 10;
/** The bench's caller: its tenant and principal are the ones stepGates grants. */
export const BENCH_CALLER = { principal: 'bench', tenant: 'bench', serviceId: 'bench-agent' } as const;
/** Above notes.append's maxRisk (0.5): refused by policy with risk_exceeded. */
const REFUSED_RISK = 0.9;

export type Share = 'note' | 'mail' | 'refused';

/** The realistic mix by index: of every 20 decisions, 15 notes, 4 mails, 1 refused (75/20/5). */
export function shareOf(i: number): Share {
  const k = i % 20;
  return k === 19 ? 'refused' : k >= 15 ? 'mail' : 'note';
}

/** The final entries a step of `n` decisions should end with: tool_result for notes and mails, authorization_refusal for the refused. */
export function expectedFinals(load: LoadKind, n: number): Record<string, number> {
  if (load === 'uniform') return { tool_result: n };
  let refused = 0;
  for (let i = 0; i < n; i++) if (shareOf(i) === 'refused') refused++;
  return { tool_result: n - refused, ...(refused ? { authorization_refusal: refused } : {}) };
}

function body(tag: string, i: number): Pick<DecisionInput, 'tool' | 'payload' | 'riskScore'> {
  const share = shareOf(i);
  if (share === 'mail') return { tool: 'mail.send', payload: { to: `bench+${i}@example.com`, subject: `bench ${tag}:${i}`, body: `bench ${i}` }, riskScore: 0.1 };
  return { tool: 'notes.append', payload: { text: `bench ${i}`, ref: `${tag}:${i}` }, riskScore: share === 'refused' ? REFUSED_RISK : 0.1 };
}

export async function decisionMaker(issuer: { issuer: string; privateKeyPem: string }, load: LoadKind): Promise<Make> {
  if (load === 'uniform') {
    const identity = await mintIdentityToken(issuer, { ...BENCH_CALLER, sessionId: 'bench' }, { expiresInS: 3600 });
    return async (tag, i) => ({ decisionId: `${tag}:${i}`, runId: `${tag}-run-${i % 64}`, causalId: `c${i}`, tool: 'notes.append', payload: { text: `bench ${i}`, ref: `${tag}:${i}` }, riskScore: 0.1, identity });
  }
  // One token per run, minted when its first decision is made (a run's session id makes it unique).
  const tokens = new Map<string, Promise<string>>();
  return async (tag, i) => {
    const run = `${tag}-run-${Math.floor(i / RUN_LENGTH)}`;
    if (!tokens.has(run)) {
      tokens.clear();
      tokens.set(run, mintIdentityToken(issuer, { ...BENCH_CALLER, sessionId: run }, { expiresInS: 3600 }));
    }
    return { decisionId: `${tag}:${i}`, runId: run, causalId: `c${i}`, ...body(tag, i), identity: await tokens.get(run)! };
  };
}

/** The decisions `from`..`from + n - 1`, made in order (a run's token is minted once). */
async function makeRange(make: Make, tag: string, from: number, n: number): Promise<DecisionInput[]> {
  const out: DecisionInput[] = [];
  for (let k = 0; k < n; k++) out.push(await make(tag, from + k));
  return out;
}

export interface SentLoad {
  ids: string[];
  startedAt: number;
  sendSpanMs: number;
}

/** Everything at once: one send of `n` decisions (the client splits it in batches of 1000). */
export async function sendAtOnce(client: DecisionClient, probe: LatencyProbe, make: Make, tag: string, n: number): Promise<SentLoad> {
  const all = await makeRange(make, tag, 0, n);
  const startedAt = performance.now();
  probe.markSent(all.map((d) => d.decisionId), startedAt);
  await client.send(all);
  return { ids: all.map((d) => d.decisionId), startedAt, sendSpanMs: performance.now() - startedAt };
}

/**
 * `rate` decisions/s for `seconds`, in 50 ms ticks. Each decision is timed from the instant its tick
 * was due, not from when the producer got to it, so a producer falling behind shows as latency.
 */
export async function sendPaced(client: DecisionClient, probe: LatencyProbe, make: Make, tag: string, rate: number, seconds: number): Promise<SentLoad> {
  const total = rate * seconds;
  const perTick = Math.max(1, Math.round((rate * 50) / 1000));
  const ids: string[] = [];
  const startedAt = performance.now();
  for (let i = 0; i < total; i += perTick) {
    const due = startedAt + (i / rate) * 1000;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const batch = await makeRange(make, tag, i, Math.min(perTick, total - i));
    probe.markSent(batch.map((d) => d.decisionId), due);
    ids.push(...batch.map((d) => d.decisionId));
    await client.send(batch);
  }
  return { ids, startedAt, sendSpanMs: performance.now() - startedAt };
}
