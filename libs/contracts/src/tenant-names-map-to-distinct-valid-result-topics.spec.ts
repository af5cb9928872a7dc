import { createHash } from 'node:crypto';
import { resultTopicOf } from './topics';

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const topic = (tenant: string, prefix = '') => resultTopicOf(prefix, tenant, sha);

// Tenant names may hold characters topic names cannot (ADR 0073): the mapping keeps the name
// readable where it can, gives every tenant its own valid topic, and is pinned.
describe('result topic of a tenant', () => {
  it('is pinned: letters, digits and "-" kept, every other byte escaped', () => {
    expect(topic('acme')).toBe('arvis.results.acme');
    expect(topic('Acme-2')).toBe('arvis.results.Acme-2');
    expect(topic('acme.eu')).toBe('arvis.results.acme_2eeu');
    expect(topic('acme_eu')).toBe('arvis.results.acme_5feu');
    expect(topic('a/b c')).toBe('arvis.results.a_2fb_20c');
    expect(topic('zürich')).toBe('arvis.results.z_c3_bcrich');
    expect(topic('acme', 't1.')).toBe('t1.arvis.results.acme');
  });

  it('gives tenants that differ only where topics cannot tell them apart their own topics', () => {
    const tenants = ['acme.eu', 'acme_eu', 'acme-eu', 'acme eu', 'acme_2eeu', 'ACME.eu', 'acme', 'acme2', '', 'x'.repeat(300), 'x'.repeat(301)];
    const names = tenants.map((t) => topic(t));
    expect(new Set(names).size).toBe(tenants.length);
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9._-]{1,249}$/);
  });

  it('hashes a name too long for Kafka, into a form no encoding produces', () => {
    const long = 'ü'.repeat(100);
    expect(topic(long)).toBe(`arvis.results._z${sha(long).slice(0, 40)}`);
    expect(topic('x'.repeat(235))).toBe(`arvis.results.${'x'.repeat(235)}`);
  });
});
