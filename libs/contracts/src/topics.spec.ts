import { DEFAULT_TOPICS, TopicsSchema } from './index';

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
