import type { Client, Pool } from 'pg';

/** One structured line (ADR 0064): which pool, and the driver's message. */
export interface ConnectionLost {
  msg: 'database connection lost';
  pool: string;
  error: string;
}
type Warn = (line: ConnectionLost) => void;

/**
 * node-postgres emits 'error' when the server drops a connection (restart, failover,
 * pg_terminate_backend). An EventEmitter 'error' without a listener kills the process, so every
 * pool and client gets one: a pool then discards the dead connection and opens a new one on the
 * next checkout, and the work that needed it fails as an ordinary, retried fault.
 */
export function handlePoolErrors<P extends Pool>(pool: P, what: string, warn: Warn): P {
  // Every client gets its own listener for its whole life, not only while idle: pg-pool drops its
  // idle listener the moment it hands a client to a caller waiting in `await pool.connect()`, and
  // that caller (Prisma's transactions among them) attaches its own only a microtask later. A
  // server message ending the connection in that gap was an unhandled 'error' (ADR 0019).
  pool.on('connect', (client) => {
    client.on('error', (e: Error) => warn({ msg: 'database connection lost', pool: what, error: e.message }));
  });
  // Idle losses reach the pool too; the client's own listener has already logged them.
  pool.on('error', () => undefined);
  return pool;
}

/** For a standalone client: the caller learns of the loss through its next query or `ended`. */
export function handleClientErrors<C extends Client>(client: C, what: string, warn: Warn): C {
  client.on('error', (e: Error) => warn({ msg: 'database connection lost', pool: what, error: e.message }));
  return client;
}
