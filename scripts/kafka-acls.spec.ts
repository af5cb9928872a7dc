import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AclOperationTypes, ResourcePatternTypes } from 'kafkajs';
import { topicsFor } from '@arvis/config';
import { aclEntries, aclMarkdown, aclTable, ACL_ROLES, type AclRole } from './kafka-acls';

const table = aclTable({ topics: topicsFor(''), groups: { authorizer: 'arvis-authorizer', dispatcher: 'arvis-dispatcher' } });
const principals = Object.fromEntries(ACL_ROLES.map((r) => [r, [`User:${r}`]])) as Record<AclRole, string[]>;
const writers = (topic: string) => table.filter((r) => r.resource === 'topic' && r.name === topic && r.operations.includes('Write')).map((r) => r.role);

describe('the Kafka ACL table', () => {
  it('is the one docs/kafka-security.md shows', () => {
    const doc = readFileSync(join(__dirname, '..', 'docs', 'kafka-security.md'), 'utf8');
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
});
