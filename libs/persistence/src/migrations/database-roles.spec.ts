import { PROJECT_GRANTS, PROJECT_TABLES, toolRoleName } from './database-roles';

describe('database role names and grants', () => {
  it('name a tool package\'s role after the package, as a plain lower-case identifier of at most 63 bytes', () => {
    expect(toolRoleName('arvis_', '@arvis/tool-demo')).toBe('arvis_tool_arvis_tool_demo');
    expect(toolRoleName('x_', 'Acme.Ping-Tools')).toBe('x_tool_acme_ping_tools');
    const long = toolRoleName('arvis_', `@acme/${'very-long-name-'.repeat(8)}`);
    expect(long).toMatch(/^arvis_tool_acme_very_long_name_[a-z0-9_]+_[0-9a-f]{10}$/);
    expect(long.length).toBeLessThanOrEqual(63);
    // Two long names that share the first 52 characters still get different roles.
    expect(toolRoleName('arvis_', `@acme/${'x'.repeat(80)}a`)).not.toBe(toolRoleName('arvis_', `@acme/${'x'.repeat(80)}b`));
  });

  it('never let an app role change or remove a journal entry, and keep the CLI read-only', () => {
    for (const grants of [PROJECT_GRANTS.authorizer, PROJECT_GRANTS.dispatcher, PROJECT_GRANTS.relay]) {
      expect(grants.journal.filter((p) => p === 'UPDATE' || p === 'DELETE')).toEqual([]);
    }
    expect(Object.keys(PROJECT_GRANTS.cli).sort()).toEqual([...PROJECT_TABLES].sort());
    expect(new Set(Object.values(PROJECT_GRANTS.cli).flat())).toEqual(new Set(['SELECT']));
  });

  it('grant only project tables to the components', () => {
    for (const grants of Object.values(PROJECT_GRANTS)) {
      for (const table of Object.keys(grants)) expect(PROJECT_TABLES).toContain(table);
    }
  });
});
