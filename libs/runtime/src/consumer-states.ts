import { Injectable } from '@nestjs/common';

/** Where one Kafka consumer of this process stands: readiness reports each (ADR 0081). */
export type ConsumerState = 'connecting' | 'connected' | 'rejoining' | 'stopped';

export interface ConsumerStatus {
  group: string;
  topics: string[];
  state: ConsumerState;
}

/**
 * The process's consumers by name (a dispatcher's: one per pool it serves), as their transports
 * report them; /health/ready shows them, so a pool whose consumer is not connected is seen as such.
 */
@Injectable()
export class ConsumerStates {
  private readonly byName = new Map<string, ConsumerStatus>();

  set(name: string, status: ConsumerStatus): void {
    this.byName.set(name, status);
  }

  update(name: string, state: ConsumerState): void {
    const s = this.byName.get(name);
    if (s) s.state = state;
  }

  snapshot(): Record<string, ConsumerStatus> {
    return Object.fromEntries([...this.byName].map(([n, s]) => [n, { ...s, topics: [...s.topics] }]));
  }
}
