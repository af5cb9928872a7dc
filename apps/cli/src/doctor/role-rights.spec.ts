import { PROJECT_GRANTS, type Privilege } from '../../../../libs/persistence/src/migrations/database-roles';
import { compareRights, type HeldRights } from './role-rights';

/** A login holding exactly the role's grants, on every table the role is granted. */
const exactly = (component: keyof typeof PROJECT_GRANTS, user = `arvis_${component}`): HeldRights => ({
  user,
  superuser: false,
  tables: new Map([...Object.entries(PROJECT_GRANTS[component]).map(([t, p]) => [t, new Set<Privilege>(p)] as const), ['journal', new Set<Privilege>(PROJECT_GRANTS[component].journal ?? [])]]),
});

describe('doctor: a service\'s database rights against its role\'s grants (ADR 0034)', () => {
  it('passes a login with exactly the grants', () => {
    expect(compareRights('dispatcher', exactly('dispatcher'))).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^arvis_dispatcher has exactly the dispatcher's rights on \d+ tables$/) });
  });

  it('names a right the role lacks and one it has beyond its grants', () => {
    const held = exactly('authorizer');
    held.tables.get('decision_inbox')!.delete('INSERT');
    held.tables.set('runs', new Set(['SELECT', 'DELETE']));
    held.tables.get('journal')!.add('UPDATE');
    const c = compareRights('authorizer', held);
    expect(c.status).toBe('fail');
    expect(c.detail).toBe(
      'arvis_authorizer lacks INSERT on decision_inbox: those statements would be refused (npm run migrate grants them); ' +
        'arvis_authorizer may also UPDATE on journal, SELECT on runs, DELETE on runs: more than the authorizer needs',
    );
  });

  it('calls a superuser login what it is, as a skip: every right, not the role\'s own', () => {
    const su: HeldRights = { user: 'postgres', superuser: true, tables: new Map() };
    expect(compareRights('relay', su)).toMatchObject({ status: 'skip', detail: expect.stringContaining('connects as postgres, a superuser') });
  });
});
