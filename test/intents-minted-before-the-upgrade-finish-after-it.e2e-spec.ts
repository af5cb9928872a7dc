import { cpSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyMigrations } from '@arvis/persistence';
import { Harness } from './support/harness';
import { ROOT } from './support/services';
import { Stack } from './support/stack';

// The contract changes of reason codes version 2 (claims, one effect per key, bounded
// redelivery, quarantine) come with migrations. Work accepted before the upgrade must finish
// after it: decisions are minted into intents on the schema as it was before those migrations,
// the database is migrated, and the new dispatcher completes every one of them, once.
// The authorizer of this build stands in for the old one, so the "before" schema keeps the later
// migrations it needs to run (trace context, journal chain, confirmation issuers) and leaves out
// only the version 2 ones, which the upgrade then applies (missing migrations apply in name order).
const LAST_BEFORE_V2 = '20261130050000_journal_no_truncate';
const LAST_OF_V2 = '20261201020000_intent_delivery_attempts';
// Later migrations that build on the version 2 columns (and that the stand-in does not need) are
// left to the upgrade as well: retention's index of key-holding effects needs effects.holds_key,
// and so does the live key that replaces the one-live-effect index (ADR 0048); the one body-start
// slot per capability changes the body-start table that version 2 creates (ADR 0056); the
// capabilities' indexes dropped in ADR 0048's 2026-12-03 section are the ones rows_earn_their_place made.
const NEED_V2 = new Set([
  '20261202050000_retention',
  '20261202060000_rows_earn_their_place',
  '20261202090000_body_start_slot_per_capability',
  '20261203100000_hot_capabilities',
]);

describe('intents minted before the upgrade', () => {
  let stack: Stack;
  let h: Harness;
  const all = join(ROOT, 'prisma', 'migrations');
  beforeAll(async () => {
    const before = mkdtempSync(join(tmpdir(), 'arvis-migrations-'));
    for (const m of readdirSync(all).filter((m) => m <= LAST_BEFORE_V2 || (m > LAST_OF_V2 && !NEED_V2.has(m)) || m === 'migration_lock.toml')) {
      cpSync(join(all, m), join(before, m), { recursive: true });
    }
    stack = await Stack.create('beforeupgrade', { migrationsDir: before });
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  it('finish after the migrations, each with one final entry and one effect', async () => {
    const columns = async () =>
      (await h.query<{ n: string }>(`SELECT count(*)::text AS n FROM information_schema.columns WHERE table_name = 'intents' AND column_name = 'delivery_attempts'`))[0].n;
    expect(await columns()).toBe('0');
    // Minted on the old schema, nothing published yet (no relay, no dispatcher).
    const authorizer = await stack.start('authorizer', 'authorizer-before', { relay: false, waitReady: false });
    const decisions = await h.decisions('beforeupgrade-run', 12);
    await h.client.send(decisions);
    await h.waitUntil('twelve intents minted', async () => {
      const [r] = await h.query<{ n: string }>(`SELECT count(*)::text AS n FROM capabilities WHERE state = 'minted'`);
      return r.n === '12';
    });
    authorizer.child.kill('SIGTERM');
    await new Promise((r) => authorizer.child.once('exit', r));

    const report = await applyMigrations(stack.env.databaseUrl, all);
    expect(report.applied.length).toBeGreaterThan(0);
    expect(await columns()).toBe('1');
    await stack.start('authorizer', 'authorizer-after');
    await stack.start('dispatcher', 'dispatcher-after');
    const ids = decisions.map((d) => d.decisionId);
    await h.waitUntil('every decision to end', async () => (await h.finalRows(ids)).length === 12);
    const finals = await h.finalRows(ids);
    expect(finals.map((f) => f.effect_boundary)).toEqual(ids.map(() => 'effect_completed'));
    const [{ n }] = await h.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = ANY($1)`,
      [ids],
    );
    expect(n).toBe('12');
  });
});
