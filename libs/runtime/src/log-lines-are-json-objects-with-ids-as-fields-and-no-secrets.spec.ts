import { Logger } from '@nestjs/common';
import { PinoLogger, prettyLine, someIds, MAX_IDS_PER_LINE } from './pino-logger';

/** A logger writing into an array, one parsed object per line. */
function capture(level = 'info', format: 'json' | 'pretty' = 'json') {
  const raw: string[] = [];
  const logger = new PinoLogger('dispatcher', level, { version: '1.2.3', format, destination: { write: (l: string) => void raw.push(l) } });
  return { logger, raw, lines: () => raw.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('log lines (ADR 0064)', () => {
  it('are one JSON object each, with a stable msg, the ids as fields, level, service and version', () => {
    const { logger, lines } = capture();
    logger.warn({ msg: 'effect closed by recovery', decisionId: 'd-1', runId: 'r-1', tenant: 't-1', tool: 'ledger.transfer', reasonCode: 'effect_state_unknown' }, 'RecoverEffects');
    logger.log('plain text is the msg', 'Bootstrap');
    const [first, second] = lines();
    expect(first).toMatchObject({
      level: 40,
      severity: 'warn',
      service: 'dispatcher',
      version: '1.2.3',
      context: 'RecoverEffects',
      msg: 'effect closed by recovery',
      decisionId: 'd-1',
      runId: 'r-1',
      tenant: 't-1',
      tool: 'ledger.transfer',
      reasonCode: 'effect_state_unknown',
    });
    expect(typeof first.time).toBe('string');
    expect(second).toMatchObject({ level: 30, msg: 'plain text is the msg', context: 'Bootstrap' });
  });

  it('go through Nest loggers unchanged (the call sites use new Logger(context))', () => {
    const { logger, lines } = capture();
    Logger.overrideLogger(logger);
    try {
      new Logger('Relay').warn({ msg: 'outbox row quarantined', seq: '7', why: 'too large' });
      new Logger('Relay').error({ msg: 'isolating a message', topic: 'arvis.intents', partition: 2 });
    } finally {
      Logger.overrideLogger(true);
    }
    expect(lines()).toEqual([
      expect.objectContaining({ level: 40, context: 'Relay', msg: 'outbox row quarantined', seq: '7', why: 'too large' }),
      expect.objectContaining({ level: 50, context: 'Relay', msg: 'isolating a message', topic: 'arvis.intents', partition: 2 }),
    ]);
  });

  it('carry no secret: token, password, key, payload and header fields are redacted, and passwords in URLs scrubbed', () => {
    const { logger, raw } = capture();
    logger.warn({
      msg: 'something',
      password: 'hunter2-pw',
      token: 'eyJhbGciOi.secret-token',
      authorization: 'Bearer abc-bearer',
      privateKey: '-----BEGIN PRIVATE KEY-----xyz',
      payload: { amount: 1, iban: 'DE-secret-iban' },
      settings: { secret: 'nested-secret', headers: { authorization: 'Bearer nested' } },
      error: 'connect ECONNREFUSED postgresql://arvis_dispatcher:db-pass-1@db:5432/arvis',
    });
    logger.error(new Error('failed for postgres://u:db-pass-2@h/x'));
    logger.log('dialing kafka://p:db-pass-3@broker');
    const text = raw.join('');
    for (const s of ['hunter2-pw', 'secret-token', 'abc-bearer', 'BEGIN PRIVATE KEY', 'DE-secret-iban', 'nested-secret', 'Bearer nested', 'db-pass-1', 'db-pass-2', 'db-pass-3']) {
      expect(text).not.toContain(s);
    }
    expect(text).toContain('postgresql://arvis_dispatcher:[redacted]@db:5432/arvis');
  });

  it('write nothing below the level, without building the line', () => {
    const { logger, raw } = capture('warn');
    logger.log({ msg: 'per-decision detail', decisionId: 'd' });
    logger.debug('debug');
    logger.warn('kept');
    expect(raw.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['kept']);
  });

  it('keep an error stack as a field, never in msg', () => {
    const { logger, lines } = capture();
    logger.error('handler blew up', 'Error: x\n    at f (a.js:1:1)', 'Consumer');
    expect(lines()[0]).toMatchObject({ msg: 'handler blew up', stack: expect.stringContaining('at f'), context: 'Consumer' });
  });

  it('read as one human line each in the pretty format', () => {
    const { logger, raw } = capture('info', 'pretty');
    logger.warn({ msg: 'message dead-lettered', decisionId: 'd-9', reasonCode: 'decision_unprocessable', partition: 3 }, 'DeadLetter');
    expect(raw).toHaveLength(1);
    expect(raw[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+ WARN  dispatcher \[DeadLetter\] message dead-lettered decisionId=d-9 reasonCode=decision_unprocessable partition=3\n$/);
    expect(prettyLine('{"level":30,"time":"t","service":"relay","msg":"ready"}')).toBe('t INFO  relay ready\n');
  });

  it('name a bounded number of ids in a line about many decisions', () => {
    const ids = Array.from({ length: 500 }, (_, i) => `d-${i}`);
    expect(someIds(ids)).toHaveLength(MAX_IDS_PER_LINE);
  });
});
