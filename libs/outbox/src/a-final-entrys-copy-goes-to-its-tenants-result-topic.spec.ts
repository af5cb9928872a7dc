import type { OutboundMessage } from '@arvis/kafka';
import { ResultRouter } from './result-copies';

// ADR 0073: the relay adds a final entry's copy to its tenant's result topic in the same send;
// a tenant without one, or whose topic the broker lacks, is counted and gets no copy.
describe('result copies', () => {
  const m = (v: string): OutboundMessage => ({ key: 'run-1', value: v });

  it("copies a final entry to its tenant's topic, counts the others by why, and leaves rows that are no final entry alone", () => {
    const router = new ResultRouter({ acme: 'arvis.results.acme', 'acme.eu': 'arvis.results.acme_2eeu', gone: 'arvis.results.gone' });
    router.existing = new Set(['arvis.results.acme', 'arvis.results.acme_2eeu']);
    const byTopic = new Map<string, OutboundMessage[]>([['arvis.journal', [m('a1'), m('i1'), m('g1'), m('x1'), m('e1')]]]);
    const outcomes = router.addCopies(byTopic, [
      { resultTenant: 'acme', message: m('a1') },
      { resultTenant: null, message: m('i1') },
      { resultTenant: 'globex', message: m('g1') },
      { resultTenant: 'gone', message: m('x1') },
      { resultTenant: 'acme.eu', message: m('e1') },
    ]);
    expect(Object.fromEntries([...byTopic].map(([t, l]) => [t, l.map((x) => x.value)]))).toEqual({
      'arvis.journal': ['a1', 'i1', 'g1', 'x1', 'e1'],
      'arvis.results.acme': ['a1'],
      'arvis.results.acme_2eeu': ['e1'],
    });
    expect(Object.fromEntries([...outcomes].map(([t, o]) => [t, Object.fromEntries(o)]))).toEqual({
      acme: { published: 1 },
      'acme.eu': { published: 1 },
      globex: { no_result_topic: 1 },
      gone: { result_topic_missing: 1 },
    });
  });

  it('before the broker was asked, sends to every configured topic; with no tenants configured, does nothing', () => {
    const router = new ResultRouter({ acme: 'arvis.results.acme' });
    expect(router.route('acme')).toEqual({ topic: 'arvis.results.acme' });
    expect(router.route('constructor')).toEqual({ unrouted: 'no_result_topic' });
    const off = new ResultRouter({});
    const byTopic = new Map<string, OutboundMessage[]>();
    expect(off.addCopies(byTopic, [{ resultTenant: 'acme', message: m('a') }]).size).toBe(0);
    expect(byTopic.size).toBe(0);
  });
});
