// The demo: emits a handful of decisions (allowed ones, refused ones, and one unreadable message),
// then prints the journal entries and dead letters it gets back from Kafka (a forged-token
// decision ends as a dead letter, not in the journal).
import { randomUUID } from 'node:crypto';
import { ConfigError, kafkaSecurity, loadConfig, topicsFor } from '@arvis/config';
import { retryDecisionId, type DlqRecord, type JournalEntry } from '@arvis/contracts';
import { DecisionClient, JournalWatcher, mintIdentityToken, type DecisionInput, type DecisionSender } from '@arvis/decision-client';
import { DemoProducerEnv } from './script-env';

/** A short name for the table: the demo's own suffix, or which attempt a system retry is. */
function label(e: JournalEntry): string {
  return e.retry ? `retry ${e.retry.attempt}` : e.decisionId.slice(e.decisionId.indexOf(':') + 1);
}

async function main(): Promise<void> {
  const env = loadConfig(DemoProducerEnv);
  const { security, issues } = kafkaSecurity(env, env.ARVIS_PROFILE);
  if (issues.length > 0) throw new ConfigError(issues);
  const brokers = { brokers: env.KAFKA_BROKERS.split(','), security };
  const topics = topicsFor(env.ARVIS_TOPIC_PREFIX);
  const runId = `demo-${randomUUID()}`;
  // Ids are unique only within a tenant (ADR 0061): the watcher matches the sender, not the id alone.
  const sender = { principal: 'alice', tenant: 'acme' };
  const token = await mintIdentityToken(
    { issuer: env.DEMO_ISSUER, privateKeyPem: env.DEMO_ISSUER_KEY },
    { ...sender, serviceId: 'demo-agent', sessionId: 'demo-session' },
  );

  const { decisions, refused, flaky } = demoDecisions(runId, token, env.DEMO_DECISIONS);

  const print = (e: JournalEntry) => {
    if (!e.runId.startsWith(runId)) return;
    const what = e.success ? `ok ${JSON.stringify(e.output)}` : `${e.reasonCode}: ${e.error?.message ?? ''}`;
    // A seq names an entry only within its chain (ADR 0062); main's entries keep the short form.
    const place = e.chain === 'main' ? `#${e.journalSeq}` : `${e.chain}#${e.journalSeq}`;
    console.log(`[journal ${place}] ${e.kind.padEnd(21)} ${label(e).padEnd(13)} ${e.tool.padEnd(13)} ${e.effectBoundary.padEnd(18)} ${what}`);
  };
  const watcher = new JournalWatcher(brokers, topics, print);
  await watcher.start();
  const client = new DecisionClient(brokers, topics, 'arvis-demo-producer');
  const sent = [...decisions, ...refused, flaky];
  console.log(`[demo] run ${runId}: sending ${sent.length} decisions and 1 unreadable message`);
  await client.send(sent);
  const garbage = `{"specVersion":1,"decisionId": not json (${runId})`;
  await client.sendRaw(topics.decisions, [{ key: runId, value: garbage }]);
  const ours = (d: { rawBase64: string }) => Buffer.from(d.rawBase64, 'base64').toString('utf8') === garbage;

  // The forged token is attributable to no one: it ends as a dead letter naming its decisionId,
  // never in the journal.
  const forged = [`${runId}:bad-token`];
  const forgedTokens = refused.filter((d) => forged.includes(d.decisionId)).map((d) => d.identity);
  const all = [...sent.map((d) => d.decisionId).filter((id) => !forged.includes(id)), retryDecisionId(flaky.decisionId, 1)];
  const ok = await watcher.waitFor(
    () =>
      watcher.finalEntriesFor(all, sender).size === all.length &&
      watcher.deadLettersFor(forged, forgedTokens).size === forged.length &&
      watcher.deadLetters.some(ours),
    env.DEMO_TIMEOUT_MS,
  );
  if (ok && env.DEMO_CHECKPOINT_WAIT_MS > 0) {
    // Each chain's newest entry, signed by a checkpoint of that chain (ADR 0062: one per chain).
    const last = new Map<string, number>();
    for (const e of watcher.entries.values()) last.set(e.chain, Math.max(last.get(e.chain) ?? 0, Number(e.journalSeq)));
    const signed = () => [...last].every(([chain, seq]) => watcher.checkpoints.some((c) => c.chain === chain && Number(c.seq) >= seq));
    await watcher.waitFor(signed, env.DEMO_CHECKPOINT_WAIT_MS);
  }
  await client.close();
  await watcher.stop();
  report(watcher, { runId, all, forged, forgedTokens, sender }, ours);
  if (!ok) {
    console.error('[demo] timed out waiting for the journal');
    process.exit(1);
  }
}

