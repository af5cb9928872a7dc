// Load generation: decisions for the demo's notes.append tool, sent all at once (throughput) or paced
// at an offered rate (sweep), through the same producer client any caller would use.
import { DecisionClient, mintIdentityToken, type DecisionInput } from '@arvis/decision-client';
import type { LatencyProbe } from './latency';

export type Make = (tag: string, i: number) => DecisionInput;

export async function decisionMaker(issuer: { issuer: string; privateKeyPem: string }): Promise<Make> {
  const identity = await mintIdentityToken(issuer, { principal: 'bench', tenant: 'bench', serviceId: 'bench-agent', sessionId: 'bench' }, { expiresInS: 3600 });
  return (tag, i) => ({
    decisionId: `${tag}:${i}`,
    runId: `${tag}-run-${i % 64}`,
    causalId: `c${i}`,
    tool: 'notes.append',
    payload: { text: `bench ${i}`, ref: `${tag}:${i}` },
    riskScore: 0.1,
    identity,
  });
}

export interface SentLoad {
  ids: string[];
  startedAt: number;
  sendSpanMs: number;
}

/** Everything at once: one send of `n` decisions (the client splits it in batches of 1000). */
export async function sendAtOnce(client: DecisionClient, probe: LatencyProbe, make: Make, tag: string, n: number): Promise<SentLoad> {
  const all = Array.from({ length: n }, (_, i) => make(tag, i));
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
    const batch = Array.from({ length: Math.min(perTick, total - i) }, (_, k) => make(tag, i + k));
    probe.markSent(batch.map((d) => d.decisionId), due);
    ids.push(...batch.map((d) => d.decisionId));
    await client.send(batch);
  }
  return { ids, startedAt, sendSpanMs: performance.now() - startedAt };
}
