import type { SqlClient } from './pg-transaction';
import { lastStatementOn, NeedsTransaction, OneStatementWriter } from './one-statement-writer';

/** A client that records what it was asked to run. */
function recording(): SqlClient & { ran: string[] } {
  const ran: string[] = [];
  const text = (s: TemplateStringsArray | string) => (typeof s === 'string' ? s : s.join('?'));
  return {
    ran,
    $queryRaw: async (s: TemplateStringsArray) => (ran.push(text(s)), [] as never),
    $executeRaw: async (s: TemplateStringsArray) => (ran.push(text(s)), 1),
    $queryRawUnsafe: async (s: string) => (ran.push(s), [] as never),
    $executeRawUnsafe: async (s: string) => (ran.push(s), 1),
  };
}

describe('OneStatementWriter', () => {
  it('runs nothing but its last statement: any other throws NeedsTransaction before it runs', async () => {
    const sql = recording();
    const w = new OneStatementWriter(sql);
    await expect(w.$executeRawUnsafe('UPDATE a SET x = 1')).rejects.toBeInstanceOf(NeedsTransaction);
    await expect(w.$queryRaw`SELECT 1`).rejects.toBeInstanceOf(NeedsTransaction);
    expect(sql.ran).toEqual([]);
    await lastStatementOn(w).$executeRawUnsafe('INSERT INTO b VALUES (1)');
    expect(sql.ran).toEqual(['INSERT INTO b VALUES (1)']);
  });

  it('gives its last statement once', () => {
    const w = new OneStatementWriter(recording());
    expect(() => w.last).not.toThrow();
    expect(() => w.last).toThrow(NeedsTransaction);
  });

  it('leaves a transaction as it is: its last statement is one more of its statements', () => {
    const tx = recording();
    expect(lastStatementOn(tx)).toBe(tx);
  });
});
