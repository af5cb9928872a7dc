import { isTransientFault } from './transient-fault';

const pgError = (code: string, message = 'pg'): Error => Object.assign(new Error(message), { code, severity: 'FATAL' });

describe('isTransientFault', () => {
  it.each([
    ['PostgreSQL shutting down (57P01)', pgError('57P01', 'terminating connection due to administrator command')],
    ['PostgreSQL starting up (57P03)', pgError('57P03', 'the database system is starting up')],
    ['a connection failure (08006)', pgError('08006')],
    ['too many connections (53300)', pgError('53300')],
    ['a serialization failure (40001)', pgError('40001')],
    ['a deadlock (40P01)', pgError('40P01')],
    ['a refused socket', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['node-postgres losing its connection', new Error('Connection terminated unexpectedly')],
    ['Prisma: cannot reach the server (P1001)', Object.assign(new Error('x'), { name: 'PrismaClientKnownRequestError', code: 'P1001' })],
    ['Prisma: transaction could not start in time (P2028)', Object.assign(new Error('x'), { name: 'PrismaClientKnownRequestError', code: 'P2028' })],
    ['a Prisma error whose cause is a driver-adapter ConnectionClosed', Object.assign(new Error('x'), { cause: { kind: 'ConnectionClosed' } })],
    ['a Prisma P2010 carrying SQLSTATE 57P01 in meta', Object.assign(new Error('x'), { code: 'P2010', meta: { code: '57P01' } })],
    ['Prisma as seen with the server down (P2010, DatabaseNotReachable in meta)', Object.assign(new Error('x'), { code: 'P2010', meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'DatabaseNotReachable' } } } })],
    ['a missing database (environment, not the message)', Object.assign(new Error('x'), { code: 'P1003', meta: { driverAdapterError: { cause: { kind: 'DatabaseDoesNotExist', originalCode: '3D000' } } } })],
    ['tables not migrated (42P01)', pgError('42P01')],
    ['a transaction rolled back past its timeout', Object.assign(new Error('x'), { name: 'TransactionTimeoutError' })],
    ['kafkajs: connection error', Object.assign(new Error('x'), { name: 'KafkaJSConnectionError', retriable: true })],
    ['kafkajs: retries exhausted, wrapping a timeout', Object.assign(new Error('x'), { name: 'KafkaJSNumberOfRetriesExceeded', cause: { name: 'KafkaJSRequestTimeoutError' } })],
    ['kafkajs: any retriable protocol error', Object.assign(new Error('x'), { name: 'KafkaJSProtocolError', retriable: true })],
  ])('waits out %s', (_what, error) => {
    expect(isTransientFault(error)).toBe(true);
  });

  it.each([
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['a canonical-JSON refusal', new Error('lone surrogate at 499')],
    ['a unique violation (23505)', pgError('23505')],
    ['a check violation (23514)', pgError('23514')],
    ['invalid input (22P02)', pgError('22P02')],
    ['kafkajs: a non-retriable protocol error', Object.assign(new Error('x'), { name: 'KafkaJSProtocolError', retriable: false })],
    ['Prisma: a unique constraint (P2002)', Object.assign(new Error('x'), { code: 'P2002' })],
    ['not an error at all', 'boom'],
  ])('does not wait for %s', (_what, error) => {
    expect(isTransientFault(error)).toBe(false);
  });

  it('survives a cause cycle', () => {
    const a: Record<string, unknown> = { message: 'a' };
    a.cause = { message: 'b', cause: a };
    expect(isTransientFault(a)).toBe(false);
  });
});

// Cases met by the dispatcher's recording (retryWhileTransient) during outages.
describe('isTransientFault, as recording results sees faults', () => {
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
    expect(isTransientFault(e)).toBe(true);
  });

  it.each([
    ['a unique violation', Object.assign(new Error('duplicate key value'), { code: '23505' })],
    ['a check violation', Object.assign(new Error('violates check constraint'), { code: '23514' })],
    ['a plain bug', new Error('cannot read properties of undefined')],
    ['not an error at all', 'oops'],
  ])('%s is not', (_name, e) => {
    expect(isTransientFault(e)).toBe(false);
  });
});
