import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Harness } from './support/harness';
import { ROOT } from './support/services';
import { metric, Stack } from './support/stack';
import { readWholeTopic } from './support/topic-reader';

// Unreadable messages big enough that their DLQ records (base64: 4/3 of the raw bytes) are more
// than the broker takes, queued ahead of normal work. In a trial they stalled every relay on
// "larger than the max message size" and rows that fit were sent again on every retry.
// Here the DLQ keeps the whole raw message (DLQ_MAX_RAW_BYTES 1 MiB) and the relay's own message
// limit is above the broker's, as with a broker configured lower than we assumed: the broker
// itself refuses the two big records. Four mid-sized ones fit alone but not together.
describe('oversized dead-lettered messages ahead of normal decisions', () => {
  let stack: Stack;
  let h: Harness;
  const N = 200;
  beforeAll(async () => {
    stack = await Stack.create('oversized');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('quarantines the rows the broker refuses, publishes everything else once, and the decisions end promptly', async () => {
    const env = { DLQ_MAX_RAW_BYTES: String(1024 * 1024), RELAY_MAX_MESSAGE_BYTES: String(4 * 1024 * 1024) };
    const authorizer = await stack.start('authorizer', 'authorizer', { env });
    await stack.start('dispatcher', 'dispatcher', { env });

    const key = 'oversize-run';
    // 800 KB raw -> a DLQ record of about 1.07 MB: above Kafka's default 1 MB message.max.bytes.
    for (let i = 0; i < 2; i++) await h.produceRaw(h.topics.decisions, key, Buffer.alloc(800 * 1000, 0x7b));
    // 300 KB raw -> about 400 KB each: four on one key used to make one refused record batch.
    const midSized: string[] = [];
    for (let i = 0; i < 4; i++) midSized.push((await h.produceRaw(h.topics.decisions, key, Buffer.alloc(300 * 1000, 0x5b))).offset);
    const decisions = await h.decisions(key, N);
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);

    await h.waitUntil('every normal decision to end', async () => (await h.finalRows(ids)).length === N, 90_000);
    // Every intent and journal row is acknowledged and deleted (ADR 0048), not merely sent.
    await h.waitUntil('every intent and journal row to be published and deleted', async () => {
      const [r] = await h.query<{ n: string }>(`SELECT count(*)::text AS n FROM outbox WHERE published_at IS NULL AND topic <> $1`, [h.topics.decisionsDlq]);
      return r.n === '0';
    });
    const onTopic = () => new Set([...h.journal.entries.values()].map((e) => e.decisionId));
    await h.journal.waitFor(() => ids.every((id) => onTopic().has(id)), 30_000);
    expect(ids.filter((id) => !onTopic().has(id))).toEqual([]);
    expect(h.journal.duplicatesSeen).toBe(0);
    await h.journal.waitFor(() => h.journal.deadLetters.length >= 4, 30_000);

    const quarantined = await h.query<{ topic: string; reason: string }>(
      `SELECT topic, quarantine_reason AS reason FROM outbox WHERE quarantined_at IS NOT NULL ORDER BY seq`,
    );
    expect(quarantined.map((q) => q.topic)).toEqual([h.topics.decisionsDlq, h.topics.decisionsDlq]);
    for (const q of quarantined) expect(q.reason).toMatch(/^broker_refused: .*max message size/);
    expect(await metric(authorizer, 'arvis_outbox_quarantined')).toBe(2);
    const ready = (await (await fetch(`http://127.0.0.1:${authorizer.port}/health/ready`)).json()) as { outbox: { quarantined: number; depth: number } };
    expect(ready.outbox).toMatchObject({ quarantined: 2, depth: 0 });
    // Operators find them with the CLI.
    const cli = await promisify(execFile)(process.execPath, [join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js'), 'outbox', '--quarantined', '--json'], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: stack.env.databaseUrl },
    });
    const listed = (JSON.parse(cli.stdout) as { quarantined: { topic: string; key: string; bytes: number; reason: string }[] }).quarantined;
    expect(listed.map((r) => ({ topic: r.topic, key: r.key, big: r.bytes > 1_000_000 }))).toEqual([
      { topic: h.topics.decisionsDlq, key, big: true },
      { topic: h.topics.decisionsDlq, key, big: true },
    ]);
    // The four mid-sized records were published, each keeping its whole raw message.
    const mid = h.journal.deadLetters.filter((r) => r.sourceTopic === h.topics.decisions && midSized.includes(r.offset));
    expect(mid.map((r) => Buffer.from(r.rawBase64, 'base64').length)).toEqual([300_000, 300_000, 300_000, 300_000]);

    // Nothing the relay published went out twice: each topic holds exactly the rows written for
    // it (published rows are deleted, ADR 0048, so they are counted from what they describe): an
    // intent per intents row, a journal record per entry and checkpoint, and the four mid-sized
    // dead letters (the two quarantined ones stay in the outbox, unsent).
    const [written] = await h.query<{ intents: string; journal: string }>(
      `SELECT (SELECT count(*) FROM intents)::text AS intents,
              ((SELECT count(*) FROM journal) + (SELECT count(*) FROM journal_checkpoints))::text AS journal`,
    );
    const published = [
      { topic: h.topics.decisionsDlq, n: '4' },
      { topic: h.topics.intents, n: written.intents },
      { topic: h.topics.journal, n: written.journal },
    ];
    expect(await h.query(`SELECT 1 FROM outbox WHERE quarantined_at IS NULL`)).toEqual([]);
    for (const { topic, n } of published) {
      const records = await readWholeTopic(stack.env.brokers, topic);
      expect({ topic, messages: records.length, distinct: new Set(records.map((r) => r.value)).size }).toEqual({
        topic,
        messages: Number(n),
        distinct: Number(n),
      });
    }
  });
});
