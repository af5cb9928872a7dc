import { DEFAULT_TOOL_POOL, DEFAULT_TOPICS, dispatcherGroupOf, intentsTopicOf, TopicsSchema } from './index';

describe('topics', () => {
  it('defaults to the topic names of docs/wire-contract.md', () => {
    expect(DEFAULT_TOPICS).toEqual({
      decisions: 'arvis.decisions',
      decisionsDlq: 'arvis.decisions.dlq',
      intents: 'arvis.intents',
      intentsDlq: 'arvis.intents.dlq',
      journal: 'arvis.journal',
    });
    expect(TopicsSchema.parse(DEFAULT_TOPICS)).toEqual(DEFAULT_TOPICS);
  });

  it('refuses empty names, illegal Kafka names and misspelt keys', () => {
    expect(TopicsSchema.safeParse({ ...DEFAULT_TOPICS, journal: '' }).success).toBe(false);
    expect(TopicsSchema.safeParse({ ...DEFAULT_TOPICS, journal: 'arvis journal' }).success).toBe(false);
    expect(TopicsSchema.safeParse({ ...DEFAULT_TOPICS, jornal: 'x' }).success).toBe(false);
  });

  it('accepts a test prefix', () => {
    const prefixed = Object.fromEntries(Object.entries(DEFAULT_TOPICS).map(([k, v]) => [k, `fault-1.${v}`]));
    expect(TopicsSchema.safeParse(prefixed).success).toBe(true);
  });
});

describe('intentsTopicOf', () => {
  const topics = { intents: 'p.arvis.intents' };
  it('keeps the intents topic for the shared pool, so one pool changes nothing', () => {
    expect(intentsTopicOf(topics, DEFAULT_TOOL_POOL)).toBe('p.arvis.intents');
  });
  it('gives another pool its own topic, apart from the dead letters', () => {
    expect(intentsTopicOf(topics, 'ledger')).toBe('p.arvis.intents.pool.ledger');
    expect(intentsTopicOf(topics, 'dlq')).not.toBe('p.arvis.intents.dlq');
  });
  it('refuses a name that is not a pool name', () => {
    for (const bad of ['', 'Ledger', 'a.b', '-x', 'x'.repeat(41)]) expect(() => intentsTopicOf(topics, bad)).toThrow('not a pool name');
  });
});

describe('dispatcherGroupOf', () => {
  it('keeps the dispatchers group for the shared pool and gives another pool its own', () => {
    expect(dispatcherGroupOf('arvis-dispatcher', DEFAULT_TOOL_POOL)).toBe('arvis-dispatcher');
    expect(dispatcherGroupOf('arvis-dispatcher', 'ledger')).toBe('arvis-dispatcher.pool.ledger');
    expect(() => dispatcherGroupOf('arvis-dispatcher', 'Ledger')).toThrow('not a pool name');
  });
});
