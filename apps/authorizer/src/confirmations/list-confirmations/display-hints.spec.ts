import { formatMinor, minorUnitsOf, renderDisplayHints } from './display-hints';

describe('display hints rendered beside the exact value that will run', () => {
  it('renders money in major units with its currency and minor units, by integer arithmetic', () => {
    expect(renderDisplayHints({ amountMinor: 1_250_000, currency: 'EUR' }, { amountMinor: { kind: 'money', currencyField: 'currency' } })).toEqual([
      { field: 'amountMinor', kind: 'money', exact: '1250000', shown: 'EUR 12,500.00 (2 minor units)', problem: null },
    ]);
    expect(renderDisplayHints({ a: 1250 }, { a: { kind: 'money', currency: 'JPY' } })[0].shown).toBe('JPY 1,250 (0 minor units)');
    expect(renderDisplayHints({ a: 1250 }, { a: { kind: 'money', currency: 'KWD' } })[0].shown).toBe('KWD 1.250 (3 minor units)');
    expect(renderDisplayHints({ a: 5 }, { a: { kind: 'money', currency: 'EUR', minorUnits: 4 } })[0].shown).toBe('EUR 0.0005 (4 minor units)');
    expect(formatMinor(Number.MAX_SAFE_INTEGER, 2)).toBe('90,071,992,547,409.91');
    expect(formatMinor(-1, 2)).toBe('-0.01');
    expect([minorUnitsOf('EUR'), minorUnitsOf('JPY'), minorUnitsOf('not a code')]).toEqual([2, 0, 2]);
  });

  it('renders timestamps as UTC and enumerations by their labels', () => {
    const hints = { at: { kind: 'timestamp' as const, unit: 'ms' as const }, s: { kind: 'timestamp' as const, unit: 's' as const }, iso: { kind: 'timestamp' as const }, p: { kind: 'enum' as const, labels: { low: 'Low: next batch', high: 'High: now' } } };
    const shown = renderDisplayHints({ at: Date.UTC(2026, 11, 24, 9, 30), s: 1_798_105_800, iso: '2026-12-24T10:30:00+01:00', p: 'high' }, hints);
    expect(shown.map((f) => [f.field, f.shown])).toEqual([
      ['at', '2026-12-24 09:30:00 UTC'],
      ['iso', '2026-12-24 09:30:00 UTC'],
      ['p', 'High: now'],
      ['s', '2026-12-24 09:50:00 UTC'],
    ]);
  });

  it('says why a hint does not apply instead of guessing, and always keeps the exact value', () => {
    const f = renderDisplayHints(
      { amountMinor: 12.5, currency: 'EUR', p: 'urgent', iso: '24/12/2026', proto: 'x' },
      { amountMinor: { kind: 'money', currencyField: 'currency' }, p: { kind: 'enum', labels: { low: 'Low' } }, iso: { kind: 'timestamp' }, gone: { kind: 'timestamp' }, proto: { kind: 'enum', labels: {} } },
    );
    expect(f.map((x) => [x.field, x.exact, x.shown, x.problem])).toEqual([
      ['amountMinor', '12.5', null, 'a money amount must be an integer in minor units'],
      ['gone', '(absent)', null, 'the field is absent'],
      ['iso', '"24/12/2026"', null, 'not an RFC 3339 timestamp'],
      ['p', '"urgent"', null, 'not one of the declared values'],
      ['proto', '"x"', null, 'not one of the declared values'],
    ]);
    expect(renderDisplayHints({ a: 1, currency: 'eur' }, { a: { kind: 'money', currencyField: 'currency' } })[0].problem).toBe('no currency code in currency');
    expect(renderDisplayHints(null, { a: { kind: 'timestamp' } })).toEqual([]);
  });
});
