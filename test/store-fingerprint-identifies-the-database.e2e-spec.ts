import { Client } from 'pg';
import { fingerprintOf, STORE_IDENTITY_SQL, type StoreIdentityRow } from '@arvis/persistence';
import { createEnvironment } from './support/environment';

// The receipt's storeFingerprint: stable for one database across connections (restarts), and
// different for another database, even on the same server. (Prisma's client does not load
// inside jest's module sandbox, so this reads with pg the same statement the services run.)
describe('the store fingerprint', () => {
  const read = async (url: string) => {
    const c = new Client({ connectionString: url });
    await c.connect();
    try {
      return fingerprintOf((await c.query<StoreIdentityRow>(STORE_IDENTITY_SQL)).rows[0]);
    } finally {
      await c.end();
    }
  };

  it('is stable for one database across connections and differs between databases', async () => {
    const one = await createEnvironment('fingerprint-one');
    const two = await createEnvironment('fingerprint-two');
    const first = await read(one.databaseUrl);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(await read(one.databaseUrl)).toBe(first);
    expect(await read(two.databaseUrl)).not.toBe(first);
  });
});
