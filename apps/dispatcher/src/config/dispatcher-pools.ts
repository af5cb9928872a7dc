import { ConfigError } from '@arvis/config';
import { DEFAULT_TOOL_POOL, dispatcherGroupOf, intentsTopicOf, type Topics } from '@arvis/contracts';
import type { ToolDefinition, ToolSet } from '@arvis/tool-catalog';

/** One pool this dispatcher serves: where its intents come from, in which group, against which catalog. */
export interface ServedPool {
  name: string;
  topic: string;
  groupId: string;
  /** The fingerprint of this pool's catalog (its packages' tools and its name, ADR 0080): what its intents are minted against. */
  fingerprint: string;
}

/** A pool's consumer, for runService: named after the pool, in the pool's group, on its topic. */
export function poolConsumers(c: { pools: readonly string[]; topics: Pick<Topics, 'intents'>; kafka: { groupId: string } }) {
  return c.pools.map((pool) => ({ name: pool, groupId: dispatcherGroupOf(c.kafka.groupId, pool), topics: { intents: intentsTopicOf(c.topics, pool) } }));
}

/**
 * The pools of DISPATCHER_POOLS with the packages loaded (ADR 0081). A package of another pool, or
 * a pool with no package, stops start-up (exit 78): the first would run tools whose intents go to
 * a topic this dispatcher does not read, the second would consume a topic it cannot serve.
 */
export class DispatcherPools {
  readonly served: readonly ServedPool[];
  /** The pool names, for the `pool = ANY(...)` of every scan over intents and effects. */
  readonly names: string[];
  private readonly byTopic: ReadonlyMap<string, ServedPool>;
  private readonly byName: ReadonlyMap<string, ServedPool>;

  constructor(config: { pools: readonly string[]; topics: Pick<Topics, 'intents'>; kafka: { groupId: string } }, tools: ToolSet) {
    const problems: string[] = [];
    const toolsByPool = new Map<string, ToolDefinition[]>(config.pools.map((p) => [p, []]));
    for (const pkg of tools.packages) {
      const pool = pkg.pool ?? DEFAULT_TOOL_POOL;
      const list = toolsByPool.get(pool);
      if (!list) problems.push(`ARVIS_TOOL_PACKAGES: ${pkg.name} is in pool "${pool}", which DISPATCHER_POOLS (${config.pools.join(',')}) does not name; load it only in that pool's dispatchers`);
      else list.push(...pkg.tools);
    }
    for (const [pool, list] of toolsByPool) {
      if (list.length === 0) problems.push(`DISPATCHER_POOLS: pool "${pool}" has no tool package among ARVIS_TOOL_PACKAGES; name its packages or leave the pool out`);
    }
    if (problems.length > 0) throw new ConfigError(problems);
    const consumers = poolConsumers(config);
    this.served = consumers.map((c) => ({ name: c.name, topic: c.topics.intents, groupId: c.groupId, fingerprint: tools.catalog.ofPool(c.name)!.fingerprint }));
    this.names = this.served.map((p) => p.name);
    this.byTopic = new Map(this.served.map((p) => [p.topic, p]));
    this.byName = new Map(this.served.map((p) => [p.name, p]));
  }

  /** The pool whose topic this is; a topic this dispatcher does not consume is not one of its slices. */
  ofTopic(topic: string): ServedPool {
    const p = this.byTopic.get(topic);
    if (!p) throw new Error(`topic ${topic} is not the intents topic of a pool this dispatcher serves`);
    return p;
  }

  get(name: string): ServedPool | undefined {
    return this.byName.get(name);
  }

  describe(): string {
    return this.served.map((p) => `${p.name} (topic ${p.topic}, group ${p.groupId}, catalog ${p.fingerprint})`).join('; ');
  }
}
