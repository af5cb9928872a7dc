import type { Database } from './database';
import { isDatabaseUnavailable, untilDatabaseAnswers } from './pg-errors';
import { StoreFingerprint } from './store-fingerprint';

const shuttingDown = () => Object.assign(new Error('the database system is shutting down'), { code: '57P03' });

describe('an app started while PostgreSQL restarts', () => {
  it('loads the store fingerprint once the database answers, instead of failing start-up', async () => {
    let calls = 0;
    const db = {
      $queryRawUnsafe: async (sql: string) => {
        calls += 1;
        if (calls <= 2) throw shuttingDown();
        return sql.includes('store_rebinds') ? [] : [{ system_identifier: '7', datname: 'arvis', seed: 's' }];
      },
    } as unknown as Database;
    const fingerprint = new StoreFingerprint(db);
    await expect(fingerprint.onModuleInit()).resolves.toBeUndefined();
    expect(fingerprint.accepted.size).toBe(1);
    expect(calls).toBe(4);
  }, 10_000);

  it('still fails at once on a fault that is not the database being away', async () => {
    let calls = 0;
    const read = async () => {
      calls += 1;
      throw Object.assign(new Error('relation "store_identity" does not exist'), { code: '42P01' });
    };
    await expect(untilDatabaseAnswers(read, () => undefined, async () => undefined)).rejects.toThrow('does not exist');
    expect(calls).toBe(1);
  });

  it('knows the database being away by SQLSTATE class, errno and driver message', () => {
    expect(isDatabaseUnavailable(shuttingDown())).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('the database system is starting up'), { code: '57P03' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
  });
});
