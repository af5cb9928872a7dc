import { isTransientDatabaseError } from './transient-error';

describe('isTransientDatabaseError', () => {
  it.each([
    ['a terminated backend (57P01)', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a connection exception class 08', Object.assign(new Error('x'), { code: '08006' })],
    ['a deadlock', Object.assign(new Error('deadlock detected'), { code: '40P01' })],
    ['Prisma cannot reach the server', Object.assign(new Error('x'), { code: 'P1001' })],
    ['a cause that is transient', new Error('query failed', { cause: Object.assign(new Error('y'), { code: '57P03' }) })],
    ['pg-pool ending a client', new Error('Connection terminated unexpectedly')],
    ['a client reused after its connection broke', new Error('Client has encountered a connection error and is not queryable')],
    ['a database closed to new connections', new Error('database "x" is not currently accepting connections')],
  ])('%s is transient', (_name, e) => {
    expect(isTransientDatabaseError(e)).toBe(true);
  });

  it.each([
    ['a unique violation', Object.assign(new Error('duplicate key value'), { code: '23505' })],
    ['a check violation', Object.assign(new Error('violates check constraint'), { code: '23514' })],
    ['a plain bug', new Error('cannot read properties of undefined')],
    ['not an error at all', 'oops'],
  ])('%s is not', (_name, e) => {
    expect(isTransientDatabaseError(e)).toBe(false);
  });
});
