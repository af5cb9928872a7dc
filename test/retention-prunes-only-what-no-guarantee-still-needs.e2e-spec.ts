import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { groupOf } from './support/environment';
import { Harness } from './support/harness';
import { exited, Stack } from './support/stack';
import { ROOT, type RunningApp } from './support/services';
// Not through @arvis/lifecycle's index: that loads Prisma's client, which cannot load under jest.
import { RetentionPruner, type PruneCounts } from '../libs/lifecycle/src/retention-pruner';
import { ConfigResourceTypes } from 'kafkajs';
import { createKafka } from '@arvis/kafka';
import { readDedupeFence } from '../apps/authorizer/src/retention/prune-records/dedupe-fence';

// Retention (ADR 0041). The authorizer prunes with a 1 s material window and a dedupe window far
// longer than the spec: finished decisions lose intent, capability and effect, but keep the inbox
// row (so a redelivery is still a no-op) and, for a key-holding tool, the effect holding the key.
// Then the pruner itself runs with a 1 s dedupe window: the dedupe rows go too. Throughout, a
// parked decision, a failed decision whose retry is pending and an effect_state_unknown keep
// every row, and `cli verify` and `cli replay` pass.
describe('retention prunes only what no guarantee still needs', () => {
  let stack: Stack;
  let h: Harness;
  let authorizer: RunningApp;
  let dying: RunningApp;
  beforeAll(async () => {
    stack = await Stack.create('retention');
    // A dispatcher that dies inside the tool, for the effect_state_unknown; started beside the authorizer.
    const dispatcher = stack.start('dispatcher', 'dispatcher-dying', { faults: { dispatcherSignalAtBodyStart: [{ decisionIdPrefix: 'crash:', at: 'after_marker', signal: 'SIGKILL' }] } });
    authorizer = await stack.start('authorizer', 'authorizer', {
      env: {
        RETENTION_ENABLED: 'true',
        RETENTION_DECISIONS_MS: '1000',
        RETENTION_DEDUPE_MS: '600000',
        RETENTION_PRUNE_INTERVAL_MS: '300',
        RETENTION_PRUNE_BATCH: '2',
        // The retry row of the failing decision stays pending for the whole spec.
        RETRY_POLL_MS: '3600000',
      },
    });
    dying = await dispatcher;
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const rows = async (decisionId: string) =>
    (
      await h.query<Record<string, string>>(
        `SELECT (SELECT count(*) FROM decision_inbox WHERE decision_id = $1)::text AS inbox,
                (SELECT count(*) FROM intents WHERE decision_id = $1)::text AS intents,
                (SELECT count(*) FROM capabilities WHERE decision_id = $1)::text AS capabilities,
                (SELECT count(*) FROM effects WHERE decision_id = $1)::text AS effects,
                (SELECT count(*) FROM confirmations WHERE decision_id = $1)::text AS confirmations,
                (SELECT count(*) FROM retries WHERE parent_decision_id = $1)::text AS retries,
                (SELECT count(*) FROM journal WHERE decision_id = $1)::text AS journal,
                (SELECT count(*) FROM tool_body_starts b
                  WHERE b.capability_id IN (SELECT capability_id FROM effects WHERE decision_id = $1))::text AS markers`,
        [decisionId],
      )
    )[0];
  const cli = async (...args: string[]) => {
    const { databaseUrl, brokers, topicPrefix } = stack.env;
    const run = promisify(execFile)(process.execPath, [join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js'), ...args, '--json'], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, KAFKA_BROKERS: brokers.join(','), ARVIS_TOPIC_PREFIX: topicPrefix },
    });
    // Exit 2 (tampering found) still prints the report: read it rather than throw.
    const out = await run.catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '{}' }));
    return JSON.parse(out.stdout) as Record<string, unknown>;
  };
  const kept = { inbox: '1', intents: '1', capabilities: '1', effects: '1', markers: '1' };

  it('prunes finished decisions, keeps parked, retry-pending and unknown ones, refuses a redelivery, and verify passes', async () => {
    // An effect_state_unknown: the dispatcher dies inside the tool; another one recovers it.
    const [unknown] = await h.decisions('retention-run', 1, { decisionId: 'crash:1', causalId: 'crash', payload: { text: 'lost note', ref: 'retention-run:crash' } });
    await h.client.send([unknown]);
    expect(await exited(dying)).toBe('SIGKILL');
    await stack.start('dispatcher', 'dispatcher', { env: { RECOVERY_GRACE_MS: '500', RECOVERY_INTERVAL_MS: '300' } });

    const finished = await h.decisions('retention-run', 4);
    const [failing] = await h.decisions('retention-run', 1, { decisionId: 'retention-run:flaky', causalId: 'flaky', tool: 'flaky.record', payload: { key: 'retention', failTimes: 1 } });
    const parked = {
      ...(await h.decisions('retention-run', 1, { decisionId: 'retention-run:parked', causalId: 'parked' }))[0],
      tool: 'ledger.transfer',
      payload: { from: 'acc-1', to: 'acc-2', amountMinor: 100, currency: 'EUR', reference: 'retention' },
    };
    await h.client.send([...finished, failing, parked]);
    const finalIds = [...finished, failing, unknown].map((d) => d.decisionId);
    await h.waitUntil('the final entries', async () => (await h.finalRows(finalIds)).length === finalIds.length);
    expect((await h.finalRows([unknown.decisionId]))[0].effect_boundary).toBe('effect_state_unknown');
    await h.waitUntil('the parked confirmation', async () => (await rows(parked.decisionId)).confirmations === '1');

    // The material window passes: finished decisions lose their material, keep inbox and key.
    await h.waitUntil('the material of finished decisions to be pruned', async () => {
      for (const d of finished) if ((await rows(d.decisionId)).intents !== '0') return false;
      return (await rows(failing.decisionId)).intents === '0';
    });
    // Their bodies' start markers go with the material: nothing can start or recover them again.
    for (const d of finished) expect(await rows(d.decisionId)).toMatchObject({ inbox: '1', intents: '0', capabilities: '0', effects: '1', journal: '1', markers: '0' });
    expect(await rows(failing.decisionId)).toMatchObject({ inbox: '1', intents: '0', effects: '0', retries: '1', journal: '1' });
    expect(await rows(unknown.decisionId)).toMatchObject(kept);
    expect(await rows(parked.decisionId)).toMatchObject({ inbox: '1', confirmations: '1' });
    // The broker says what the decisions topic can still deliver: no pass had to hold every row.
    expect(await counter(authorizer, 'arvis_retention_dedupe_held_total')).toBe(0);
    expect(await counter(authorizer, 'arvis_retention_pruned_rows_total{table="intents"}')).toBeGreaterThanOrEqual(5);

    // A redelivered finished decision is still a duplicate: nothing runs, nothing is journaled.
    const again = await h.produceRaw(h.topics.decisions, finished[0].runId, JSON.stringify({ specVersion: 1, ...finished[0] }));
    await h.waitForGroupPast(groupOf(h.env, 'authorizer'), h.topics.decisions, again.partition, again.offset);
    expect(await rows(finished[0].decisionId)).toMatchObject({ inbox: '1', intents: '0', journal: '1' });
    expect(h.journal.deadLetters.filter((r) => r.sourceTopic === h.topics.decisions)).toEqual([]);

    const verify = await cli('verify');
    expect(verify).toMatchObject({ intact: true, firstBreak: null, retention: { resultsWithPrunedIntent: finished.length + 1 } });
    const replay = await cli('replay', 'retention-run');
    expect(replay).toMatchObject({ known: true, matches: true, mismatches: [] });
    expect((replay.pruned as string[]).length).toBe(finished.length + 1);

    // Past the dedupe window (the pruner run here with 1 s), with the topic's retention.ms now
    // shorter than that window: by the old rule the dedupe rows would go, but the broker still
    // holds the messages (its active segment) and could deliver them again, so they stay.
    const pruner = new RetentionPruner(h.db, { decisionsMs: 1000, dedupeMs: 1000, batch: 2 });
    const admin = createKafka({ brokers: stack.env.brokers, clientId: 'retention-spec' }).admin();
    await admin.connect();
    try {
      await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: h.topics.decisions, configEntries: [{ name: 'retention.ms', value: '500' }] }] });
      const fence = () => readDedupeFence({ brokers: stack.env.brokers, clientId: 'retention-spec-fence' }, h.topics.decisions, 1000);
      const ownPass = async (what: string) => {
        const pass: { counts: PruneCounts | null } = { counts: null };
        const f = await fence();
        if (typeof f === 'string') throw new Error(f);
        await h.waitUntil(`${what} (the authorizer may hold the lock)`, async () => (pass.counts = await pruner.pruneOnce({ dedupe: f })) !== null);
        return pass.counts!;
      };
      // (Key-holding effects guard idempotency keys, not redeliveries: the window alone rules them.)
      expect(await ownPass('a pass while the messages are on the topic')).toMatchObject({ inbox: 0, effects: finished.length });
      for (const d of finished) expect(await rows(d.decisionId)).toMatchObject({ inbox: '1' });
      // Once the broker can no longer deliver them (their records deleted), the rows go.
      const offsets = await admin.fetchTopicOffsets(h.topics.decisions);
      await admin.deleteTopicRecords({ topic: h.topics.decisions, partitions: offsets.map((o) => ({ partition: o.partition, offset: o.high })) });
      expect(await ownPass('a pass after the records are gone')).toMatchObject({ inbox: finished.length, retries: 0 });
    } finally {
      await admin.disconnect();
    }
    for (const d of finished) expect(await rows(d.decisionId)).toMatchObject({ inbox: '0', effects: '0', journal: '1' });
    expect(await rows(failing.decisionId)).toMatchObject({ inbox: '1', retries: '1' });
    expect(await rows(unknown.decisionId)).toMatchObject(kept);
    expect(await rows(parked.decisionId)).toMatchObject({ inbox: '1', confirmations: '1' });
    expect(await cli('verify')).toMatchObject({ intact: true, firstBreak: null });
  });
});

/** A counter from /metrics, labels included in the name. */
async function counter(app: RunningApp, series: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${app.port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ')[1]) : 0;
}
