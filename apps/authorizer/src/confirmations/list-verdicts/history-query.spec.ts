import { HISTORY_MAX_PAGE, HISTORY_PAGE, parseHistoryQuery } from './history-query';

describe('the console history query', () => {
  it('takes every filter as optional, dates as the start of their UTC day', () => {
    expect(parseHistoryQuery({})).toEqual({ ok: true, query: { tool: null, requester: null, outcome: null, from: null, to: null, before: null, limit: HISTORY_PAGE } });
    expect(parseHistoryQuery({ tool: 'ledger.transfer', requester: 'alice', outcome: 'denied', from: '2026-12-01', to: '2026-12-02T10:00:00+01:00', before: 'c-9', limit: '200' })).toEqual({
      ok: true,
      query: { tool: 'ledger.transfer', requester: 'alice', outcome: 'denied', from: new Date('2026-12-01T00:00:00Z'), to: new Date('2026-12-02T09:00:00Z'), before: 'c-9', limit: 200 },
    });
    expect(parseHistoryQuery({ tool: '', outcome: '' })).toMatchObject({ ok: true, query: { tool: null, outcome: null } });
  });

  it.each([
    [{ outcome: 'maybe' }, 'outcome must be one of approved, denied, expired'],
    [{ from: '01/12/2026' }, 'from must be a date or an RFC 3339 instant'],
    [{ to: '2026-02-30' }, 'to is not a real instant'],
    [{ tool: ['a', 'b'] }, 'tool must be one value of at most 200 characters'],
    [{ limit: String(HISTORY_MAX_PAGE + 1) }, `limit must be an integer from 1 to ${HISTORY_MAX_PAGE}`],
    [{ limit: '0' }, `limit must be an integer from 1 to ${HISTORY_MAX_PAGE}`],
  ])('refuses %p', (q, message) => {
    expect(parseHistoryQuery(q)).toEqual({ ok: false, message });
  });
});