/** The run's decisions: n notes, three refused or dead-lettered ones, and one that fails once then retries. */
function demoDecisions(runId: string, token: string, n: number): { decisions: DecisionInput[]; refused: DecisionInput[]; flaky: DecisionInput } {
  const decisions: DecisionInput[] = [];
  for (let i = 1; i <= n; i++) {
    decisions.push({
      decisionId: `${runId}:d${i}`,
      runId,
      causalId: `c${i}`,
      tool: 'notes.append',
      payload: { text: `demo note ${i}`, ref: `${runId}:${i}` },
      riskScore: 0.1,
      identity: token,
    });
  }
  const refused: DecisionInput[] = [
    { decisionId: `${runId}:unknown-tool`, runId, causalId: 'r1', tool: 'shell.exec', payload: { cmd: 'rm -rf /' }, riskScore: 0.1, identity: token },
    { decisionId: `${runId}:too-risky`, runId, causalId: 'r2', tool: 'notes.append', payload: { text: 'risky' }, riskScore: 0.9, identity: token },
    { decisionId: `${runId}:bad-token`, runId, causalId: 'r3', tool: 'notes.append', payload: { text: 'x' }, riskScore: 0.1, identity: `${token.slice(0, -4)}AAAA` },
  ];
  // Fails once, then its retry (a new decision through the whole path) succeeds.
  const flaky: DecisionInput = {
    decisionId: `${runId}:flaky`,
    runId,
    causalId: 'f1',
    tool: 'flaky.record',
    payload: { key: runId, failTimes: 1 },
    riskScore: 0.1,
    identity: token,
  };
  return { decisions, refused, flaky };
}

/** Prints the dead letters and a one-line summary of how the run's decisions ended. */
interface Sent {
  runId: string;
  all: string[];
  forged: string[];
  forgedTokens: string[];
  sender: DecisionSender;
}

function report(watcher: JournalWatcher, { runId, all, forged, forgedTokens, sender }: Sent, ours: (d: DlqRecord) => boolean): void {
  for (const d of [...watcher.deadLettersFor(forged, forgedTokens).values(), ...watcher.deadLetters.filter(ours)]) {
    const which = d.decisionId ? ` ${d.decisionId.slice(runId.length + 1)}` : '';
    console.log(`[dlq ${d.sourceTopic}@${d.partition}:${d.offset}]${which} ${d.reasonCode}: ${d.detail}`);
  }
  const finals = watcher.finalEntriesFor(all, sender);
  const completed = [...finals.values()].filter((es) => es[0].success).length;
  console.log(`[demo] ${finals.size}/${all.length} decisions have a final journal entry (${completed} completed, ${finals.size - completed} refused or failed)`);
  console.log(`[demo] ${watcher.deadLettersFor(forged, forgedTokens).size}/${forged.length} forged decision(s) dead-lettered as identity_invalid`);
  // Checkpoints share the journal topic with the entries; the watcher keeps them apart.
  const last = watcher.checkpoints[watcher.checkpoints.length - 1];
  const latest = last ? ` (latest ${last.chain}@${last.seq}, key ${last.signature.keyId}); check them with \`npm run cli -- verify --from-topic\`` : '';
  console.log(`[demo] ${watcher.checkpoints.length} signed journal checkpoint(s) seen${latest}`);
}

main().catch((e: Error) => {
  console.error(`[demo] ${e instanceof ConfigError ? e.message : (e.stack ?? e.message)}`);
  process.exit(e instanceof ConfigError ? 78 : 1);
});
