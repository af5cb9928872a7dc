import { parseWaitS } from './wait-query';

// ?waitS= of GET /decisions/{id} (ADR 0072): a requester cannot hold a connection longer than
// RESULT_WAIT_MAX_S by asking for more; a larger ask waits the cap, a malformed one is refused.
describe('a long poll waits at most the configured cap', () => {
  it('takes whole seconds up to the cap, caps a larger ask, and answers at once without one', () => {
    expect(parseWaitS(undefined, 30)).toEqual({ ok: true, waitS: 0 });
    expect(parseWaitS('', 30)).toEqual({ ok: true, waitS: 0 });
    expect(parseWaitS('20', 30)).toEqual({ ok: true, waitS: 20 });
    expect(parseWaitS('30', 30)).toEqual({ ok: true, waitS: 30 });
    expect(parseWaitS('999999', 30)).toEqual({ ok: true, waitS: 30 });
    expect(parseWaitS('5', 0)).toEqual({ ok: true, waitS: 0 });
  });

  it('refuses anything but whole seconds: words, negatives, fractions, repeated parameters, huge numbers', () => {
    for (const raw of ['soon', '-1', '1.5', '1e3', ['1', '2'], '1234567']) expect(parseWaitS(raw, 30)).toMatchObject({ ok: false });
  });
});
