import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AclOperationTypes, ResourcePatternTypes } from 'kafkajs';
import { topicsFor } from '@arvis/config';
import { aclEntries, aclMarkdown, aclTable, compareAcls, tablePrincipals, unknownAclRoles, type HeldAcl } from './acl-table';

const table = aclTable({ topics: topicsFor(''), groups: { authorizer: 'arvis-authorizer', dispatcher: 'arvis-dispatcher' } });
const principals = tablePrincipals();
const writers = (topic: string) => table.filter((r) => r.resource === 'topic' && r.name === topic && r.operations.includes('Write')).map((r) => r.role);

describe('the Kafka ACL table', () => {
  it('is the one docs/kafka-security.md shows', () => {
    const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'kafka-security.md'), 'utf8');
    const shown = doc.slice(doc.indexOf('<!-- acl-table:start -->') + '<!-- acl-table:start -->'.length, doc.indexOf('<!-- acl-table:end -->')).trim();
    expect(shown).toBe(aclMarkdown(table));
  });

  it('lets only the outbox publishers write intents, and only producers write decisions', () => {
    expect(writers('arvis.intents')).toEqual(['authorizer', 'dispatcher', 'relay']);
    expect(writers('arvis.decisions')).toEqual(['producer']);
    expect(table.filter((r) => r.role === 'analyst' && r.operations.includes('Write'))).toEqual([]);
  });

  it('becomes one kafkajs entry per rule, operation and principal; group prefixes stay prefixes', () => {
    const entries = aclEntries(table, { ...principals, producer: ['User:a', 'User:b'] });
    expect(entries.filter((e) => e.resourceName === 'arvis.decisions' && e.operation === AclOperationTypes.WRITE).map((e) => e.principal)).toEqual(['User:a', 'User:b']);
    const watcher = entries.filter((e) => e.resourceName === 'arvis-journal-watcher-');
    expect(watcher.map((e) => [e.resourcePatternType, e.operation])).toEqual([
      [ResourcePatternTypes.PREFIXED, AclOperationTypes.READ],
      [ResourcePatternTypes.PREFIXED, AclOperationTypes.DELETE],
    ]);
  });

  it("lets the authorizer read the dead letters it re-drives and the decisions topic's settings retention needs, with its own reader groups", () => {
    const of = (name: string) => table.filter((r) => r.role === 'authorizer' && r.name === name).flatMap((r) => r.operations);
    expect(of('arvis.decisions')).toEqual(['Read', 'DescribeConfigs']);
    expect([of('arvis.decisions.dlq'), of('arvis.intents.dlq')]).toEqual([['Read', 'Write'], ['Read', 'Write']]);
    expect(table.find((r) => r.role === 'authorizer' && r.resource === 'group' && r.prefixed)).toMatchObject({ name: 'arvis-admin-reader-', operations: ['Read', 'Delete'] });
  });

  describe('against what the broker holds (arvis doctor)', () => {
    const kinds = { Read: 'Read', Write: 'Write', Delete: 'Delete', DescribeConfigs: 'DescribeConfigs' } as const;
    const held = (p: typeof principals): HeldAcl[] =>
      table.flatMap((r) => p[r.role].flatMap((principal) => r.operations.map((op) => ({ resource: r.resource, name: r.name, prefixed: r.prefixed, principal, operation: kinds[op as keyof typeof kinds], permission: 'allow' as const }))));
    const all = ['User:authorizer', 'User:dispatcher', 'User:relay', 'User:producer', 'User:analyst'];

    it('passes every principal holding exactly its roles\' rules', () => {
      const verdicts = compareAcls(table, principals, held(principals), all);
      expect(verdicts.map((v) => [v.principal, v.missing, v.extra])).toEqual(all.map((p) => [p, [], []]));
      expect(verdicts.find((v) => v.principal === 'User:producer')).toMatchObject({ roles: ['producer'], needed: 1 });
    });

    it('names a missing right with why it is needed, one too many, a grant to User:*, and a DENY', () => {
      const acls = held(principals).filter((a) => !(a.principal === 'User:dispatcher' && a.name === 'arvis.intents' && a.operation === 'Read'));
      acls.push({ resource: 'topic', name: 'arvis.decisions', prefixed: false, principal: 'User:analyst', operation: 'Write', permission: 'allow' });
      acls.push({ resource: 'topic', name: '*', prefixed: false, principal: 'User:*', operation: 'Describe', permission: 'allow' });
      acls.push({ resource: 'topic', name: 'arvis.', prefixed: true, principal: 'User:producer', operation: 'Write', permission: 'deny' });
      const v = Object.fromEntries(compareAcls(table, principals, acls, all).map((x) => [x.principal, x]));
      expect(v['User:dispatcher'].missing).toEqual(['Read on topic arvis.intents (consumes intents; reads their end offsets (redelivery lag))']);
      expect(v['User:analyst'].extra).toEqual(['Write on topic arvis.decisions', 'Describe on topic * (granted to User:*)']);
      expect(v['User:producer'].missing).toEqual(['Write on topic arvis.decisions (an agent sends decisions; nothing else)']);
    });

    it('counts a broader grant as covering the need but names it as more than needed', () => {
      const acls: HeldAcl[] = [{ resource: 'topic', name: 'arvis.', prefixed: true, principal: 'User:producer', operation: 'All', permission: 'allow' }];
      expect(compareAcls(table, principals, acls, ['User:producer'])[0]).toMatchObject({ missing: [], extra: ['All on topic arvis.*'] });
    });

    it('gives a principal holding two roles (a service running the relay) both roles\' rules once', () => {
      const two = { ...principals, relay: ['User:authorizer'] };
      const [v] = compareAcls(table, two, held(two), ['User:authorizer']);
      expect({ roles: v.roles, missing: v.missing, extra: v.extra }).toEqual({ roles: ['authorizer', 'relay'], missing: [], extra: [] });
    });
  });

  it("gives each tenant's readers LITERAL Read on its own result topic only, and every outbox publisher Write on each", () => {
    const results = { acme: { topic: 'arvis.results.acme', readers: ['User:agent-acme'] }, acme2: { topic: 'arvis.results.acme2', readers: ['User:agent-acme2'] } };
    const rules = aclTable({ topics: topicsFor(''), groups: { authorizer: 'arvis-authorizer', dispatcher: 'arvis-dispatcher' }, results });
    const entries = aclEntries(rules, principals);
    const on = (name: string) => entries.filter((e) => e.resourceName === name).map((e) => [e.principal, e.operation, e.resourcePatternType]);
    expect(on('arvis.results.acme')).toEqual([
      ['User:authorizer', AclOperationTypes.WRITE, ResourcePatternTypes.LITERAL],
      ['User:dispatcher', AclOperationTypes.WRITE, ResourcePatternTypes.LITERAL],
      ['User:relay', AclOperationTypes.WRITE, ResourcePatternTypes.LITERAL],
      ['User:agent-acme', AclOperationTypes.READ, ResourcePatternTypes.LITERAL],
    ]);
    // No prefixed rule on a result topic: one for acme would also match acme2.
    expect(entries.filter((e) => e.resourceName.startsWith('arvis.results.') && e.resourcePatternType !== ResourcePatternTypes.LITERAL)).toEqual([]);
    expect(entries.filter((e) => e.principal === 'User:agent-acme').map((e) => e.resourceName)).toEqual(['arvis.results.acme', 'arvis-result-watcher-']);
  });

  describe('with tool pools (ADR 0080)', () => {
    const groups = { authorizer: 'arvis-authorizer', dispatcher: 'arvis-dispatcher' };
    const pooled = aclTable({ topics: topicsFor(''), groups, pools: ['ledger', 'search', 'shared'] });
    const pp = tablePrincipals({}, ['ledger', 'search']);
    const entries = aclEntries(pooled, pp);
    const readers = (name: string) => entries.filter((e) => e.resourceName === name && e.operation === AclOperationTypes.READ).map((e) => [e.principal, e.resourcePatternType]);

    it("lets each pool's dispatchers read only their pool's intents topic and group, by literal name", () => {
      expect(readers('arvis.intents')).toEqual([['User:dispatcher', ResourcePatternTypes.LITERAL]]);
      expect(readers('arvis.intents.pool.ledger')).toEqual([['User:dispatcher-ledger', ResourcePatternTypes.LITERAL]]);
      expect(readers('arvis.intents.pool.search')).toEqual([['User:dispatcher-search', ResourcePatternTypes.LITERAL]]);
      expect(readers('arvis-dispatcher.pool.ledger')).toEqual([['User:dispatcher-ledger', ResourcePatternTypes.LITERAL]]);
      expect(readers('arvis-dispatcher')).toEqual([['User:dispatcher', ResourcePatternTypes.LITERAL]]);
      const ledgerReads = entries.filter((e) => e.principal === 'User:dispatcher-ledger' && e.operation === AclOperationTypes.READ).map((e) => e.resourceName);
      expect(ledgerReads.filter((n) => n.includes('intents'))).toEqual(['arvis.intents.pool.ledger']);
    });

    it("lets every outbox publisher write every pool's intents topic (whoever holds the relay lock publishes every row)", () => {
      const writersOf = (name: string) => pooled.filter((r) => r.name === name && r.operations.includes('Write')).map((r) => r.role);
      expect(writersOf('arvis.intents.pool.ledger')).toEqual(['authorizer', 'dispatcher', 'dispatcher-ledger', 'dispatcher-search', 'relay']);
      expect(writersOf('arvis.intents')).toEqual(writersOf('arvis.intents.pool.search'));
    });

    it('is the table without pools when only the shared pool is named', () => {
      expect(aclTable({ topics: topicsFor(''), groups, pools: ['shared'] })).toEqual(table);
      expect(tablePrincipals({}, ['shared'])).toEqual(principals);
    });

    it("checks a pool's principal against its own rules, and names a role of a pool not listed", () => {
      const fixed: HeldAcl[] = pooled.flatMap((r) =>
        pp[r.role].flatMap((principal) => r.operations.map((operation) => ({ resource: r.resource, name: r.name, prefixed: r.prefixed, principal, operation, permission: 'allow' as const }))),
      );
      // The ledger pool's dispatchers reading the search pool's intents is one right too many.
      fixed.push({ resource: 'topic', name: 'arvis.intents.pool.search', prefixed: false, principal: 'User:dispatcher-ledger', operation: 'Read', permission: 'allow' });
      const [v] = compareAcls(pooled, pp, fixed, ['User:dispatcher-ledger']);
      expect(v).toMatchObject({ roles: ['dispatcher-ledger'], missing: [], extra: ['Read on topic arvis.intents.pool.search'] });
      expect(unknownAclRoles({ 'dispatcher-ledger': ['User:x'], 'dispatcher-mail': ['User:y'] }, ['ledger'])).toEqual(['dispatcher-mail']);
    });
  });
});
